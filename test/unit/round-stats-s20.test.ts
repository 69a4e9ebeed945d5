// Session 20 (issue 22): bench/data-scale.ts's repeated figures. A burst's p95 of 10 POSTs is its
// slowest POST; with 5 bursts a phase's median was set by its third-slowest burst, so a couple
// of slow POSTs moved the POST p95 across 10 % (session 19: 82.7 -> 117.7 ms, ranges overlapping).
// These rows pin what the bench now prints: the median of more bursts with its range, the pooled
// p95, the comparison of the two phases, and the interleaved order.
import { describe, expect, it } from 'vitest';
import {
  abba,
  compareFigures,
  medianOf,
  pairedRatio,
  percentileOf,
  postFigures,
  spreadOf,
} from '../../bench/round-stats.js';

/** A burst of 10 POSTs around `base` ms (a fixed spread, no randomness). */
const burstOf = (base: number) => Array.from({ length: 10 }, (_, i) => base + i * 3);

describe('round statistics of bench/data-scale.ts (session 20)', () => {
  it("a burst's nearest-rank p95 of 10 POSTs is its slowest POST", () => {
    const posts = [...burstOf(50).slice(0, 9), 400].sort((a, b) => a - b);
    expect(percentileOf(posts, 95)).toBe(400);
    expect(percentileOf(posts, 50)).toBe(65);
  });

  it('one slow POST in one of 12 bursts moves neither the median of the bursts nor the pooled p95', () => {
    const quiet = Array.from({ length: 12 }, () => burstOf(60));
    const oneSlow = quiet.map((b, i) => (i === 4 ? [...b.slice(0, 9), 260] : b));
    const a = postFigures(quiet);
    const b = postFigures(oneSlow);
    expect(a.perBurst).toEqual({ median: 87, min: 87, max: 87, n: 12 });
    expect(b.perBurst).toEqual({ median: 87, min: 87, max: 260, n: 12 });
    expect(b.posts).toBe(120);
    // 120 POSTs: the p95 is the 115th; one slow POST is above it.
    expect(a.pooled).toBe(87);
    expect(b.pooled).toBe(87);
    expect(
      compareFigures(
        quiet.map((x) => Math.max(...x)),
        oneSlow.map((x) => Math.max(...x)),
      ).within,
    ).toBe(true);
  });

  it('with 5 bursts, three with a slow POST set the median (the session-19 figure): printed with its range, apart or overlapping', () => {
    const five = Array.from({ length: 5 }, () => burstOf(60));
    const threeSlow = five.map((b, i) => (i < 3 ? [...b.slice(0, 9), 130] : b));
    const f = postFigures(threeSlow);
    expect(f.perBurst.median).toBe(130);
    const c = compareFigures(
      five.map((x) => Math.max(...x)),
      threeSlow.map((x) => Math.max(...x)),
    );
    expect(c.within).toBe(false);
    expect(c.overlap).toBe(true); // 87-87 against 87-130
    expect(Math.round(c.ratio * 100) / 100).toBe(1.49);
  });

  it('compares within 10 % by the medians, in the right direction for each figure', () => {
    expect(compareFigures([100, 100, 100], [109, 110, 111]).within).toBe(true);
    expect(compareFigures([100, 100, 100], [111, 112, 113]).within).toBe(false);
    // Higher is better (items/s, req/s): 10 % lower is the limit.
    expect(compareFigures([1000, 1000], [900, 950], true).within).toBe(true);
    expect(compareFigures([1000, 1000, 1000], [880, 890, 899], true).within).toBe(false);
    const apart = compareFigures([10, 11, 12], [20, 21, 22]);
    expect(apart.overlap).toBe(false);
    expect(apart.empty).toEqual({ median: 11, min: 10, max: 12, n: 3 });
    expect(compareFigures([0], [5]).within).toBe(false); // no ratio: never "within"
  });

  it('rounds with the given function (CPU per item to 0.01 ms)', () => {
    const r2 = (n: number) => Math.round(n * 100) / 100;
    expect(spreadOf([0.404, 0.4149, 0.45], r2)).toEqual({ median: 0.41, min: 0.4, max: 0.45, n: 3 });
    expect(medianOf([])).toBeNaN();
  });

  it('interleaved pairs are judged by the median of their ratios: a load that moves between pairs moves both sides alike', () => {
    // The load triples in pairs 2 and 3: the sides' medians would read 300 against 309 here, and
    // 100 against 400 if the empty side's slices had all fallen in quiet moments.
    const p = pairedRatio([100, 300, 300, 100, 100], [104, 309, 318, 440, 103]);
    expect(p).toMatchObject({ median: 1.04, min: 1.03, max: 4.4, n: 5 });
    expect(p.within()).toBe(true);
    expect(pairedRatio([100, 100, 100], [112, 115, 111]).within()).toBe(false);
    // Higher is better (items/s): 10 % lower is the limit.
    expect(pairedRatio([1000, 1000, 1000], [850, 880, 950]).within(true)).toBe(false);
    expect(pairedRatio([1000, 500, 1000], [950, 480, 920]).within(true)).toBe(true);
    // A pair with no figure on the empty side is left out, not counted as a ratio.
    expect(pairedRatio([0, 100], [50, 105])).toMatchObject({ median: 1.05, n: 1 });
  });

  it('interleaves in ABBA order', () => {
    expect([0, 1, 2, 3].map((i) => abba(i, 'E', 'S').join(''))).toEqual(['ES', 'SE', 'ES', 'SE']);
  });
});
