import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../core/key-cache.js';

describe('KeyCache', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => void (t += ms) };
  };

  it('serves an entry until its TTL, then forgets it', () => {
    const c = clock();
    const cache = new KeyCache<string>(5000, 100, c.now);
    cache.set('d1', 'key_1', 'v');
    expect(cache.get('d1')).toBe('v');
    c.advance(4999);
    expect(cache.get('d1')).toBe('v');
    c.advance(1);
    expect(cache.get('d1')).toBeUndefined();
  });

  it('invalidates every digest of a key at once', () => {
    const cache = new KeyCache<string>(5000);
    cache.set('d1', 'key_1', 'a');
    cache.set('d2', 'key_2', 'b');
    cache.invalidateKey('key_1');
    expect(cache.get('d1')).toBeUndefined();
    expect(cache.get('d2')).toBe('b');
  });

  it('keeps a held digest out of the cache until the hold ends', () => {
    const c = clock();
    const cache = new KeyCache<string>(5000, 100, c.now);
    cache.set('d1', 'key_1', 'a');
    cache.hold('d1', 60_000);
    expect(cache.get('d1')).toBeUndefined();
    cache.set('d1', 'key_1', 'a');
    expect(cache.get('d1')).toBeUndefined();
    c.advance(60_000);
    cache.set('d1', 'key_1', 'a');
    expect(cache.get('d1')).toBe('a');
  });

  it('caches nothing with a TTL of 0, and stays within its size bound', () => {
    const off = new KeyCache<string>(0);
    off.set('d1', 'key_1', 'a');
    expect(off.get('d1')).toBeUndefined();
    const small = new KeyCache<string>(5000, 2);
    small.set('a', 'k1', '1');
    small.set('b', 'k2', '2');
    small.set('c', 'k3', '3');
    expect(small.size).toBe(2);
    expect(small.get('a')).toBeUndefined();
    expect(small.get('c')).toBe('3');
  });
});
