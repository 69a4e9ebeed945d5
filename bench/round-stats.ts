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

// ---------------------------------------------------------------------------------------------
// Session 24 (docs/performance.md "Session 24: deciding the goal figures"): an interval for the
// pooled POST p95 and for the phases' figures, and the verdict each goal figure gets from its
// interval.
// ---------------------------------------------------------------------------------------------

/**
 * A small seeded generator (mulberry32): the bootstrap draws the same resamples for the same
 * figures, so that a run prints one interval and a unit row pins it.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A ratio of two sides' figures with a bootstrap interval of it. */
export interface RatioInterval {
  /** The figure of b over the figure of a, on every value given. */
  ratio: number;
  lo: number;
  hi: number;
  /** The interval's nominal coverage (a percentile bootstrap's: approximate). */
  level: number;
  /** Groups per side (pairs when paired). */
  n: number;
}

export interface BootstrapOptions {
  resamples?: number;
  level?: number;
  seed?: number;
  /** Fewer groups than this on a side: no interval (default 3). */
  minGroups?: number;
}

/**
 * The ratio stat(b) / stat(a) over groups of values (a burst's POSTs, a slice's one figure), and
 * its percentile-bootstrap interval. The groups are resampled whole, never the values inside a
 * group: a burst's 10 POSTs are not independent (a slow burst is slow throughout; session 20), so
 * resampling POSTs one by one would give an interval far too narrow. `paired`: a[i] and b[i] ran
 * under the same load (an interleaved pair), so the pair index is resampled and both sides take
 * the same pairs; otherwise (the phases, minutes apart) each side is resampled on its own. Null
 * with fewer than `minGroups` groups on a side, or when a side's figure is not positive.
 */
export function bootstrapRatio(
  a: ReadonlyArray<readonly number[]>,
  b: ReadonlyArray<readonly number[]>,
  stat: (xs: readonly number[]) => number,
  paired: boolean,
  { resamples = 2000, level = 0.9, seed = 24, minGroups = 3 }: BootstrapOptions = {},
): RatioInterval | null {
  const ga = paired ? a.slice(0, Math.min(a.length, b.length)) : a;
  const gb = paired ? b.slice(0, Math.min(a.length, b.length)) : b;
  const clean = (g: ReadonlyArray<readonly number[]>) => g.map((xs) => xs.filter(Number.isFinite));
  const A = clean(ga);
  const B = clean(gb);
  if (A.length < Math.max(1, minGroups) || B.length < Math.max(1, minGroups)) return null;
  const sa = stat(A.flat());
  const sb = stat(B.flat());
  if (!(sa > 0) || !Number.isFinite(sb)) return null;
  const rand = mulberry32(seed);
  const draw = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * n));
  const ratios: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const ia = draw(A.length);
    const ib = paired ? ia : draw(B.length);
    const x = stat(ia.flatMap((i) => A[i] as number[]));
    const y = stat(ib.flatMap((i) => B[i] as number[]));
    if (x > 0 && Number.isFinite(y)) ratios.push(y / x);
  }
  ratios.sort((x, y) => x - y);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.max(0, Math.floor(q * ratios.length)))] as number;
  return { ratio: sb / sa, lo: at((1 - level) / 2), hi: at((1 + level) / 2), level, n: Math.min(A.length, B.length) };
}

/**
 * The p95 of a list (in any order) at index ⌊0.95 n⌋ of the sorted list (percentileOf, as session
 * 23's pooled figure): one rank above nearest-rank when 0.95 n is whole (n = 20 gives the maximum).
 * The statistic of the pooled POST figure.
 */
export const p95Of = (xs: readonly number[]): number =>
  xs.length
    ? percentileOf(
        [...xs].sort((x, y) => x - y),
        95,
      )
    : NaN;

/**
 * The pooled POST p95 of an interleave: every POST of every burst of a side in one sample, the
 * seeded (b) p95 over the empty (a) one, with the bootstrap interval that resamples whole pairs
 * of bursts (pair i's burst on each side ran under the same load). A percentile bootstrap of a
 * tail quantile over few clusters covers less than it says: simulated A/A runs (bursts whose
 * level varies by a log-sd of 0.2-0.5) held 1.0 in 82-94 % of 90 % intervals, and in 88-95 % of
 * 95 % ones from 8 pairs on; with 5 pairs a real A/A read 1.58 {1.45-1.65}. So the interval is a
 * nominal 95 % one, and none is given below 8 pairs (docs/performance.md, "Session 24").
 */
export function pooledP95Ratio(
  a: ReadonlyArray<readonly number[]>,
  b: ReadonlyArray<readonly number[]>,
  opts?: BootstrapOptions,
): RatioInterval | null {
  return bootstrapRatio(a, b, p95Of, true, { level: 0.95, minGroups: 8, ...opts });
}

/** The verdict of a goal figure against the 10 % line from its interval. */
export type Verdict = 'yes' | 'no' | 'undecided';

/**
 * Within 10 % (lower is better: seeded/empty <= 1.10; higher is better: >= 0.90): `yes` when the
 * whole interval is on the good side of the line, `no` when it is wholly on the other side, and
 * `undecided` when it spans the line, or when there is no interval (too few pairs or groups): a
 * median on the good side whose interval reaches past the line is not shown within 10 % by the
 * run, and one past it whose interval reaches back is not shown outside.
 */
export function goalVerdict(interval: { lo: number; hi: number } | null, higherIsBetter = false, line = 0.1): Verdict {
  if (!interval || !Number.isFinite(interval.lo) || !Number.isFinite(interval.hi)) return 'undecided';
  if (higherIsBetter) return interval.lo >= 1 - line ? 'yes' : interval.hi < 1 - line ? 'no' : 'undecided';
  return interval.hi <= 1 + line ? 'yes' : interval.lo > 1 + line ? 'no' : 'undecided';
}

/**
 * The median of a phase's repeated figures (its slices, bursts or single jobs), a ratio of two
 * such medians, bootstrapped unpaired (the phases ran minutes apart: nothing pairs them); a
 * nominal 95 % interval, none below 5 figures a side.
 */
export function phaseMedianRatio(
  a: readonly number[],
  b: readonly number[],
  opts?: BootstrapOptions,
): RatioInterval | null {
  return bootstrapRatio(
    a.map((x) => [x]),
    b.map((x) => [x]),
    medianOf,
    false,
    { level: 0.95, minGroups: 5, ...opts },
  );
}

/** One goal figure of a run: its two sides, its ratio (a median of per-pair ratios, or of the two sides' figures) and its interval. */
export interface GoalFigure {
  figure: string;
  /** How the ratio and its interval were taken (e.g. "paired, sign test 96 %", "pooled, pair bootstrap 90 %"). */
  how: string;
  empty: number;
  seeded: number;
  ratio: number;
  lo: number | null;
  hi: number | null;
  higherIsBetter: boolean;
  /**
   * false: printed with its interval, but no verdict is drawn from it. The pooled POST p95: in an
   * A/A at the limit (two stacks of the same state, 12 pairs, load 15) its pair bootstrap read
   * 0.26 {0.20-0.75} polled and 2.02 {1.04-2.46} waited, both excluding 1: one slow burst in 12
   * holds the 6 POSTs over a pooled p95 of 120, and the bootstrap cannot tell that from a shift.
   */
  decisive?: boolean;
  /** Why a figure with `decisive: false` is not judged (default: the pooled POST's reason). */
  notJudgedWhy?: string;
}

/** The verdict's words: `undecided` says why (the interval spans the line, or there is none). */
export function verdictText(g: Pick<GoalFigure, 'lo' | 'hi' | 'higherIsBetter' | 'decisive' | 'notJudgedWhy'>): string {
  if (g.decisive === false)
    return `not judged (${g.notJudgedWhy ?? 'one slow burst sets it; read the median of the bursts'})`;
  const interval = g.lo === null || g.hi === null ? null : { lo: g.lo, hi: g.hi };
  const v = goalVerdict(interval, g.higherIsBetter);
  if (v !== 'undecided') return v;
  return interval ? `undecided (interval spans ${g.higherIsBetter ? '0.90' : '1.10'})` : 'undecided (no interval)';
}

const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The closing table: every goal figure with its sides, ratio, interval and verdict, and, when an
 * A/A run's figures are given (its own closing table, written with --figures-json), the same
 * figure's A/A ratio and interval beside it: the noise floor the ratio is read against.
 */
export function closingRows(
  figures: readonly GoalFigure[],
  aa: readonly GoalFigure[] = [],
  sides: [string, string] = ['empty', 'seeded'],
): Array<Record<string, string | number>> {
  const floor = new Map(aa.map((g) => [g.figure, g]));
  return figures.map((g) => {
    const f = floor.get(g.figure);
    return {
      figure: g.figure,
      how: g.how,
      [sides[0]]: g.empty,
      [sides[1]]: g.seeded,
      [`${sides[1]}/${sides[0]}`]: Number.isFinite(g.ratio) ? r2(g.ratio) : '-',
      interval: g.lo === null || g.hi === null ? '-' : `${r2(g.lo)}-${r2(g.hi)}`,
      ...(aa.length
        ? {
            'A/A': f && Number.isFinite(f.ratio) ? r2(f.ratio) : '-',
            'A/A interval': f && f.lo !== null && f.hi !== null ? `${r2(f.lo)}-${r2(f.hi)}` : '-',
          }
        : {}),
      'within 10 %': verdictText(g),
    };
  });
}

/**
 * Session 24: the round after which a phase's slice j runs (--phase-slices K over --rounds R):
 * spread evenly, the last after the last round, so that one background task on the stack (a
 * 5-minute sweep, a checkpoint) lands in one or two slices, not in the whole figure (session 23's
 * run 3: the single load read 1.27 seeded/empty while the interleaved slices read 1.00).
 */
export function sliceAfterRound(j: number, slices: number, rounds: number): number {
  return Math.max(0, Math.floor(((j + 1) * rounds) / slices) - 1);
}

/**
 * Session 24: a phase's slices pooled into the figure one load printed before: CPU ms per
 * verification by process over all the slices' verifications (each slice's CPU summed, not its
 * per-verification figures averaged: a slice with fewer verifications weighs less), and `total`.
 */
export function pooledPerVerification(
  slices: ReadonlyArray<{ ok: number; cpuMs: Record<string, number> }>,
): Record<string, number> {
  const n = Math.max(
    1,
    slices.reduce((a, l) => a + l.ok, 0),
  );
  const out: Record<string, number> = {};
  for (const k of Object.keys(slices[0]?.cpuMs ?? {})) out[k] = slices.reduce((a, l) => a + (l.cpuMs[k] ?? 0), 0) / n;
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}
