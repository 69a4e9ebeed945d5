// POST /verify/fact: request, response and error bodies (contract, "POST /verify/fact").
// Unknown keys are ignored; known keys are validated strictly.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { FACT_TIMEOUT_DETAIL } from './deadlines.js';
export { FACT_TIMEOUT_DETAIL };

/** A claim is one statement; longer text is refused rather than silently truncated. */
export const FACT_CLAIM_MAX_CHARS = 10_000;
/** The context fits the JSON body cap (1,000,000 bytes); this bounds it in characters as well. */
export const FACT_CONTEXT_MAX_CHARS = 1_000_000;

const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined || iss.input === null ? `${field} is required` : `${field} must be a string`;

const nonBlank = (field: string, max: number) =>
  z
    .string({ error: requiredString(field) })
    .refine((s) => s.trim().length > 0, { error: `${field} must not be empty` })
    .refine((s) => s.length <= max, { error: `${field} must be at most ${max} characters` });

export const factRequestSchema = nullMeansAbsent(
  z.object({
    claim: nonBlank('claim', FACT_CLAIM_MAX_CHARS),
    context: nonBlank('context', FACT_CONTEXT_MAX_CHARS),
    provider: z
      .string({ error: 'provider must be a string' })
      .max(64, { error: 'provider must be at most 64 characters' })
      .optional(),
  }),
);
export type FactRequest = z.infer<typeof factRequestSchema>;

export const FACT_VERDICTS = ['SUPPORTED', 'REFUTED', 'INCONCLUSIVE'] as const;

export const factEvidenceSchema = z.object({
  /** Offsets in Unicode code points of `context` (Python's str indices), end exclusive. */
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  text: z.string(),
  role: z.enum(['supporting_sentence', 'contradicting_sentence', 'contradicting_span', 'best_match', 'provider_quote']),
});

export const factSignalSchema = z.object({
  kind: z.enum([
    'exact_sentence',
    'near_exact_sentence',
    'quantity_mismatch',
    'date_mismatch',
    'negation_flip',
    'antonym_flip',
    'entity_mismatch',
    'provider_entailment',
  ]),
  detail: z.string(),
});

export const factProviderJudgementSchema = z.object({
  label: z.enum(['entailed', 'contradicted', 'neutral']),
  quote: z.string().nullable(),
  /** Whether the quote occurs in the context (whitespace and case aside). */
  quote_found: z.boolean(),
  reasoning: z.string(),
});

export const factResponseSchema = z.object({
  verdict: z.enum(FACT_VERDICTS),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  evidence: z.array(factEvidenceSchema),
  signals: z.array(factSignalSchema),
  provider_used: z.string(),
  /** The model's judgement when a provider was asked (advisory), else null. */
  provider_judgement: factProviderJudgementSchema.nullable(),
  /** Why the provider gave no judgement (error code), else null. */
  provider_error: z.string().nullable(),
  latency_ms: z.number(),
});
export type FactResponse = z.infer<typeof factResponseSchema>;

export const errorBodySchema = z.object({ detail: z.string(), code: z.string(), request_id: z.string() });
