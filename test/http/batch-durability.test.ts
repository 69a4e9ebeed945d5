// POST /verify/batch durability, on a worker and an API of its own (a task queue of its own), so
// the file runs beside the others: a 100-item job survives a crash of its worker with every item
// final exactly once, and a running job survives a restart of the API that accepted it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOfDoc, type StoredResultDoc } from '../../persistence/batch.js';
import type { ManagedProcess } from '../../infra/stack.js';
import { db, newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { IDENTITY, SLOW_LOGIC, call, sleep, waitCompleted } from './batch-fixtures.js';

describe('durability (a worker and an API of its own, on a task queue of its own)', () => {
  let t: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  beforeAll(async () => {
    const queue = `svc-batch-durability-${randomUUID()}`;
    t = await newTenant('enterprise');
    [worker, api] = await Promise.all([
      startExtraWorker('worker-batch-durability', { SVC_TASK_QUEUE: queue, SVC_Z3_POOL_SIZE: '2' }),
      startExtraApi('api-batch-durability', { SVC_TASK_QUEUE: queue }),
    ]);
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop()]);
  });

  /** Starts a POST without waiting for its answer; resolves the job id once its job is stored (the caller then waits for progress, so for its workflow). */
  async function submitInBackground(items: unknown[]) {
    const before = new Date();
    const answer = call(api.url, 'POST', '/verify/batch', t.key, { items }).catch((err: Error) => ({
      status: 0,
      body: { error: err.message },
    }));
    const jobs = (await db()).collection('batch_jobs');
    for (let i = 0; i < 100; i++) {
      const doc = await jobs.findOne({ org_id: t.orgId, created_at: { $gte: before } });
      if (doc) return { jobId: String(doc._id), answer };
      await sleep(100);
    }
    throw new Error('batch job not started');
  }

  it('a 100-item batch survives a worker crash: every item reaches a final state exactly once', async () => {
    // 90 math items and 10 logic items that take Z3 about half a second each (two solver threads).
    const items = Array.from({ length: 100 }, (_, i) =>
      i % 10 === 5
        ? { query: SLOW_LOGIC, type: 'logic' }
        : { query: i % 2 === 0 ? IDENTITY : `${i} + ${i}`, type: 'math' },
    );
    const { jobId, answer } = await submitInBackground(items);
    // Kill the worker mid-way: some items are done, others are running or not started.
    let progress = 0;
    for (let i = 0; i < 200 && progress < 10; i++) {
      const snap = await call(api.url, 'GET', `/verify/batch/${jobId}`, t.key);
      progress = snap.body.progress_percent;
      if (progress < 10) await sleep(50);
    }
    await worker.kill9();
    const atCrash = await call(api.url, 'GET', `/verify/batch/${jobId}`, t.key);
    expect(atCrash.status).toBe(200);
    expect(atCrash.body.status).toBe('running');
    expect(progress).toBeGreaterThanOrEqual(10);
    expect(progress).toBeLessThan(100);
    expect((await answer).status).toBe(202);
    await worker.start();

    const done = await waitCompleted(api.url, t.key, jobId, 180_000);
    expect(done).toMatchObject({ status: 'completed', total_items: 100, progress_percent: 100 });
    expect(done.items).toHaveLength(100);
    expect(done.items.map((i: any) => i.id)).toEqual(Array.from({ length: 100 }, (_, i) => `${jobId}-${i}`));
    expect(new Set(done.items.map((i: any) => i.id)).size).toBe(100);
    for (const item of done.items) expect(['completed', 'failed']).toContain(item.status);
    expect(done.completed_items + done.failed_items).toBe(100);
    // Attempts lost with the crashed worker are retried on the new one: nothing fails.
    expect(done.failed_items).toBe(0);
    done.items.forEach((item: any, i: number) => {
      if (i % 10 === 5) expect(item.result).toMatchObject({ status: 'UNSAT' });
      else if (i % 2 === 0) expect(item.result).toMatchObject({ status: 'VERIFIED' });
      else expect(item.result).toMatchObject({ status: 'UNVERIFIABLE', developer_fields: { value: 2 * i } });
    });
    // Stored once, with every item.
    const stored = await (
      await db()
    )
      .collection('batch_jobs')
      .find({ _id: jobId as any })
      .toArray();
    expect(stored).toHaveLength(1);
    // Its items are in its result documents (issue 22), each index exactly once.
    const results = await Promise.all(
      Array.from({ length: stored[0]!.units }, (_, u) =>
        db().then((d) => d.collection<StoredResultDoc>('batch_results').findOne({ _id: `${jobId}#${u}` as any })),
      ),
    );
    const indices = results
      .flatMap((r) => resultOfDoc(r!).items.map((s: any) => s.index))
      .sort((a: number, b: number) => a - b);
    expect(indices).toEqual(Array.from({ length: 100 }, (_, i) => i));
  }, 300_000);

  it('a running job survives an API restart', async () => {
    const items = Array.from({ length: 16 }, (_, i) =>
      i % 4 === 0 ? { query: IDENTITY, type: 'math' } : { query: SLOW_LOGIC, type: 'logic' },
    );
    const { jobId, answer } = await submitInBackground(items);
    const stoppedAt = Date.now();
    await api.proc.stop();
    await answer; // the waiting client lost its answer (or got the 202)
    await api.proc.start();
    const done = await waitCompleted(api.url, t.key, jobId, 150_000);
    expect(done).toMatchObject({ status: 'completed', total_items: 16, completed_items: 16, failed_items: 0 });
    // It finished after the API went away: the job never depended on the API process.
    expect(Date.parse(done.completed_at)).toBeGreaterThan(stoppedAt);
    done.items.forEach((item: any, i: number) =>
      expect(item.result).toMatchObject({ status: i % 4 === 0 ? 'VERIFIED' : 'UNSAT' }),
    );
  }, 240_000);
});
