import { beforeAll, describe, expect, it } from 'vitest';
import { control, newTenant, post, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';

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
    await control('stop', 'worker');
    try {
      const res = await post('/verify/math', { expression: '(a+b)^2 = a^2 + 2*a*b + b^2' }, { 'x-api-key': t.key });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/timed out|retry shortly/);
      expect(res.headers.get('x-workflow-id')).toMatch(/^verify-math-/);
    } finally {
      await control('start', 'worker');
    }
  }, 60_000);

  it('refuses to start without the lookup secret, or with it equal to the JWT secret', async () => {
    await expect(startExtraApi('api-no-lookup', 18111, { SVC_API_KEY_LOOKUP_SECRET: undefined }, false)).rejects.toThrow(
      /SVC_API_KEY_LOOKUP_SECRET is not set/,
    );
    await expect(
      startExtraApi('api-same-secret', 18112, { SVC_API_KEY_LOOKUP_SECRET: 'same-secret-value-same-secret-value', SVC_JWT_SECRET_KEY: 'same-secret-value-same-secret-value' }, false),
    ).rejects.toThrow(/SVC_API_KEY_LOOKUP_SECRET equals SVC_JWT_SECRET_KEY/);
  });

  it('answers the identity endpoint with 503 when the JWT secret is unset', async () => {
    const { proc, url } = await startExtraApi('api-no-jwt', 18113, { SVC_JWT_SECRET_KEY: undefined });
    try {
      const res = await fetch(`${url}/health/identity?nonce=abc`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ detail: 'server secrets not configured' });
    } finally {
      await proc.stop();
    }
  });
});
