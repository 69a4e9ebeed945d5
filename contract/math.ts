// POST /verify/math request and response shapes.
//
// Request: `expression` required string; `context` optional object (`domain`: 'complex' |
// 'real' | 'positive' | 'nonnegative' | 'integer' for every variable; `assumptions`: per-variable
// properties, {"n": ["positive", "integer"]}; other keys ignored); `tolerance` optional number, string or boolean (a
// non-numeric value is a verdict, BLOCKED, not a 400: the contract lists it among the blocked
// tolerance cases); `precision_mode` optional 'decimal' | 'float'. Unknown keys are ignored;
// known keys are type-strict (no coercion).
import { z } from 'zod';
import { attestationRefSchema, nullMeansAbsent } from './common.js';
import { MATH_TIMEOUT_DETAIL } from './deadlines.js';
export { MATH_TIMEOUT_DETAIL };

/** Properties a request may declare of its variables (the engine's assumptions use them). */
export const PROPERTIES = ['real', 'positive', 'nonnegative', 'integer'] as const;
export type Property = (typeof PROPERTIES)[number];
export const DOMAINS = ['complex', ...PROPERTIES] as const;
export type ContextDomain = (typeof DOMAINS)[number];

const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required` : `${field} must be a string`;

export const mathRequestSchema = nullMeansAbsent(
  z.object({
    expression: z.string({ error: requiredString('expression') }).min(1, { error: 'expression must not be empty' }),
    context: nullMeansAbsent(
      z.object(
        {
          domain: z
            .enum(DOMAINS, { error: `context.domain must be one of ${DOMAINS.map((d) => `'${d}'`).join(', ')}` })
            .optional(),
          assumptions: z
            .record(
              z
                .string()
                .regex(/^[\p{L}_][\p{L}\p{N}_]{0,31}$/u, { error: 'context.assumptions keys must be variable names' }),
              z.union([z.enum(PROPERTIES), z.array(z.enum(PROPERTIES)).min(1).max(PROPERTIES.length)], {
                error: `context.assumptions values must be ${PROPERTIES.map((p) => `'${p}'`).join(', ')} or a list of them`,
              }),
              { error: 'context.assumptions must be an object' },
            )
            .refine((r) => Object.keys(r).length <= 50, { error: 'context.assumptions may name at most 50 variables' })
            .optional(),
        },
        { error: 'context must be an object' },
      ),
    ).optional(),
    tolerance: z
      .union([z.number(), z.string(), z.boolean()], { error: 'tolerance must be a number or a numeric string' })
      .optional(),
    precision_mode: z.enum(['decimal', 'float'], { error: "precision_mode must be 'decimal' or 'float'" }).optional(),
  }),
);

export type MathRequest = z.output<typeof mathRequestSchema>;

/** The retained proof artifact of a proven identity (JSON only, deterministic). */
export type MathProof = {
  method: 'canonical_form';
  verifier: string;
  verifier_version: string;
  /** The evaluated equation (normalized: `**` written as `^`). */
  expression: string;
  /** context.domain (default complex). */
  domain: ContextDomain;
  /** The declared assumptions ("all variables positive", "n integer"), sorted. */
  assumptions: string[];
  /** The assumptions the rewrites relied on ("x positive"), sorted; empty when none was needed. */
  assumptions_used: string[];
  lhs: { input: string; canonical: string };
  rhs: { input: string; canonical: string };
  difference: '0';
  /** Rewrite rules used, sorted. */
  rules: string[];
  /** Conditions under which the identity holds (divisors non-zero), sorted. */
  conditions: string[];
  variables: string[];
};

/**
 * The engine's answer. Contract fields for equations (is_valid, result, left_side, right_side,
 * simplified_difference, message) and expressions (is_valid, value, simplified, original,
 * is_symbolic, is_complex), plus `status: 'BLOCKED'` for refused requests and `proof` for
 * proven identities (internal: stripped from the HTTP body and retained as the proof artifact).
 */
export type MathResponse = {
  status?: 'BLOCKED';
  is_valid: boolean;
  message: string;
  /** Machine-readable reason (guard name, domain error, tolerance rejection, ...). */
  error?: string;
  warning?: 'ambiguous';
  // Equations
  result?: boolean;
  left_side?: string;
  right_side?: string;
  simplified_difference?: string;
  is_equivalent?: boolean;
  /** Proven identities: the assumptions the proof relied on (absent when none). */
  assumptions_used?: string[];
  method?:
    | 'canonical_form'
    | 'exact_float_comparison'
    | 'tolerance_comparison'
    | 'numerical_evaluation'
    | 'numerical_sampling';
  samples_checked?: number;
  counterexample?: Record<string, string>;
  // Expressions
  value?: number | string | null;
  simplified?: string;
  original?: string;
  is_symbolic?: true;
  is_complex?: true;
  real?: number;
  imaginary?: number;
  variables?: string[];
  interpretations?: string[];
  // Tolerance
  is_correct?: boolean;
  requested_tolerance?: string;
  max_allowed_tolerance?: string | null;
  calculated_value?: string | null;
  precision_mode?: 'decimal' | 'float';
  tolerance_applied?: boolean;
  // Internal
  proof?: MathProof;
};

/**
 * The HTTP body of /verify/math: the engine's fields (MathResponse without the internal `proof`)
 * plus what the activity adds: `status` (VERIFIED only for a retained, attested proof; else
 * UNVERIFIABLE, or BLOCKED as the engine decided), `proof_ref` and `is_authoritative` (true iff
 * proof_ref is set), `attestation` on VERIFIED, and `constraint_id`/`attestation_error` when
 * signing failed (fail closed to UNVERIFIABLE).
 */
export const mathResponseSchema = z
  .looseObject({
    status: z.enum(['VERIFIED', 'UNVERIFIABLE', 'BLOCKED']),
    proof_ref: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .nullable(),
    is_authoritative: z.boolean(),
    attestation: attestationRefSchema.optional(),
    constraint_id: z.string().optional(),
    attestation_error: z.string().optional(),
    is_valid: z.boolean(),
    message: z.string(),
    error: z.string().optional(),
    warning: z.literal('ambiguous').optional(),
    result: z.boolean().optional(),
    left_side: z.string().optional(),
    right_side: z.string().optional(),
    simplified_difference: z.string().optional(),
    is_equivalent: z.boolean().optional(),
    assumptions_used: z.array(z.string()).optional(),
    method: z
      .enum([
        'canonical_form',
        'exact_float_comparison',
        'tolerance_comparison',
        'numerical_evaluation',
        'numerical_sampling',
      ])
      .optional(),
    samples_checked: z.number().optional(),
    counterexample: z.record(z.string(), z.string()).optional(),
    value: z.union([z.number(), z.string()]).nullable().optional(),
    simplified: z.string().optional(),
    original: z.string().optional(),
    is_symbolic: z.literal(true).optional(),
    is_complex: z.literal(true).optional(),
    real: z.number().optional(),
    imaginary: z.number().optional(),
    variables: z.array(z.string()).optional(),
    interpretations: z.array(z.string()).optional(),
    is_correct: z.boolean().optional(),
    requested_tolerance: z.string().optional(),
    max_allowed_tolerance: z.string().nullable().optional(),
    calculated_value: z.string().nullable().optional(),
    precision_mode: z.enum(['decimal', 'float']).optional(),
    tolerance_applied: z.boolean().optional(),
  })
  .meta({
    id: 'MathResponse',
    example: {
      status: 'VERIFIED',
      is_valid: true,
      result: true,
      left_side: '(x+1)^2',
      right_side: 'x^2+2*x+1',
      simplified_difference: '0',
      message: 'Identity holds',
      proof_ref: 'sha256:' + '0'.repeat(64),
      is_authoritative: true,
    },
  });
