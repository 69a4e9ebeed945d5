// Contract of the agent-to-agent gateway, POST /a2a/intercept (docs/a2a-gateway.md).
// Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const PAYLOAD_TYPES = [
  'financial_transaction',
  'code_execution',
  'logic_assertion',
  'general',
  'data_query',
] as const;
export type PayloadType = (typeof PAYLOAD_TYPES)[number];

export const A2A_STATUSES = ['verified', 'blocked', 'unverifiable', 'heuristic_pass', 'error'] as const;
export type A2aStatus = (typeof A2A_STATUSES)[number];

export const MAX_ENGINE_TIMEOUT_SECONDS = 60;

export const interceptRequestSchema = nullMeansAbsent(
  z.object({
    sender_agent_id: z.string().max(256).optional(),
    receiver_agent_id: z
      .string({
        error: (i) => (i.input === undefined ? 'receiver_agent_id is required' : 'receiver_agent_id must be a string'),
      })
      .min(1)
      .max(256),
    payload_type: z.enum(PAYLOAD_TYPES, { error: `payload_type must be one of ${PAYLOAD_TYPES.join(', ')}` }),
    payload: z.record(z.string(), z.unknown(), { error: 'payload must be an object' }),
    engine_timeout_seconds: z
      .number({ error: 'engine_timeout_seconds must be a number' })
      .refine(
        (n) => Number.isFinite(n) && n > 0 && n <= MAX_ENGINE_TIMEOUT_SECONDS,
        'engine_timeout_seconds must be > 0 and at most 60',
      )
      .optional(),
  }),
);
export type InterceptRequest = z.output<typeof interceptRequestSchema>;

/** Documented payload shapes (extra fields accepted and ignored). Amounts: decimal strings or numbers
 *  (numbers only when exact: the gateway's strict reader refuses any it would round). */
const decimal = z.union([z.string(), z.number()]);
export const financialPayloadSchema = z.object({
  amount: decimal,
  currency: z.string(),
  balance_before: decimal,
  balance_after: decimal,
  fee: decimal.optional(),
});
export const codePayloadSchema = z.object({ code: z.string(), language: z.string().max(64).optional() });
/** logic_assertion: verified only when `facts` (one exact value per variable: integer, decimal
 *  or decimal string for Int/Real, true/false for Bool) entail `query` (docs/a2a-gateway.md). */
export const logicPayloadSchema = z.object({
  query: z.string(),
  facts: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
});

export const interceptResponseSchema = z.object({
  status: z.enum(A2A_STATUSES),
  audit_trace_id: z.string().regex(/^a2a_[0-9a-f]{32}$/),
  engine_used: z.string(),
  attestation_jwt: z.string().nullable(),
  reason: z.string(),
  admissible: z.boolean(),
  sender_agent_id: z.string(),
  receiver_agent_id: z.string(),
  payload_type: z.enum(PAYLOAD_TYPES),
  workflow_id: z.string(),
  audit_log_id: z.string(),
});
export type InterceptResponse = z.output<typeof interceptResponseSchema>;

export const traceResponseSchema = interceptResponseSchema
  .omit({ attestation_jwt: true })
  .extend({ created_at: z.string() });

export const errorSchema = z.object({ detail: z.string(), code: z.string(), request_id: z.string() });
