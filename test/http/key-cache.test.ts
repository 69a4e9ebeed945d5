// The API-key lookup cache (core/key-cache.ts, docs/performance.md): a key revoked through one
// API process is refused by that process at once, and by another process that has the key
// cached within the staleness bound (SVC_API_KEY_CACHE_TTL, 5 s by default).
import { describe, expect, it, onTestFinished } from 'vitest';
import { db, http, newTenant, post, stackEnv } from './helpers.js';
import { secondApi } from './shared-apis.js';

const MATH = { expression: '2 + 2' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('API-key cache across processes', () => {
  it('refuses a revoked key at once in the revoking process, and within the bound in another', async () => {
    const bound = Number(stackEnv().SVC_API_KEY_CACHE_TTL ?? 5) * 1000;
    expect(bound).toBeGreaterThan(0);
    const { url, release } = await secondApi();
    onTestFinished(release);
    const t = await newTenant();
    const other = (path: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.key },
        body: JSON.stringify(MATH),
      });
    // Both processes have the key cached now.
    expect((await post('/verify/math', MATH, { 'x-api-key': t.key })).status).toBe(200);
    expect((await other('/verify/math')).status).toBe(200);
    const cachedAt = Date.now();
    const revoke = await http('DELETE', `/auth/api-keys/${t.keyId}`, {
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(revoke.status).toBe(200);
    const revokedAt = Date.now();
    expect((await (await db()).collection('api_keys').findOne({ _id: t.keyId as any }))?.active).toBe(false);
    const here = await post('/verify/math', MATH, { 'x-api-key': t.key });
    expect(here.status).toBe(401);
    expect(here.body).toEqual({
      detail: 'API key is revoked, inactive or expired.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    // The other process's cache, not the store, answers while its entry is fresh: the store
    // already says revoked, yet that process still serves the key until the entry expires.
    const first = await other('/verify/math');
    if (Date.now() - cachedAt < bound - 1000) expect(first.status).toBe(200);
    let refusedAfter = -1;
    while (Date.now() - revokedAt < bound + 10_000) {
      const res = await other('/verify/math');
      if (res.status === 401) {
        refusedAfter = Date.now() - revokedAt;
        expect(await res.json()).toEqual({
          detail: 'API key is revoked, inactive or expired.',
          code: expect.any(String),
          request_id: expect.any(String),
        });
        break;
      }
      expect(res.status).toBe(200);
      await sleep(100);
    }
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    // Within the bound plus a loaded request's time (each try is a whole /verify/math); a cache
    // that ignored its bound would serve the key to the end of the loop (bound + 10 s).
    expect(refusedAfter).toBeLessThanOrEqual(bound + 3000);
    // And it stays refused.
    expect((await other('/verify/math')).status).toBe(401);
  }, 120_000);
});
