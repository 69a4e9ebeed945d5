// /verify/image as an activity: the upload is read back from the store (the image never enters
// Temporal history: only its upload id, digest, size and format do), recognised again by its
// magic bytes, checked against the pixel limit from its header (decompression bombs are refused
// before decoding), decoded by sharp (libvips, on its own threads, with limitInputPixels as a
// second guard) and measured; the pixel loop runs in slices that yield to the event loop.
// A vision model, when the request's provider is one, describes content claims; its reading is
// reported and never decides (engines/image/decide.ts).
import { performance } from 'node:perf_hooks';
import type Sharp from 'sharp';
import { IMAGE_MAX_PIXELS, pixelLimitDetail } from '../contract/image.js';
import { IMAGE_MIME, sniffImageFormat, UNSUPPORTED_IMAGE_DETAIL, type ImageFormat } from '../core/image-format.js';
import type { Store } from '../core/store.js';
import { loadUpload } from '../core/uploads.js';
import { PixelAccumulator, decideImageClaim, measurements, parseImageClaim } from '../engines/image/index.js';
import type { VerifyActivityInput } from './types.js';
import type { ImageActivityInput, ImageActivityResult } from '../core/verification-io.js';
export type { ImageActivityInput, ImageActivityResult };

type SharpFn = typeof Sharp;
let sharpModule: Promise<SharpFn> | undefined;

/**
 * sharp (libvips, ~20 MB resident) is loaded on the first image, never at the worker's start
 * (issue 22, memory): a worker that verifies no images never pays for it; one that has, keeps it.
 */
export function loadSharp(): Promise<SharpFn> {
  return (sharpModule ??= import('sharp').then((m) => {
    const sharp = m.default;
    sharp.cache(false);
    return sharp;
  }));
}

export type ImageDescriber = (
  provider: string,
  image: { base64: string; mime: string },
  claim: string,
) => Promise<{ description: string }>;

export interface ImageActivityDeps {
  store: Store;
  describe?: ImageDescriber;
  /** SVC_PROVIDER_TIMEOUT in milliseconds. */
  providerTimeoutMs: number;
}

/** Pixels per slice of the measuring loop (a few milliseconds of work between yields). */
const SLICE_PIXELS = 1 << 20;
/** The longest side of the copy a vision model gets. */
const VISION_MAX_SIDE = 1024;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const short = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 200);

export async function measureImage(buf: Buffer, format: ImageFormat) {
  const sharp = await loadSharp();
  let meta: Awaited<ReturnType<ReturnType<SharpFn>['metadata']>>;
  try {
    meta = await sharp(buf, { animated: true, limitInputPixels: false }).metadata();
  } catch (err) {
    return { error: { refused: 'undecodable' as const, detail: `The image could not be decoded: ${short(err)}` } };
  }
  if (meta.format !== format && !(format === 'jpeg' && meta.format === ('jpg' as string))) {
    return {
      error: {
        refused: 'undecodable' as const,
        detail: `The image could not be decoded: its content is not a valid ${format.toUpperCase()} file.`,
      },
    };
  }
  const width = meta.width ?? 0;
  const pages = Math.max(1, meta.pages ?? 1);
  const frameHeight = meta.pageHeight ?? meta.height ?? 0;
  if (width <= 0 || frameHeight <= 0)
    return { error: { refused: 'undecodable' as const, detail: 'The image could not be decoded: it has no pixels.' } };
  if (width * frameHeight * pages > IMAGE_MAX_PIXELS)
    return { error: { refused: 'too_many_pixels' as const, detail: pixelLimitDetail(IMAGE_MAX_PIXELS) } };
  let raw: { data: Buffer; info: { width: number; height: number; channels: number } };
  try {
    raw = await sharp(buf, { animated: pages > 1, limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'error' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const m = short(err);
    if (/pixel limit/i.test(m))
      return { error: { refused: 'too_many_pixels' as const, detail: pixelLimitDetail(IMAGE_MAX_PIXELS) } };
    return { error: { refused: 'undecodable' as const, detail: `The image could not be decoded: ${m}` } };
  }
  const channels = raw.info.channels as 1 | 2 | 3 | 4;
  const acc = new PixelAccumulator(channels);
  const total = raw.info.width * raw.info.height;
  for (let p = 0; p < total; p += SLICE_PIXELS) {
    acc.add(raw.data, p, Math.min(total, p + SLICE_PIXELS));
    if (p + SLICE_PIXELS < total) await yieldToLoop();
  }
  const m = measurements(
    {
      format,
      width,
      height: frameHeight,
      exif_orientation: meta.orientation ?? null,
      frames: pages,
      has_alpha: meta.hasAlpha === true || channels === 2 || channels === 4,
      channels,
      file_size_bytes: buf.length,
    },
    acc.result(),
  );
  return { measurements: m };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('provider timed out'), { code: 'provider_timeout' })), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function makeVerifyImageActivity(deps: ImageActivityDeps) {
  return async function verifyImageActivity(
    req: VerifyActivityInput<ImageActivityInput>,
  ): Promise<ImageActivityResult> {
    const started = performance.now();
    const input = req.input;
    const buf = await loadUpload(deps.store, input.upload_id, req.org_id);
    if (sniffImageFormat(buf.subarray(0, 16)) !== input.format)
      return { refused: 'undecodable', detail: UNSUPPORTED_IMAGE_DETAIL };
    const measured = await measureImage(buf, input.format);
    if ('error' in measured) return measured.error!;
    const m = measured.measurements;
    const parsed = parseImageClaim(input.claim);
    let vision: { description: string } | null = null;
    let providerError: string | null = null;
    const needsVision = parsed.content.length > 0 || parsed.assertions.length === 0;
    const decidedWithout = decideImageClaim(parsed, m, null);
    if (input.provider !== 'local' && needsVision && decidedWithout.verdict !== 'REFUTED') {
      if (!deps.describe) providerError = 'provider_unavailable';
      else {
        try {
          // The model gets a bounded PNG copy (first frame), never the original upload.
          const sharp = await loadSharp();
          const copy = await sharp(buf, { limitInputPixels: IMAGE_MAX_PIXELS })
            .resize(VISION_MAX_SIDE, VISION_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
            .png()
            .toBuffer();
          const d = await withTimeout(
            deps.describe(input.provider, { base64: copy.toString('base64'), mime: IMAGE_MIME.png }, input.claim),
            deps.providerTimeoutMs,
          );
          vision = { description: d.description.slice(0, 2000) };
        } catch (err) {
          const code = (err as { code?: unknown })?.code;
          providerError = typeof code === 'string' ? code : 'provider_unavailable';
        }
      }
    }
    const d = vision ? decideImageClaim(parsed, m, vision) : decidedWithout;
    return {
      verdict: d.verdict,
      confidence: d.confidence,
      reasoning: providerError ? `${d.reasoning} The vision provider gave no reading (${providerError}).` : d.reasoning,
      methods_used: d.methods_used,
      measurements: m,
      assertions: d.assertions,
      content_terms: d.content,
      vlm_description: vision?.description ?? null,
      provider_used: input.provider,
      provider_error: providerError,
      image_sha256: input.sha256,
      latency_ms: Math.round((performance.now() - started) * 100) / 100,
    };
  };
}
