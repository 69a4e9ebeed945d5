// POST /verify/image (multipart): fields, caps and the response body (contract,
// "POST /verify/image"). Files in contract/ import nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { IMAGE_TIMEOUT_DETAIL } from './deadlines.js';
export { IMAGE_TIMEOUT_DETAIL };

/** 10 MiB file plus a 64 KiB envelope (contract, Limits). */
export const IMAGE_FILE_LIMIT_BYTES = 10 * 1024 * 1024;
export const IMAGE_ENVELOPE_BYTES = 64 * 1024;
export const IMAGE_BODY_LIMIT_BYTES = IMAGE_FILE_LIMIT_BYTES + IMAGE_ENVELOPE_BYTES;
/** Decompression-bomb guard: width x height x frames, checked from the header before decoding. */
export const IMAGE_MAX_PIXELS = 40_000_000;

export const IMAGE_VERDICTS = ['SUPPORTED', 'REFUTED', 'INCONCLUSIVE', 'VLM_REQUIRED'] as const;

/** The text fields of the form (the file part is read separately). */
export const imageFieldsSchema = nullMeansAbsent(
  z.object({
    claim: z
      .string({ error: "Field 'claim' is required." })
      .refine((s) => s.trim().length > 0, { error: "Field 'claim' must not be empty." }),
    provider: z.string().max(64, { error: "Field 'provider' must be at most 64 characters." }).optional(),
  }),
);

const namedColor = z.object({
  hex: z.string(),
  // [r, g, b]. An array of length 3 rather than z.tuple: a tuple becomes `prefixItems`, which
  // schemathesis 4.32.5 rewrites into an `items` array it then rejects as an invalid schema, so
  // the fuzzer could not test /verify/image at all. The meaning is the same.
  rgb: z.array(z.number()).length(3).meta({ description: '[r, g, b], 0-255 each.' }),
  name: z.string(),
  family: z.string(),
  delta_e: z.number(),
});

export const imageMeasurementsSchema = z.object({
  format: z.enum(['png', 'jpeg', 'gif', 'webp']),
  width: z.number().int(),
  height: z.number().int(),
  stored_width: z.number().int(),
  stored_height: z.number().int(),
  exif_orientation: z.number().int().nullable(),
  megapixels: z.number(),
  aspect_ratio: z.object({ value: z.number(), ratio: z.string() }),
  orientation: z.enum(['landscape', 'portrait', 'square']),
  has_alpha: z.boolean(),
  transparent: z.boolean(),
  translucent_pixels: z.number().int(),
  fully_transparent_pixels: z.number().int(),
  animated: z.boolean(),
  frame_count: z.number().int(),
  grayscale: z.boolean(),
  max_channel_difference: z.number().int(),
  dominant_color: namedColor.extend({ share: z.number() }).nullable(),
  average_color: namedColor.nullable(),
  file_size_bytes: z.number().int(),
});

export const imageResponseSchema = z.object({
  verdict: z.enum(IMAGE_VERDICTS),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  /** Each measurement the verdict relied on (dimensions, format, aspect_ratio, ...), plus vlm_description when a model was asked. */
  methods_used: z.array(z.string()),
  measurements: imageMeasurementsSchema,
  assertions: z.array(
    z.object({
      text: z.string(),
      holds: z.boolean().nullable(),
      method: z.string(),
      measured: z.string(),
      confidence: z.number(),
    }),
  ),
  /** Words of the claim about the image's content (no measurement settles them). */
  content_terms: z.array(z.string()),
  /** A vision model's reading, reported but never deciding; null when none was asked or it failed. */
  vlm_description: z.string().nullable(),
  provider_used: z.string(),
  provider_error: z.string().nullable(),
  image_sha256: z.string(),
  latency_ms: z.number(),
});
export type ImageResponse = z.infer<typeof imageResponseSchema>;

export const pixelLimitDetail = (limit: number) =>
  `Image exceeds the ${limit} pixel limit (width x height x frames); it is refused before decoding.`;

/** The whole multipart form (documentation and client): `image` file plus the text fields. */
export const imageMultipartSchema = imageFieldsSchema.extend({
  image: z.string().meta({ format: 'binary', description: 'PNG, JPEG, GIF or WebP, at most 10 MiB.' }),
});
