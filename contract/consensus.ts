// POST /verify/consensus (contract, "POST /verify/consensus"). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { CONSENSUS_TIMEOUT_DETAIL, CONSENSUS_DEADLINE_MS } from './deadlines.js';
export { CONSENSUS_TIMEOUT_DETAIL, CONSENSUS_DEADLINE_MS };

export const MAX_CONSENSUS_QUERY_LENGTH = 10_000;

/** min_confidence (0–1) as the percentage it is compared with, free of binary noise (0.57 → 57, not 56.99…). */
export function requiredPercent(minConfidence: number): number {
  return Math.round(minConfidence * 1_000_000) / 10_000;
}
export const VERIFICATION_MODES = ['single', 'high', 'maximum'] as const;
export type VerificationMode = (typeof VERIFICATION_MODES)[number];

export const consensusRequestSchema = nullMeansAbsent(
  z.object({
    query: z
      .string({ error: (iss) => (iss.input === undefined ? 'query is required' : 'query must be a string') })
      .min(1, { error: 'query must not be empty' })
      .max(MAX_CONSENSUS_QUERY_LENGTH, { error: `query must be at most ${MAX_CONSENSUS_QUERY_LENGTH} characters` })
      .refine((q) => q.trim() !== '', { error: 'query must not be empty' })
      .meta({ example: '2 + 2 = 4' }),
    verification_mode: z
      .enum(VERIFICATION_MODES, { error: "verification_mode must be 'single', 'high' or 'maximum'" })
      .default('single'),
    min_confidence: z
      .number({ error: 'min_confidence must be a number between 0 and 1' })
      .min(0, { error: 'min_confidence must be a number between 0 and 1' })
      .max(1, { error: 'min_confidence must be a number between 0 and 1' })
      .default(0.95),
  }),
);
export type ConsensusRequest = z.output<typeof consensusRequestSchema>;

export const consensusChainEntrySchema = z.looseObject({
  engine: z.string(),
  method: z.string(),
  result: z.string(),
  confidence: z.number(),
  latency_ms: z.number(),
  success: z.boolean(),
  status: z.enum(['VERIFIED', 'UNVERIFIABLE', 'BLOCKED']),
  advisory: z.boolean(),
  detail: z.record(z.string(), z.unknown()).optional(),
  proof_ref: z.string().optional(),
});

/** 200, and the body of the 422 below min_confidence (with `detail`). */
export const consensusResponseSchema = z
  .looseObject({
    status: z.enum(['VERIFIED', 'UNVERIFIABLE', 'BLOCKED']),
    final_answer: z.string(),
    confidence: z.number().min(0).max(100),
    engines_used: z.number().int(),
    agreement_status: z.enum(['UNANIMOUS', 'MAJORITY', 'SPLIT', 'NONE']),
    verification_chain: z.array(consensusChainEntrySchema),
    total_latency_ms: z.number(),
    meets_requirement: z.boolean(),
    verification_mode: z.enum(VERIFICATION_MODES),
    min_confidence: z.number(),
    query_kind: z.enum(['natural_language', 'arithmetic', 'statistical']),
    evaluated_expression: z.string().nullable(),
    proof_ref: z.string().optional(),
    attestation: z.object({ id: z.string(), token: z.string(), status: z.string() }).optional(),
    constraint_id: z.string().optional(),
    detail: z.string().optional(),
  })
  .meta({ id: 'ConsensusResponse' });
export type ConsensusResponse = z.infer<typeof consensusResponseSchema>;
