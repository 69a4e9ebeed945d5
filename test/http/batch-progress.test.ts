// A running job's progress read (issue 22), black box: GET /verify/batch/{id} must not wait on
// the workflow's local activities (they hold its workflow task, and a query waits for that
// task). An API of its own with SVC_ACTIVITY_MODE=local runs the job's logic items as local
// activities too, so the whole job is one long workflow task; every GET issued while it runs
// answers `running` before the job completes, and the math unit, stored and audited early,
// shows in the progress read from the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { IDENTITY, call, pigeonhole, sleep, waitCompleted } from './batch-fixtures.js';

// Ten logic items of pigeonhole(8) (about 2 s of Z3 for the job here): a window wide enough that
// a read lands between the math unit's store write and the job's end on a machine twice as fast.
// CI's run of session 18 saw six pigeonhole(7) items finish inside two reads, the first one before
// the math unit was stored.
const LOGIC_ITEMS = 10;
const TOTAL = 4 + LOGIC_ITEMS;

describe('progress of a running job (extra API: SVC_ACTIVITY_MODE=local, SVC_BATCH_WAIT_SECONDS=0)', () => {
  let t: Member;
  let api: ExtraApi;
  beforeAll(async () => {
    t = await newTenant('enterprise');
    api = await startExtraApi('api-batch-progress', { SVC_ACTIVITY_MODE: 'local', SVC_BATCH_WAIT_SECONDS: '0' });
  }, 120_000);
  afterAll(async () => {
    await api?.proc.stop();
  });

  it('GET answers while local units run: running, before the job completes, with the stored math unit', async () => {
    // Four math items (one unit, stored and audited by its activity) and the slow logic items.
    const items = [
      ...Array.from({ length: 4 }, () => ({ query: IDENTITY, type: 'math' })),
      ...Array.from({ length: LOGIC_ITEMS }, () => ({ query: pigeonhole(8), type: 'logic' })),
    ];
    const res = await call(api.url, 'POST', '/verify/batch', t.key, { items });
    expect(res.status).toBe(202);
    const jobId = res.body.job_id as string;
    const reads: Array<{ at: number; body: any }> = [];
    for (let i = 0; i < 400; i++) {
      const r = await call(api.url, 'GET', `/verify/batch/${jobId}`, t.key);
      expect(r.status).toBe(200);
      reads.push({ at: Date.now(), body: r.body });
      if (r.body.status === 'completed') break;
      await sleep(50);
    }
    const done = await waitCompleted(api.url, t.key, jobId, 60_000);
    expect(done).toMatchObject({ status: 'completed', completed_items: TOTAL, failed_items: 0, progress_percent: 100 });
    const running = reads.filter((r) => r.body.status === 'running');
    // Reads came back while the job ran (a query alone would have waited for the task, i.e. for the
    // whole job: its answer would come after completed_at). A read issued just before the end may
    // answer just after it, so not every one is bounded by completed_at.
    expect(running.length).toBeGreaterThanOrEqual(1);
    expect(running.some((r) => r.at < Date.parse(done.completed_at))).toBe(true);
    for (const r of running) {
      // A snapshot never runs ahead of the job: its counters are its items.
      expect(r.body.completed_items + r.body.failed_items).toBe(r.body.items.length);
      expect(r.body.progress_percent).toBe(Math.floor((r.body.items.length * 100) / TOTAL));
      for (const item of r.body.items) expect(done.items).toContainEqual(item);
    }
    // The math unit shows before the job completes, VERIFIED as in the final job.
    const withMath = running.find((r) => r.body.items.length >= 4);
    expect(withMath).toBeDefined();
    expect(withMath!.body.items.slice(0, 4).map((i: any) => i.result.status)).toEqual(Array(4).fill('VERIFIED'));
  }, 120_000);
});
