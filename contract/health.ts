// GET /health and GET /health/identity (contract, "GET /health", "GET /health/identity").
import { z } from 'zod';

export const NONCE_DETAIL = 'nonce is required (max 128 characters)';
export const SECRETS_NOT_CONFIGURED = 'server secrets not configured';

export const healthResponseSchema = z
  .object({ status: z.string(), service: z.string(), version: z.string(), timestamp: z.string() })
  .meta({
    id: 'HealthResponse',
    example: {
      status: 'healthy',
      service: 'svc-verification',
      version: '7.3.0',
      timestamp: '2026-01-01T00:00:00.000Z',
    },
  });
export type HealthResponse = z.infer<typeof healthResponseSchema>;

/** Query of /health/identity: a fresh nonce of 1–128 characters. */
export const identityQuerySchema = z.object({
  nonce: z.string().min(1).max(128).meta({ description: 'Fresh per request, 1–128 characters.', example: 'b6f1c2' }),
});
export type IdentityQuery = z.infer<typeof identityQuerySchema>;

const hex = z.string().regex(/^[0-9a-f]{64}$/);
export const identityResponseSchema = z
  .object({ identity: z.object({ jwt_hmac: hex, lookup_hmac: hex }) })
  .meta({ id: 'IdentityResponse', example: { identity: { jwt_hmac: 'a'.repeat(64), lookup_hmac: 'b'.repeat(64) } } });
export type IdentityResponse = z.infer<typeof identityResponseSchema>;
