// Numerical comparison of two sides: evidence, never proof.
//
// Used when the canonical form cannot decide: closed expressions with atoms (e = exp(1),
// log(2), ...) are compared once at 64 significant digits; expressions with variables are
// compared at a fixed, deterministic set of sample points. A clear disagreement is a
// counterexample (the claim is false); agreement only ever yields BLOCKED ("sampling is not
// proof"). Points where either side is undefined are skipped.
import type { Domain } from './canonical.js';
import { MathDomainError } from './errors.js';
import { DECIMAL_AGREEMENT, FLOAT_AGREEMENT, MATH_LIMITS } from './limits.js';
import { M, type AstNode, type NumericValue } from './mathjs-instance.js';
import { NumericEvaluator, valueText } from './numeric.js';

/** Magnitudes of sample values (non-special, a few integers for n!). */
const MAGNITUDES = ['0.7', '1.3', '2.1', '3.7', '0.35', '2.9', '1.15', '5', '3', '0.45', '1.6', '2.4'];
/** Magnitudes for integer variables. */
const INTEGER_MAGNITUDES = ['7', '3', '5', '2', '9', '4', '11', '6', '8', '1', '13', '10'];

/** What a variable's sample values must satisfy: declared assumptions, or a hint (n in n!). */
export interface SampleKind {
  integer: boolean;
  nonnegative: boolean;
}

export interface Comparison {
  agree: boolean;
  lhs: string;
  rhs: string;
}

function bigOf(v: NumericValue) {
  return M.isBigNumber(v) ? v : null;
}

/**
 * Compares two values: decimal agreement 1e-30 relative, 1e-9 once doubles are involved
 * (`lossy`: a value passed through double precision on the way).
 */
export function compareValues(l: NumericValue, r: NumericValue, lossy = false): Comparison {
  const lb = bigOf(l);
  const rb = bigOf(r);
  const lhs = valueText(l);
  const rhs = valueText(r);
  if (lb && rb && !lossy) {
    const scale = [M.bignumber(1), lb.abs(), rb.abs()].reduce((a, b) => (b.gt(a) ? b : a));
    return {
      agree: lb
        .minus(rb)
        .abs()
        .lte(scale.mul(M.bignumber(DECIMAL_AGREEMENT))),
      lhs,
      rhs,
    };
  }
  const c = (v: NumericValue) =>
    M.isComplex(v) ? { re: v.re, im: v.im } : { re: M.isBigNumber(v) ? v.toNumber() : (v as number), im: 0 };
  const a = c(l);
  const b = c(r);
  const scale = Math.max(1, Math.hypot(a.re, a.im), Math.hypot(b.re, b.im));
  return { agree: Math.hypot(a.re - b.re, a.im - b.im) <= FLOAT_AGREEMENT * scale, lhs, rhs };
}

export interface SamplingResult {
  agreeing: number;
  skipped: number;
  counterexample: { point: Record<string, string>; lhs: string; rhs: string } | null;
}

/**
 * Sample point j: magnitudes rotate per variable; the sign of variable k is bit (k mod 3) of j,
 * so the 8 points cover every sign pattern of up to three variables (log(x·y) = log(x) +
 * log(y) fails only when both are negative).
 */
export function samplePoint(
  variables: string[],
  j: number,
  kinds: ReadonlyMap<string, SampleKind> = new Map(),
): Record<string, string> {
  const point: Record<string, string> = {};
  variables.forEach((name, k) => {
    const kind = kinds.get(name);
    const table = kind?.integer ? INTEGER_MAGNITUDES : MAGNITUDES;
    const magnitude = table[(j * 5 + k * 7) % table.length] as string;
    point[name] = (j >> (k % 3)) & 1 && !kind?.nonnegative ? `-${magnitude}` : magnitude;
  });
  // Distinct values for distinct variables at the same point.
  const seen = new Set<string>();
  for (const name of variables) {
    let v = point[name] as string;
    const step = kinds.get(name)?.integer ? 1 : 0.41;
    while (seen.has(v)) v = kinds.get(name)?.integer ? String(Number(v) + step) : (Number(v) + step).toFixed(2);
    seen.add(v);
    point[name] = v;
  }
  return point;
}

export function sampleSides(
  lhs: AstNode,
  rhs: AstNode,
  variables: string[],
  domain: Domain,
  kinds: ReadonlyMap<string, SampleKind> = new Map(),
): SamplingResult {
  let agreeing = 0;
  let skipped = 0;
  for (let j = 0; j < MATH_LIMITS.samplePoints; j++) {
    const point = samplePoint(variables, j, kinds);
    const scope = new Map<string, NumericValue>(Object.entries(point).map(([k, v]) => [k, M.bignumber(v)]));
    const evaluator = new NumericEvaluator('decimal', domain, scope);
    let l: NumericValue;
    let r: NumericValue;
    try {
      l = evaluator.evaluate(lhs);
      r = evaluator.evaluate(rhs);
    } catch (err) {
      if (err instanceof MathDomainError) {
        skipped++;
        continue;
      }
      throw err;
    }
    const cmp = compareValues(l, r, evaluator.lossy);
    if (!cmp.agree) return { agreeing, skipped, counterexample: { point, lhs: cmp.lhs, rhs: cmp.rhs } };
    agreeing++;
  }
  return { agreeing, skipped, counterexample: null };
}
