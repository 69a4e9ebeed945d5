// Fail closed on bad server secrets (an API process refuses to start, or answers 503 where the
// secret is needed), and when no worker takes a workflow. Each row starts its own API process,
// on a task queue of its own where it needs no worker; the row that stops Temporal is in
// fail-closed.serial.test.ts.
import { randomUUID } from 'node:crypto';
import { noWorkerApi } from './shared-apis.js';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startExtraApi } from './extra-api.js';
import { call, sleep } from './batch-fixtures.js';
import { newTenant, type Member } from './helpers.js';

describe('fail closed when no worker takes the workflow', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('answers 503 when no worker picks the workflow up before its deadline', async () => {
    // A plain API (no in-process worker) on a task queue no worker polls (shared with no-worker-fail-fast).
    const plain = await noWorkerApi();
    onTestFinished(plain.release);
    const res = await call(plain.url, 'POST', '/verify/math', t.key, { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' });
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/timed out|retry shortly/);
    expect(res.headers.get('x-workflow-id')).toMatch(/^verify-math-/);
  }, 180_000);

  it('an API process with its in-process worker verifies math alone; an engine it does not run still fails closed', async () => {
    // The API as the stack runs it (workers/api-process.ts), on a queue no standalone worker
    // polls: math is started eagerly and run by the API's own worker, as a workflow with its
    // audit entry; logic needs a standalone worker and answers 503.
    const api = await startExtraApi(
      'api-own-worker',
      { SVC_TASK_QUEUE: `svc-own-worker-${randomUUID()}`, SVC_ENGINE_POOL_SIZE: '1' },
      true,
      'api-process',
    );
    try {
      // Its worker attaches once its engine threads are warm.
      for (let i = 0; i < 180 && !api.proc.logContains('eager start on'); i++) await sleep(500);
      expect(api.proc.logContains('eager start on')).toBe(true);
      const ok = await call(api.url, 'POST', '/verify/math', t.key, { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('VERIFIED');
      expect(ok.headers.get('x-workflow-id')).toMatch(/^verify-math-/);
      const logic = await call(api.url, 'POST', '/verify/logic', t.key, { query: '(AND (GT x 1) (LT x 3))' });
      expect(logic.status).toBe(503);
      expect(logic.body.detail).toMatch(/timed out|retry shortly/);
    } finally {
      await api.proc.stop();
    }
  }, 240_000);
});

describe('fail closed on missing or unsafe server secrets', () => {
  it('refuses to start without the lookup secret, or with it equal to the JWT secret', async () => {
    // Both processes start side by side; each must exit with its own reason.
    await Promise.all([
      expect(startExtraApi('api-no-lookup', { SVC_API_KEY_LOOKUP_SECRET: undefined }, false)).rejects.toThrow(
        /SVC_API_KEY_LOOKUP_SECRET is not set/,
      ),
      expect(
        startExtraApi(
          'api-same-secret',
          {
            SVC_API_KEY_LOOKUP_SECRET: 'same-secret-value-same-secret-value',
            SVC_JWT_SECRET_KEY: 'same-secret-value-same-secret-value',
          },
          false,
        ),
      ).rejects.toThrow(/SVC_API_KEY_LOOKUP_SECRET equals SVC_JWT_SECRET_KEY/),
    ]);
  });

  it('answers the identity endpoint with 503 when the JWT secret is unset', async () => {
    const { proc, url } = await startExtraApi('api-no-jwt', { SVC_JWT_SECRET_KEY: undefined });
    try {
      const res = await fetch(`${url}/health/identity?nonce=abc`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        detail: 'server secrets not configured',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    } finally {
      await proc.stop();
    }
  });
});
