// Admin endpoints (contract, "Admin endpoints"): key rotation and the compliance/security
// reports, always for the caller's own organization. Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const CROSS_ORG = "Cannot access another organization's data";
export const ROTATION_WIDER_SCOPES = 'API key cannot rotate a key whose scopes are wider than its own.';
export const ROTATION_IN_PROGRESS = 'This API key is already being rotated.';

export const rotateKeyRequestSchema = z
  .object({ key_id: z.string().min(1).max(100) })
  .meta({ example: { key_id: 'key_0123' } });
export type RotateKeyRequest = z.infer<typeof rotateKeyRequestSchema>;

export const rotateKeyResponseSchema = z
  .object({
    key_id: z.string(),
    old_key_id: z.string(),
    name: z.string(),
    /** The new secret: returned once only. */
    new_key_secret: z.string(),
    preview: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'RotatedApiKey' });
export type RotateKeyResponse = z.infer<typeof rotateKeyResponseSchema>;

export const orgParamsSchema = z.object({ org_id: z.string() });
export const logParamsSchema = z.object({ log_id: z.string() });
export const complianceCsvQuerySchema = nullMeansAbsent(
  z.object({ org_id: z.string().optional().meta({ description: "Must be the caller's own organization." }) }),
);

/** GET /admin/compliance/verify/{log_id}: integrity of one audit entry. */
export const auditVerificationSchema = z
  .object({
    log_id: z.string(),
    seq: z.number().nullable().optional(),
    valid: z.boolean(),
    checks: z.object({ hash_valid: z.boolean(), signature_valid: z.boolean(), chain_valid: z.boolean() }),
    errors: z.array(z.string()),
    payload_version: z.enum(['current', 'legacy']).nullable(),
  })
  .meta({ id: 'AuditVerification' });
/** SOC 2 report and threat summary: fields not fixed by the contract. */
export const soc2ReportSchema = z.record(z.string(), z.unknown()).meta({ id: 'Soc2Report' });
export const threatSummarySchema = z.record(z.string(), z.unknown()).meta({ id: 'ThreatSummary' });
