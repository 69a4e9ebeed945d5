// Scale-out, black box: one batch runs across two workers, one of them is killed (SIGKILL)
// while the batch runs, and no item is lost: every item has its result and its own audit
// entry. The API side: two API processes behind one port (infra/api-cluster.ts); one is
// killed, the port keeps answering and the process is forked again.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { db, newTenant, stackEnv, type Member } from './helpers.js';
import { startExtraWorker } from './extra-worker.js';
import { ManagedProcess, ROOT } from '../../infra/stack.js';
import { temporalDataConverter } from '../../core/payload-codec.js';
import { auditLogId } from '../../activities/audit.js';
import { batchItemAuditLogId } from '../../activities/verify-batch.js';

const QUEUE = 'svc-scaleout';
const IDENTITY = '(x+1)^2 = x^2 + 2*x + 1';
const MIX = [IDENTITY, '(a+b)*(a-b) = a^2 - b^2', '(x+1)^2 = x^2 + 1', '2^10 + 3*7'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of a process's direct children (the cluster's API processes). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

describe('two workers and two API processes behind one port', () => {
  const procs: ManagedProcess[] = [];
  let workerA: ManagedProcess;
  let workerB: ManagedProcess;
  let api: ManagedProcess;
  let base: string;
  let t: Member;
  let client: Client;
  let conn: Connection;

  beforeAll(async () => {
    [workerA, workerB] = await Promise.all([startExtraWorker('worker-scale-a', { SVC_TASK_QUEUE: QUEUE }), startExtraWorker('worker-scale-b', { SVC_TASK_QUEUE: QUEUE })]);
    procs.push(workerA, workerB);
    const port = 18160 + Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
    base = `http://127.0.0.1:${port}`;
    api = new ManagedProcess(
      {
        name: 'api-scale-cluster',
        command: process.execPath,
        args: ['--import', 'tsx', path.join(ROOT, 'infra', 'api-cluster.ts')],
        env: { ...process.env, ...inject('stackEnv'), HOST: '127.0.0.1', PORT: String(port), SVC_TASK_QUEUE: QUEUE, SVC_BATCH_WAIT_SECONDS: '0', SVC_API_PROCESSES: '2' },
        ready: async (p) => p.logContains('SVC_API_CLUSTER_READY') && (await fetch(`${base}/health`).catch(() => null))?.status === 200,
        readyTimeoutMs: 150_000,
      },
      inject('dataDir'),
    );
    await api.start();
    procs.push(api);
    t = await newTenant('enterprise');
    conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
    client = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
  }, 400_000);

  afterAll(async () => {
    await conn?.close();
    for (const p of procs.reverse()) await p.stop();
  });

  it('loses no item of a batch when one of its two workers is killed mid-batch', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ query: MIX[i % MIX.length] as string, type: 'math' }));
    const res = await fetch(`${base}/verify/batch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.key }, body: JSON.stringify({ items }) });
    const submitted = await res.json();
    expect([200, 202]).toContain(res.status);
    const workflowId = submitted.workflow_id as string;
    const jobId = submitted.job_id as string;

    // Kill worker A as soon as the history shows it running part of the batch, while the job still runs.
    const identityA = `${workerA.pid}@`;
    let killedWhileRunning = false;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      const started = (history.events ?? []).some((e) => (e.activityTaskStartedEventAttributes?.identity ?? e.workflowTaskStartedEventAttributes?.identity ?? '').startsWith(identityA));
      if (started) {
        const job = await (await fetch(`${base}/verify/batch/${jobId}`, { headers: { 'x-api-key': t.key } })).json();
        killedWhileRunning = job.status === 'running';
        await workerA.kill9();
        break;
      }
      await sleep(50);
    }
    expect(killedWhileRunning, 'worker A held part of the batch and was killed before the job completed').toBe(true);

    let done: any = null;
    const until = Date.now() + 180_000;
    while (Date.now() < until) {
      const r = await fetch(`${base}/verify/batch/${jobId}`, { headers: { 'x-api-key': t.key } });
      if (r.status === 200) {
        const body = await r.json();
        if (body.status === 'completed') {
          done = body;
          break;
        }
      }
      await sleep(500);
    }
    expect(done, 'the batch completed on the surviving worker').not.toBeNull();
    expect(done).toMatchObject({ total_items: 100, completed_items: 100, failed_items: 0, progress_percent: 100 });
    expect(done.items.map((i: { id: string }) => i.id)).toEqual(Array.from({ length: 100 }, (_, i) => `${jobId}-${i}`));
    for (const [i, item] of (done.items as Array<{ query: string; status: string; result: { status: string; proof_ref: string | null } }>).entries()) {
      expect(item.status).toBe('completed');
      const expected = i % MIX.length < 2 ? 'VERIFIED' : 'UNVERIFIABLE';
      expect(item.result.status, `item ${i}`).toBe(expected);
      if (expected === 'VERIFIED') expect(item.result.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    }

    // Every item has its own audit entry (and the job its entry), with the item's verdict.
    const logs = (await db()).collection('audit_logs');
    for (let i = 0; i < 100; i++) {
      const entry = await logs.findOne({ _id: batchItemAuditLogId(t.orgId, workflowId, i) as any });
      expect(entry, `audit entry of item ${i}`).not.toBeNull();
      expect(entry).toMatchObject({ organization_id: t.orgId, domain: 'math', query: items[i]!.query, verified: done.items[i].result.status === 'VERIFIED' });
      expect((entry!.result as { proof_ref: string | null }).proof_ref).toBe(done.items[i].result.proof_ref ?? null);
    }
    expect(await logs.findOne({ _id: auditLogId(t.orgId, workflowId) as any })).toMatchObject({ domain: 'batch' });

    // Both workers ran part of it: A before the kill, B the rest (retries of A's lost attempts included).
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const identities = new Set((history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.identity).filter((x): x is string => Boolean(x)));
    expect([...identities].some((id) => id.startsWith(identityA))).toBe(true);
    expect([...identities].some((id) => id.startsWith(`${workerB.pid}@`))).toBe(true);
  }, 300_000);

  it('keeps answering on the one port when an API process dies, and forks it again', async () => {
    const before = childPids(api.pid as number);
    expect(before).toHaveLength(2);
    process.kill(before[0] as number, 'SIGKILL');
    await sleep(500); // the primary notices the exit and stops handing it connections
    // The other process answers meanwhile (authenticated: the store and Temporal are shared).
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${base}/auth/api-keys`, { headers: { authorization: `Bearer ${t.token}` } });
      expect(r.status).toBe(200);
    }
    let after: number[] = [];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      after = childPids(api.pid as number);
      if (after.length === 2 && !after.includes(before[0] as number)) break;
      await sleep(200);
    }
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
    expect(after).toContain(before[1]);
  }, 120_000);
});
