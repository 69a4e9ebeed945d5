// The codec server's contract (api/codec-server.ts): Temporal's remote codec protocol, the one
// the Temporal UI and CLI speak. POST .../encode and POST .../decode take and return
// {"payloads": [...]}, each payload in the proto3 JSON form of temporal.api.common.v1.Payload:
// metadata values and data are base64 (standard or URL-safe alphabet).
import { z } from 'zod';

/** Payloads per request and bytes per request body: a history page's payloads fit easily. */
export const CODEC_MAX_PAYLOADS = 10_000;
export const CODEC_BODY_LIMIT = 8 * 1024 * 1024;

const base64 = z
  .string()
  .max(CODEC_BODY_LIMIT)
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

export const codecPayloadSchema = z.object({
  metadata: z.record(z.string().max(256), base64).optional(),
  data: base64.optional(),
});

export const codecRequestSchema = z.object({
  payloads: z.array(codecPayloadSchema).max(CODEC_MAX_PAYLOADS),
});

export const codecResponseSchema = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()), data: z.string() })),
});

export const codecErrorSchema = z.object({ detail: z.string() });

export type CodecPayloadJson = z.infer<typeof codecPayloadSchema>;
export type CodecRequest = z.infer<typeof codecRequestSchema>;
export type CodecResponse = z.infer<typeof codecResponseSchema>;
