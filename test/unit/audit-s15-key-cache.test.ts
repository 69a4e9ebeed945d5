// Session 15: the key cache's single flight (core/key-cache.ts `load`). Concurrent misses of one
// digest share one lookup; an invalidation in this process (revocation, rotation, leak hold)
// starts a new generation that no later request joins and whose older lookups are not cached.
import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../core/key-cache.js';

type R = { ok: boolean; v: string };
const cacheable = (r: R) => (r.ok ? { keyId: 'key_1', value: r.v } : null);

function deferredLookup() {
  const releases: Array<(r: R) => void> = [];
  const lookup = () => new Promise<R>((res) => releases.push(res));
  return {
    lookup,
    calls: () => releases.length,
    /** Settles the latest lookup. */
    release: (r: R) => releases[releases.length - 1]?.(r),
    /** Settles lookup number `i` (0: the first). */
    releaseNth: (i: number, r: R) => releases[i]?.(r),
  };
}

describe('KeyCache single flight (session 15)', () => {
  it('20 concurrent misses of one digest make one lookup, and the result is cached', async () => {
    const cache = new KeyCache<string>(5000);
    const d = deferredLookup();
    const all = Array.from({ length: 20 }, () => cache.load('d1', d.lookup, cacheable));
    d.release({ ok: true, v: 'a' });
    const results = await Promise.all(all);
    expect(d.calls()).toBe(1);
    expect(results.every((r) => 'result' in r && r.result.v === 'a')).toBe(true);
    expect(await cache.load('d1', d.lookup, cacheable)).toEqual({ cached: 'a' });
    expect(d.calls()).toBe(1);
  });

  it('a refusal is shared by its concurrent waiters but never cached: the next request asks again', async () => {
    const cache = new KeyCache<string>(5000);
    const d = deferredLookup();
    const two = [cache.load('d1', d.lookup, cacheable), cache.load('d1', d.lookup, cacheable)];
    d.release({ ok: false, v: 'revoked' });
    expect((await Promise.all(two)).map((r) => ('result' in r ? r.result.ok : 'cached'))).toEqual([false, false]);
    expect(d.calls()).toBe(1);
    const again = cache.load('d1', d.lookup, cacheable);
    d.release({ ok: true, v: 'b' });
    await again;
    expect(d.calls()).toBe(2);
  });

  it('a revocation in this process: a request after it does not join the lookup before it, which is not cached', async () => {
    const cache = new KeyCache<string>(5000);
    const d = deferredLookup();
    const before = cache.load('d1', d.lookup, cacheable);
    cache.invalidateKey('key_1');
    const after = cache.load('d1', d.lookup, cacheable);
    expect(d.calls()).toBe(2);
    d.releaseNth(0, { ok: true, v: 'read-before-revocation' });
    expect(await before).toEqual({ result: { ok: true, v: 'read-before-revocation' } });
    expect(cache.get('d1')).toBeUndefined(); // not cached: it may be what was revoked
    d.releaseNth(1, { ok: false, v: 'revoked' });
    expect(await after).toEqual({ result: { ok: false, v: 'revoked' } });
    expect(cache.get('d1')).toBeUndefined();
  });

  it('a leak hold starts a new generation too, and keeps the digest out of the cache', async () => {
    const cache = new KeyCache<string>(5000);
    const d = deferredLookup();
    const before = cache.load('d1', d.lookup, cacheable);
    cache.hold('d1', 60_000);
    const after = cache.load('d1', d.lookup, cacheable);
    expect(d.calls()).toBe(2);
    d.releaseNth(0, { ok: true, v: 'x' });
    d.releaseNth(1, { ok: true, v: 'y' });
    await Promise.all([before, after]);
    expect(cache.get('d1')).toBeUndefined();
  });

  it('a failed lookup rejects every waiter and leaves nothing in flight', async () => {
    const cache = new KeyCache<string>(5000);
    let calls = 0;
    let fail: (e: Error) => void = () => undefined;
    const lookup = () => {
      calls++;
      return new Promise<R>((_, rej) => (fail = rej));
    };
    const two = [cache.load('d1', lookup, cacheable), cache.load('d1', lookup, cacheable)];
    fail(new Error('store down'));
    for (const p of two) await expect(p).rejects.toThrow('store down');
    const next = cache.load('d1', lookup, cacheable);
    expect(calls).toBe(2);
    fail(new Error('still down'));
    await expect(next).rejects.toThrow('still down');
  });
});
