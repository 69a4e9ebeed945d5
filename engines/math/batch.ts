// Batch math items → EngineOutcome (the contract's "Batch math item" rows).
//
//   equality claim whose canonical difference is 0     → proven (proof artifact retained by the lead)
//   equality claim whose sides differ                  → unverifiable, developer_fields.diff non-zero
//   bare expression (no "=")                           → unverifiable, developer_fields.simplified
//   guards, ambiguity, domain errors, tolerance, "agrees only numerically" → blocked, specific constraint_id
//   equal only numerically without proof (float mode, within a tolerance) → unverifiable
// (An attestation-signing failure is the activity layer's row.)
import type { EngineOutcome } from '../../core/diagnostic.js';
import { mathRequestSchema, type MathResponse } from '../../contract/math.js';
import { verifyMath } from './verify.js';

export const MATH_CONSTRAINTS = {
  identityProven: 'math_verifier.identity_proven',
  sidesDiffer: 'math_verifier.sides_differ',
  numericEqualityUnproven: 'math_verifier.numeric_equality_unproven',
  expressionEvaluated: 'math_verifier.expression_evaluated',
  invalidRequest: 'math_verifier.invalid_request',
} as const;

/** constraint_id of a blocked or failed result: `math_verifier.<error>` (e.g. math_verifier.exponent_too_large). */
export const blockedConstraint = (error: string | undefined) => `math_verifier.${error ?? 'blocked'}`;

function pick(r: MathResponse, keys: Array<keyof MathResponse>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (r[k] !== undefined) out[k] = r[k];
  return out;
}

/**
 * Batch item of type `math`. `params` may carry the /verify/math options (context, tolerance,
 * precision_mode); anything invalid there blocks the item.
 */
export function mathBatchOutcome(expression: string, params: Record<string, unknown> = {}): EngineOutcome {
  const parsed = mathRequestSchema.safeParse({ ...params, expression });
  if (!parsed.success) {
    return {
      kind: 'blocked',
      agentMessage: 'The math item is not a valid request.',
      developerFields: {
        constraint_id: MATH_CONSTRAINTS.invalidRequest,
        is_valid: false,
        error: parsed.error.issues.map((i) => i.message).join('; '),
      },
    };
  }
  const r = verifyMath(parsed.data);
  const { proof, ...fields } = r;
  if (proof && r.is_valid) {
    return {
      kind: 'proven',
      agentMessage: 'Identity proven: the difference of the two sides simplifies to 0.',
      developerFields: {
        constraint_id: MATH_CONSTRAINTS.identityProven,
        is_valid: true,
        simplified_difference: '0',
        ...pick(fields, ['left_side', 'right_side', 'method', 'is_equivalent']),
        expression: proof.expression,
      },
      proof,
    };
  }
  if (r.status === 'BLOCKED' || r.error !== undefined) {
    return {
      kind: 'blocked',
      agentMessage: r.message,
      developerFields: {
        constraint_id: blockedConstraint(r.error),
        is_valid: false,
        ...pick(fields, [
          'error',
          'warning',
          'message',
          'simplified',
          'interpretations',
          'left_side',
          'right_side',
          'simplified_difference',
          'is_equivalent',
          'method',
          'samples_checked',
          'requested_tolerance',
          'max_allowed_tolerance',
          'calculated_value',
          'precision_mode',
        ]),
      },
    };
  }
  if (r.result !== undefined) {
    if (!r.is_valid) {
      return {
        kind: 'unverifiable',
        agentMessage: r.message,
        developerFields: {
          constraint_id: MATH_CONSTRAINTS.sidesDiffer,
          is_valid: false,
          diff: r.simplified_difference,
          ...pick(fields, ['simplified_difference', 'left_side', 'right_side', 'method', 'counterexample']),
        },
      };
    }
    return {
      kind: 'unverifiable',
      agentMessage: `${r.message} Without an exact proof the claim is not verified.`,
      developerFields: {
        constraint_id: MATH_CONSTRAINTS.numericEqualityUnproven,
        is_valid: true,
        ...pick(fields, [
          'left_side',
          'right_side',
          'simplified_difference',
          'method',
          'requested_tolerance',
          'max_allowed_tolerance',
          'calculated_value',
          'precision_mode',
        ]),
      },
    };
  }
  return {
    kind: 'unverifiable',
    agentMessage: 'Expression evaluated; a bare expression makes no claim to verify.',
    developerFields: {
      constraint_id: MATH_CONSTRAINTS.expressionEvaluated,
      is_valid: r.is_valid,
      ...pick(fields, [
        'simplified',
        'value',
        'is_symbolic',
        'is_complex',
        'real',
        'imaginary',
        'variables',
        'original',
      ]),
    },
  };
}
