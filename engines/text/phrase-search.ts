// Linear-time search for a phrase — words separated by any whitespace — in a text, with the
// matching rules of a JavaScript `/…/iu` regular expression built as
// `(?<![\p{L}\p{N}_])word1\s+word2…(?![\p{L}\p{N}_])` (boundaries optional), but without a
// regular expression: the text is folded once (case folding per code point, every whitespace
// run collapsed to one space), then each phrase is found with Knuth–Morris–Pratt in
// O(text + phrase). No input can make it slower than linear (docs/isolation.md).

/** ECMAScript `\s`: WhiteSpace and LineTerminator code points. */
const JS_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);

export function isJsWhitespace(cp: number): boolean {
  return JS_WHITESPACE.has(cp);
}

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
const wordCache = new Map<number, boolean>();

/** `[\p{L}\p{N}_]` for one code point. */
export function isWordCodePoint(cp: number): boolean {
  if (cp < 0x80)
    return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  let v = wordCache.get(cp);
  if (v === undefined) {
    v = WORD_CHAR.test(String.fromCodePoint(cp));
    wordCache.set(cp, v);
  }
  return v;
}

const foldCache = new Map<number, number>();
const escapeCp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The representative of a code point's case-insensitive class under `/iu` (ECMAScript
 * Canonicalize: simple case folding): two code points match each other case-insensitively
 * exactly when their representatives are equal. Found from the code point's lower/upper-case
 * relatives, each confirmed by the regular-expression engine itself (one-character patterns,
 * cached per code point).
 */
export function foldCodePoint(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp; // ASCII letters fold to lower case
  const cached = foldCache.get(cp);
  if (cached !== undefined) return cached;
  const ch = String.fromCodePoint(cp);
  const seen = new Set<number>([cp]);
  let frontier = [ch];
  for (let round = 0; round < 3 && frontier.length > 0; round++) {
    const next: string[] = [];
    for (const s of frontier) {
      for (const t of [s.toLowerCase(), s.toUpperCase()]) {
        const c = t.codePointAt(0)!;
        if (t.length !== String.fromCodePoint(c).length || seen.has(c)) continue; // multi-character mappings are not simple folds
        seen.add(c);
        next.push(t);
      }
    }
    frontier = next;
  }
  const re = new RegExp(`^${escapeCp(ch)}$`, 'iu');
  let best = cp;
  for (const c of seen) {
    const s = String.fromCodePoint(c);
    if (c !== cp && re.test(s)) {
      // ASCII letters are represented in lower case (the fast path above).
      const rep = c < 0x80 && c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
      if (c < 0x80 || (best >= 0x80 && rep < best)) best = rep;
    }
  }
  foldCache.set(cp, best);
  return best;
}

export interface FoldedText {
  /** Folded code points; every whitespace run is one 0x20. */
  cps: Int32Array;
  /** UTF-16 index in the original text where each folded code point (or whitespace run) starts. */
  starts: Int32Array;
  /** Whether the original code point is a word character (`[\p{L}\p{N}_]`); whitespace is not. */
  word: Uint8Array;
  length: number;
}

export function foldText(text: string): FoldedText {
  const cps = new Int32Array(text.length);
  const starts = new Int32Array(text.length);
  const word = new Uint8Array(text.length);
  let n = 0;
  let inSpace = false;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (isJsWhitespace(cp)) {
      if (!inSpace) {
        cps[n] = 0x20;
        starts[n] = i;
        word[n] = 0;
        n++;
        inSpace = true;
      }
    } else {
      cps[n] = foldCodePoint(cp);
      starts[n] = i;
      word[n] = isWordCodePoint(cp) ? 1 : 0;
      n++;
      inSpace = false;
    }
    i += width;
  }
  return { cps: cps.subarray(0, n), starts: starts.subarray(0, n), word: word.subarray(0, n), length: n };
}

/** The folded form of a phrase: its words (split on whitespace) joined by one space. */
export function foldPhrase(words: readonly string[]): Int32Array {
  return foldText(words.join(' ')).cps;
}

export interface PhraseBoundaries {
  /** The character before the match must not be a word character. */
  before: boolean;
  /** The character after the match must not be a word character. */
  after: boolean;
}

/**
 * UTF-16 index in the original text of the leftmost occurrence of `phrase` (folded) whose
 * boundaries hold, or -1. Knuth–Morris–Pratt: O(text + phrase).
 */
export function findPhrase(
  text: FoldedText,
  phrase: Int32Array,
  bounds: PhraseBoundaries,
  /** Further condition on an occurrence [start, end) in folded positions (scanning ahead is the caller's cost). */
  accept?: (start: number, end: number) => boolean,
): number {
  const m = phrase.length;
  if (m === 0) return -1;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && phrase[i] !== phrase[k]) k = fail[k - 1]!;
    if (phrase[i] === phrase[k]) k++;
    fail[i] = k;
  }
  const { cps, word } = text;
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && cps[i] !== phrase[k]) k = fail[k - 1]!;
    if (cps[i] === phrase[k]) k++;
    if (k === m) {
      const start = i - m + 1;
      const okBefore = !bounds.before || start === 0 || word[start - 1] === 0;
      const okAfter = !bounds.after || i + 1 >= text.length || word[i + 1] === 0;
      if (okBefore && okAfter && (accept === undefined || accept(start, i + 1))) return text.starts[start]!;
      k = fail[k - 1]!;
    }
  }
  return -1;
}
