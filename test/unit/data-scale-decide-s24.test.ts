// Session 24 (issue 22; docs/performance.md "Session 24: deciding the goal figures"): the
// statistics bench/data-scale.ts now prints to decide each goal figure on one run: the pooled POST
// p95 with an interval that resamples whole pairs of bursts, the phases' repeated figures (their
// /verify/math slices, bursts and single jobs) as a ratio of medians with an unpaired bootstrap
// interval, where a phase's slices run, the slices pooled into the figure one load printed, and
// the closing table's verdict: within 10 % yes / no / undecided (the interval spans the line).
import { describe, expect, it } from 'vitest';
import {
  bootstrapRatio,
  closingRows,
  goalVerdict,
  mulberry32,
  p95Of,
  pairedRatio,
  phaseMedianRatio,
  pooledP95Ratio,
  pooledPerVerification,
  sliceAfterRound,
  verdictText,
  type GoalFigure,
} from '../../bench/round-stats.js';

/** A burst of 10 POSTs from `base` ms (a fixed spread, no randomness). */
const burstOf = (base: number) => Array.from({ length: 10 }, (_, i) => base + i * 3);

describe('the pooled POST p95 and its pair bootstrap (session 24)', () => {
  it('the generator is seeded: the same draws, so a run prints one interval and a row can pin it', () => {
    const r = mulberry32(24);
    expect([r(), r(), r()]).toEqual([0.33202015655115247, 0.9638483456801623, 0.29391058976761997]);
    const again = mulberry32(24);
    expect(again()).toBe(0.33202015655115247);
  });

  it('two sides alike read 1 with the interval 1-1; a side 20 % slower in every POST reads 1.2 with 1.2-1.2', () => {
    const a = Array.from({ length: 8 }, (_, i) => burstOf(50 + 7 * i));
    expect(pooledP95Ratio(a, a)).toEqual({ ratio: 1, lo: 1, hi: 1, level: 0.95, n: 8 });
    const q = pooledP95Ratio(
      a,
      a.map((b) => b.map((x) => x * 1.2)),
    );
    expect(q?.ratio).toBeCloseTo(1.2, 12);
    expect(q?.lo).toBeCloseTo(1.2, 12);
    expect(q?.hi).toBeCloseTo(1.2, 12);
  });

  it('one slow burst of 12 sets the pooled p95 (its 10 POSTs are more than 5 % of 120); the interval says the run cannot decide', () => {
    const a = Array.from({ length: 12 }, (_, i) => burstOf(50 + i));
    const b = a.map((x, i) => (i === 3 ? x.map((v) => v * 3) : x));
    // The pooled p95 is the 115th of 120 POSTs: the slow burst's 6th.
    expect(p95Of(a.flat())).toBe(84);
    expect(p95Of(b.flat())).toBe(195);
    const q = pooledP95Ratio(a, b);
    expect(q).toMatchObject({ lo: 1, n: 12, level: 0.95 });
    expect(q?.hi).toBeCloseTo(2.783132530120482, 12);
    expect(q?.ratio).toBeCloseTo(195 / 84, 12);
    expect(verdictText({ lo: q?.lo ?? null, hi: q?.hi ?? null, higherIsBetter: false })).toBe(
      'undecided (interval spans 1.10)',
    );
    // The median of the bursts' p95s is not moved by it (its sign-test interval 1-1): the two
    // figures answer different questions, and the closing table prints both.
    const m = pairedRatio(a.map(p95Of), b.map(p95Of));
    expect([m.median, m.interval?.lo, m.interval?.hi]).toEqual([1, 1, 1]);
  });

  it('pairs resampled together: a load that moves both sides of a pair alike leaves the interval narrow; unpaired it is wide', () => {
    const load = [0.5, 3, 1, 2, 0.7, 1.5, 2.5, 0.8]; // the machine's load, pair by pair
    const a = load.map((f) => burstOf(50 * f));
    const b = load.map((f) => burstOf(52 * f));
    const paired = pooledP95Ratio(a, b);
    const unpaired = bootstrapRatio(a, b, p95Of, false);
    expect(paired?.ratio).toBeCloseTo(1.0357142857142858, 12);
    expect(paired?.lo).toBeCloseTo(1.032258064516129, 12);
    expect(paired?.hi).toBeCloseTo(1.0357142857142858, 12);
    expect(unpaired?.lo).toBeCloseTo(0.735632183908046, 12);
    expect(unpaired?.hi).toBeCloseTo(1.4516129032258065, 12);
  });

  it('fewer than 8 pairs give the pooled p95 no interval (a 5-pair A/A read 1.58 {1.45-1.65}); a side whose figure is not positive none either; NaN POSTs are left out', () => {
    const seven = Array.from({ length: 7 }, (_, i) => burstOf(50 + i));
    expect(pooledP95Ratio(seven, seven)).toBeNull();
    expect(bootstrapRatio([[0], [0], [0]], [[1], [1], [1]], p95Of, true)).toBeNull();
    expect(bootstrapRatio([[1], [1]], [[1], [1]], p95Of, true)).toBeNull(); // the default minimum: 3 groups
    const withNaN = [...seven, [...burstOf(50), NaN]];
    expect(pooledP95Ratio(withNaN, withNaN)).toEqual({ ratio: 1, lo: 1, hi: 1, level: 0.95, n: 8 });
  });
});

describe("the phases' repeated figures: a ratio of medians with an unpaired bootstrap (session 24)", () => {
  it('7 slices: one slice a background task landed in (2.5 against ~1.0) moves neither the median nor the interval', () => {
    const empty = [1.0, 1.1, 1.0, 1.05, 1.1, 0.95, 1.02];
    const q = phaseMedianRatio(empty, [1.0, 1.1, 1.0, 1.05, 1.1, 0.95, 2.5]);
    expect(q?.ratio).toBeCloseTo(1.05 / 1.02, 12);
    expect(q?.lo).toBeCloseTo(1 / 1.1, 12);
    expect(q?.hi).toBeCloseTo(1.1, 12);
    expect(q?.level).toBe(0.95);
    expect(goalVerdict(q)).toBe('yes');
    // Every slice 10 % dearer seeded: 1.10, with an interval that spans the line.
    const dearer = phaseMedianRatio(empty, [1.1, 1.2, 1.1, 1.15, 1.2, 1.05, 1.12]);
    expect(dearer).toMatchObject({ lo: 1, hi: 1.2 });
    expect(goalVerdict(dearer)).toBe('undecided');
  });

  it('6 slices (an even count, the upper median): the same slice reaches the interval, so the default is 7', () => {
    const q = phaseMedianRatio([1.0, 1.1, 1.0, 1.05, 1.1, 0.95], [1.0, 1.1, 1.0, 1.05, 1.1, 2.5]);
    expect(q?.ratio).toBeCloseTo(1.1 / 1.05, 12);
    expect(q?.hi).toBeCloseTo(2.5 / 1.05, 12);
    expect(goalVerdict(q)).toBe('undecided');
  });

  it("a phase's slices run after rounds spread evenly, the last after the last round", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((j) => sliceAfterRound(j, 7, 12))).toEqual([0, 2, 4, 5, 7, 9, 11]);
    expect([0, 1, 2, 3, 4, 5].map((j) => sliceAfterRound(j, 6, 12))).toEqual([1, 3, 5, 7, 9, 11]);
    // More slices than rounds: several after one round; none before the first.
    expect([0, 1, 2, 3, 4, 5].map((j) => sliceAfterRound(j, 6, 4))).toEqual([0, 0, 1, 1, 2, 3]);
  });

  it("the slices pooled give the figure one load printed: the slices' CPU over all their verifications", () => {
    const pooled = pooledPerVerification([
      { ok: 400, cpuMs: { store: 440, api: 4000 } },
      { ok: 100, cpuMs: { store: 210, api: 1000 } },
    ]);
    // (440 + 210) / 500 = 1.3, not the mean of 1.1 and 2.1; total = store + api.
    expect(pooled).toEqual({ store: 1.3, api: 10, total: 11.3 });
    expect(pooledPerVerification([])).toEqual({ total: 0 });
  });
});

describe("the closing table's verdict (session 24)", () => {
  it('lower is better: yes when the interval stays at or under 1.10, no when it is wholly above, undecided when it spans it', () => {
    expect(goalVerdict({ lo: 0.95, hi: 1.08 })).toBe('yes');
    expect(goalVerdict({ lo: 0.95, hi: 1.1 })).toBe('yes');
    expect(goalVerdict({ lo: 1.12, hi: 1.3 })).toBe('no');
    expect(goalVerdict({ lo: 0.9, hi: 1.2 })).toBe('undecided');
    expect(goalVerdict({ lo: 1.1, hi: 1.2 })).toBe('undecided');
    expect(goalVerdict(null)).toBe('undecided');
    expect(goalVerdict({ lo: NaN, hi: 1 })).toBe('undecided');
  });

  it('higher is better (items/s, req/s): yes at or over 0.90, no wholly under, undecided across', () => {
    expect(goalVerdict({ lo: 0.92, hi: 1.1 }, true)).toBe('yes');
    expect(goalVerdict({ lo: 0.9, hi: 1.1 }, true)).toBe('yes');
    expect(goalVerdict({ lo: 0.7, hi: 0.85 }, true)).toBe('no');
    expect(goalVerdict({ lo: 0.85, hi: 1.0 }, true)).toBe('undecided');
  });

  it('the words say why a figure is undecided', () => {
    expect(verdictText({ lo: 0.9, hi: 1.2, higherIsBetter: false })).toBe('undecided (interval spans 1.10)');
    expect(verdictText({ lo: 0.85, hi: 1.0, higherIsBetter: true })).toBe('undecided (interval spans 0.90)');
    expect(verdictText({ lo: null, hi: null, higherIsBetter: false })).toBe('undecided (no interval)');
    expect(verdictText({ lo: 1.0, hi: 1.05, higherIsBetter: false })).toBe('yes');
  });

  it('each row carries its sides, ratio and interval, and the A/A run of the same figure beside it when given', () => {
    const g = (figure: string, ratio: number, lo: number | null, hi: number | null): GoalFigure => ({
      figure,
      how: 'interleaved',
      empty: 80,
      seeded: 80 * ratio,
      ratio,
      lo,
      hi,
      higherIsBetter: false,
    });
    const run = [g('POST p95', 1.08, 0.77, 1.38), g('store CPU per item', 1.03, 0.98, 1.07)];
    expect(closingRows(run)).toEqual([
      {
        figure: 'POST p95',
        how: 'interleaved',
        empty: 80,
        seeded: 86.4,
        'seeded/empty': 1.08,
        interval: '0.77-1.38',
        'within 10 %': 'undecided (interval spans 1.10)',
      },
      {
        figure: 'store CPU per item',
        how: 'interleaved',
        empty: 80,
        seeded: 82.4,
        'seeded/empty': 1.03,
        interval: '0.98-1.07',
        'within 10 %': 'yes',
      },
    ]);
    const rows = closingRows(run, [g('POST p95', 0.9, 0.6, 1.3)]);
    expect([rows[0]?.['A/A'], rows[0]?.['A/A interval']]).toEqual([0.9, '0.6-1.3']);
    expect([rows[1]?.['A/A'], rows[1]?.['A/A interval']]).toEqual(['-', '-']);
    expect(closingRows([g('no interval', 1.02, null, null)])[0]).toMatchObject({
      interval: '-',
      'within 10 %': 'undecided (no interval)',
    });
  });
});

describe('the closing table of an A/A run (session 24)', () => {
  it('names its sides A and B', () => {
    const row = closingRows(
      [{ figure: 'f', how: 'h', empty: 1, seeded: 1.05, ratio: 1.05, lo: 0.9, hi: 1.2, higherIsBetter: false }],
      [],
      ['A', 'B'],
    )[0];
    expect(Object.keys(row ?? {})).toEqual(['figure', 'how', 'A', 'B', 'B/A', 'interval', 'within 10 %']);
  });
});

describe('the pooled POST p95 is printed, not judged (session 24)', () => {
  it('a figure marked not decisive gets no verdict, whatever its interval', () => {
    // The A/A at the limit (12 pairs, load 15): the pooled p95 read 0.26 {0.20-0.75}, an interval
    // that would have said "yes" (and 2.02 {1.04-2.46} waited) between two stacks of the same state.
    const g = { lo: 0.2, hi: 0.75, higherIsBetter: false };
    expect(verdictText(g)).toBe('yes');
    expect(verdictText({ ...g, decisive: false })).toBe(
      'not judged (one slow burst sets it; read the median of the bursts)',
    );
  });
});

describe('the phases are printed, not judged (session 24, review D1)', () => {
  it('a uniform load shift between the phases would decide a verdict; the phase rows say why they draw none', () => {
    // Session 23's run 3: the seeded phase read 1.27 while the interleave read 1.00. Seven slices
    // all shifted by the load give a narrow interval far from 1: the interval alone would say "no".
    const g = { lo: 1.25, hi: 1.3, higherIsBetter: false };
    expect(verdictText(g)).toBe('no');
    expect(verdictText({ ...g, decisive: false, notJudgedWhy: 'unpaired' })).toBe('not judged (unpaired)');
  });
});
