// What kind of query /verify/consensus received (docs/consensus.md, "Queries"):
//   - a statistic of a literal list: mean|median|stdev|variance(1, 2, 3) [= number];
//     rewritten by definition into arithmetic for the math, Python and Z3 engines, and given
//     as data to the statistics engine;
//   - an arithmetic expression or equation (the math engine's language);
//   - natural language, which would need an LLM translation step that this deployment does
//     not have: answered UNVERIFIABLE without running any engine (fail closed).
import { ALLOWED_FUNCTIONS, CONSTANTS } from '../../engines/math/guards.js';
import * as R from '../../engines/math/rational.js';

export type StatisticName = 'mean' | 'median' | 'stdev' | 'variance';

export interface StatisticalClaim {
  fn: StatisticName;
  /** The literal values, as written (plain decimals). */
  values: string[];
  /** The claimed value (`= number`), or null for a bare statistic. */
  claimed: string | null;
}

export type ClassifiedQuery =
  | { kind: 'natural_language'; reason: string }
  | { kind: 'arithmetic'; expression: string; statistic: StatisticalClaim | null };

/** Values in one statistical query: the rewrite must stay within the math engine's size guards. */
export const MAX_STATISTIC_VALUES = 50;

const NUMBER = String.raw`[-+]?\d+(?:\.\d+)?`;
const STATISTIC = new RegExp(
  String.raw`^(mean|average|avg|median|stdev|std|sd|variance|var)\s*\(\s*\[?\s*(${NUMBER}(?:\s*,\s*${NUMBER})*)\s*\]?\s*\)\s*(?:(?:==|=)\s*(${NUMBER}))?$`,
  'i',
);
const STAT_ALIASES: Record<string, StatisticName> = {
  mean: 'mean',
  average: 'mean',
  avg: 'mean',
  median: 'median',
  stdev: 'stdev',
  std: 'stdev',
  sd: 'stdev',
  variance: 'variance',
  var: 'variance',
};

const lit = (v: string) => (v.startsWith('-') ? `(${v})` : v.replace(/^\+/, ''));
const qOf = (v: string) => R.parseDecimal(v) as R.Q;

/** The statistic's definition as an arithmetic expression (sample stdev/variance: n - 1). */
export function statisticExpression(s: StatisticalClaim): string {
  const n = s.values.length;
  let body: string;
  switch (s.fn) {
    case 'mean':
      body = `(${s.values.map(lit).join(' + ')}) / ${n}`;
      break;
    case 'median': {
      const sorted = [...s.values].sort((a, b) => R.cmp(qOf(a), qOf(b)));
      const mid = Math.floor(n / 2);
      body =
        n % 2 === 1
          ? lit(sorted[mid] as string)
          : `(${lit(sorted[mid - 1] as string)} + ${lit(sorted[mid] as string)}) / 2`;
      break;
    }
    case 'stdev':
    case 'variance': {
      // The mean enters as its exact rational value, which keeps the tree linear in n.
      const sum = s.values.reduce((acc, v) => R.add(acc, qOf(v)), R.ZERO);
      const mean = R.div(sum, R.qInt(n));
      const m = `(${mean.n}/${mean.d})`;
      const variance = `(${s.values.map((v) => `(${lit(v)} - ${m})^2`).join(' + ')}) / ${n - 1}`;
      body = s.fn === 'variance' ? variance : `sqrt(${variance})`;
      break;
    }
  }
  return s.claimed === null ? body : `${body} = ${lit(s.claimed)}`;
}

/** Words that can appear in the math engine's language: functions, constants, short variable names. */
function isMathWord(word: string): boolean {
  return Object.hasOwn(ALLOWED_FUNCTIONS, word) || CONSTANTS.has(word) || word.length <= 3;
}

export function classifyQuery(raw: string): ClassifiedQuery {
  const query = raw.trim();
  const stat = STATISTIC.exec(query);
  if (stat) {
    const values = (stat[2] as string).split(',').map((v) => v.trim());
    if (values.length <= MAX_STATISTIC_VALUES) {
      const statistic: StatisticalClaim = {
        fn: STAT_ALIASES[(stat[1] as string).toLowerCase()] as StatisticName,
        values,
        claimed: stat[3] ?? null,
      };
      return { kind: 'arithmetic', expression: statisticExpression(statistic), statistic };
    }
    return {
      kind: 'natural_language',
      reason: `A statistic of more than ${MAX_STATISTIC_VALUES} literal values is not supported; use /verify/stats with a CSV file.`,
    };
  }
  const notMath =
    /[?!;:"'`$€£@#]/.test(query) ||
    /[A-Za-z]+\s+[A-Za-z]+\s+[A-Za-z]+/.test(query) ||
    (query.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).some((w) => !isMathWord(w));
  if (notMath) {
    return {
      kind: 'natural_language',
      reason:
        'The query looks like natural language. Translating it needs an LLM provider, and none is configured; ' +
        'send an arithmetic expression, an equation (e.g. "2^10 = 1024") or a statistic of a literal list (e.g. "mean(1, 2, 3) = 2").',
    };
  }
  return { kind: 'arithmetic', expression: query, statistic: null };
}
