// Fail closed while the workflow engine or the worker is stopped. These stop components of the
// shared stack, so the file runs alone (vitest.config.ts); the start-up refusals are in
// fail-closed.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { control, newTenant, post, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { call } from './batch-fixtures.js';

describe('fail closed when the workflow engine is unavailable', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('answers 503 with a clear detail while Temporal is stopped, and recovers after', async () => {
    const ok = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, { 'x-api-key': t.key });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('VERIFIED');
    await control('stop', 'temporal');
    try {
      const started = Date.now();
      const res = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, { 'x-api-key': t.key });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Verification backend unavailable — retry shortly.' });
      expect(res.text).not.toContain('VERIFIED');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await control('start', 'temporal');
    }
    // The worker reconnects on its own; the next verification succeeds again.
    let status = 0;
    for (let i = 0; i < 30 && status !== 200; i++) {
      status = (await post('/verify/math', { expression: '2 + 2' }, { 'x-api-key': t.key })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe(200);
  }, 120_000);

  it('answers 503 when no worker picks the workflow up before its deadline', async () => {
    // An API process without an in-process worker (SVC_API_WORKER=off; workers/api-process.ts):
    // with the standalone worker stopped, nothing can take its workflow.
    const plain = await startExtraApi('api-no-worker', { SVC_API_WORKER: 'off' });
    await control('stop', 'worker');
    try {
      const res = await call(plain.url, 'POST', '/verify/math', t.key, { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/timed out|retry shortly/);
      expect(res.headers.get('x-workflow-id')).toMatch(/^verify-math-/);
      // The stack's API runs its own worker for the eager-start engines (math, process, RAG):
      // math still verifies, as a workflow with its audit entry, while the standalone worker is down.
      const ok = await post('/verify/math', { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' }, { 'x-api-key': t.key });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('VERIFIED');
      expect(ok.headers.get('x-workflow-id')).toMatch(/^verify-math-/);
      // An engine the in-process worker does not run (logic) still fails closed on that API.
      const logic = await post('/verify/logic', { query: '(AND (GT x 1) (LT x 3))' }, { 'x-api-key': t.key });
      expect(logic.status).toBe(503);
      expect(logic.body.detail).toMatch(/timed out|retry shortly/);
    } finally {
      await control('start', 'worker');
      await plain.proc.stop();
    }
  }, 180_000);
});
