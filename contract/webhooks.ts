// Contract of POST /webhooks/secret-scanning (the code host's secret-scanning partner protocol).
// The body is only parsed with these schemas AFTER its signature has verified
// (api/routes/webhooks.ts); nothing here ever sees an unverified request.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

/** Caps of the contract ("Limits", "Other caps"). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1_048_576; // 1 MiB
export const WEBHOOK_MAX_MATCHES = 500;
export const WEBHOOK_SIGNATURE_HEADER_MAX = 1024;
/** Key identifiers are 64 hex characters in practice; anything longer is refused unread. */
export const WEBHOOK_KEY_ID_HEADER_MAX = 256;

export const SIGNATURE_HEADER = 'Github-Public-Key-Signature';
export const KEY_ID_HEADER = 'Github-Public-Key-Identifier';

/** The one detail of every signature failure: it never says which check failed. */
export const INVALID_WEBHOOK_SIGNATURE = 'invalid webhook signature';
export const SIGNING_KEYS_UNAVAILABLE = 'Webhook signing keys unavailable — retry shortly.';
export const WEBHOOK_BACKEND_UNAVAILABLE = 'Revocation backend unavailable — retry shortly.';
export const NOT_A_MATCH_ARRAY = 'Request body must be a non-empty JSON array of match objects.';
export const MALFORMED_WEBHOOK_JSON = 'Malformed JSON body.';
export const TOO_MANY_MATCHES = `At most ${WEBHOOK_MAX_MATCHES} matches per request.`;

/**
 * One reported match. `token` and `type` are required; `url` and `source` are optional
 * strings (not every scanner sends them). Unknown fields are ignored (stripped).
 */
export const secretMatchSchema = nullMeansAbsent(
  z.object({
    token: z.string().min(1).max(1024),
    type: z.string().min(1).max(256),
    url: z.string().max(4096).optional(),
    source: z.string().max(256).optional(),
  }),
);
export type SecretMatch = z.infer<typeof secretMatchSchema>;

export const secretScanningRequestSchema = z.array(secretMatchSchema).min(1).max(WEBHOOK_MAX_MATCHES);

/** 200: verified receipt only; revocation runs afterwards in the background. */
export const secretScanningResponseSchema = z.object({
  status: z.literal('accepted'),
  /** Hex SHA-256 of the raw body: a redelivery of the same body has the same id. */
  delivery_id: z.string().regex(/^[0-9a-f]{64}$/),
  matches: z.number().int().min(1).max(WEBHOOK_MAX_MATCHES),
});
export type SecretScanningResponse = z.infer<typeof secretScanningResponseSchema>;

export const webhookErrorSchema = z.object({ detail: z.string() });

/** The code host's published key document. */
export const publicKeyDocumentSchema = z.object({
  public_keys: z.array(
    z.object({
      key_identifier: z.string().min(1).max(WEBHOOK_KEY_ID_HEADER_MAX),
      key: z.string().min(1).max(16_384),
      is_current: z.boolean().optional(),
    }),
  ),
});
export type PublicKeyDocument = z.infer<typeof publicKeyDocumentSchema>;

/** One item of the optional feedback POST (GitHub partner feedback format). */
export const leakFeedbackItemSchema = z.union([
  z.object({
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
    token_type: z.string(),
    label: z.enum(['true_positive', 'false_positive']),
  }),
  z.object({ token_raw: z.string(), token_type: z.string(), label: z.enum(['true_positive', 'false_positive']) }),
]);
export type LeakFeedbackItem = z.infer<typeof leakFeedbackItemSchema>;
