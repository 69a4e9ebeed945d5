// Evictions off the running jobs' writes (issue 22, session 18; docs/performance.md "Session 18:
// evictions at the job limit"), black box: an API of its own on a database of its own
// (SVC_BATCH_MAX_JOBS=2, a job store no other file shares) recording its store commands
// (test/store-commands/capture.mjs), and a worker of its own that the first row stops. At the
// limit every admission evicts a finished job; its documents (a ~120 KB result document per 100
// items, the request, the job) are deleted after the POST answered. Session 17 deleted them once
// the admissions paused for 300 ms, three commands per job, while the jobs just admitted wrote
// their chunks and audit entries into SQLite's one writer. Now the deletions also wait for the
// jobs this process started (until it sees them finish, or a hold from their size runs out), and
// a burst's evicted jobs go out together: three `delete` commands for all of them. The evicted
// jobs answer 404 at once either way, and their documents do not stay.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOwnDbStack, type OwnDbStack } from './own-db-stack.js';
import { IDENTITY, BARE, call, sleep, waitCompleted } from './batch-fixtures.js';
import { captureEnv } from '../store-commands/env.js';
import { readCapture, type Captured } from '../store-commands/classify.js';

const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };
const EVERYTHING = { job: true, unit: true, request: true };
const NOTHING = { job: false, unit: false, request: false };
/** api/batch-jobs.ts RUN_HOLD_BASE_MS and RUN_HOLD_PER_ITEM_MS: how long a started job holds the deletions when its end is not seen. */
const holdMs = (items: number) => 2_000 + 25 * items;

describe('evictions held while the jobs run, then deleted together (an API of its own on a database of its own, SVC_BATCH_MAX_JOBS=2)', () => {
  let own: OwnDbStack;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-batch-evict18-'));
  beforeAll(async () => {
    own = await startOwnDbStack('evict18', {
      SVC_BATCH_MAX_JOBS: '2',
      SVC_BATCH_WAIT_SECONDS: '0',
      // The background sweep of never-started jobs stays out of the windows measured here.
      SVC_BATCH_ORPHAN_SECONDS: '3600',
      ...captureEnv(dir),
    });
    // 100-item jobs (the free plan takes 10): its only organization, before its key is first used.
    await own.db.collection('organizations').updateMany({}, { $set: { plan: 'enterprise' } });
  }, 240_000);
  afterAll(async () => {
    await own?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const submit = (items: unknown[]) => call(own.api.url, 'POST', '/verify/batch', own.key, { items });
  const get = (jobId: string) => call(own.api.url, 'GET', `/verify/batch/${jobId}`, own.key);
  const coll = (name: string) => own.db.collection<{ _id: string; [k: string]: any }>(name);
  const stored = async (jobId: string) => ({
    job: (await coll('batch_jobs').findOne({ _id: jobId })) !== null,
    unit: (await coll('batch_results').findOne({ _id: `${jobId}#0` })) !== null,
    request: (await coll('batch_requests').findOne({ _id: jobId })) !== null,
  });
  /** Polls until nothing of the jobs is stored; returns what is left of each. */
  const goneWithin = async (jobIds: string[], ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const left = await Promise.all(jobIds.map(stored));
      if (left.every((s) => !s.job && !s.unit && !s.request) || Date.now() > deadline) return left;
      await sleep(100);
    }
  };
  /** The API's `delete` commands on the three collections of a job since `from` (flushed every 250 ms). */
  const deletes = async (from: number): Promise<Captured[]> => {
    await sleep(600);
    return readCapture(dir).filter(
      (c) =>
        !(c.role ?? '').includes('worker') &&
        c.t >= from &&
        c.cmd === 'delete' &&
        ['batch_jobs', 'batch_results', 'batch_requests'].includes(c.coll ?? ''),
    );
  };
  const two = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  /** 99 math items and a logic one: never a one-step eager job, so it runs only on the worker of this file. */
  const hundred = [
    ...Array.from({ length: 99 }, (_, i) => ({ query: `${i} + 1`, type: 'math' })),
    { query: '(VAR x Int) (GT x 5)', type: 'logic' },
  ];
  let running: string[] = [];

  it("a burst's evicted jobs answer 404 at once; their documents stay while the jobs that evicted them run (the worker is stopped) and go once the jobs' hold runs out, three delete commands for the whole burst", async () => {
    const filled = await Promise.all([submit(two), submit(two)]);
    expect(filled.map((r) => r.status)).toEqual([202, 202]);
    const old = filled.map((r) => r.body.job_id as string);
    for (const id of old) await waitCompleted(own.api.url, own.key, id, 120_000);
    expect(await Promise.all(old.map(stored))).toEqual([EVERYTHING, EVERYTHING]);

    await own.worker.stop(); // the new jobs start, and run only once it is back
    try {
      const sentAt = Date.now();
      const burst = await Promise.all([submit(hundred), submit(hundred)]);
      const answeredAt = Date.now();
      expect(
        burst.map((r) => r.status),
        JSON.stringify(burst.map((r) => r.body)),
      ).toEqual([202, 202]);
      for (const r of burst) expect(r.body).toMatchObject({ status: 'running', total_items: 100, items: [] });
      running = burst.map((r) => r.body.job_id as string);
      // Evicted from the slot write on: 404, whatever of their documents is still stored.
      for (const id of old) {
        const gone = await get(id);
        expect(gone.status).toBe(404);
        expect(gone.body).toEqual(NOT_FOUND_BODY);
      }
      // A second after the answers (three times the admissions' quiet time; session 17 had deleted
      // them by then) the jobs that evicted them still run: their documents are all there.
      await sleep(Math.max(0, answeredAt + 1_000 - Date.now()));
      expect((await get(running[0] as string)).body).toMatchObject({ status: 'running' });
      expect(await Promise.all(old.map(stored))).toEqual([EVERYTHING, EVERYTHING]);
      // They go once the hold runs out (the worker is still stopped), at most the deferral's bound (15 s) after.
      expect(await goneWithin(old, 30_000)).toEqual([NOTHING, NOTHING]);
      for (const id of old) expect((await get(id)).status).toBe(404);
      const sent = await deletes(sentAt);
      // Not before the hold: it starts after each workflow start, so after the first POST was sent.
      for (const c of sent) expect(c.t).toBeGreaterThanOrEqual(sentAt + holdMs(hundred.length));
      // Both jobs in one command per collection (session 17: one per job), each statement a point
      // delete by `_id` (the capture keeps a filter's shape, not its values).
      for (const name of ['batch_jobs', 'batch_results', 'batch_requests']) {
        const cmds = sent.filter((c) => c.coll === name);
        expect(cmds, name).toHaveLength(1);
        expect(cmds[0]?.ops, name).toEqual([{ filter: { _id: 'string' } }, { filter: { _id: 'string' } }]);
      }
    } finally {
      await own.worker.start();
    }
    for (const id of running) {
      const done = await waitCompleted(own.api.url, own.key, id, 120_000);
      expect(done).toMatchObject({ job_id: id, status: 'completed', total_items: 100 });
      expect(done.items).toHaveLength(100);
    }
  }, 360_000);

  it('once the process sees the jobs that evicted them finish (its GETs), the evicted documents go at once, not at the end of the hold', async () => {
    // The jobs in the store (the first row's two, once it ran): both finished before the burst.
    running = (await coll('batch_jobs').find({}).toArray()).map((d) => d._id);
    expect(running).toHaveLength(2);
    for (const id of running) await waitCompleted(own.api.url, own.key, id, 120_000);
    const items = Array.from({ length: 100 }, (_, i) => ({ query: `${i} * 2`, type: 'math' }));
    const sentAt = Date.now();
    const burst = await Promise.all([submit(items), submit(items)]);
    expect(
      burst.map((r) => r.status),
      JSON.stringify(burst.map((r) => r.body)),
    ).toEqual([202, 202]);
    const fresh = burst.map((r) => r.body.job_id as string);
    for (const id of running) expect((await get(id)).status).toBe(404);
    for (const id of fresh) await waitCompleted(own.api.url, own.key, id, 120_000);
    const seenDoneAt = Date.now();
    expect(await goneWithin(running, 30_000)).toEqual([NOTHING, NOTHING]);
    const sent = await deletes(sentAt);
    expect(sent.filter((c) => c.coll === 'batch_jobs')).toHaveLength(1);
    // Within the drain's poll (300 ms) and the commands' time of the last completion seen (or, on
    // a machine slower than the hold, at the hold's end, which is earlier still): without the
    // release it would wait the hold out (sentAt + 4.5 s).
    for (const c of sent) expect(c.t).toBeLessThanOrEqual(seenDoneAt + 1_500);
    // What the store holds of jobs is exactly the live ones.
    expect((await coll('batch_jobs').find({}).toArray()).map((d) => d._id).sort()).toEqual([...fresh].sort());
    expect((await coll('batch_requests').find({}).toArray()).map((d) => d._id).sort()).toEqual([...fresh].sort());
  }, 360_000);
});
