// Text preparation shared by the agent guards: Unicode normalisation (NFKC, invisible and
// bidi characters removed, look-alike letters folded to ASCII), decoded views of base64, hex,
// URL and escape encodings, a "compact" view that rejoins split secrets, masking, and a
// linear-time regex helper (RE2: no backtracking, whatever the input). Pure: no I/O.
import { RE2JS } from 're2js';

/** Compiles an RE2 pattern once (flags: RE2JS.CASE_INSENSITIVE etc.). */
export function re2(pattern: string, flags = 0): RE2JS {
  return RE2JS.compile(pattern, flags);
}
export const CI = RE2JS.CASE_INSENSITIVE;

export interface Match {
  text: string;
  groups: (string | null)[];
  start: number;
  end: number;
}

/** All non-overlapping matches, in order (RE2: linear in the input). */
export function findAll(re: RE2JS, text: string, max = 1000): Match[] {
  const out: Match[] = [];
  const m = re.matcher(text);
  while (out.length < max && m.find()) {
    const groups: (string | null)[] = [];
    for (let g = 1; g <= m.groupCount(); g++) groups.push(m.group(g));
    out.push({ text: m.group(0) ?? '', groups, start: m.start(), end: m.end() });
  }
  return out;
}

export function test(re: RE2JS, text: string): boolean {
  return re.matcher(text).find();
}

// ---------------------------------------------------------------------------------------
// Invisible characters and look-alikes
// ---------------------------------------------------------------------------------------

/** Zero-width, bidi controls, invisible operators, soft hyphen, BOM, Mongolian vowel separator, tag characters, variation selectors. */
export function isInvisible(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x061c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    cp === 0x180e ||
    cp === 0x3164 ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0000 && cp <= 0xe007f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

export function isBidiControl(cp: number): boolean {
  return (
    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c
  );
}

/** Cyrillic, Greek and other letters that render like ASCII letters (Unicode confusables, the common subset). */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic lower case
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ɡ: 'g',
  ь: 'b',
  // Cyrillic upper case
  А: 'A',
  В: 'B',
  Е: 'E',
  Ё: 'E',
  З: '3',
  І: 'I',
  Ї: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Һ: 'H',
  Ӏ: 'I',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
  ϳ: 'j',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  Ϲ: 'C',
  // Latin look-alikes outside ASCII that NFKC keeps
  ı: 'i',
  ȷ: 'j',
  // Small capitals are lower-case letters in the shape of capitals: folded to lower case (the
  // case they stand for in running text; scanText adds an upper-case view and flags a svc key
  // spelled with them whatever the case).
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ꞯ: 'q',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  ᴀ: 'a',
  // Punctuation look-alikes
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '−': '-',
  '⁄': '/',
  '∕': '/',
  '＿': '_',
  '‚': ',',
  '٫': '.',
  '。': '.',
  '․': '.',
};

/** Small capital letters (folded to lower case by normalizeText; `smallCapsUpper` folds them to upper case). */
export const SMALL_CAPS = new Set([
  'ᴀ',
  'ʙ',
  'ᴄ',
  'ᴅ',
  'ᴇ',
  'ꜰ',
  'ɢ',
  'ʜ',
  'ɪ',
  'ᴊ',
  'ᴋ',
  'ʟ',
  'ᴍ',
  'ɴ',
  'ᴏ',
  'ᴘ',
  'ꞯ',
  'ʀ',
  'ꜱ',
  'ᴛ',
  'ᴜ',
  'ᴠ',
  'ᴡ',
  'ʏ',
  'ᴢ',
]);

/** The same text with small capitals as capitals (the other reading of their case). */
export function smallCapsUpper(text: string): string {
  let out = '';
  for (const ch of text) out += SMALL_CAPS.has(ch) ? (CONFUSABLES[ch] ?? ch).toUpperCase() : ch;
  return out;
}

const COMBINING_MARK = /\p{M}/u;

export interface Normalized {
  text: string;
  /** Invisible or bidi characters were removed. */
  removedInvisible: number;
  removedBidi: number;
  /** NFKC or look-alike folding changed something. */
  foldedLookalikes: boolean;
  /** Combining marks were removed. */
  removedMarks: number;
  /** Small capitals were folded. */
  smallCaps: number;
}

/**
 * NFKC, then strip invisible characters and combining marks (decomposed first, so `s̃` and
 * `é` both lose theirs), then fold look-alikes to ASCII. The text every detector matches on.
 */
export function normalizeText(input: string): Normalized {
  const nfkc = input.normalize('NFKC');
  const decomposed = nfkc.normalize('NFD');
  let removedInvisible = 0;
  let removedBidi = 0;
  let removedMarks = 0;
  let smallCaps = 0;
  let folded = nfkc !== input.normalize('NFC');
  let out = '';
  for (const ch of decomposed) {
    const cp = ch.codePointAt(0) as number;
    if (isInvisible(cp)) {
      removedInvisible++;
      if (isBidiControl(cp)) removedBidi++;
      continue;
    }
    if (COMBINING_MARK.test(ch)) {
      removedMarks++;
      continue;
    }
    const mapped = CONFUSABLES[ch];
    if (mapped !== undefined) {
      folded = true;
      if (SMALL_CAPS.has(ch)) smallCaps++;
      out += mapped;
    } else out += ch;
  }
  // Recompose what is left (Hangul and other scripts without marks come back whole).
  return {
    text: out.normalize('NFC'),
    removedInvisible,
    removedBidi,
    foldedLookalikes: folded || removedMarks > 0,
    removedMarks,
    smallCaps,
  };
}

// ---------------------------------------------------------------------------------------
// Decoded views
// ---------------------------------------------------------------------------------------

export type Encoding = 'plain' | 'unicode' | 'split' | 'base64' | 'hex' | 'url' | 'escape';

export interface View {
  text: string;
  encoding: Encoding;
}

const B64_RE = re2('[A-Za-z0-9+/_-]{16,}={0,2}');
const HEX_RE = re2('(?:[0-9A-Fa-f]{2}){8,}');
const HEX_ESCAPE_RE = re2('(?:\\\\x[0-9A-Fa-f]{2}){4,}');
const UNI_ESCAPE_RE = re2('(?:\\\\u[0-9A-Fa-f]{4}){4,}');
const PCT_RE = re2('%[0-9A-Fa-f]{2}');

/** Mostly printable text (at least 85 % printable ASCII or common whitespace; no NUL). */
export function isPrintable(s: string): boolean {
  if (s.length < 4) return false;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return false;
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) ok++;
  }
  return ok / s.length >= 0.85;
}

function decodeBase64Token(tok: string): string | null {
  const std = tok.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (std.length % 4 === 1) return null;
  const buf = Buffer.from(std, 'base64');
  if (buf.length < 8) return null;
  const s = buf.toString('utf8');
  return isPrintable(s) ? s : null;
}

function decodeHexToken(tok: string): string | null {
  const s = Buffer.from(tok, 'hex').toString('utf8');
  return isPrintable(s) ? s : null;
}

/** The text with every decodable base64 / hex / escape run replaced by its decoded form (one pass). */
function replaceRuns(text: string, re: ReturnType<typeof re2>, decode: (tok: string) => string | null): string | null {
  const runs = findAll(re, text, 500);
  if (runs.length === 0) return null;
  let out = '';
  let last = 0;
  let changed = false;
  for (const r of runs) {
    const d = decode(r.text);
    if (d === null) continue;
    out += text.slice(last, r.start) + ` ${d} `;
    last = r.end;
    changed = true;
  }
  return changed ? out + text.slice(last) : null;
}

function percentDecode(text: string): string | null {
  if (!test(PCT_RE, text)) return null;
  // Decode byte sequences leniently: invalid sequences stay as they are.
  const out = text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (seq) => {
    try {
      return decodeURIComponent(seq);
    } catch {
      return Buffer.from(seq.replace(/%/g, ''), 'hex').toString('latin1');
    }
  });
  return out === text ? null : out;
}

/** Removes what splits a secret apart in source text or prose: whitespace, quotes, `+`, commas, `;`, `/`, `.join` separators. */
export function compactView(text: string): string {
  return text.replace(/[\s"'`+,|\\;/]+/g, '');
}

/** The compact view without `.`, `-`, `:` and every other punctuation either, `_` kept: a key split by any separator is whole again. */
export function denseView(text: string): string {
  return text.replace(/[^A-Za-z0-9_]+/g, '');
}

/** Letters and digits only (for the checksum-validated svc keys, whose prefix may be split too). */
export function alnumView(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '');
}

const CHUNK_SEPARATORS = /([\s,;:|.'"`()[\]{}]+)/;
const B64_WORD = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HEX_WORD = /^(?:0x)?[0-9A-Fa-f]+$/;

/**
 * The text with chunked encodings joined and decoded: base64 cut into equal chunks
 * (`c3ZjX2xp dmVfQUJD …`, any separator) and hex split into byte groups (`73 76 63`,
 * `73:76:63`, `0x73,0x76`). A run needs at least two chunks and 16 characters and must
 * decode to printable text; null when nothing decoded. Linear: one pass over the words.
 */
export function joinChunks(text: string, kind: 'base64' | 'hex'): string | null {
  const parts = text.split(CHUNK_SEPARATORS);
  // parts: word, separator, word, separator, … (words at even indices)
  let out = '';
  let changed = false;
  let i = 0;
  // A run that does not decode is retried once without its first word (a word of prose before
  // the chunks), then skipped whole: every word is in at most two attempts (linear).
  let retryEnd = -1;
  while (i < parts.length) {
    const w = parts[i] as string;
    let j = i;
    let joined = '';
    if (kind === 'hex' && HEX_WORD.test(w) && w.replace(/^0x/, '').length % 2 === 0) {
      while (
        j < parts.length &&
        HEX_WORD.test(parts[j] as string) &&
        (parts[j] as string).replace(/^0x/, '').length % 2 === 0 &&
        (parts[j] as string).length > 0
      ) {
        joined += (parts[j] as string).replace(/^0x/, '');
        j += 2;
      }
    } else if (kind === 'base64' && w.length >= 4 && B64_WORD.test(w)) {
      const len = w.length;
      while (j < parts.length && B64_WORD.test(parts[j] as string)) {
        const cur = parts[j] as string;
        if (cur.length > len) break;
        joined += cur;
        j += 2;
        if (cur.length < len || cur.endsWith('=')) break;
      }
    }
    const chunks = (j - i) / 2;
    if (chunks >= 2 && joined.length >= 16) {
      const decoded = kind === 'hex' ? decodeHexToken(joined) : decodeBase64Token(joined);
      if (decoded !== null) {
        out += ` ${decoded} ${parts[j - 1] ?? ''}`;
        changed = true;
        i = j;
        retryEnd = -1;
        continue;
      }
    }
    if (chunks >= 2 && i >= retryEnd) {
      // First failure of this run: retry from the next word.
      retryEnd = j;
      out += w + (parts[i + 1] ?? '');
      i += 2;
      continue;
    }
    // A failed retry (or no run): copy up to the end of the run.
    const end = Math.max(i + 2, chunks >= 2 ? j : i + 2, retryEnd);
    for (let k = i; k < end && k < parts.length; k += 2) out += (parts[k] as string) + (parts[k + 1] ?? '');
    i = end;
    retryEnd = -1;
  }
  return changed ? out : null;
}

/**
 * Every view a detector must scan: the normalised text, the compacted text, and up to two
 * levels of decoded content (base64, hex, \xNN / \uNNNN escapes, %-encoding). Bounded: at most
 * `maxViews` views, each at most the input's size (decoding never grows text).
 */
export function viewsOf(normalized: string, maxDepth = 2, maxViews = 24): View[] {
  const views: View[] = [{ text: normalized, encoding: 'plain' }];
  const queue: Array<{ text: string; depth: number }> = [{ text: normalized, depth: 0 }];
  const seen = new Set<string>([normalized]);
  while (queue.length && views.length < maxViews) {
    const { text, depth } = queue.shift()!;
    if (depth >= maxDepth) continue;
    const decoded: View[] = [];
    const b64 = replaceRuns(text, B64_RE, decodeBase64Token);
    if (b64) decoded.push({ text: b64, encoding: 'base64' });
    const hex = replaceRuns(text, HEX_RE, decodeHexToken);
    if (hex) decoded.push({ text: hex, encoding: 'hex' });
    const hexEsc = replaceRuns(text, HEX_ESCAPE_RE, (t) => decodeHexToken(t.replace(/\\x/g, '')));
    if (hexEsc) decoded.push({ text: hexEsc, encoding: 'escape' });
    const uniEsc = replaceRuns(text, UNI_ESCAPE_RE, (t) => {
      const s = t.replace(/\\u([0-9A-Fa-f]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
      return isPrintable(s) ? s : null;
    });
    if (uniEsc) decoded.push({ text: uniEsc, encoding: 'escape' });
    const pct = percentDecode(text);
    if (pct) decoded.push({ text: pct, encoding: 'url' });
    // Chunked encodings: base64 cut into equal pieces, hex bytes with spaces or colons.
    const b64Chunks = joinChunks(text, 'base64');
    if (b64Chunks) decoded.push({ text: b64Chunks, encoding: 'base64' });
    const hexChunks = joinChunks(text, 'hex');
    if (hexChunks) decoded.push({ text: hexChunks, encoding: 'hex' });
    for (const v of decoded) {
      const n = normalizeText(v.text).text;
      if (seen.has(n) || views.length >= maxViews) continue;
      seen.add(n);
      views.push({ text: n, encoding: v.encoding });
      queue.push({ text: n, depth: depth + 1 });
    }
  }
  return views;
}

// ---------------------------------------------------------------------------------------
// Masking: a finding never carries the raw value
// ---------------------------------------------------------------------------------------

/** Keeps a recognised prefix and at most the last 4 characters of values of 16+ characters. */
export function maskSecret(value: string, prefix = ''): string {
  const body = value.startsWith(prefix) ? value.slice(prefix.length) : value;
  if (body.length < 16) return `${prefix}********`;
  return `${prefix}********${body.slice(-4)}`;
}

export function maskEmail(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 1) return '****';
  const domain = value.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  return `${value[0]}***@${domain[0] ?? ''}***${dot >= 0 ? domain.slice(dot) : ''}`;
}

/** Digits: only the last 4 (payment cards, IBANs, national ids). */
export function maskDigits(value: string): string {
  const compact = value.replace(/[\s-]/g, '');
  if (compact.length < 10) return '****';
  return `****${compact.slice(-4)}`;
}

/** URLs: scheme and host are shown (they are the finding), path and query are not. */
export function maskUrl(host: string, scheme = 'https'): string {
  return `${scheme}://${host}/…`;
}

// ---------------------------------------------------------------------------------------
// Key-shaped text: masked before it reaches a record, whatever the detectors said
// ---------------------------------------------------------------------------------------

const VENDOR_KEY_RE = re2(
  '(?:ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|gldt-|glrt-|xox[abposr]-|sk_live_|rk_live_|sk-|AKIA|ASIA|AIza|hf_|npm_|ya29\\.|SG\\.|eyJ)[A-Za-z0-9_./+=-]{12,}',
);
const SVC_KEY_RE = re2('(?i)svc(?:live|test|agent)[A-Za-z0-9]{4,}');
const LONG_RUN_RE = re2('[A-Za-z0-9_+/=-]{32,}');
const MASK_TOKEN = /[^\s"'`,{}[\]()<>]+/g;

/** A run of 32+ characters is credential-like when it mixes upper and lower case letters and digits (hex digests, UUIDs and words do not). */
function highEntropy(tok: string): boolean {
  return /[A-Z]/.test(tok) && /[a-z]/.test(tok) && /[0-9]/.test(tok) && !/^[0-9a-fA-F_-]+$/.test(tok);
}

/** Whether one token looks like a credential: a svc prefix (any case, look-alikes, any separators), a vendor prefix, or a long mixed-class run. */
export function isKeyShaped(token: string): boolean {
  const norm = normalizeText(token).text;
  if (test(SVC_KEY_RE, alnumView(norm))) return true;
  if (test(VENDOR_KEY_RE, norm)) return true;
  return findAll(LONG_RUN_RE, norm, 20).some((m) => highEntropy(m.text));
}

/**
 * The text with every key-shaped token masked (its last 4 characters at most are kept): what an
 * audit entry, an activity record or a finding's location may show of caller text, whatever
 * the detectors decided. Tokens are split at whitespace, quotes, commas and brackets (JSON too).
 */
export function maskKeyShaped(text: string): string {
  return text.replace(MASK_TOKEN, (tok) => (isKeyShaped(tok) ? maskSecret(tok) : tok));
}
