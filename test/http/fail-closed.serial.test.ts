// Fail closed while the workflow engine is stopped. This stops a component of the shared stack,
// so the file runs alone (vitest.config.ts); the start-up refusals and the no-worker rows (on
// task queues of their own) are in fail-closed.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { control, newTenant, post, type Member } from './helpers.js';

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
      expect(res.body).toEqual({
        detail: 'Verification backend unavailable — retry shortly.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
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
});
