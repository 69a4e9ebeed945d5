// API key formats of the contract ("API key" section): prefixes, v2 bodies with a CRC32
// checksum, legacy v1 bodies, masking, lookup digests and the leaked-key scanner patterns.
//
// Everything here is pure: no store, no I/O. Shape validity is never authorization —
// the caller must still look the key's lookupDigest up in the store.

import { createHmac, randomBytes } from 'node:crypto';

export const LIVE_PREFIX = 'svc_live_';
export const TEST_PREFIX = 'svc_test_';
export const AGENT_PREFIX = 'svc_agent_';

export type ApiKeyPrefix = typeof LIVE_PREFIX | typeof TEST_PREFIX | typeof AGENT_PREFIX;
export type ApiKeyVersion = 'v1' | 'v2';

/** Longest prefix first, so that matching is unambiguous. */
const PREFIXES: readonly ApiKeyPrefix[] = [AGENT_PREFIX, LIVE_PREFIX, TEST_PREFIX];

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const V2_RANDOM_LENGTH = 30;
export const V2_CHECKSUM_LENGTH = 6;
export const V2_BODY_LENGTH = V2_RANDOM_LENGTH + V2_CHECKSUM_LENGTH; // 36
export const V1_BODY_LENGTH = 43; // base64url of 32 bytes, unpadded

const V2_BODY_RE = /^[A-Za-z0-9]{36}$/;
const V1_BODY_RE = /^[A-Za-z0-9_-]{43}$/;
const V2_RANDOM_RE = /^[A-Za-z0-9]{30}$/;

// ---------------------------------------------------------------------------------------
// CRC32 (IEEE 802.3, reflected polynomial 0xEDB88320) and Base62 checksum
// ---------------------------------------------------------------------------------------

const CRC32_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32 (IEEE) of the given bytes, as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC32_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base62, most significant digit first, left-padded with '0' to `width`. */
export function base62Encode(value: number, width: number): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`base62Encode: not a non-negative safe integer: ${value}`);
  let out = '';
  let v = value;
  do {
    out = BASE62_ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  if (out.length > width) throw new RangeError(`base62Encode: ${value} does not fit in ${width} digits`);
  return out.padStart(width, '0');
}

/**
 * The 6-character v2 checksum of the first 30 body characters: CRC32 over their ASCII bytes,
 * Base62-encoded (62^6 > 2^32, so it always fits in 6 digits).
 */
export function checksumV2(body30: string): string {
  if (!V2_RANDOM_RE.test(body30)) throw new TypeError('checksumV2: expected exactly 30 characters from [A-Za-z0-9]');
  return base62Encode(crc32(Buffer.from(body30, 'ascii')), V2_CHECKSUM_LENGTH);
}

/** True iff `body` is 36 Base62 characters whose last 6 are the checksum of the first 30. */
export function isValidV2Body(body: string): boolean {
  if (!V2_BODY_RE.test(body)) return false;
  return checksumV2(body.slice(0, V2_RANDOM_LENGTH)) === body.slice(V2_RANDOM_LENGTH);
}

// ---------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------

/**
 * `length` uniformly distributed Base62 characters from the CSPRNG. Rejection sampling:
 * bytes >= 248 (= 4 * 62) are discarded, so `byte % 62` has no modulo bias.
 */
export function randomBase62(length: number): string {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`randomBase62: bad length ${length}`);
  let out = '';
  while (out.length < length) {
    // ~3% of bytes are rejected; over-draw a little so one round almost always suffices.
    const buf = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (let i = 0; i < buf.length && out.length < length; i++) {
      if (buf[i] < 248) out += BASE62_ALPHABET[buf[i] % 62];
    }
  }
  return out;
}

/** A fresh v2 body: 30 random Base62 characters and their checksum. */
export function generateV2Body(): string {
  const random = randomBase62(V2_RANDOM_LENGTH);
  return random + checksumV2(random);
}

/** A new API key (always v2). `svc_live_` for production, `svc_test_` for non-production. */
export function generateApiKey(prefix: ApiKeyPrefix = LIVE_PREFIX): string {
  if (!PREFIXES.includes(prefix)) throw new TypeError(`generateApiKey: unknown prefix ${JSON.stringify(prefix)}`);
  return prefix + generateV2Body();
}

/** A new agent token: `svc_agent_` followed by a v2 body. */
export function generateAgentToken(): string {
  return AGENT_PREFIX + generateV2Body();
}

// ---------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------

export interface ParsedApiKey {
  prefix: ApiKeyPrefix;
  version: ApiKeyVersion;
  body: string;
}

export type ApiKeyRejection =
  | 'not_a_string'
  /** None of svc_live_, svc_test_, svc_agent_. */
  | 'unknown_prefix'
  /** Body is neither a 36-char Base62 body nor (for live/test keys) a 43-char base64url body. */
  | 'bad_shape'
  /** 36-char Base62 body whose checksum does not match: reject without a store lookup. */
  | 'bad_checksum';

export type ApiKeyInspection = ({ ok: true } & ParsedApiKey) | { ok: false; reason: ApiKeyRejection };

/**
 * Classifies a presented key. Live and test keys accept v2 and legacy v1 bodies; agent tokens
 * were only ever issued with v2 bodies. A v2-shaped body with a wrong checksum is reported as
 * `bad_checksum` (a typo or a forged key) so the caller can answer 401 without touching the store.
 */
export function inspectApiKey(key: unknown): ApiKeyInspection {
  if (typeof key !== 'string') return { ok: false, reason: 'not_a_string' };
  const prefix = PREFIXES.find((p) => key.startsWith(p));
  if (prefix === undefined) return { ok: false, reason: 'unknown_prefix' };
  const body = key.slice(prefix.length);
  if (V2_BODY_RE.test(body)) {
    if (!isValidV2Body(body)) return { ok: false, reason: 'bad_checksum' };
    return { ok: true, prefix, version: 'v2', body };
  }
  if (prefix !== AGENT_PREFIX && V1_BODY_RE.test(body)) return { ok: true, prefix, version: 'v1', body };
  return { ok: false, reason: 'bad_shape' };
}

/** `inspectApiKey` without the reason: the parsed key, or null when it is not shape-valid. */
export function parseApiKey(key: unknown): ParsedApiKey | null {
  const r = inspectApiKey(key);
  return r.ok ? { prefix: r.prefix, version: r.version, body: r.body } : null;
}

// ---------------------------------------------------------------------------------------
// Display and storage
// ---------------------------------------------------------------------------------------

/** Fixed so the masked form does not even reveal the body length. */
const MASK_STARS = '********';
/** Bodies shorter than this reveal nothing: 4 characters of a short token are too large a share. */
const MIN_BODY_TO_REVEAL = 16;

/**
 * Display form: the recognised prefix, asterisks, and the last 4 characters only.
 * Unknown tokens (e.g. from a leak report) get no prefix; short bodies reveal nothing.
 */
export function maskApiKey(key: string): string {
  const prefix = PREFIXES.find((p) => key.startsWith(p)) ?? '';
  const body = key.slice(prefix.length);
  if (body.length < MIN_BODY_TO_REVEAL) return prefix + MASK_STARS;
  return prefix + MASK_STARS + body.slice(-4);
}

/**
 * The stored form of a key: hex HMAC-SHA256 of the whole key (prefix included) under the
 * dedicated lookup secret (`SVC_API_KEY_LOOKUP_SECRET`). Deterministic, so it can be indexed.
 */
export function lookupDigest(key: string, secret: string | Uint8Array): string {
  if (typeof key !== 'string' || key.length === 0) throw new TypeError('lookupDigest: key must be a non-empty string');
  if (secret === undefined || secret === null || secret.length === 0)
    throw new TypeError('lookupDigest: lookup secret must be non-empty');
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

// ---------------------------------------------------------------------------------------
// Leaked-key scanner
// ---------------------------------------------------------------------------------------

export type ScannerPatternName = 'SVC_LIVE_API_KEY' | 'SVC_LIVE_API_KEY_V1';

export interface ScannerPattern {
  name: ScannerPatternName;
  version: ApiKeyVersion;
  /**
   * Lookaround-anchored source (JS, PCRE, Hyperscan…). Anchors are charset complements, not
   * `\b`: a v1 body may contain or end in `-`, which `\b` treats as a boundary.
   * The whole match is the key.
   */
  source: string;
  /**
   * For engines without lookarounds (RE2, Go): delimiter classes instead. Capture group 1 is
   * the key alone; the whole match includes the delimiters and must never be reported.
   */
  delimitedSource: string;
}

// Before the prefix: no character that could be part of a longer token (`_` included, so
// `svc_test_svc_live_…` or `MY_svc_live_…` never yield a live key).
// v2: after the 36 body characters, no further Base62 character (a 37th would make it another
// token). v1: the body charset includes `-` and `_`, so both are excluded on both sides.
export const SVC_LIVE_API_KEY: ScannerPattern = {
  name: 'SVC_LIVE_API_KEY',
  version: 'v2',
  source: '(?<![A-Za-z0-9_])svc_live_[A-Za-z0-9]{36}(?![A-Za-z0-9])',
  delimitedSource: '(?:^|[^A-Za-z0-9_])(svc_live_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|$)',
};

export const SVC_LIVE_API_KEY_V1: ScannerPattern = {
  name: 'SVC_LIVE_API_KEY_V1',
  version: 'v1',
  source: '(?<![A-Za-z0-9_-])svc_live_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])',
  delimitedSource: '(?:^|[^A-Za-z0-9_-])(svc_live_[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)',
};

export const SCANNER_PATTERNS: readonly ScannerPattern[] = [SVC_LIVE_API_KEY, SVC_LIVE_API_KEY_V1];

export interface ScannerMatch {
  key: string;
  version: ApiKeyVersion;
  /** UTF-16 offset of the key's first character in the scanned text. */
  index: number;
  pattern: ScannerPatternName;
}

function acceptMatch(p: ScannerPattern, key: string): boolean {
  // Post-filter: v2 candidates must carry a valid checksum; v1 has none to check.
  return p.version === 'v1' || isValidV2Body(key.slice(LIVE_PREFIX.length));
}

function sortMatches(found: ScannerMatch[]): ScannerMatch[] {
  return found.sort((a, b) => a.index - b.index || (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
}

/**
 * Finds production (`svc_live_`) keys in free text with the lookaround patterns. Test keys
 * never match. Both patterns run independently: in the rare text where a checksum-valid v2 key
 * is followed by `_`/`-` and 7 more key characters, both readings are reported (the revocation
 * sink ignores unknown tokens, so over-reporting is harmless; under-reporting is not).
 */
export function scanForLiveKeys(text: string): ScannerMatch[] {
  const found: ScannerMatch[] = [];
  for (const p of SCANNER_PATTERNS) {
    const re = new RegExp(p.source, 'g');
    for (const m of text.matchAll(re)) {
      if (acceptMatch(p, m[0])) found.push({ key: m[0], version: p.version, index: m.index!, pattern: p.name });
    }
  }
  return sortMatches(found);
}

/**
 * The same scan with the delimiter-class patterns, as an engine without lookarounds must do
 * it: report capture group 1 only, and rewind over the consumed trailing delimiter so that two
 * keys separated by a single character are both found. Must agree with `scanForLiveKeys`.
 */
export function scanForLiveKeysDelimited(text: string): ScannerMatch[] {
  const found: ScannerMatch[] = [];
  for (const p of SCANNER_PATTERNS) {
    const re = new RegExp(p.delimitedSource, 'g');
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const key = m[1];
      const keyIndex = m.index + m[0].indexOf(key);
      // The trailing delimiter may be the leading delimiter of the next key.
      re.lastIndex = keyIndex + key.length;
      if (acceptMatch(p, key)) found.push({ key, version: p.version, index: keyIndex, pattern: p.name });
    }
  }
  return sortMatches(found);
}
