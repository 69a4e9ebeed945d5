// Attestations (contract, "Attestation endpoints"): look-up, verification of a token, and the
// public key set. Imports nothing but zod.
import { z } from 'zod';

export const ATTESTATION_NOT_FOUND = 'Attestation not found.';
export const ATTESTATION_ID_PATTERN = /^att_[0-9a-f]{32}$/;
export const MAX_ATTESTATION_TOKEN_CHARS = 16_384;

export const attestationVerifyRequestSchema = z
  .object({ token: z.string().min(1, 'must not be empty').max(MAX_ATTESTATION_TOKEN_CHARS) })
  .meta({ example: { token: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' } });
export type AttestationVerifyRequest = z.infer<typeof attestationVerifyRequestSchema>;

/** The admission an attestation signs (svc.result.admission); null when it signs none (math, consensus, older tokens). */
export const attestedAdmissionSchema = z.enum(['ADMIT', 'BLOCKED']).nullable().meta({
  description:
    'Signed admission of code/SQL results (and agent decisions that embed them): BLOCKED is never admissible, even with status VERIFIED. null: the token signs no admission.',
});

export const attestationVerifyResponseSchema = z
  .union([
    z.object({
      valid: z.literal(true),
      admission: attestedAdmissionSchema,
      claims: z.record(z.string(), z.unknown()),
      kid: z.string(),
    }),
    z.object({ valid: z.literal(false), reason: z.string() }),
  ])
  .meta({ id: 'AttestationVerifyResponse', example: { valid: false, reason: 'malformed token' } });
export type AttestationVerifyResponse = z.infer<typeof attestationVerifyResponseSchema>;

export const attestationParamsSchema = z.object({ id: z.string().meta({ example: 'att_' + '0'.repeat(32) }) });

export const attestationResponseSchema = z
  .object({
    id: z.string(),
    status: z.string(),
    token: z.string(),
    claims: z.record(z.string(), z.unknown()),
    admission: attestedAdmissionSchema,
    engine: z.string(),
    proof_ref: z.string().nullable(),
    created_at: z.string(),
    verification: z.union([
      z.object({ valid: z.literal(true), kid: z.string() }),
      z.object({ valid: z.literal(false), reason: z.string() }),
    ]),
  })
  .meta({ id: 'Attestation' });
export type AttestationResponse = z.infer<typeof attestationResponseSchema>;

export const jwksResponseSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'Jwks' });
