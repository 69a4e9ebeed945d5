// POST /verify/batch, the rows that need the stack to themselves (run alone, see
// vitest.config.ts): the bounded job store (the job pool is shared by every API process, and
// the worker is stopped to keep jobs active) and durability through a worker crash and an API
// restart. The other batch rows are in batch.test.ts.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { control, db, get, newTenant, post, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { IDENTITY, SLOW_LOGIC, call, sleep, waitCompleted, type Res } from './batch-fixtures.js';

describe('bounded job store (extra API: SVC_BATCH_MAX_JOBS=2)', () => {
  let t: Member;
  let api: Awaited<ReturnType<typeof startExtraApi>>;
  beforeAll(async () => {
    t = await newTenant('enterprise');
    api = await startExtraApi('api-batch-cap', { SVC_BATCH_MAX_JOBS: '2', SVC_BATCH_WAIT_SECONDS: '0' });
  });
  afterAll(async () => {
    await api?.proc.stop();
  });

  const submit = () => call(api.url, 'POST', '/verify/batch', t.key, { items: [{ query: IDENTITY, type: 'math' }] });

  it('admits exactly as many concurrent jobs as there are slots, 503 for the rest; then evicts finished jobs, oldest first', async () => {
    await control('stop', 'worker');
    let a: Res;
    let b: Res;
    try {
      // Five submissions race for two slots while no worker runs (every admitted job stays active).
      const results = await Promise.all(Array.from({ length: 5 }, () => submit()));
      const admitted = results.filter((r) => r.status === 202);
      const refused = results.filter((r) => r.status === 503);
      expect(admitted).toHaveLength(2);
      expect(refused).toHaveLength(3);
      for (const r of refused) expect(r.body).toEqual({ detail: 'Batch capacity reached — retry shortly.' });
      [a, b] = admitted as [Res, Res];
      expect(a.body.job_id).not.toBe(b.body.job_id);
      const c = await submit();
      expect(c.status).toBe(503);
    } finally {
      await control('start', 'worker');
    }
    const [doneA, doneB] = await Promise.all([waitCompleted(api.url, t.key, a.body.job_id), waitCompleted(api.url, t.key, b.body.job_id)]);
    const older = Date.parse(doneA.completed_at) <= Date.parse(doneB.completed_at) ? doneA : doneB;
    const newer = older === doneA ? doneB : doneA;

    const c = await submit();
    expect([200, 202]).toContain(c.status);
    const gone = await call(api.url, 'GET', `/verify/batch/${older.job_id}`, t.key);
    const kept = await call(api.url, 'GET', `/verify/batch/${newer.job_id}`, t.key);
    if (doneA.completed_at !== doneB.completed_at) {
      expect(gone.status).toBe(404);
      expect(kept.status).toBe(200);
    } else {
      expect([gone.status, kept.status].sort()).toEqual([200, 404]);
    }
    const d = await submit();
    expect([200, 202]).toContain(d.status);
    expect((await call(api.url, 'GET', `/verify/batch/${a.body.job_id}`, t.key)).status).toBe(404);
    expect((await call(api.url, 'GET', `/verify/batch/${b.body.job_id}`, t.key)).status).toBe(404);
    expect((await waitCompleted(api.url, t.key, c.body.job_id)).status).toBe('completed');
    expect((await waitCompleted(api.url, t.key, d.body.job_id)).status).toBe('completed');
    // The two slots of this pool hold exactly the two newest jobs.
    const inPool = await (await db()).collection('batch_jobs').find({ slot: { $lt: 2 } }).project({ _id: 1 }).toArray();
    expect(inPool.map((x) => x._id).sort()).toEqual([c.body.job_id, d.body.job_id].sort());
  }, 150_000);
});

describe('durability', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant('enterprise');
  });

  /** Starts a POST without waiting for its answer; resolves the job id once its workflow has started. */
  async function submitInBackground(items: unknown[]) {
    const before = new Date();
    const answer = post('/verify/batch', { items }, { 'x-api-key': t.key }).catch((err: Error) => ({ status: 0, body: { error: err.message } }));
    const jobs = (await db()).collection('batch_jobs');
    for (let i = 0; i < 100; i++) {
      const doc = await jobs.findOne({ org_id: t.orgId, started: true, created_at: { $gte: before } });
      if (doc) return { jobId: String(doc._id), answer };
      await sleep(100);
    }
    throw new Error('batch job not started');
  }

  it('a 100-item batch survives a worker crash: every item reaches a final state exactly once', async () => {
    // 90 math items and 10 logic items that take Z3 about half a second each (two solver threads).
    const items = Array.from({ length: 100 }, (_, i) =>
      i % 10 === 5 ? { query: SLOW_LOGIC, type: 'logic' } : { query: i % 2 === 0 ? IDENTITY : `${i} + ${i}`, type: 'math' },
    );
    const { jobId, answer } = await submitInBackground(items);
    // Kill the worker mid-way: some items are done, others are running or not started.
    let progress = 0;
    for (let i = 0; i < 200 && progress < 10; i++) {
      const snap = await get(`/verify/batch/${jobId}`, { 'x-api-key': t.key });
      progress = snap.body.progress_percent;
      if (progress < 10) await sleep(50);
    }
    await control('kill9', 'worker');
    const atCrash = await get(`/verify/batch/${jobId}`, { 'x-api-key': t.key });
    expect(atCrash.status).toBe(200);
    expect(atCrash.body.status).toBe('running');
    expect(progress).toBeGreaterThanOrEqual(10);
    expect(progress).toBeLessThan(100);
    expect((await answer).status).toBe(202);
    await control('start', 'worker');

    const done = await waitCompleted(inject('apiUrl'), t.key, jobId, 180_000);
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
    const stored = await (await db()).collection('batch_jobs').find({ _id: jobId as any }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.items).toHaveLength(100);
  }, 300_000);

  it('a running job survives an API restart', async () => {
    const items = Array.from({ length: 16 }, (_, i) => (i % 4 === 0 ? { query: IDENTITY, type: 'math' } : { query: SLOW_LOGIC, type: 'logic' }));
    const { jobId, answer } = await submitInBackground(items);
    const stoppedAt = Date.now();
    await control('stop', 'api');
    await answer; // the waiting client lost its answer (or got the 202)
    await control('start', 'api');
    const done = await waitCompleted(inject('apiUrl'), t.key, jobId, 150_000);
    expect(done).toMatchObject({ status: 'completed', total_items: 16, completed_items: 16, failed_items: 0 });
    // It finished after the API went away: the job never depended on the API process.
    expect(Date.parse(done.completed_at)).toBeGreaterThan(stoppedAt);
    done.items.forEach((item: any, i: number) => expect(item.result).toMatchObject({ status: i % 4 === 0 ? 'VERIFIED' : 'UNSAT' }));
  }, 240_000);
});
