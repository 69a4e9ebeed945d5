// The statistics of bench/data-scale.ts's repeated figures (issue 22, session 20): pure, so that a
// unit row pins them (test/unit/round-stats-s20.test.ts).
//
// A burst submits 10 POSTs; its p95 is its slowest POST (the nearest-rank p95 of 10 is the 10th).
// One slow POST sets its round's figure, so the phase's figure is the median of the rounds' p95s
// (printed with its range) beside the p95 of every POST of the phase pooled. The empty and the
// seeded figures are compared within 10 %, and whether their ranges overlap says whether the
// difference is within the run's own spread.

/** Nearest-rank percentile of an ascending list (bench/bench-stack.ts's definition). */
export function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** NaN (a figure dropped, e.g. a GET probe with a non-200 answer) is left out, as in pairedRatio. */
export function medianOf(xs: readonly number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spreadOf(xs: readonly number[], r: (n: number) => number = (n) => Math.round(n * 10) / 10): Spread {
  const kept = xs.filter((x) => !Number.isNaN(x)); // a dropped figure (NaN) is not a round
  return { median: r(medianOf(kept)), min: r(Math.min(...kept)), max: r(Math.max(...kept)), n: kept.length };
}

/** The POST figures of a phase's bursts: the median of the bursts' p95s with its range, and the p95 of every POST pooled. */
export interface PostFigures {
  perBurst: Spread;
  pooled: number;
  posts: number;
}

export function postFigures(bursts: ReadonlyArray<readonly number[]>): PostFigures {
  const p95s = bursts.map((b) =>
    percentileOf(
      [...b].sort((x, y) => x - y),
      95,
    ),
  );
  const all = bursts.flat().sort((x, y) => x - y);
  return { perBurst: spreadOf(p95s), pooled: Math.round(percentileOf(all, 95) * 10) / 10, posts: all.length };
}

/** An empty figure against a seeded one: the ratio of the medians, within 10 %, and whether the ranges overlap. */
export interface Comparison {
  empty: Spread;
  seeded: Spread;
  ratio: number;
  within: boolean;
  overlap: boolean;
}

export function compareFigures(
  empty: readonly number[],
  seeded: readonly number[],
  higherIsBetter = false,
  r?: (n: number) => number,
): Comparison {
  const e = spreadOf(empty, r);
  const s = spreadOf(seeded, r);
  const ratio = e.median > 0 ? s.median / e.median : NaN;
  return {
    empty: e,
    seeded: s,
    ratio,
    within: Number.isNaN(ratio) ? false : higherIsBetter ? ratio >= 0.9 : ratio <= 1.1,
    overlap: e.max >= s.min && s.max >= e.min,
  };
}

/** Pair i of an interleaved measure runs A then B when i is even, B then A when odd (ABBA: a drift in the load weighs on both alike). */
export function abba<T>(i: number, a: T, b: T): [T, T] {
  return i % 2 === 0 ? [a, b] : [b, a];
}

/**
 * An interleaved measure's pairs (run one after the other under the same load): the median of the
 * per-pair ratios b[i] / a[i], with their range. Within 10 % is judged on it: a load that moves
 * between pairs moves both sides of a pair alike.
 */
export function pairedRatio(
  a: readonly number[],
  b: readonly number[],
): Spread & { within: (higherIsBetter?: boolean) => boolean; interval: MedianInterval | null } {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x > 0 && Number.isFinite(y)) ratios.push(y / x);
  }
  const s = spreadOf(ratios, (n) => Math.round(n * 100) / 100);
  return {
    ...s,
    interval: medianInterval(ratios),
    within: (higherIsBetter = false) =>
      ratios.length > 0 && (higherIsBetter ? medianOf(ratios) >= 0.9 : medianOf(ratios) <= 1.1),
  };
}

/**
 * Session 23 (data-scale's burst figures with the clients' polls apart; docs/performance.md
 * "Session 23: what the figures measure"). A burst is run two ways: `poll` (today's: each client
 * GETs its job every 500 ms until it reads completed, so a burst that runs longer is charged more
 * reads) and `wait` (each client waits for its job's workflow to close through Temporal's long
 * poll, which sends the store nothing, then GETs the job once). Within one interleaved pair a side
 * runs both, in an order that reverses every pair, so that neither kind always follows the other.
 */
export type BurstKind = 'poll' | 'wait';
export function burstKinds(i: number, kinds: readonly BurstKind[]): BurstKind[] {
  return i % 2 === 0 ? [...kinds] : [...kinds].reverse();
}

/**
 * A polled burst's CPU per item with its polls beyond one per job taken out, each priced at what a
 * GET of a finished job cost on the same side in the same pair (data-scale's probe: sequential GETs
 * on a quiet stack). Per pair: cpuPerItem - (polls - jobs) x getCpu / items. Across all processes
 * a poll of a running job costs more (its workflow is also described and queried), so what
 * remains is then an upper bound of the burst's CPU without its extra polls.
 */
export function pollsPricedOut(
  cpuPerItem: readonly number[],
  polls: readonly number[],
  getCpu: readonly number[],
  jobs: number,
  items: number,
): number[] {
  return cpuPerItem.map((v, i) => v - (((polls[i] ?? NaN) - jobs) * (getCpu[i] ?? NaN)) / items);
}

/**
 * Session 23 (review D2): a GET probe's CPU per call by process (and `total`) from two samples'
 * CPU ms. Any answer other than 200 (a 404: the job evicted at the limit; a 429) did not do a
 * finished job's work, so the probe is dropped: every figure NaN, left out of the rows and pairs.
 */
export function probePerCall(
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
  non200: number,
): Record<string, number> {
  const cpu: Record<string, number> = {};
  for (const k of Object.keys(after)) cpu[k] = non200 > 0 ? NaN : ((after[k] ?? NaN) - (before[k] ?? NaN)) / calls;
  cpu.total = non200 > 0 ? NaN : Object.values(cpu).reduce((a, b) => a + b, 0);
  return cpu;
}

/** A distribution-free confidence interval of a median: [lo, hi] with the coverage it has. */
export interface MedianInterval {
  lo: number;
  hi: number;
  /** The probability that the interval holds the true median (binomial, exact). */
  coverage: number;
}

/**
 * Session 23 (the noise floor of data-scale's interleave): how far the median of n per-pair ratios
 * can sit from the true one by chance. The k-th smallest and the k-th largest of n values hold the
 * median with probability 1 - 2 P(Bin(n, 1/2) <= k - 1), whatever the values' distribution (the
 * sign test's interval); the narrowest such interval with at least `level` coverage, or null when n
 * is too small for it (at 90 %: fewer than 5 pairs). With 8 pairs it is [2nd, 7th] (93 %), with 12
 * [3rd, 10th] (96 %). A median of ratios of 1.08 whose interval reaches below 1.0 is not told apart
 * from no difference by this run.
 */
export function medianInterval(xs: readonly number[], level = 0.9): MedianInterval | null {
  const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
  const n = s.length;
  let best: MedianInterval | null = null;
  let cdf = 0; // P(Bin(n, 1/2) <= k - 1)
  let choose = 1; // C(n, k - 1)
  for (let k = 1; k <= Math.floor(n / 2); k++) {
    cdf += choose / 2 ** n;
    choose = (choose * (n - k + 1)) / k;
    const coverage = 1 - 2 * cdf;
    if (coverage < level) break;
    best = { lo: s[k - 1] as number, hi: s[n - k] as number, coverage };
  }
  return best;
}
