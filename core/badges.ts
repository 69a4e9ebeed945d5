// SVG status badges (contract "Badge endpoints"), rendered with shields.io's badge-maker.
//
// Every input may come straight from a URL, so nothing is passed through unchecked:
// text is stripped of characters that are not valid XML or that reorder text visually,
// then length-limited (badge-maker escapes what remains); colors are limited to the
// named palette or hex; a logo must be a small base64 PNG/JPEG/GIF/WebP data URI (checked by
// magic bytes) or an SVG one that parses within the element and attribute allow-lists of
// core/svg-logo.ts (embedded re-serialized), otherwise it is dropped. No links are ever
// rendered, so badges contain no <a> elements.
import { makeBadge } from 'badge-maker';
import { sanitizeSvgLogo } from './svg-logo.js';

export const MAX_BADGE_TEXT = 64;
/** Largest accepted logo data URI, in characters. */
export const MAX_LOGO_CHARS = 8192;
export const FALLBACK_COLOR = 'grey';

export const NAMED_COLORS = new Set([
  'brightgreen',
  'green',
  'yellow',
  'yellowgreen',
  'orange',
  'red',
  'blue',
  'grey',
  'gray',
  'lightgrey',
  'lightgray',
  'success',
  'important',
  'critical',
  'informational',
  'inactive',
]);

export interface BadgeInput {
  label?: unknown;
  message?: unknown;
  color?: unknown;
  labelColor?: unknown;
  logo?: unknown;
}

// C0/C1 controls (XML 1.0 forbids most of them), U+FFFE/U+FFFF, bidi embeddings/overrides/
// isolates and marks (they can make the shown text differ from the stored one).
const STRIPPED = /[\u0000-\u001f\u007f-\u009f\ufffe\uffff\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Badge text: a string, cleaned and cut to `max` code points (never splitting a surrogate pair). */
export function sanitizeBadgeText(value: unknown, fallback: string, max = MAX_BADGE_TEXT): string {
  if (typeof value !== 'string') return fallback;
  const cleaned = value.replace(LONE_SURROGATE, '\ufffd').replace(STRIPPED, '').trim();
  const points = Array.from(cleaned);
  const text = points.length > max ? `${points.slice(0, max - 1).join('')}\u2026` : cleaned;
  return text.length > 0 ? text : fallback;
}

/** A named badge color or `#rgb`/`#rrggbb` (leading `#` optional); anything else is the fallback. */
export function sanitizeColor(value: unknown, fallback = FALLBACK_COLOR): string {
  if (typeof value !== 'string') return fallback;
  const v = value.trim().toLowerCase();
  if (NAMED_COLORS.has(v)) return v;
  const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/.exec(v);
  return hex ? `#${hex[1]}` : fallback;
}

const LOGO_URI = /^data:image\/(svg\+xml|png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;
/** Raster logos are accepted by their magic bytes (the declared type must match the content). */
const RASTER_MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  webp: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/**
 * A PNG/JPEG/GIF/WebP or SVG base64 data URI within MAX_LOGO_CHARS whose content checks out;
 * otherwise undefined. An SVG logo is parsed and allow-listed (core/svg-logo.ts) and what is
 * returned is its canonical re-serialization, never the submitted text.
 */
export function sanitizeLogo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_LOGO_CHARS) return undefined;
  const m = LOGO_URI.exec(value);
  if (!m || (m[2] as string).length % 4 !== 0) return undefined;
  const type = m[1] as string;
  const bytes = Buffer.from(m[2] as string, 'base64');
  const raster = RASTER_MAGIC[type];
  if (raster) return raster(bytes) ? value : undefined;
  const svg = sanitizeSvgLogo(bytes);
  if (svg === null) return undefined;
  const uri = `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
  return uri.length <= MAX_LOGO_CHARS ? uri : undefined;
}

/** Renders a flat SVG badge from untrusted inputs. */
export function renderBadge(input: BadgeInput): string {
  const logo = sanitizeLogo(input.logo);
  return makeBadge({
    label: sanitizeBadgeText(input.label, 'svc'),
    message: sanitizeBadgeText(input.message, 'unknown'),
    color: sanitizeColor(input.color),
    labelColor: sanitizeColor(input.labelColor, 'grey'),
    style: 'flat',
    ...(logo ? { logoBase64: logo } : {}),
  });
}

/**
 * "Not proven" statuses: a dark amber that white text reads on (WCAG contrast 4.9:1) and that is
 * not the label's grey (an UNVERIFIABLE badge used to be grey on grey).
 */
export const NOT_PROVEN_COLOR = '#9a6700';

// The statuses a badge may show (verdicts, admissions and decisions of the contract), each in
// its color. Anything else is not drawn: a status badge never shows text from the URL.
const STATUS_COLORS: Record<string, string> = {
  VERIFIED: 'brightgreen',
  ADMIT: 'brightgreen',
  ALLOW: 'brightgreen',
  SAT: 'brightgreen',
  SUPPORTED: 'brightgreen',
  UNVERIFIABLE: NOT_PROVEN_COLOR,
  UNSAT: NOT_PROVEN_COLOR,
  INCONCLUSIVE: NOT_PROVEN_COLOR,
  VLM_REQUIRED: NOT_PROVEN_COLOR,
  HEURISTIC_PASS: NOT_PROVEN_COLOR,
  CORRECTION_NEEDED: NOT_PROVEN_COLOR,
  CORRECTED: 'yellow',
  FAILED: 'red',
  REFUTED: 'red',
  BLOCKED: 'critical',
  DENY: 'critical',
  PENDING: 'lightgrey',
  ERROR: 'orange',
};

const UNKNOWN_STATUS = 'unknown';

/** Badge color of a status label (case-insensitive); unknown statuses are grey. */
export function statusColor(status: string): string {
  const key = status.trim().toUpperCase();
  return Object.prototype.hasOwnProperty.call(STATUS_COLORS, key) ? STATUS_COLORS[key] : FALLBACK_COLOR;
}

/** Whether `/badge/status/{status}` draws this status (case-insensitive). */
export function isKnownStatus(status: unknown): boolean {
  return typeof status === 'string' && Object.prototype.hasOwnProperty.call(STATUS_COLORS, status.trim().toUpperCase());
}

/**
 * `/badge/status/{status}`: a known status (upper-cased) in its color; anything else is the
 * fixed "unknown" badge, so the URL can never make a badge say something the service did not.
 */
export function renderStatusBadge(status: unknown, label = 'svc'): string {
  if (!isKnownStatus(status)) return renderBadge({ label, message: UNKNOWN_STATUS, color: 'lightgrey' });
  const text = (status as string).trim().toUpperCase();
  return renderBadge({ label, message: text, color: statusColor(text) });
}

/** `/badge/verified`: "verified" (brightgreen) or "failed" (red). */
export function renderVerifiedBadge(verified: boolean, label = 'svc'): string {
  return renderBadge({ label, message: verified ? 'verified' : 'failed', color: verified ? 'brightgreen' : 'red' });
}

/** `/badge/engine/{engine}`: the engine name on blue. */
export function renderEngineBadge(engine: unknown): string {
  return renderBadge({ label: 'engine', message: sanitizeBadgeText(engine, 'unknown').toLowerCase(), color: 'blue' });
}

const ATTESTATION_COLORS: Record<string, string> = {
  valid: 'brightgreen',
  issued: 'brightgreen',
  verified: 'brightgreen',
  admitted: 'brightgreen',
  blocked: 'red',
  'admission unknown': NOT_PROVEN_COLOR,
  expired: 'orange',
  revoked: 'red',
  invalid: 'red',
};

/** Engines whose results carry an admission; their attestations must sign it to be shown as admissible. */
const ADMISSION_ENGINES = new Set(['code', 'sql']);

/**
 * The state an attestation badge shows for a token that verifies now. The admission leads when the
 * token signs one: BLOCKED is red "blocked" (proven-unsafe content is VERIFIED and not
 * admissible), ADMIT green "admitted". A code/SQL token without a signed admission (issued
 * before admissions were signed) is "admission unknown", never green.
 */
export function attestationBadgeState(claims: {
  svc?: { result?: { engine?: unknown; admission?: unknown } };
}): string {
  const result = claims.svc?.result ?? {};
  if (result.admission === 'BLOCKED') return 'blocked';
  if (result.admission === 'ADMIT') return 'admitted';
  if (typeof result.engine === 'string' && ADMISSION_ENGINES.has(result.engine)) return 'admission unknown';
  return 'verified';
}

/** `/badge/attestation/{id}`: the attestation's state (valid/issued green, expired orange, revoked/invalid red). */
export function renderAttestationBadge(state: unknown): string {
  const text = sanitizeBadgeText(state, 'unknown').toLowerCase();
  const color = Object.prototype.hasOwnProperty.call(ATTESTATION_COLORS, text)
    ? ATTESTATION_COLORS[text]
    : FALLBACK_COLOR;
  return renderBadge({ label: 'attestation', message: text, color });
}

/** Badge for an unknown id or resource. */
export function renderNotFoundBadge(label: unknown = 'svc'): string {
  return renderBadge({ label, message: 'not found', color: 'lightgrey' });
}
