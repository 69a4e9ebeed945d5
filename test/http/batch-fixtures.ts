// Queries and HTTP helpers shared by the batch black-box files (batch.test.ts runs beside
// other files; batch.serial.test.ts stops and kills stack components and runs alone).
import type { Db } from 'mongodb';
import { db } from './helpers.js';
export const IDENTITY = '(x+1)^2 = x^2 + 2*x + 1';
export const DIFFER = '(x+1)^2 = x^2 + 1';
export const BARE = '2 + 3*4';
export const AMBIGUOUS = '8/2(2+2)';
export const DDL =
  'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT); CREATE TABLE orders (id INTEGER, user_id INTEGER, total REAL);';
export const CODE = 'import os\nos.system(input())\n';
/** Never solved in a few seconds (sum of three cubes): Z3 runs until its own time-out. */
export const HARD_LOGIC = '(VAR x Int) (VAR y Int) (VAR z Int) (EQ (PLUS (MULT x x x) (MULT y y y) (MULT z z z)) 33)';

/** Pigeonhole principle, n+1 pigeons in n holes: UNSAT, and Z3 needs about half a second for n = 7. */
export function pigeonhole(n: number): string {
  const decl: string[] = [];
  const parts: string[] = [];
  for (let i = 0; i <= n; i++) for (let j = 0; j < n; j++) decl.push(`(VAR p${i}_${j} Bool)`);
  for (let i = 0; i <= n; i++) parts.push(`(OR ${Array.from({ length: n }, (_, j) => `p${i}_${j}`).join(' ')})`);
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= n; i++) for (let k = i + 1; k <= n; k++) parts.push(`(NOT (AND p${i}_${j} p${k}_${j}))`);
  return `${decl.join(' ')} ${parts.join(' ')}`;
}
export const SLOW_LOGIC = pigeonhole(7);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Res {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(base: string, method: string, p: string, key: string | null, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Polls GET /verify/batch/{id} until the job is completed. */
export async function waitCompleted(base: string, key: string, jobId: string, timeoutMs = 90_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: Res | null = null;
  while (Date.now() < deadline) {
    last = await call(base, 'GET', `/verify/batch/${jobId}`, key).catch(() => null);
    if (last?.status === 200 && last.body.status === 'completed') return last.body;
    await sleep(300);
  }
  throw new Error(`job ${jobId} not completed in ${timeoutMs} ms; last: ${JSON.stringify(last?.body)?.slice(0, 500)}`);
}

/**
 * Waits (up to `ms`) until each job's slot is marked finished and released (its queue entry at the
 * slot's generation): a job's completion writes the job, then its slot, then the release
 * (persistence/batch.ts complete), so a GET can answer `completed` before the other two are
 * written. For rows that read the slot and its release after a completion; not before an
 * admission (batch-slot-directory measures the admissions' reads of a directory read at once:
 * waiting there changed which reads they made). Test-only reads of a small collection;
 * `database` is the store the jobs' API writes.
 */
export async function untilSlotsReleased(database: Db, jobIds: string[], ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const slots = await database
      .collection<{ _id: string; job_id: string | null; state: string; gen: number }>('batch_slots')
      .find({ job_id: { $in: jobIds } })
      .toArray();
    const queue = await database
      .collection<{ slot: number | string; gen: number; state: string }>('batch_slot_queue')
      .find({})
      .toArray();
    const released = (id: string) =>
      slots.some(
        (s) =>
          s.job_id === id &&
          s.state === 'finished' &&
          queue.some((q) => Number(q.slot) === Number(s._id) && q.gen === s.gen && q.state === 'finished'),
      );
    if (jobIds.every(released) || Date.now() > deadline) return;
    await sleep(100);
  }
}

/** A batch's audit entries, in chain order (found by its workflow id: a test-only read). */
export type AuditEntry = { _id: string; seq: number; domain: string; verified: boolean; result: { status: string } };
export const auditEntriesOf = async (workflowId: string): Promise<AuditEntry[]> =>
  (await db())
    .collection<AuditEntry>('audit_logs')
    .find({ 'result.workflow_id': workflowId })
    .toArray()
    .then((es) => es.sort((a, b) => a.seq - b.seq));

/** 100 math items: bare expressions, and every fourth a proven identity in the variable `v` (a distinct one per file keeps proofs apart). */
export const hundredMathItems = (v: string) =>
  Array.from({ length: 100 }, (_, i) => ({
    query: i % 4 === 0 ? `(${v}+${i})^2 = ${v}^2 + ${2 * i}*${v} + ${i * i}` : `${i} + 1`,
    type: 'math',
  }));
