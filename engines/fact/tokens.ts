// Tokens and sentences of a text, with their offsets (UTF-16 code units of the original
// string). One left-to-right pass over the characters: linear time, no regular expression
// sees more than one character at a time.
import { ABBREVIATIONS, STOPWORDS } from './lexicon.js';

export type TokenKind = 'word' | 'number' | 'symbol';

export interface Token {
  kind: TokenKind;
  /** The token as written. */
  text: string;
  /** Lower-cased (words), digits with separators removed (numbers), the character (symbols). */
  lower: string;
  start: number;
  end: number;
  /** Written with an upper-case first letter. */
  capitalized: boolean;
  /** For numbers: the parsed value and the size of one unit in its last written digit. */
  value?: number;
  step?: number;
}

const LETTER = /[\p{L}\p{M}]/u;
const SPACE = /\s/u;

// ASCII is decided by character code; only other characters go through the Unicode classes.
const isLetter = (c: string) => {
  const k = c.charCodeAt(0);
  if (k < 128) return (k >= 65 && k <= 90) || (k >= 97 && k <= 122);
  return LETTER.test(c);
};
const isSpace = (c: string) => {
  const k = c.charCodeAt(0);
  if (k < 128) return k === 32 || (k >= 9 && k <= 13);
  return SPACE.test(c);
};

/** Tokenizes `text` (offsets relative to `text`). */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const k = text.charCodeAt(i);
    if (k < 128 ? k === 32 || (k >= 9 && k <= 13) : isSpace(text[i]!)) {
      i++;
      continue;
    }
    if (k >= 48 && k <= 57) {
      // Digits with single internal separators: 1,234,567.89 | 3.5 | 2024 (no sign; '-' is a symbol).
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) j++;
        else if ((d === 44 || d === 46) && j + 1 < n && isDigitCode(text.charCodeAt(j + 1))) j += 2;
        else break;
      }
      const raw = text.slice(i, j);
      const parsed = parseNumber(raw);
      out.push({
        kind: 'number',
        text: raw,
        lower: raw,
        start: i,
        end: j,
        capitalized: false,
        value: parsed.value,
        step: parsed.step,
      });
      i = j;
      continue;
    }
    if (k < 128 ? (k >= 65 && k <= 90) || (k >= 97 && k <= 122) : isLetter(text[i]!)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d < 128 ? (d >= 65 && d <= 90) || (d >= 97 && d <= 122) || (d >= 48 && d <= 57) : isLetter(text[j]!)) j++;
        else if ((d === 39 || d === 0x2019) && j + 1 < n && isLetter(text[j + 1]!)) j += 2;
        else break;
      }
      const raw = text.slice(i, j);
      const c = text[i]!;
      const capitalized = k < 128 ? k >= 65 && k <= 90 : c !== c.toLowerCase() && c === c.toUpperCase();
      out.push({ kind: 'word', text: raw, lower: raw.toLowerCase(), start: i, end: j, capitalized });
      i = j;
      continue;
    }
    // Surrogate pairs stay together.
    const len = k >= 0xd800 && k <= 0xdbff && i + 1 < n ? 2 : 1;
    const sym = text.slice(i, i + len);
    out.push({ kind: 'symbol', text: sym, lower: sym, start: i, end: i + len, capitalized: false });
    i += len;
  }
  return out;
}

const isDigitCode = (d: number) => d >= 48 && d <= 57;

/**
 * 1,234 and 1,234,567 are thousands; 3.5 is a decimal; 3,5 (one group of other than three
 * digits after a comma) is read as a decimal comma. `step` is the value of one unit in the
 * last written digit (the rounding a writer of that number implies).
 */
export function parseNumber(raw: string): { value: number; step: number } {
  const groups = raw.split(',');
  let normalized: string;
  if (
    groups.length > 1 &&
    groups.slice(1).every((g, k, arr) => /^\d{3}(\.\d+)?$/.test(g) && (k === arr.length - 1 || !g.includes('.')))
  ) {
    normalized = groups.join('');
  } else if (groups.length === 2 && !raw.includes('.')) {
    normalized = `${groups[0]}.${groups[1]}`;
  } else {
    normalized = groups.join('');
  }
  // More than one '.': a version or a date such as 1.2.3; keep the first part.
  const parts = normalized.split('.');
  if (parts.length > 2) normalized = `${parts[0]}.${parts[1]}`;
  const decimals = normalized.includes('.') ? normalized.length - normalized.indexOf('.') - 1 : 0;
  return { value: Number(normalized), step: 10 ** -decimals };
}

const stemCache = new Map<string, string>();

/** Light stemming, enough to match plurals and possessives (not a linguistic stemmer). */
export function stem(word: string): string {
  let hit = stemCache.get(word);
  if (hit === undefined) {
    hit = stemUncached(word);
    // Bounded: a context of unique words cannot grow the cache without limit.
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, hit);
  }
  return hit;
}

function stemUncached(word: string): string {
  let w = word.toLowerCase();
  if (w.endsWith("'s") || w.endsWith('’s')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && (w.endsWith('sses') || w.endsWith('shes') || w.endsWith('ches') || w.endsWith('xes')))
    return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is'))
    return w.slice(0, -1);
  return w;
}

export const isContentWord = (t: Token): boolean => t.kind === 'word' && !STOPWORDS.has(t.lower) && t.lower.length > 1;

export interface Sentence {
  index: number;
  start: number;
  end: number;
  tokens: Token[];
}

/** Sentences longer than this many tokens are cut (at a comma or semicolon where possible). */
export const MAX_SENTENCE_TOKENS = 80;

/**
 * Splits tokens into sentences: at . ! ? (unless after an abbreviation or an initial), at a
 * line break, and at MAX_SENTENCE_TOKENS (so a text without punctuation cannot become one
 * sentence that "covers" every claim).
 */
export function splitSentences(text: string, tokens: Token[]): Sentence[] {
  const out: Sentence[] = [];
  let cur: Token[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    out.push({ index: out.length, start: cur[0]!.start, end: cur[cur.length - 1]!.end, tokens: cur });
    cur = [];
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    // A line break between the previous token and this one ends the sentence.
    if (cur.length > 0 && hasLineBreak(text, cur[cur.length - 1]!.end, t.start)) flush();
    cur.push(t);
    if (t.kind === 'symbol' && (t.text === '.' || t.text === '!' || t.text === '?')) {
      const prev = cur.length >= 2 ? cur[cur.length - 2]! : null;
      const next = tokens[k + 1];
      const abbreviation =
        t.text === '.' &&
        prev !== null &&
        prev.kind === 'word' &&
        prev.end === t.start &&
        (ABBREVIATIONS.has(prev.lower) || prev.text.length === 1);
      // "U.S. Army": an abbreviation's period ends the sentence only before a capitalised word
      // that follows a line break; otherwise it never does.
      if (!abbreviation || next === undefined) flush();
      continue;
    }
    if (cur.length >= MAX_SENTENCE_TOKENS) {
      // Cut at the last comma or semicolon in the second half, else here.
      let cut = -1;
      for (let m = cur.length - 1; m >= MAX_SENTENCE_TOKENS / 2; m--) {
        const s = cur[m]!;
        if (s.kind === 'symbol' && (s.text === ',' || s.text === ';')) {
          cut = m;
          break;
        }
      }
      if (cut < 0) flush();
      else {
        const rest = cur.slice(cut + 1);
        cur = cur.slice(0, cut + 1);
        flush();
        cur = rest;
      }
    }
  }
  flush();
  return out;
}

function hasLineBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** UTF-16 offset → Unicode code point offset (evidence offsets are code points, like Python's). */
export function codePointOffset(text: string, utf16: number): number {
  let cp = 0;
  for (let i = 0; i < utf16 && i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one counts once.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    cp++;
  }
  return cp;
}
