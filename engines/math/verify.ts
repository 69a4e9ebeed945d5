// POST /verify/math: the deterministic engine (pure, synchronous, no I/O).
//
// Flow: text checks and parsing (parse.ts) → guards on the parse tree (guards.ts) →
// ambiguity (ambiguity.ts) → canonical forms (canonical.ts) → numeric evaluation or sampling
// only where the canonical form cannot decide (numeric.ts, sampling.ts). Only a canonical
// difference of 0 proves an identity; such results carry the `proof` record.
import { SERVICE_VERSION } from '../../core/version.js';
import { findAmbiguity, readings } from './ambiguity.js';
import { Assumptions } from './assumptions.js';
import { Canonicalizer, type Domain, type RF } from './canonical.js';
import { CanonicalLimitError, complexInRealDomain, GuardError, MathDomainError } from './errors.js';
import { guardTrees, type GuardReport } from './guards.js';
import { M, restoreDecimalConfig, type AstNode, type NumericValue } from './mathjs-instance.js';
import { NumericEvaluator, toOutput, valueText, type PrecisionMode } from './numeric.js';
import { findEquationMarkers, normalizePower, parseInput, type ParsedInput } from './parse.js';
import * as R from './rational.js';
import { compareValues, samplePoint, sampleSides, type SampleKind } from './sampling.js';
import type { MathProof, MathRequest, MathResponse } from '../../contract/math.js';
import { maxAllowedTolerance, parseTolerance } from './tolerance.js';
import { MATH_LIMITS } from './limits.js';

export const MATH_VERIFIER = 'svc-math-canonical-form';

interface Run {
  expression: string;
  parsed: ParsedInput;
  report: GuardReport;
  mode: PrecisionMode;
  domain: Domain;
  assumptions: Assumptions;
  tolerance: unknown;
}

/**
 * Functions defined for non-negative integers only: their variables are sampled at non-negative
 * integers (a hint for finding defined points, not an assumption; any point is a valid counterexample).
 */
const INTEGER_FUNCTIONS = new Set(['factorial', 'binomial', 'combinations']);

function sampleKinds(run: Run, variables: string[]): Map<string, SampleKind> {
  const hinted = new Set<string>();
  const visit = (node: AstNode | undefined, inside: boolean, depth: number): void => {
    if (!node || depth > 200) return;
    if (node.type === 'SymbolNode' && inside) hinted.add(node.name as string);
    const name =
      node.type === 'FunctionNode' ? ((node.fn as AstNode | undefined)?.name as string | undefined) : undefined;
    const here =
      inside ||
      (name !== undefined && INTEGER_FUNCTIONS.has(name)) ||
      (node.type === 'OperatorNode' && node.fn === 'factorial');
    for (const a of node.args ?? []) visit(a, here, depth + 1);
    if (node.content) visit(node.content as AstNode, here, depth + 1);
  };
  for (const side of run.parsed.sides) visit(side.node, false, 0);
  return new Map(
    variables.map((v) => [
      v,
      {
        integer: run.assumptions.has(v, 'integer') || hinted.has(v),
        nonnegative: run.assumptions.has(v, 'nonnegative') || hinted.has(v),
      },
    ]),
  );
}

export function verifyMath(input: MathRequest): MathResponse {
  const expression = input.expression;
  let isEquation = false;
  restoreDecimalConfig();
  try {
    isEquation =
      findEquationMarkers(normalizePower(expression.slice(0, MATH_LIMITS.maxExpressionLength + 1))).length > 0;
    const parsed = parseInput(expression);
    const report = guardTrees(
      parsed.sides.map((s) => s.node),
      parsed.kind === 'equation',
    );
    for (const side of parsed.sides) {
      const ambiguous = findAmbiguity(side.node);
      if (ambiguous) return ambiguityResponse(parsed, ambiguous);
    }
    const assumptions = new Assumptions({ domain: input.context?.domain, assumptions: input.context?.assumptions });
    const run: Run = {
      expression,
      parsed,
      report,
      mode: input.precision_mode ?? 'decimal',
      domain: assumptions.evaluationDomain,
      assumptions,
      tolerance: input.tolerance ?? undefined,
    };
    return parsed.kind === 'equation' ? verifyEquation(run) : verifyExpression(run);
  } catch (err) {
    restoreDecimalConfig();
    if (err instanceof GuardError) {
      return {
        status: 'BLOCKED',
        is_valid: false,
        ...(isEquation ? { result: false } : {}),
        error: err.code,
        message: err.message,
      };
    }
    if (err instanceof MathDomainError) {
      return {
        is_valid: false,
        ...(isEquation ? { result: false } : { original: expression }),
        error: err.code,
        message: err.message,
      };
    }
    // Fail closed on anything unexpected: never a verdict, never an exception to the caller.
    return {
      status: 'BLOCKED',
      is_valid: false,
      ...(isEquation ? { result: false } : {}),
      error: 'internal_error',
      message: 'The expression could not be verified.',
    };
  } finally {
    restoreDecimalConfig();
  }
}

function ambiguityResponse(parsed: ParsedInput, node: AstNode): MathResponse {
  const r = readings(node);
  const where = node.toString();
  return {
    status: 'BLOCKED',
    is_valid: false,
    result: false,
    warning: 'ambiguous',
    error: 'ambiguous_expression',
    message:
      `Ambiguous expression: "${where}" has an implicit multiplication directly after a division, which can be read as ` +
      `${r.parsed}${r.alternative ? ` or as ${r.alternative}` : ' or with the division applied last'}. Add parentheses or an explicit "*".`,
    simplified: parsed.sides.map((s) => s.node.toString({ implicit: 'show' })).join(' = '),
    interpretations: r.alternative ? [r.parsed, r.alternative] : [r.parsed],
  };
}

/** The canonical form, or null when it exceeds its size budget. */
function canonicalOf(canon: Canonicalizer, node: AstNode): RF | null {
  try {
    const form = canon.fromNode(node);
    return canon.render(form).length > MATH_LIMITS.maxRenderedLength ? null : form;
  } catch (err) {
    if (err instanceof CanonicalLimitError) return null;
    throw err;
  }
}

/**
 * An evaluator for sides that are closed. A variable that cancels out (`y - y + pi`) still
 * needs a value to walk the tree: it gets the first (all-positive) sample point, which does
 * not change the value because the canonical form does not depend on it.
 */
function closedEvaluator(run: Run, mode: PrecisionMode): NumericEvaluator {
  const point = samplePoint(run.report.variables, 0, sampleKinds(run, run.report.variables));
  const scope = new Map<string, NumericValue>(
    Object.entries(point).map(([k, x]) => [k, mode === 'decimal' ? M.bignumber(x) : Number(x)]),
  );
  return new NumericEvaluator(mode, run.domain, scope);
}

/** Value of a closed side: exact from the canonical form in decimal mode when possible. */
function closedValue(run: Run, canon: Canonicalizer, form: RF | null, node: AstNode): NumericValue {
  if (run.mode === 'decimal' && form) {
    const g = canon.gaussianOf(form);
    if (g) {
      if (R.isZero(g.im)) return M.bignumber(R.toDecimalString(g.re, MATH_LIMITS.decimalPrecision));
      if (run.domain === 'real') throw complexInRealDomain('The value');
      return M.complex(R.toNumber(g.re), R.toNumber(g.im));
    }
  }
  return closedEvaluator(run, run.mode).evaluate(node);
}

/** |v| as a decimal. */
function magnitudeOf(v: NumericValue) {
  if (M.isBigNumber(v)) return v.abs();
  if (M.isComplex(v)) return M.bignumber(Math.hypot(v.re, v.im));
  return M.bignumber(Math.abs(v as number));
}

function difference(l: NumericValue, r: NumericValue): NumericValue {
  return M.subtract(l, r) as NumericValue;
}

// ------------------------------------------------------------------ tolerance

type ToleranceGate =
  | { blocked: MathResponse }
  | { blocked: null; value: ReturnType<typeof M.bignumber> | null; fields: Partial<MathResponse> };

/**
 * Applies the contract's tolerance rules. `calculated` is the compared value (null when the
 * claim is symbolic: then only the tolerance's own validity can be checked).
 */
function toleranceGate(run: Run, calculated: NumericValue | null, isEquation: boolean): ToleranceGate {
  if (run.tolerance === undefined) return { blocked: null, value: null, fields: {} };
  const t = parseTolerance(run.tolerance);
  const max = calculated === null ? null : maxAllowedTolerance(magnitudeOf(calculated));
  const fields = {
    requested_tolerance: t.text,
    max_allowed_tolerance: max === null ? null : max.toString(),
    calculated_value: calculated === null ? null : valueText(calculated),
    precision_mode: run.mode,
  };
  const block = (error: string, message: string): ToleranceGate => ({
    blocked: {
      status: 'BLOCKED',
      is_valid: false,
      ...(isEquation ? { result: false } : {}),
      is_correct: false,
      error,
      message,
      ...fields,
    },
  });
  if (!t.ok) return block(t.error, t.message);
  if (max !== null && t.value.gt(max)) {
    return block(
      'tolerance_above_maximum',
      `The requested tolerance ${t.text} exceeds the maximum allowed ${max.toString()} (max(0.01, 1% of |${fields.calculated_value}|)).`,
    );
  }
  return { blocked: null, value: t.value, fields };
}

// ------------------------------------------------------------------ expressions

function verifyExpression(run: Run): MathResponse {
  const side = run.parsed.sides[0] as { text: string; node: AstNode };
  const canon = new Canonicalizer(run.domain, run.assumptions);
  canon.prepareAngles([side.node]);
  const form = canonicalOf(canon, side.node);
  const variables = form ? canon.varsOf(form) : run.report.variables;
  const simplified = form ? canon.render(form) : side.node.toString();
  if (variables.length > 0) {
    const gate = toleranceGate(run, null, false);
    if (gate.blocked) return gate.blocked;
    return {
      is_valid: true,
      value: null,
      simplified,
      original: run.expression,
      is_symbolic: true,
      variables,
      message: `The expression is symbolic (free variables: ${variables.join(', ')}); it has no numeric value.`,
      ...(run.tolerance !== undefined ? { tolerance_applied: false } : {}),
    };
  }
  const value = closedValue(run, canon, form, side.node);
  const out = toOutput(value);
  const gate = toleranceGate(run, value, false);
  if (gate.blocked) return gate.blocked;
  const tolerance = run.tolerance !== undefined ? { tolerance_applied: false } : {};
  if (out.kind === 'complex') {
    return {
      is_valid: true,
      value: out.text,
      simplified: run.mode === 'decimal' && form ? simplified : out.text,
      original: run.expression,
      is_complex: true,
      real: out.re,
      imaginary: out.im,
      message: 'Expression evaluated; the result is complex.',
      ...tolerance,
    };
  }
  return {
    is_valid: true,
    value: out.number,
    simplified: run.mode === 'decimal' && form ? simplified : out.text,
    original: run.expression,
    message: 'Expression evaluated.',
    ...tolerance,
  };
}

// ------------------------------------------------------------------ equations

function verifyEquation(run: Run): MathResponse {
  const [ls, rs] = run.parsed.sides as [{ text: string; node: AstNode }, { text: string; node: AstNode }];
  const canon = new Canonicalizer(run.domain, run.assumptions);
  canon.prepareAngles([ls.node, rs.node]);
  const L = canonicalOf(canon, ls.node);
  const Rt = canonicalOf(canon, rs.node);
  const variables = L && Rt ? [...new Set([...canon.varsOf(L), ...canon.varsOf(Rt)])].sort() : run.report.variables;
  const closed = variables.length === 0;
  const lText = L ? canon.render(L) : ls.node.toString();
  const rText = Rt ? canon.render(Rt) : rs.node.toString();

  const proven = (extra: Partial<MathResponse> = {}): MathResponse => {
    const conditions = [...canon.conditions].sort();
    const used = [...canon.assumptionsUsed].sort();
    const proof: MathProof = {
      method: 'canonical_form',
      verifier: MATH_VERIFIER,
      verifier_version: SERVICE_VERSION,
      expression: run.parsed.normalized,
      domain: run.assumptions.contextDomain,
      assumptions: run.assumptions.declared(),
      assumptions_used: used,
      lhs: { input: ls.text, canonical: lText },
      rhs: { input: rs.text, canonical: rText },
      difference: '0',
      rules: [...canon.rules].sort(),
      conditions,
      variables,
    };
    return {
      is_valid: true,
      result: true,
      left_side: lText,
      right_side: rText,
      simplified_difference: '0',
      is_equivalent: true,
      method: 'canonical_form',
      ...(used.length ? { assumptions_used: used } : {}),
      message:
        'Identity proven: both sides reduce to the same canonical form (difference 0)' +
        (used.length ? ` under the assumptions ${used.join(', ')}` : '') +
        (conditions.length ? `, wherever ${conditions.join(' and ')}.` : '.'),
      ...extra,
      proof,
    };
  };
  const differ = (
    diff: string,
    method: MathResponse['method'],
    extra: Partial<MathResponse> = {},
    sides = { l: lText, r: rText },
  ): MathResponse => ({
    is_valid: false,
    result: false,
    left_side: sides.l,
    right_side: sides.r,
    simplified_difference: diff,
    is_equivalent: false,
    method,
    message: `The sides are not equal: the simplified difference is ${diff}.`,
    ...extra,
  });

  // Tolerance: a numeric comparison of two closed sides (see docs/math-engine.md).
  if (run.tolerance !== undefined) {
    if (!closed) {
      const gate = toleranceGate(run, null, true);
      if (gate.blocked) return gate.blocked;
    } else {
      const lv = closedValue(run, canon, L, ls.node);
      const rv = closedValue(run, canon, Rt, rs.node);
      const gate = toleranceGate(run, lv, true);
      if (gate.blocked) return gate.blocked;
      const fields = { ...gate.fields, tolerance_applied: true };
      if (run.mode === 'decimal' && L && Rt && canon.isZero(canon.sub(L, Rt)))
        return proven({ is_correct: true, ...fields });
      const diff = difference(lv, rv);
      const within = magnitudeOf(diff).lte(gate.value as ReturnType<typeof M.bignumber>);
      const sides = run.mode === 'decimal' ? { l: lText, r: rText } : { l: valueText(lv), r: valueText(rv) };
      return {
        is_valid: within,
        result: within,
        left_side: sides.l,
        right_side: sides.r,
        simplified_difference: valueText(diff),
        method: 'tolerance_comparison',
        is_correct: within,
        message: within
          ? `The sides agree within the tolerance ${fields.requested_tolerance} (a numeric comparison, not a proof).`
          : `The sides differ by ${valueText(M.abs(diff) as NumericValue)}, more than the tolerance ${fields.requested_tolerance}.`,
        ...fields,
      };
    }
  }
  const toleranceNote = run.tolerance !== undefined ? { tolerance_applied: false } : {};

  // float mode, closed sides: IEEE-754 evaluation compared exactly (never a proof).
  if (closed && run.mode === 'float') {
    const lv = closedValue(run, canon, L, ls.node);
    const rv = closedValue(run, canon, Rt, rs.node);
    const diff = difference(lv, rv);
    const equal = M.isComplex(diff) ? diff.re === 0 && diff.im === 0 : (diff as number) === 0;
    return {
      is_valid: equal,
      result: equal,
      left_side: valueText(lv),
      right_side: valueText(rv),
      simplified_difference: valueText(diff),
      method: 'exact_float_comparison',
      message: equal
        ? 'Both sides evaluate to the same IEEE-754 double (float mode); evaluation is not a proof.'
        : `The sides differ in IEEE-754 double arithmetic (float mode) by ${valueText(diff)}.`,
    };
  }

  let diffText: string | null = null;
  if (L && Rt) {
    const diff = canon.sub(L, Rt);
    if (canon.isZero(diff)) return proven(toleranceNote);
    diffText = canon.render(diff);
    if (canon.isDecisive(diff)) return differ(diffText, 'canonical_form', toleranceNote);
  }

  if (closed) {
    const ev = closedEvaluator(run, 'decimal');
    const lv = ev.evaluate(ls.node);
    const rv = ev.evaluate(rs.node);
    const cmp = compareValues(lv, rv, ev.lossy);
    if (!cmp.agree) return differ(diffText ?? valueText(difference(lv, rv)), 'numerical_evaluation', toleranceNote);
    return {
      status: 'BLOCKED',
      is_valid: false,
      result: false,
      left_side: lText,
      right_side: rText,
      simplified_difference: diffText ?? `(${ls.text}) - (${rs.text})`,
      is_equivalent: false,
      method: 'numerical_evaluation',
      error: 'numerical_agreement_not_proof',
      message:
        'Both sides agree numerically to 30 significant digits, but numerical agreement is not a proof; the equality could not be proven exactly.',
      ...toleranceNote,
    };
  }

  const sampled = sampleSides(ls.node, rs.node, variables, run.domain, sampleKinds(run, variables));
  if (sampled.counterexample) {
    const { point, lhs, rhs } = sampled.counterexample;
    const at = Object.entries(point)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ');
    return differ(diffText ?? `(${ls.text}) - (${rs.text})`, 'numerical_sampling', {
      counterexample: point,
      message: `The sides are not equal: at ${at} the left side is ${lhs} and the right side is ${rhs}.`,
      ...toleranceNote,
    });
  }
  const blocked = {
    status: 'BLOCKED' as const,
    is_valid: false,
    result: false,
    left_side: lText,
    right_side: rText,
    simplified_difference: diffText ?? `(${ls.text}) - (${rs.text})`,
    is_equivalent: false,
    method: 'numerical_sampling' as const,
    samples_checked: sampled.agreeing,
    ...toleranceNote,
  };
  if (sampled.agreeing === 0) {
    return {
      ...blocked,
      error: 'not_evaluable',
      message: 'The sides could not be evaluated at any sample point; the claim cannot be checked.',
    };
  }
  return {
    ...blocked,
    error: 'sampling_not_proof',
    message: `Both sides agree at ${sampled.agreeing} sample points, but numerical sampling is not a proof: the identity could not be proven symbolically.`,
  };
}
