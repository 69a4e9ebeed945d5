// POST /verify/batch, the row that needs the stack to itself (run alone, see vitest.config.ts):
// the bounded job store (the job pool is shared by every API process, and the worker is stopped
// to keep jobs active). Durability through a worker crash and an API restart is in
// batch-durability.test.ts (a worker and an API of its own); the other rows in batch.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, db, newTenant, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { IDENTITY, call, waitCompleted, type Res } from './batch-fixtures.js';

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
    // The stack's worker (default pools, PGlite included) exits on SIGTERM: no SIGKILL needed.
    expect(await control('stop', 'worker')).toEqual({ ok: true, ended: 'exited' });
    let a: Res;
    let b: Res;
    try {
      // Five submissions race for two slots while no worker runs (every admitted job stays active).
      const results = await Promise.all(Array.from({ length: 5 }, () => submit()));
      const admitted = results.filter((r) => r.status === 202);
      const refused = results.filter((r) => r.status === 503);
      expect(admitted).toHaveLength(2);
      expect(refused).toHaveLength(3);
      for (const r of refused)
        expect(r.body).toEqual({
          detail: 'Batch capacity reached — retry shortly.',
          code: expect.any(String),
          request_id: expect.any(String),
        });
      [a, b] = admitted as [Res, Res];
      expect(a.body.job_id).not.toBe(b.body.job_id);
      const c = await submit();
      expect(c.status).toBe(503);
    } finally {
      await control('start', 'worker');
    }
    const [doneA, doneB] = await Promise.all([
      waitCompleted(api.url, t.key, a.body.job_id),
      waitCompleted(api.url, t.key, b.body.job_id),
    ]);
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
    // The two slots of this pool hold exactly the two newest jobs, once the evicted jobs' documents
    // are deleted: after the POSTs answered, when the API's admissions are quiet (session 14,
    // docs/batch.md "Session 14, admission"; they answer 404 from the slot write on, above).
    const newest = [c.body.job_id, d.body.job_id].sort();
    const inPool = async () =>
      (
        await (
          await db()
        )
          .collection('batch_jobs')
          .find({ slot: { $lt: 2 } })
          .project({ _id: 1 })
          .toArray()
      )
        .map((x) => x._id as string)
        .sort();
    let held = await inPool();
    for (let i = 0; i < 75 && held.length > 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      held = await inPool();
    }
    expect(held).toEqual(newest);
  }, 150_000);
});
