// Session 17 (issue 22, memory): the worker stops its warm Z3 worker after
// SVC_Z3_WARM_IDLE_RELEASE_MS without a solve (as PGlite's process), and the next /verify/logic
// starts one on demand inside its own deadline and answers exactly as a warm one would
// (engines/logic/pool.ts warmIdleReleaseMs; docs/performance.md "Session 17: the worker and its
// pools"). An extra worker with a 3 s quiet period, and an API on its queue.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import type { ManagedProcess } from '../../infra/stack.js';

const IDLE_MS = 3_000;
const RELEASED = 'Z3 worker released after its idle period';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /verify/logic: the warm Z3 worker released when quiet, started again on demand (extra worker and API)', () => {
  let t: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  const queue = 'svc-logic-z3-warm-release';
  const verify = async (body: unknown) => {
    const res = await fetch(`${api.url}/verify/logic`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const count = (text: string) => readFileSync(worker.logFile, 'utf8').split(text).length - 1;
  const untilReleased = async (n: number) => {
    const deadline = Date.now() + 60_000;
    while (count(RELEASED) < n && Date.now() < deadline) await sleep(250);
    expect(count(RELEASED)).toBe(n);
  };
  const expectSat = async () => {
    const t0 = Date.now();
    const res = await verify({ query: '(AND (GT x 5) (LT x 7) (EQ y (PLUS x 1)))' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'SAT',
      model: { x: '6', y: '7' },
      independent_check: { coverage: 'full', constraints_total: 1, constraints_unchecked_quantified: 0 },
      provider_used: null,
    });
    return Date.now() - t0;
  };

  beforeAll(async () => {
    t = await newTenant();
    worker = await startExtraWorker('worker-logic-z3-warm-release', {
      SVC_TASK_QUEUE: queue,
      SVC_Z3_WARM_IDLE_RELEASE_MS: String(IDLE_MS),
      SVC_LOG_LEVEL: 'info',
    });
    api = await startExtraApi('api-logic-z3-warm-release', { SVC_TASK_QUEUE: queue });
  }, 240_000);
  afterAll(async () => {
    await api?.proc.stop();
    await worker?.stop();
  });

  it('the warm worker is released after the quiet period; the next request starts one and gets the exact verdict', async () => {
    await expectSat();
    await untilReleased(1);
    // Cold: a Z3 worker started on demand, inside the request's deadline (SVC_Z3_TIMEOUT, 15 s).
    expect(await expectSat()).toBeLessThan(15_000);
    // Warm again right after: no second release in between.
    await expectSat();
    expect(count(RELEASED)).toBe(1);
  }, 120_000);

  it('released again after the next quiet period, and answered again', async () => {
    await untilReleased(2);
    await expectSat();
  }, 120_000);
});
