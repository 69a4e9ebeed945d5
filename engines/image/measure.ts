// Measurements of a decoded image. Pure: the activity decodes with sharp (libvips) and feeds
// the raw pixels here in slices (yielding to the event loop between them); this file turns
// header facts and pixel sums into the measured facts a claim is judged against.
import type { ImageFormat } from '../../core/image-format.js';
import { nameColor, rgbToHex, type NamedColor } from './colors.js';

/** 4 bits per channel: 4,096 colour bins for the dominant colour. */
const BIN_BITS = 4;
const BINS = 1 << (3 * BIN_BITS);
/** Channel differences up to this are still grey (lossy JPEG leaves ±1–2 of chroma noise). */
export const GRAYSCALE_TOLERANCE = 3;

export class PixelAccumulator {
  private readonly counts = new Float64Array(BINS);
  private readonly sums = new Float64Array(BINS * 3);
  private sumR = 0;
  private sumG = 0;
  private sumB = 0;
  /** Pixels with alpha > 0 (colour statistics ignore fully transparent pixels). */
  private visible = 0;
  private total = 0;
  private translucent = 0;
  private fullyTransparent = 0;
  private maxDiff = 0;

  constructor(readonly channels: 1 | 2 | 3 | 4) {}

  /** Adds pixels [fromPixel, toPixel) of an interleaved 8-bit buffer. */
  add(data: Uint8Array, fromPixel: number, toPixel: number): void {
    const c = this.channels;
    const hasAlpha = c === 2 || c === 4;
    const color = c >= 3;
    const counts = this.counts;
    const sums = this.sums;
    let sumR = 0;
    let sumG = 0;
    let sumB = 0;
    let visible = 0;
    let translucent = 0;
    let transparent = 0;
    let maxDiff = this.maxDiff;
    const shift = 8 - BIN_BITS;
    for (let p = fromPixel, i = fromPixel * c; p < toPixel; p++, i += c) {
      const r = data[i]!;
      const g = color ? data[i + 1]! : r;
      const b = color ? data[i + 2]! : r;
      if (hasAlpha) {
        const a = data[i + c - 1]!;
        if (a < 255) translucent++;
        if (a === 0) {
          transparent++;
          continue;
        }
      }
      visible++;
      sumR += r;
      sumG += g;
      sumB += b;
      if (color) {
        const d1 = r > g ? r - g : g - r;
        const d2 = g > b ? g - b : b - g;
        const d3 = r > b ? r - b : b - r;
        if (d1 > maxDiff) maxDiff = d1;
        if (d2 > maxDiff) maxDiff = d2;
        if (d3 > maxDiff) maxDiff = d3;
      }
      const bin = ((r >> shift) << (2 * BIN_BITS)) | ((g >> shift) << BIN_BITS) | (b >> shift);
      counts[bin]! += 1;
      sums[bin * 3]! += r;
      sums[bin * 3 + 1]! += g;
      sums[bin * 3 + 2]! += b;
    }
    this.sumR += sumR;
    this.sumG += sumG;
    this.sumB += sumB;
    this.visible += visible;
    this.total += toPixel - fromPixel;
    this.translucent += translucent;
    this.fullyTransparent += transparent;
    this.maxDiff = maxDiff;
  }

  result(): PixelFacts {
    let best = -1;
    let bestCount = 0;
    for (let k = 0; k < BINS; k++) {
      if (this.counts[k]! > bestCount) {
        bestCount = this.counts[k]!;
        best = k;
      }
    }
    const avg =
      this.visible > 0
        ? ([this.sumR / this.visible, this.sumG / this.visible, this.sumB / this.visible] as const)
        : null;
    const dom =
      best >= 0
        ? ([
            this.sums[best * 3]! / bestCount,
            this.sums[best * 3 + 1]! / bestCount,
            this.sums[best * 3 + 2]! / bestCount,
          ] as const)
        : null;
    return {
      pixels: this.total,
      visible_pixels: this.visible,
      translucent_pixels: this.translucent,
      fully_transparent_pixels: this.fullyTransparent,
      max_channel_difference: this.channels >= 3 ? this.maxDiff : 0,
      average: avg ? nameColor(avg[0], avg[1], avg[2]) : null,
      dominant: dom
        ? { ...nameColor(dom[0], dom[1], dom[2]), share: Math.round((bestCount / this.visible) * 1000) / 1000 }
        : null,
    };
  }
}

export interface PixelFacts {
  pixels: number;
  visible_pixels: number;
  translucent_pixels: number;
  fully_transparent_pixels: number;
  max_channel_difference: number;
  average: NamedColor | null;
  dominant: (NamedColor & { share: number }) | null;
}

export interface HeaderFacts {
  format: ImageFormat;
  /** Stored pixel width and height of one frame. */
  width: number;
  height: number;
  /** EXIF orientation 1–8, or null. */
  exif_orientation: number | null;
  frames: number;
  /** The decoder reports an alpha channel. */
  has_alpha: boolean;
  /** Channels as decoded (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA). */
  channels: 1 | 2 | 3 | 4;
  file_size_bytes: number;
}

export interface ImageMeasurements {
  format: ImageFormat;
  width: number;
  height: number;
  stored_width: number;
  stored_height: number;
  exif_orientation: number | null;
  megapixels: number;
  aspect_ratio: { value: number; ratio: string };
  orientation: 'landscape' | 'portrait' | 'square';
  has_alpha: boolean;
  transparent: boolean;
  translucent_pixels: number;
  fully_transparent_pixels: number;
  animated: boolean;
  frame_count: number;
  grayscale: boolean;
  max_channel_difference: number;
  dominant_color: (NamedColor & { share: number }) | null;
  average_color: NamedColor | null;
  file_size_bytes: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export function measurements(h: HeaderFacts, p: PixelFacts): ImageMeasurements {
  // EXIF orientations 5–8 rotate by 90°: the displayed image swaps width and height.
  const rotated = h.exif_orientation !== null && h.exif_orientation >= 5 && h.exif_orientation <= 8;
  const width = rotated ? h.height : h.width;
  const height = rotated ? h.width : h.height;
  const g = gcd(width, height) || 1;
  return {
    format: h.format,
    width,
    height,
    stored_width: h.width,
    stored_height: h.height,
    exif_orientation: h.exif_orientation,
    megapixels: Math.round(((width * height) / 1e6) * 1000) / 1000,
    aspect_ratio: { value: Math.round((width / height) * 10000) / 10000, ratio: `${width / g}:${height / g}` },
    orientation: width > height ? 'landscape' : width < height ? 'portrait' : 'square',
    has_alpha: h.has_alpha,
    transparent: p.translucent_pixels > 0,
    translucent_pixels: p.translucent_pixels,
    fully_transparent_pixels: p.fully_transparent_pixels,
    animated: h.frames > 1,
    frame_count: h.frames,
    grayscale: h.channels <= 2 || p.max_channel_difference <= GRAYSCALE_TOLERANCE,
    max_channel_difference: p.max_channel_difference,
    dominant_color: p.dominant,
    average_color: p.average,
    file_size_bytes: h.file_size_bytes,
  };
}

export { rgbToHex };
