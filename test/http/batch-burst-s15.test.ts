// Session 15 (issue 22, 10 jobs at once flat with data), black box: a running one-unit job's GET
// reads its stored unit instead of asking the workflow (api/batch-jobs.ts progressQueryUseful).
// The math unit is a local activity holding the workflow's task, so the `progress` query waited
// its whole 250 ms deadline on every poll of such a job (10 jobs polled at once: ~300 ms a GET,
// and the queries queued on the worker). A one-unit job's GET still describes its workflow:
// terminated, it reads failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { temporalDataConverter } from '../../core/payload-codec.js';
import { get, newTenant, post, stackEnv, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { HARD_LOGIC, call, sleep } from './batch-fixtures.js';

/** (x+a)^4 expanded: a few ms of engine each, so a 100-item unit runs long enough to be polled. */
const quartic = (a: number) => `(x+${a})^4 = x^4 + ${4 * a}*x^3 + ${6 * a * a}*x^2 + ${4 * a ** 3}*x + ${a ** 4}`;
const JOBS = 4;

describe('GET of running one-unit jobs, four at once (extra API: SVC_BATCH_WAIT_SECONDS=0)', () => {
  let t: Member;
  let api: ExtraApi;
  beforeAll(async () => {
    t = await newTenant('enterprise');
    api = await startExtraApi('api-batch-burst-s15', { SVC_BATCH_WAIT_SECONDS: '0' });
  }, 120_000);
  afterAll(async () => {
    await api?.proc.stop();
  });

  it('every read 200; running reads answer without the query wait and never run ahead; all complete 100/0', async () => {
    const subs = await Promise.all(
      Array.from({ length: JOBS }, (_, j) =>
        call(api.url, 'POST', '/verify/batch', t.key, {
          items: Array.from({ length: 100 }, (_, i) => ({ query: quartic(j * 100 + i + 1), type: 'math' })),
        }),
      ),
    );
    for (const s of subs) expect(s.status).toBe(202);
    const reads = await Promise.all(
      subs.map(async (s) => {
        const jobId = s.body.job_id as string;
        const out: Array<{ ms: number; body: any }> = [];
        for (let i = 0; i < 2000; i++) {
          const t0 = performance.now();
          const r = await call(api.url, 'GET', `/verify/batch/${jobId}`, t.key);
          expect(r.status).toBe(200);
          out.push({ ms: performance.now() - t0, body: r.body });
          if (r.body.status === 'completed') break;
          await sleep(20);
        }
        return out;
      }),
    );
    const running = reads.flat().filter((r) => r.body.status === 'running');
    expect(running.length).toBeGreaterThanOrEqual(1);
    // Before: every read of a running one-unit job waited for the query's 250 ms deadline.
    expect(Math.min(...running.map((r) => r.ms))).toBeLessThan(250);
    reads.forEach((rs, j) => {
      const done = (rs.at(-1) as { body: any }).body;
      expect(done).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
      expect(done.items.map((i: any) => i.result.status)).toEqual(Array(100).fill('VERIFIED'));
      expect(done.items[0].query).toBe(quartic(j * 100 + 1));
      for (const r of rs.slice(0, -1)) {
        expect(r.body).toMatchObject({ job_id: done.job_id, status: 'running', total_items: 100, completed_at: null });
        // A snapshot never runs ahead of the job: its counters are its items, each as in the final job.
        expect(r.body.completed_items + r.body.failed_items).toBe(r.body.items.length);
        expect(r.body.progress_percent).toBe(r.body.items.length);
        for (const item of r.body.items) expect(done.items).toContainEqual(item);
      }
    });
  }, 180_000);
});

describe('a one-unit job terminated while it runs still reads failed (its workflow is described)', () => {
  let t: Member;
  let conn: Connection;
  beforeAll(async () => {
    t = await newTenant('enterprise');
    conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('one logic item (one unit), terminated: GET answers failed, the item failed, nothing released', async () => {
    const sub = await post('/verify/batch', { items: [{ query: HARD_LOGIC, type: 'logic' }] }, { 'x-api-key': t.key });
    expect(sub.status).toBe(202);
    const jobId = sub.body.job_id as string;
    const running = await get(`/verify/batch/${jobId}`, { 'x-api-key': t.key });
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({ status: 'running', completed_items: 0, failed_items: 0, items: [] });
    const client = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
    await client.workflow.getHandle(sub.body.workflow_id).terminate('session 15: one-unit job read');
    const res = await get(`/verify/batch/${jobId}`, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    const detail = 'Job failed: its workflow was terminated before the job completed; no result was released.';
    expect(res.body).toMatchObject({
      job_id: jobId,
      status: 'failed',
      total_items: 1,
      completed_items: 0,
      failed_items: 1,
      progress_percent: 100,
    });
    expect(res.body.items).toEqual([
      { id: `${jobId}-0`, query: HARD_LOGIC, type: 'logic', status: 'failed', error: detail, latency_ms: 0 },
    ]);
  }, 60_000);
});
