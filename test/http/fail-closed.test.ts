// Fail closed on bad server secrets: an API process refuses to start, or answers 503 where the
// secret is needed. Each row starts its own API process. The rows that stop Temporal or the
// worker are in fail-closed.serial.test.ts.
import { describe, expect, it } from 'vitest';
import { startExtraApi } from './extra-api.js';

describe('fail closed on missing or unsafe server secrets', () => {
  it('refuses to start without the lookup secret, or with it equal to the JWT secret', async () => {
    // Both processes start side by side; each must exit with its own reason.
    await Promise.all([
      expect(startExtraApi('api-no-lookup', { SVC_API_KEY_LOOKUP_SECRET: undefined }, false)).rejects.toThrow(/SVC_API_KEY_LOOKUP_SECRET is not set/),
      expect(
        startExtraApi('api-same-secret', { SVC_API_KEY_LOOKUP_SECRET: 'same-secret-value-same-secret-value', SVC_JWT_SECRET_KEY: 'same-secret-value-same-secret-value' }, false),
      ).rejects.toThrow(/SVC_API_KEY_LOOKUP_SECRET equals SVC_JWT_SECRET_KEY/),
    ]);
  });

  it('answers the identity endpoint with 503 when the JWT secret is unset', async () => {
    const { proc, url } = await startExtraApi('api-no-jwt', { SVC_JWT_SECRET_KEY: undefined });
    try {
      const res = await fetch(`${url}/health/identity?nonce=abc`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ detail: 'server secrets not configured' });
    } finally {
      await proc.stop();
    }
  });
});
