// /audit/* and /logs (contract, "Audit endpoints", "Observability endpoints"). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const AUDIT_LOG_NOT_FOUND = 'Audit log not found.';
export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 200;
export const AUDIT_EXPORT_MAX = 1000;

/** Query parameters, checked by api/routes/audit.ts with its exact 400 details (never clamped). */
export const auditLogsQuerySchema = nullMeansAbsent(
  z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(AUDIT_LIMIT_MAX)
      .optional()
      .meta({ description: `Default ${AUDIT_LIMIT_DEFAULT}.` }),
    status: z.enum(['verified', 'blocked']).optional(),
    // /audit/logs pages backwards like /logs (docs/audit-chain.md, "Reading at scale").
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/)
      .optional()
      .meta({ description: 'next_cursor of the previous page.' }),
  }),
);
export const logsQuerySchema = auditLogsQuerySchema;

export const auditLogEntrySchema = z
  .object({
    id: z.string(),
    seq: z.number().nullable().optional(),
    organization_id: z.string(),
    user_id: z.string().nullable().optional(),
    key_id: z.string().nullable(),
    engine: z.string(),
    query: z.unknown(),
    status: z.string().nullable(),
    verified: z.boolean(),
    admission: z.string().nullable(),
    proof_ref: z.string().nullable(),
    attestation_id: z.string().nullable(),
    workflow_id: z.string().nullable(),
    request_digest: z.string().nullable(),
    raw_llm_output: z.unknown(),
    timestamp: z.string(),
    previous_hash: z.string().nullable(),
    entry_hash: z.string(),
    signature: z.string(),
  })
  .meta({ id: 'AuditLogEntry' });
export type AuditLogEntry = z.infer<typeof auditLogEntrySchema>;

export const auditLogsResponseSchema = z
  .object({
    logs: z.array(auditLogEntrySchema),
    count: z.number().int(),
    limit: z.number().int(),
    status: z.enum(['verified', 'blocked']).nullable(),
    /** The cursor of the next (older) page; null on the last page. */
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'AuditLogs' });
export const logsResponseSchema = z
  .object({ logs: z.array(auditLogEntrySchema), next_cursor: z.string().nullable() })
  .meta({ id: 'VerificationLogs' });
