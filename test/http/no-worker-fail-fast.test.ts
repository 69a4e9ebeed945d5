// Fail closed within 10 s when no worker is alive for an engine (issue 22): with no worker
// polling a task queue (as with the standalone worker stopped), a verification is answered with
// its engine's time-out 503 once its first workflow task has waited NO_WORKER_AFTER_MS for a
// worker (api/temporal.ts), not at its whole deadline (logic: 18 s + 5 s grace, 23 s before).
// The API runs on a task queue of its own, so the shared stack's worker is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { noWorkerApi } from './shared-apis.js';
import { call } from './batch-fixtures.js';
import { newTenant, stackEnv, type Member } from './helpers.js';

describe('no worker for the task queue: 503 within 10 s', () => {
  let t: Member;
  let api: { url: string; release: () => Promise<void> };
  let temporal: Client;
  beforeAll(async () => {
    temporal = new Client({
      connection: await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string }),
    });
    t = await newTenant();
    api = await noWorkerApi(); // shared with fail-closed's no-worker row
  }, 120_000);
  afterAll(async () => {
    await api?.release();
    await temporal?.connection.close();
  });

  it.each([
    ['/verify/logic', { query: '(AND (GT x 1) (LT x 3))' }, 'Logic verification timed out.', /^verify-logic-/],
    ['/verify/code', { code: 'print(1)', language: 'python' }, 'Code verification timed out.', /^verify-code-/],
    ['/verify/math', { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' }, 'Math verification timed out.', /^verify-math-/],
  ])(
    '%s answers its time-out 503 after the no-worker wait (7 s), not at its deadline',
    async (path, body, detail, id) => {
      const started = Date.now();
      const res = await call(api.url, 'POST', path, t.key, body);
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body.detail).toBe(detail);
      expect(res.headers.get('x-workflow-id')).toMatch(id);
      // The no-worker watch ended the run (terminated), not its deadline (timed out): by state, so a
      // loaded machine cannot blur it (math's whole deadline, 10 s, is too near the watch's 7 s to tell by time).
      const handle = temporal.workflow.getHandle(res.headers.get('x-workflow-id')!);
      await expect
        .poll(async () => (await handle.describe()).status.name, { timeout: 30_000, interval: 200 })
        .not.toBe('RUNNING');
      expect((await handle.describe()).status.name).toBe('TERMINATED');
      expect(took).toBeLessThanOrEqual(12_000); // 7-8 s measured; logic's and code's deadlines are 23 s and 15 s
      // Not answered before the no-worker wait (7 s): a live worker is never cut short.
      expect(took).toBeGreaterThanOrEqual(6_500);
    },
    60_000,
  );
});
