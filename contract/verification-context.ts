// /verification-context/* (contract, "Verification Context endpoints"). The document itself is
// validated against the v1.0 JSON Schema in core/verification-context.ts (strict JSON, exact
// invariant messages); these schemas describe the requests and responses around it.
import { z } from 'zod';
import { diagnosticResultSchema } from './common.js';

export const VC_VERDICTS = ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'] as const;

export const verificationContextDocumentSchema = z
  .looseObject({
    spec_version: z.string(),
    object: z.string(),
    context: z.record(z.string(), z.unknown()),
    verdict: z.enum(VC_VERDICTS),
  })
  .meta({ id: 'VerificationContextDocument', description: 'v1.0 document; the full JSON Schema is applied by the validate endpoint.' });
export type VerificationContextDocument = z.infer<typeof verificationContextDocumentSchema>;

export const fromDiagnosticRequestSchema = z
  .object({
    query: z.string(),
    verifier: z.string(),
    diagnostic: diagnosticResultSchema.partial({ is_authoritative: true }),
    verifier_version: z.string().optional(),
    attestation_token: z.string().optional(),
  })
  .meta({
    example: {
      query: 'SELECT 1',
      verifier: 'sql',
      diagnostic: { status: 'UNVERIFIABLE', agent_message: 'not proven', developer_fields: { constraint_id: 'sql_verifier.sql_valid' }, proof_ref: null },
    },
  });
export type FromDiagnosticRequest = z.infer<typeof fromDiagnosticRequestSchema>;

/** validate and resolve take the document, or `{ "document": <document> }`. */
export const documentRequestSchema = z.union([verificationContextDocumentSchema, z.object({ document: verificationContextDocumentSchema })]);

export const validationIssueSchema = z.object({ path: z.string(), message: z.string() });

/** 400 from from-diagnostic: `{detail, error, errors}`; 400 for malformed strict JSON: `{detail, code, path, position}`. */
export const verificationContextErrorSchema = z
  .looseObject({
    detail: z.string(),
    error: z.string().optional(),
    errors: z.array(validationIssueSchema).optional(),
    code: z.string().optional(),
    path: z.string().optional(),
    position: z.number().optional(),
  })
  .meta({ id: 'VerificationContextError' });

export const validateResponseSchema = z
  .object({ valid: z.boolean(), error: z.literal('validation_failed').optional(), errors: z.array(validationIssueSchema).optional() })
  .meta({ id: 'ValidateResponse', example: { valid: false, error: 'validation_failed', errors: [{ path: '$.verdict', message: 'must be equal to one of the allowed values' }] } });
export type ValidateResponse = z.infer<typeof validateResponseSchema>;

export const resolveResponseSchema = z
  .object({
    resolved: z.boolean(),
    reason: z.string().optional(),
    expected_proof_ref: z.string().optional(),
    errors: z.array(validationIssueSchema).optional(),
  })
  .meta({ id: 'ResolveResponse', example: { resolved: false, reason: 'verdict_not_verified' } });
export type ResolveResponse = z.infer<typeof resolveResponseSchema>;
