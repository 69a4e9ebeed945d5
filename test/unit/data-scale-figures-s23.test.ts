// Session 23 (issue 22; docs/performance.md "Session 23: what the figures measure"): data-scale's
// burst "CPU per item" included the clients' polls of GET /verify/batch/{id} every 500 ms, so a
// burst that ran longer was charged more reads (docs/store-access.md §15 "One more confound"). The
// interleave now runs each side's bursts both ways (polled, and waited through Temporal with one
// GET per job), in an order that reverses every pair, and prices the polls at a finished job's GET
// measured apart in the same pair. These rows pin the order and the pricing, and the interval by
// chance of the median of the pairs' ratios that each interleaved row now prints (the A/A floor).
import { describe, expect, it } from 'vitest';
import {
  abba,
  burstKinds,
  compareFigures,
  medianInterval,
  pairedRatio,
  pollsPricedOut,
  probePerCall,
} from '../../bench/round-stats.js';

describe("data-scale's polled and waited bursts (session 23)", () => {
  it('a side runs both kinds in every pair, in an order that reverses every pair', () => {
    expect(burstKinds(0, ['poll', 'wait'])).toEqual(['poll', 'wait']);
    expect(burstKinds(1, ['poll', 'wait'])).toEqual(['wait', 'poll']);
    expect(burstKinds(2, ['poll', 'wait'])).toEqual(['poll', 'wait']);
    // One kind only (--burst-wait poll or wait): that kind, once per side and pair.
    expect(burstKinds(1, ['poll'])).toEqual(['poll']);
    expect(burstKinds(3, ['wait'])).toEqual(['wait']);
  });

  it('over two pairs every burst slot (side x kind) is first once and last once', () => {
    const seen: string[][] = [];
    for (let i = 0; i < 2; i++)
      seen.push(abba(i, 'E', 'S').flatMap((side) => burstKinds(i, ['poll', 'wait']).map((k) => `${side}-${k}`)));
    expect(seen).toEqual([
      ['E-poll', 'E-wait', 'S-poll', 'S-wait'],
      ['S-wait', 'S-poll', 'E-wait', 'E-poll'],
    ]);
    // Position sums equal: no burst slot always runs earlier in its pair than another.
    const pos = (slot: string) => seen.reduce((a, order) => a + order.indexOf(slot), 0);
    expect(new Set(['E-poll', 'E-wait', 'S-poll', 'S-wait'].map(pos)).size).toBe(1);
  });

  it("takes the polls beyond one per job out of a polled burst, each at the same pair's finished GET", () => {
    // 10 jobs, 1,000 items. Pair 1: 30 GETs (20 extra) at 2 ms a GET = 40 ms = 0.04 ms per item;
    // pair 2: 10 GETs (the jobs finished before the first poll): nothing to take out.
    const out = pollsPricedOut([0.3, 0.28], [30, 10], [2, 3], 10, 1000);
    expect(out.map((x) => Math.round(x * 1000) / 1000)).toEqual([0.26, 0.28]);
  });

  it('a side whose bursts run longer reads the same work per item once its extra polls are out', () => {
    // Same work per burst (0.25 ms per item) and 1.5 ms a GET; the seeded side's bursts ran longer
    // (50 GETs against 20): the polled figure reads 1.17 seeded/empty for the same work: the confound.
    const polled = (gets: number) => 0.25 + (gets - 10) * 0.0015;
    const e = pollsPricedOut([polled(20)], [20], [1.5], 10, 1000);
    const s = pollsPricedOut([polled(50)], [50], [1.5], 10, 1000);
    expect(Math.round((polled(50) / polled(20)) * 100) / 100).toBe(1.17);
    expect(Math.round(((s[0] as number) / (e[0] as number)) * 100) / 100).toBe(1);
  });

  it('a pair without its probe prices nothing (NaN), and is left out of a paired ratio', () => {
    const out = pollsPricedOut([0.3, 0.3], [20, 20], [1], 10, 1000);
    expect(out[0]).toBeCloseTo(0.29, 10);
    expect(out[1]).toBeNaN();
    expect(pairedRatio([0.29, 0.29], out).n).toBe(1);
  });

  it('a GET probe with any answer other than 200 is dropped (NaN), and a dropped probe is no round of its row (review D2)', () => {
    const before = { api: 100, store: 50 };
    const after = { api: 300, store: 150 };
    expect(probePerCall(before, after, 100, 0)).toEqual({ api: 2, store: 1, total: 3 });
    const dropped = probePerCall(before, after, 100, 1); // one 404 (evicted) or 429 among 100
    expect(Object.keys(dropped).sort()).toEqual(['api', 'store', 'total']);
    for (const v of Object.values(dropped)) expect(v).toBeNaN();
    // The row's medians and ranges leave it out; the pairs too.
    const c = compareFigures([2, 2.2, NaN], [2.1, NaN, 2.3]);
    expect([c.empty.n, c.empty.min, c.empty.max, c.seeded.n, c.seeded.min, c.seeded.max]).toEqual([
      2, 2, 2.2, 2, 2.1, 2.3,
    ]);
    expect(pairedRatio([2, 2.2, NaN], [2.1, NaN, 2.3]).n).toBe(1);
  });
});

describe("the median of an interleave's per-pair ratios: its interval by chance (session 23)", () => {
  it('8 pairs: the 2nd and the 7th smallest ratio, 93 % (sign test, exact)', () => {
    const r = medianInterval([1.3, 0.9, 1.0, 1.1, 0.85, 1.05, 1.2, 0.95]);
    expect(r?.lo).toBe(0.9);
    expect(r?.hi).toBe(1.2);
    expect(r?.coverage).toBeCloseTo(1 - (2 * 9) / 256, 12);
  });

  it('12 pairs: the 3rd and the 10th, 96 %; 5 pairs: the extremes, 94 %', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => 1 + i / 100);
    expect(medianInterval(twelve)).toMatchObject({ lo: 1.02, hi: 1.09 });
    expect(medianInterval(twelve)?.coverage).toBeCloseTo(1 - (2 * 79) / 4096, 12);
    expect(medianInterval([5, 1, 4, 2, 3])).toMatchObject({ lo: 1, hi: 5, coverage: 1 - 2 / 32 });
  });

  it('fewer than 5 pairs hold no 90 % interval; a NaN ratio is not a pair', () => {
    expect(medianInterval([1, 1.1, 1.2, 1.3])).toBeNull();
    expect(medianInterval([1, 1.1, 1.2, 1.3, NaN])).toBeNull();
    expect(medianInterval([1, 1.1, 1.2, 1.3], 0.85)).toMatchObject({ lo: 1, hi: 1.3 });
  });

  it('pairedRatio carries it: a median of 1.08 whose interval reaches 0.97 is not told apart from 1', () => {
    const a = [1, 1, 1, 1, 1, 1, 1, 1];
    const p = pairedRatio(a, [0.95, 0.97, 1.05, 1.08, 1.08, 1.1, 1.16, 1.3]);
    expect(p.median).toBe(1.08);
    expect(p.interval).toMatchObject({ lo: 0.97, hi: 1.16 });
  });
});
