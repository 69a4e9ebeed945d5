// POST /verify/natural_language: request and response shapes (contract, "POST
// /verify/natural_language" and "trust_boundary object"). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { NL_TIMEOUT_DETAIL } from './deadlines.js';
export { NL_TIMEOUT_DETAIL };

/** Longest natural-language query accepted (characters). */
export const NL_MAX_QUERY_CHARS = 10_000;

const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined || iss.input === null ? `${field} is required` : `${field} must be a string`;

export const naturalLanguageRequestSchema = nullMeansAbsent(
  z.object({
    query: z
      .string({ error: requiredString('query') })
      .trim()
      .min(1, { error: 'query must not be empty' })
      .max(NL_MAX_QUERY_CHARS, { error: `query must be at most ${NL_MAX_QUERY_CHARS} characters` }),
    provider: z
      .string({ error: 'provider must be a string' })
      .max(64, { error: 'provider must be at most 64 characters' })
      .optional(),
  }),
);
export type NaturalLanguageRequest = z.output<typeof naturalLanguageRequestSchema>;

export const NL_STATUSES = ['INCONCLUSIVE', 'ERROR', 'NOT_MATH_QUERY', 'BLOCKED'] as const;
export type NaturalLanguageStatus = (typeof NL_STATUSES)[number];

export const trustBoundarySchema = z.object({
  query_interpretation_source: z.literal('llm_translation'),
  query_semantics_verified: z.literal(false),
  verification_scope: z.literal('translated_expression_only'),
  deterministic_expression_evaluation: z.boolean(),
  formal_proof: z.literal(false),
  translation_claim_self_consistent: z.boolean(),
  provider_used: z.string(),
  trust_enforced: z.enum(NL_STATUSES),
  attestation_policy: z.literal('mandatory'),
  attestation_error: z.string().optional(),
  overall_status: z.enum(NL_STATUSES),
});
export type TrustBoundary = z.infer<typeof trustBoundarySchema>;

export const naturalLanguageResponseSchema = z.object({
  status: z.enum(NL_STATUSES),
  user_query: z.string(),
  translation: z
    .object({
      expression: z.string(),
      claimed_answer: z.number().nullable(),
      reasoning: z.string(),
      confidence: z.number().min(0).max(1),
    })
    .nullable(),
  verification: z
    .object({
      calculated_value: z.number(),
      is_correct: z.boolean(),
      diff: z.number(),
      /** The inner engine's raw verdict, before enforcement (never the final status). */
      inner_status: z.enum(['VERIFIED', 'CORRECTION_NEEDED']),
    })
    .nullable(),
  trust_boundary: trustBoundarySchema,
  final_answer: z.number().nullable(),
  provider_used: z.string(),
  latency_ms: z.number(),
  /** The ES256 attestation (mandatory policy); absent when nothing was evaluated or signing failed. */
  attestation: z.object({ id: z.string(), token: z.string(), status: z.literal('ISSUED') }).optional(),
  /** Machine-readable reason for ERROR, NOT_MATH_QUERY and BLOCKED. */
  reason: z.string().optional(),
  /** Human-readable explanation for ERROR, NOT_MATH_QUERY and BLOCKED. */
  error: z.string().optional(),
});
export type NaturalLanguageResponse = z.infer<typeof naturalLanguageResponseSchema>;
