// The verdict of an image claim from measured facts. SUPPORTED or REFUTED only when every
// assertion was read and measured; a claim about content is VLM_REQUIRED (a vision model's
// description, when one is configured, is reported but never decides: INCONCLUSIVE).
import { distanceTo, familyOf } from './colors.js';
import type { Assertion, CmpOp, ParsedAssertion, ParsedClaim } from './claim.js';
import type { ImageMeasurements } from './measure.js';

export type ImageVerdict = 'SUPPORTED' | 'REFUTED' | 'INCONCLUSIVE' | 'VLM_REQUIRED';

/** Colour words within this ΔE of the nearest palette entry are too close to call. */
export const COLOR_MARGIN_DELTA_E = 10;
/** Aspect ratios agree within 1 %. */
export const ASPECT_TOLERANCE = 0.01;
/** Confidence of colour-name judgements (a palette is a convention); other measurements are exact. */
export const COLOR_CONFIDENCE = 0.85;

export interface AssertionResult {
  text: string;
  holds: boolean | null;
  method: string;
  measured: string;
  confidence: number;
}

export interface ImageDecision {
  verdict: ImageVerdict;
  confidence: number;
  reasoning: string;
  methods_used: string[];
  assertions: AssertionResult[];
  content: string[];
}

const fmtBytes = (n: number) => `${n} bytes (${(n / 1e6).toFixed(3)} MB, ${(n / 1048576).toFixed(3)} MiB)`;

function compare(op: CmpOp, measured: number, value: number, step: number): boolean {
  switch (op) {
    case 'eq':
      // A written value stands for its rounding: "2 MB" is 1.5–2.5 MB, "1920" is exactly 1920.
      return Math.abs(measured - value) <= step / 2 + 1e-9;
    case 'approx':
      return Math.abs(measured - value) <= Math.max(Math.abs(value) * 0.1, step / 2);
    case 'gt':
      return measured > value;
    case 'ge':
      return measured >= value;
    case 'lt':
      return measured < value;
    case 'le':
      return measured <= value;
  }
}

const OP_WORDS: Record<CmpOp, string> = { eq: '=', approx: '≈', gt: '>', ge: '≥', lt: '<', le: '≤' };

function evaluate(a: Assertion, m: ImageMeasurements): Omit<AssertionResult, 'text'> {
  switch (a.kind) {
    case 'dimensions':
      return {
        holds: m.width === a.width && m.height === a.height,
        method: 'dimensions',
        measured: `${m.width}x${m.height} pixels`,
        confidence: 1,
      };
    case 'width':
      return {
        holds: compare(a.op, m.width, a.value, a.step),
        method: 'dimensions',
        measured: `width ${m.width} px (claimed ${OP_WORDS[a.op]} ${a.value})`,
        confidence: 1,
      };
    case 'height':
      return {
        holds: compare(a.op, m.height, a.value, a.step),
        method: 'dimensions',
        measured: `height ${m.height} px (claimed ${OP_WORDS[a.op]} ${a.value})`,
        confidence: 1,
      };
    case 'megapixels': {
      const mp = (m.width * m.height) / 1e6;
      return {
        holds: compare(a.op, mp, a.value, a.step),
        method: 'dimensions',
        measured: `${m.megapixels} megapixels (claimed ${OP_WORDS[a.op]} ${a.value})`,
        confidence: 1,
      };
    }
    case 'frame_count':
      return {
        holds: compare(a.op, m.frame_count, a.value, 1),
        method: 'animation',
        measured: `${m.frame_count} frame${m.frame_count === 1 ? '' : 's'} (claimed ${OP_WORDS[a.op]} ${a.value})`,
        confidence: 1,
      };
    case 'file_size':
      return {
        holds: compare(a.op, m.file_size_bytes, a.value, a.step),
        method: 'file_size',
        measured: `file size ${fmtBytes(m.file_size_bytes)} (claimed ${OP_WORDS[a.op]} ${a.value} bytes)`,
        confidence: 1,
      };
    case 'format':
      return {
        holds: m.format === a.format,
        method: 'format',
        measured: `format ${m.format.toUpperCase()} (magic bytes and decoder)`,
        confidence: 1,
      };
    case 'aspect_ratio': {
      const ratio = m.width / m.height;
      return {
        holds: Math.abs(ratio - a.value) / a.value <= ASPECT_TOLERANCE,
        method: 'aspect_ratio',
        measured: `aspect ratio ${m.aspect_ratio.ratio} (${m.aspect_ratio.value}; claimed ${a.text}, within 1 %)`,
        confidence: 1,
      };
    }
    case 'orientation':
      return {
        holds: m.orientation === a.orientation,
        method: 'orientation',
        measured: `orientation ${m.orientation} (${m.width}x${m.height} as displayed)`,
        confidence: 1,
      };
    case 'has_alpha':
      return {
        holds: m.has_alpha,
        method: 'alpha',
        measured: m.has_alpha ? 'an alpha channel is present' : 'no alpha channel',
        confidence: 1,
      };
    case 'transparent':
      return {
        holds: m.transparent,
        method: 'transparency',
        measured: m.transparent
          ? `${m.translucent_pixels} pixels are not fully opaque (${m.fully_transparent_pixels} fully transparent)`
          : m.has_alpha
            ? 'every pixel is fully opaque (alpha channel present)'
            : 'no alpha channel: every pixel is opaque',
        confidence: 1,
      };
    case 'animated':
      return {
        holds: m.animated,
        method: 'animation',
        measured: m.animated ? `animated, ${m.frame_count} frames` : 'a single frame (not animated)',
        confidence: 1,
      };
    case 'grayscale':
      return {
        holds: m.grayscale,
        method: 'grayscale',
        measured: `largest difference between colour channels of a pixel: ${m.max_channel_difference} (grayscale up to 3)`,
        confidence: 1,
      };
    case 'dominant_color':
    case 'average_color': {
      const c = a.kind === 'dominant_color' ? m.dominant_color : m.average_color;
      const label = a.kind === 'dominant_color' ? 'dominant colour' : 'average colour';
      if (!c) return { holds: null, method: a.kind, measured: `no visible pixels: no ${label}`, confidence: 0 };
      const claimed = a.color;
      const share =
        a.kind === 'dominant_color' && m.dominant_color
          ? `, ${Math.round(m.dominant_color.share * 1000) / 10} % of visible pixels`
          : '';
      const measured = `${label} ${c.hex} (${c.name}, a ${c.family}${share})`;
      if (claimed === c.name || claimed === c.family || familyOf(claimed) === c.family)
        return { holds: true, method: a.kind, measured, confidence: COLOR_CONFIDENCE };
      const gap = distanceTo(c.rgb, claimed) - c.delta_e;
      if (gap < COLOR_MARGIN_DELTA_E)
        return {
          holds: null,
          method: a.kind,
          measured: `${measured}; "${claimed}" is within ΔE ${COLOR_MARGIN_DELTA_E} of it: too close to call`,
          confidence: 0,
        };
      return { holds: false, method: a.kind, measured, confidence: COLOR_CONFIDENCE };
    }
  }
}

export function decideImageClaim(
  parsed: ParsedClaim,
  m: ImageMeasurements,
  vision: { description: string } | null,
): ImageDecision {
  const results: AssertionResult[] = parsed.assertions.map((p: ParsedAssertion) => {
    const r = evaluate(p.assertion, m);
    const holds = r.holds === null ? null : p.negated ? !r.holds : r.holds;
    return { ...r, holds, text: p.text };
  });
  const methods = [...new Set(results.map((r) => r.method))];
  const describe = (r: AssertionResult) =>
    `"${r.text}": ${r.holds === null ? 'undetermined' : r.holds ? 'holds' : 'does not hold'} (${r.measured})`;
  const failed = results.filter((r) => r.holds === false);
  const open = results.filter((r) => r.holds === null);
  const measuredPart = results.length > 0 ? ` Measured: ${results.map(describe).join('; ')}.` : '';
  if (failed.length > 0) {
    return {
      verdict: 'REFUTED',
      confidence: Math.max(...failed.map((r) => r.confidence)),
      reasoning: `Refuted by measurement: ${failed.map(describe).join('; ')}.${
        results.length > failed.length
          ? ` Other parts: ${results
              .filter((r) => r.holds !== false)
              .map(describe)
              .join('; ')}.`
          : ''
      }`,
      methods_used: methods,
      assertions: results,
      content: parsed.content,
    };
  }
  if (parsed.content.length > 0 || results.length === 0) {
    const about =
      parsed.content.length > 0
        ? `The claim is about the image's content (${parsed.content.map((w) => JSON.stringify(w)).join(', ')}), which no measurement settles.`
        : 'The claim names no measurable property of the image.';
    if (vision) {
      return {
        verdict: 'INCONCLUSIVE',
        confidence: 0,
        reasoning: `${about}${measuredPart} A vision model described the image (reported below); a model's description is not a measurement, so it does not decide the claim.`,
        methods_used: [...methods, 'vlm_description'],
        assertions: results,
        content: parsed.content,
      };
    }
    return {
      verdict: 'VLM_REQUIRED',
      confidence: 0,
      reasoning: `${about}${measuredPart} Reading content needs a vision model, and even then the answer would stay advisory.`,
      methods_used: methods,
      assertions: results,
      content: parsed.content,
    };
  }
  if (open.length > 0) {
    return {
      verdict: 'INCONCLUSIVE',
      confidence: 0,
      reasoning: `Not settled by measurement:${measuredPart}`,
      methods_used: methods,
      assertions: results,
      content: parsed.content,
    };
  }
  return {
    verdict: 'SUPPORTED',
    confidence: Math.min(...results.map((r) => r.confidence)),
    reasoning: `Supported by measurement:${measuredPart.replace(/^ Measured:/, '')}`,
    methods_used: methods,
    assertions: results,
    content: parsed.content,
  };
}
