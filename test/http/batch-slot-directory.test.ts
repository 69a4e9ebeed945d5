// The batch slot directory (issue 22, docs/batch.md "The slot directory"), black box: an API of
// its own on a database of its own (so its SVC_BATCH_MAX_JOBS=3 bounds a job store no other file
// shares) that records its store commands (test/store-commands/capture.mjs). Racing admissions at
// the slot limit take distinct slots and the rest get the 503; once the jobs finished (a worker
// of its own), each admission evicts the job that finished first, by key: the admissions read
// batch_slots only by _id.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { PROJECT_ROOT } from '../../core/project-paths.js';
import { PASSWORD, randomIp, stackEnv, uniqueEmail } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { captureEnv } from '../store-commands/env.js';
import { classify, label, readCapture } from '../store-commands/classify.js';
import { IDENTITY, call, waitCompleted, type Res } from './batch-fixtures.js';

const CAPACITY_BODY = {
  detail: 'Batch capacity reached — retry shortly.',
  code: expect.any(String),
  request_id: expect.any(String),
};

// The API's background sweep of unfinished evictions (api/batch-jobs.ts: 3 s after its start, then
// every few minutes) reads all of batch_slots: bounded, and not an admission's read. A machine that
// reaches the last row's admissions within 3 s of the API's start (CI's is faster than ours) meets
// it inside the window: it is told apart by its caller, the line of persistence/batch.ts
// `sweepEvicted` that reads the slots.
const SWEEP_SITE = (() => {
  const lines = readFileSync(path.join(PROJECT_ROOT, 'persistence', 'batch.ts'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.includes('async sweepEvicted('));
  const at = lines.findIndex((l, i) => start >= 0 && i > start && l.includes('this.allSlots()'));
  if (at < 0) throw new Error('persistence/batch.ts sweepEvicted reads no slots: update this file');
  return `persistence/batch.ts:${at + 1}`;
})();

describe('slot directory (an API of its own on a database of its own, SVC_BATCH_MAX_JOBS=3)', () => {
  const dbName = `svc_slotdir_${randomBytes(4).toString('hex')}`;
  const uri = (() => {
    const u = new URL(stackEnv().MONGODB_URI as string);
    u.pathname = `/${dbName}`;
    return u.toString();
  })();
  const queue = `svc-slotdir-${randomUUID()}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-slotdir-capture-'));
  const env = { MONGODB_URI: uri, SVC_TASK_QUEUE: queue };
  let api: ExtraApi;
  let worker: ManagedProcess | undefined;
  let mongo: MongoClient;
  let key: string;
  beforeAll(async () => {
    api = await startExtraApi('api-slotdir', {
      ...env,
      ...captureEnv(dir),
      SVC_BATCH_MAX_JOBS: '3',
      SVC_BATCH_WAIT_SECONDS: '0',
      // The background sweep of never-started jobs (session 16: a read of batch_slots every half of
      // it) stays out of the command window the last row measures: it is not an admission's read.
      SVC_BATCH_ORPHAN_SECONDS: '3600',
    });
    mongo = new MongoClient(uri);
    await mongo.connect();
    const signup = await fetch(`${api.url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
      body: JSON.stringify({ email: uniqueEmail('slotdir'), password: PASSWORD, organization_name: 'Slot directory' }),
    });
    expect(signup.status).toBe(200);
    const { access_token } = (await signup.json()) as { access_token: string };
    const minted = await fetch(`${api.url}/auth/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ name: 'slot directory' }),
    });
    expect(minted.status).toBe(200);
    key = ((await minted.json()) as { key: string }).key;
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop()]);
    await mongo
      ?.db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await mongo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const submit = () => call(api.url, 'POST', '/verify/batch', key, { items: [{ query: IDENTITY, type: 'math' }] });
  const slotOf = async (jobId: string) =>
    (
      await mongo
        .db(dbName)
        .collection('batch_jobs')
        .findOne({ _id: jobId as any })
    )?.slot as number;
  let admitted: Res[] = [];

  it('racing admissions at the slot limit take distinct slots; the rest get 503 with the capacity detail', async () => {
    // No worker polls the queue yet: every admitted job stays running. The store's first admission writes the directory.
    const first = await submit();
    expect(first.status).toBe(202);
    const raced = await Promise.all(Array.from({ length: 5 }, () => submit()));
    const won = raced.filter((r) => r.status === 202);
    const refused = raced.filter((r) => r.status === 503);
    expect(won).toHaveLength(2);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.body).toEqual(CAPACITY_BODY);
    admitted = [first, ...won];
    const slots = await Promise.all(admitted.map((r) => slotOf(r.body.job_id)));
    expect(slots.sort()).toEqual([0, 1, 2]);
    const again = await submit();
    expect(again.status).toBe(503);
    expect(again.body).toEqual(CAPACITY_BODY);
  }, 120_000);

  it('finished jobs are evicted oldest first by key: admission reads batch_slots only by _id', async () => {
    expect(admitted).toHaveLength(3);
    worker = await startExtraWorker('worker-slotdir', env);
    const done = await Promise.all(admitted.map((r) => waitCompleted(api.url, key, r.body.job_id, 120_000)));
    // In the order they finished (ties, same millisecond, in any order).
    const byFinish = [...done].sort((a, b) => Date.parse(a.completed_at) - Date.parse(b.completed_at));
    const since = Date.now();
    const evicted: string[] = [];
    for (let i = 0; i < 3; i++) {
      const next = await submit();
      // Admitted: 202, or 200 when its one item finished before the API read the job back (a worker is running now).
      expect([200, 202]).toContain(next.status);
      expect(next.body.job_id).toMatch(/^bj_/);
      const gone = await Promise.all(done.map((d) => call(api.url, 'GET', `/verify/batch/${d.job_id}`, key)));
      const now = done.filter((_, k) => gone[k]!.status === 404).map((d) => d.job_id);
      expect(now).toHaveLength(i + 1);
      evicted.push(...now.filter((id) => !evicted.includes(id)));
      for (const g of gone) expect([200, 404]).toContain(g.status);
    }
    const ms = (id: string) => Date.parse(byFinish.find((d) => d.job_id === id).completed_at);
    for (let i = 1; i < evicted.length; i++) expect(ms(evicted[i]!)).toBeGreaterThanOrEqual(ms(evicted[i - 1]!));
    // What the admissions asked the store: the slots by _id only, the directory by _id only.
    // The capture is flushed every 250 ms (test/store-commands/capture.mjs; CI once read it before any
    // flush: 0 reads): wait until it holds the three admissions' reads, at most 15 s, then one more flush.
    const slotOps = () =>
      readCapture(dir)
        .filter((c) => c.t >= since && !(c.callers ?? '').startsWith(SWEEP_SITE))
        .flatMap(classify)
        .filter((o) => ['batch_slots', 'batch_slot_queue', 'batch_slot_cursors'].includes(o.coll) && o.cls !== 'admin');
    const finds = (coll: string) => slotOps().filter((o) => o.coll === coll && o.cmd === 'find').length;
    for (let i = 0; i < 150 && (finds('batch_slot_queue') < 3 || finds('batch_slots') < 3); i++)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    const ops = slotOps();
    const scans = ops.filter((o) => o.scansOnSqlite).map((o) => `${o.coll} ${o.cmd} ${label(o)} at ${o.site}`);
    expect(scans).toEqual([]);
    expect(ops.filter((o) => o.coll === 'batch_slot_queue' && o.cmd === 'find').length).toBeGreaterThanOrEqual(3);
    expect(ops.filter((o) => o.coll === 'batch_slots' && o.cmd === 'find').length).toBeGreaterThanOrEqual(3);
  }, 240_000);
});
