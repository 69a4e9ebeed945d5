// POST /verify/rag request (contract, "POST /verify/rag"). max_drm_rate is a string only
// (numeric JSON values are refused, so no float ever reaches the comparison): an integer ("0",
// "1"), a decimal ("0.1", ".25"), a fraction ("1/10") or scientific notation ("1e-1",
// "2.5E-2"); no sign, no surrounding whitespace; the value must lie in [0, 1]. Default "0".
// Unknown keys are ignored. Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { RAG_TIMEOUT_DETAIL } from './deadlines.js';
export { RAG_TIMEOUT_DETAIL };

export interface Rational {
  numerator: bigint;
  denominator: bigint;
}

export const RAG_LIMITS = { maxRateLength: 200, maxExponent: 400 } as const;

/** Parses a max_drm_rate string to an exact non-negative fraction; null when the syntax is not accepted. */
export function parseRate(text: string): Rational | null {
  if (text.length === 0 || text.length > RAG_LIMITS.maxRateLength) return null;
  let m = /^(\d+)\/(\d+)$/.exec(text);
  if (m) {
    const denominator = BigInt(m[2]);
    return denominator === 0n ? null : { numerator: BigInt(m[1]), denominator };
  }
  m = /^(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const intPart = m[1] ?? '0';
  const fracPart = m[2] ?? m[3] ?? '';
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > RAG_LIMITS.maxExponent) return null;
  // value = digits × 10^(exponent − |fraction digits|)
  const digits = BigInt(intPart + fracPart);
  const scale = exponent - fracPart.length;
  return scale >= 0
    ? { numerator: digits * 10n ** BigInt(scale), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-scale) };
}

const RATE_FORMAT_HELP = 'use a string such as "0", "0.1", "1/10" or "1e-1"';

const requiredString = (field: string, help: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required` : `${field} must be a string${help}`;

const chunkSchema = z.object(
  {
    id: z.union([z.string(), z.number()], {
      error: (iss) =>
        iss.input === undefined ? 'every chunk must have an id' : 'chunk id must be a string or a number',
    }),
    metadata: z.object(
      {
        document_id: z
          .string({
            error: (iss) =>
              iss.input === undefined
                ? 'every chunk must have metadata.document_id'
                : 'chunk metadata.document_id must be a string',
          })
          .min(1, 'chunk metadata.document_id must be a non-empty string'),
      },
      {
        error: (iss) =>
          iss.input === undefined
            ? 'every chunk must have metadata with document_id'
            : 'chunk metadata must be an object',
      },
    ),
  },
  { error: 'every chunk must be an object with id and metadata.document_id' },
);

export const ragRequestSchema = nullMeansAbsent(
  z.object({
    target_document_id: z
      .string({ error: requiredString('target_document_id', '') })
      .refine((s) => s.trim().length > 0, 'target_document_id must be a non-empty string'),
    chunks: z
      .array(chunkSchema, {
        error: (iss) => (iss.input === undefined ? 'chunks is required' : 'chunks must be an array of objects'),
      })
      .min(1, 'chunks must be a non-empty array'),
    max_drm_rate: z
      .string({
        error: (iss) =>
          typeof iss.input === 'number'
            ? `max_drm_rate must be a string (numeric JSON values are refused; ${RATE_FORMAT_HELP})`
            : `max_drm_rate must be a string; ${RATE_FORMAT_HELP}`,
      })
      .optional()
      .transform((text, ctx): { text: string; rate: Rational } => {
        const source = text ?? '0';
        const rate = parseRate(source);
        if (rate === null) {
          ctx.addIssue({
            code: 'custom',
            message: `max_drm_rate '${source.slice(0, 50)}' is not a valid rate; ${RATE_FORMAT_HELP}`,
          });
          return z.NEVER;
        }
        if (rate.numerator > rate.denominator) {
          ctx.addIssue({ code: 'custom', message: `max_drm_rate '${source.slice(0, 50)}' is outside [0, 1]` });
          return z.NEVER;
        }
        return { text: source, rate };
      }),
  }),
);

export type RagRequestInput = z.input<typeof ragRequestSchema>;
export type RagRequest = z.output<typeof ragRequestSchema>;

/** Validates a body; `detail` is the message for an HTTP 400 `{detail}` response. */
export function validateRagRequest(body: unknown): { ok: true; value: RagRequest } | { ok: false; detail: string } {
  const parsed = ragRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const messages = parsed.error.issues.map((i) =>
    i.path.length === 0 && i.code === 'invalid_type' ? 'request body must be a JSON object' : i.message,
  );
  return { ok: false, detail: [...new Set(messages)].join('; ') };
}

export const ragResponseSchema = z
  .looseObject({
    verified: z.boolean(),
    risk: z.literal('DOCUMENT_RETRIEVAL_MISMATCH').nullable(),
    drm_rate: z.number(),
    chunks_checked: z.number().int(),
    mismatched_count: z.number().int(),
  })
  .meta({
    id: 'RagResponse',
    example: { verified: true, risk: null, drm_rate: 0, chunks_checked: 2, mismatched_count: 0 },
  });
export type RagResponse = z.infer<typeof ragResponseSchema>;
