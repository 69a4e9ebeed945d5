// The deterministic half of natural-language verification: the translated expression goes
// through the math engine (with every guard of /verify/math, real domain) and its value is
// compared with the translation's own claimed answer. Pure. The outcome is at most
// "the expression evaluates to this value": it says nothing about whether the translation
// meant what the question meant (trust_boundary.query_semantics_verified is always false).
import { verifyMath } from '../math.js';

export type InnerStatus = 'VERIFIED' | 'CORRECTION_NEEDED';

export type TranslationEvaluation =
  | {
      kind: 'evaluated';
      inner_status: InnerStatus;
      /** The expression actually evaluated (bound into the attestation's query_hash). */
      evaluated_expression: string;
      calculated_value: number;
      is_correct: boolean;
      /** calculated_value - claimed_answer. */
      diff: number;
    }
  | { kind: 'rejected'; reason: string; message: string };

/** Largest relative difference still counted as the same number (float noise, not a claim). */
export const RELATIVE_AGREEMENT = 1e-9;

const round15 = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(15)) : v);

export function evaluateTranslation(expression: string, claimedAnswer: number | null): TranslationEvaluation {
  const expr = expression.trim();
  if (expr === '')
    return { kind: 'rejected', reason: 'empty_expression', message: 'The translation has no expression.' };
  if (expr.includes('=')) {
    return {
      kind: 'rejected',
      reason: 'expression_rejected',
      message: 'The translation must be one expression, not an equation or assignment.',
    };
  }
  const r = verifyMath({ expression: expr, context: { domain: 'real' } }) as Record<string, unknown>;
  if (r.status === 'BLOCKED' || r.is_valid !== true) {
    const code = typeof r.error === 'string' ? r.error : typeof r.warning === 'string' ? r.warning : 'invalid';
    const why = typeof r.message === 'string' ? r.message : 'The math engine refused the expression.';
    return {
      kind: 'rejected',
      reason: `expression_rejected:${code}`,
      message: `The translated expression was refused by the math engine: ${why}`,
    };
  }
  if (typeof r.value !== 'number' || !Number.isFinite(r.value) || r.is_symbolic === true || r.is_complex === true) {
    return { kind: 'rejected', reason: 'not_a_number', message: 'The translated expression has no finite real value.' };
  }
  if (claimedAnswer === null || !Number.isFinite(claimedAnswer)) {
    return {
      kind: 'rejected',
      reason: 'missing_claimed_answer',
      message: 'The translation has no numeric claimed answer to check.',
    };
  }
  const calculated = r.value;
  const diff = calculated - claimedAnswer;
  const isCorrect = Math.abs(diff) <= RELATIVE_AGREEMENT * Math.max(1, Math.abs(calculated));
  return {
    kind: 'evaluated',
    inner_status: isCorrect ? 'VERIFIED' : 'CORRECTION_NEEDED',
    evaluated_expression: typeof r.original === 'string' ? r.original : expr,
    calculated_value: calculated,
    is_correct: isCorrect,
    diff: isCorrect ? 0 : round15(diff),
  };
}
