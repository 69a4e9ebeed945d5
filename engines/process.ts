// POST /verify/process engine: does a reasoning trace follow a process?
//
// mode "irac" (default): the four IRAC steps — issue, rule, application, conclusion — are
// found by the cue phrases of the reference notes (word-bounded, case-insensitive) or by
// structure: a heading for the step (`## Issue`, `Rule:` at the start of a line,
// `I. Issue`, `**Conclusion**`, a line that is just `Analysis`). score = found / 4;
// verified when all four are found. `mechanism` says, per step, how it was found:
// "heading", "cue:<phrase>" (the phrase as listed in the notes), or null when missing.
//
// mode "milestones": each caller milestone must occur in the trace (word-bounded where the
// milestone starts/ends with a letter or digit, case-insensitive, internal whitespace
// flexible, every other character literal). process_rate = found / total; verified when
// every milestone is found.
import {
  findPhrase,
  foldCodePoint,
  foldPhrase,
  foldText,
  isJsWhitespace,
  isWordCodePoint,
  type FoldedText,
} from './text/phrase-search.js';

export const IRAC_STEPS = ['issue', 'rule', 'application', 'conclusion'] as const;
export type IracStep = (typeof IRAC_STEPS)[number];

/** Cue phrases exactly as the reference notes list them; `article <n>` takes a number. */
export const IRAC_CUES: Record<IracStep, readonly string[]> = {
  issue: ['issue', 'question', 'problem presented'],
  rule: ['rule', 'law', 'statute', 'regulation', 'article <n>'],
  application: ['application', 'analysis', 'applying', 'in this case'],
  conclusion: ['conclusion', 'holding', 'verdict', 'therefore'],
};

/** Section names that make a heading for each step (the cues plus their usual heading forms). */
const HEADING_NAMES: Record<IracStep, readonly string[]> = {
  issue: [
    'issue',
    'issues',
    'question',
    'questions',
    'question presented',
    'questions presented',
    'problem presented',
    'legal issue',
    'legal issues',
  ],
  rule: [
    'rule',
    'rules',
    'law',
    'applicable law',
    'governing law',
    'relevant law',
    'rule of law',
    'legal rule',
    'statute',
    'statutes',
    'regulation',
    'regulations',
  ],
  application: [
    'application',
    'analysis',
    'applying',
    'application of law',
    'application of the law',
    'application of the rule',
    'application and analysis',
  ],
  conclusion: ['conclusion', 'conclusions', 'holding', 'verdict'],
};

import { PROCESS_LIMITS } from '../contract/process.js';
export { PROCESS_LIMITS };

// Word boundary = not next to a letter, digit or underscore (Unicode-aware, like Python's \b).
const WB_BEFORE = '(?<![\\p{L}\\p{N}_])';
const WB_AFTER = '(?![\\p{L}\\p{N}_])';
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Nothing below runs a backtracking regular expression on the trace (docs/isolation.md):
// phrases (cues, milestones) are found by folded literal search (engines/text/phrase-search.ts)
// and headings and `article <n>` are read by hand, each in one pass per candidate position. The
// only JavaScript regular expressions applied to the trace are quantifier-free prefilters, and
// a roman-numeral check on at most 15 characters. test/unit/regex-linear.test.ts checks this and
// compares the results with the former regular expressions on random traces.

/** The JavaScript regular expressions applied to the trace (quantifier-free), for the test. */
export const TRACE_PREFILTERS: RegExp[] = [];

const words = (phrase: string) => phrase.trim().split(/\s+/);
const isSpaceOrTab = (c: string | undefined) => c === ' ' || c === '\t';
const cpAt = (s: string, i: number) => s.codePointAt(i)!;
const width = (cp: number) => (cp > 0xffff ? 2 : 1);
const isWordAt = (s: string, i: number) => i < s.length && isWordCodePoint(cpAt(s, i));
const isWsAt = (s: string, i: number) => i < s.length && isJsWhitespace(cpAt(s, i));
/** End of the run of `\s` starting at i. */
function skipWs(s: string, i: number): number {
  while (isWsAt(s, i)) i += width(cpAt(s, i));
  return i;
}

/** Roman numerals I–MMMCMXCIX: at most 15 characters, checked only on words that short. */
const ROMAN = /^(?:m{0,3})(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/;
const ROMAN_MAX_LENGTH = 15;

interface CueMatcher {
  cue: string;
  /** Index of the earliest occurrence in the trace, or -1. */
  find: (folded: FoldedText) => number;
}

const ARTICLE = foldPhrase(['article']);
const DIGIT_LO = 0x30;
const DIGIT_HI = 0x39;
const isLatinFolded = (cp: number) => cp >= 0x61 && cp <= 0x7a;

/**
 * `article\s+(?:\d+[a-z]?|<roman>)` between word boundaries, case-insensitive: "article",
 * whitespace, then a whole word that is digits with at most one letter after them, or a
 * roman numeral (the boundary after makes the number the whole word).
 */
function findArticle(folded: FoldedText): number {
  const { cps, word } = folded;
  return findPhrase(folded, ARTICLE, { before: true, after: false }, (start, end) => {
    let i = end;
    if (i >= folded.length || cps[i] !== 0x20 || word[i] !== 0) return false; // whitespace run
    i++;
    let j = i;
    while (j < folded.length && word[j] === 1) j++;
    const n = j - i;
    if (n === 0) return false;
    let d = i;
    while (d < j && cps[d]! >= DIGIT_LO && cps[d]! <= DIGIT_HI) d++;
    if (d > i && (d === j || (d + 1 === j && isLatinFolded(cps[d]!)))) return true;
    if (n > ROMAN_MAX_LENGTH) return false;
    return ROMAN.test(String.fromCodePoint(...cps.subarray(i, j)));
  });
}

function cueMatcher(cue: string): CueMatcher {
  if (cue === 'article <n>') return { cue, find: findArticle };
  const phrase = foldPhrase(words(cue));
  return { cue, find: (folded) => findPhrase(folded, phrase, { before: true, after: true }) };
}

const CUE_MATCHERS: Record<IracStep, CueMatcher[]> = Object.fromEntries(
  IRAC_STEPS.map((step) => [step, IRAC_CUES[step].map(cueMatcher)]),
) as Record<IracStep, CueMatcher[]>;

// A heading line: optional markdown #'s, optional enumeration (I. / 1. / A) / (a)), optional
// bold, the section name, then a separator (: — – - .) or the end of the line. Read as the
// former expression
//   ^[ \t]{0,3}(#{1,6}[ \t]*)?(ENUM)?(\*\*|__)?[ \t]*(?:names)(?![\p{L}\p{N}_])[ \t]*(?:\*\*|__)?[ \t]*([:—–]|[.-](?=\s|$))?(.*)$
//   ENUM = \(?(?:[ivxlcdm]+|\d{1,3}|[a-z])[.)]\s+         (case-insensitive)
// matched, trying its alternatives in the same order. Every whitespace run is followed by
// something that cannot start with whitespace, so taking it whole loses no match: the
// search tries at most 2 × 2 × 2 paths, each one pass over the line.
const HEADING_NAME_CPS: Record<IracStep, Int32Array[][]> = Object.fromEntries(
  IRAC_STEPS.map((step) => [
    step,
    [...HEADING_NAMES[step]].sort((a, b) => b.length - a.length).map((n) => words(n).map((w) => foldPhrase([w]))),
  ]),
) as Record<IracStep, Int32Array[][]>;
const HEADING_PREFILTERS: Record<IracStep, RegExp> = Object.fromEntries(
  IRAC_STEPS.map((step) => {
    // Quantifier-free: a heading line contains the first word of one of the names.
    const firsts = [...new Set(HEADING_NAMES[step].map((n) => words(n)[0]!))].sort((a, b) => b.length - a.length);
    const re = new RegExp(`(?:${firsts.join('|')})`, 'iu');
    TRACE_PREFILTERS.push(re);
    return [step, re];
  }),
) as Record<IracStep, RegExp>;

/** Matches folded `w` at i; returns the end index or -1. */
function matchWord(line: string, i: number, w: Int32Array): number {
  for (const c of w) {
    if (i >= line.length) return -1;
    const cp = cpAt(line, i);
    if (foldCodePoint(cp) !== c) return -1;
    i += width(cp);
  }
  return i;
}

/** One of the names at i, then a word boundary; returns the end index or -1. */
function matchName(line: string, i: number, names: Int32Array[][]): number {
  for (const name of names) {
    let j = i;
    for (let k = 0; k < name.length && j >= 0; k++) {
      if (k > 0) {
        const after = skipWs(line, j);
        j = after > j ? after : -1;
        if (j < 0) break;
      }
      j = matchWord(line, j, name[k]!);
    }
    if (j >= 0 && !isWordAt(line, j)) return j;
  }
  return -1;
}

const ROMAN_LETTERS = new Set(['i', 'v', 'x', 'l', 'c', 'd', 'm']);
/** End of ENUM at i, or -1 (its alternatives leave at most one way to match). */
function matchEnum(line: string, i: number): number {
  if (line[i] === '(') i++;
  const start = i;
  const folded = (k: number) => (k < line.length ? String.fromCodePoint(foldCodePoint(cpAt(line, k))) : '');
  // [ivxlcdm]+ (a shorter run would leave a roman letter where [.)] must be)
  let j = start;
  while (ROMAN_LETTERS.has(folded(j))) j += width(cpAt(line, j));
  if (j === start) {
    // \d{1,3}: all of at most three digits (a fourth digit fails [.)])
    while (j < line.length && j - start < 3 && line[j]! >= '0' && line[j]! <= '9') j++;
    if (j === start) {
      const f = folded(j);
      if (f.length === 1 && f >= 'a' && f <= 'z')
        j += width(cpAt(line, j)); // [a-z]
      else return -1;
    }
  }
  if (line[j] !== '.' && line[j] !== ')') return -1;
  j++;
  const end = skipWs(line, j);
  return end > j ? end : -1;
}

/** What follows the name: `[ \t]*(?:\*\*|__)?[ \t]*([:—–]|[.-](?=\s|$))?(.*)$`, read greedily. */
function readTail(line: string, i: number): { separator: boolean; rest: string } | null {
  while (isSpaceOrTab(line[i])) i++;
  if (line.startsWith('**', i) || line.startsWith('__', i)) i += 2;
  while (isSpaceOrTab(line[i])) i++;
  const c = line[i];
  let separator = false;
  if (c === ':' || c === '\u2014' || c === '\u2013') separator = true;
  else if ((c === '.' || c === '-') && (i + 1 >= line.length || isWsAt(line, i + 1))) separator = true;
  if (separator) i++;
  const rest = line.slice(i);
  // `.` does not match these line terminators: the former `(.*)$` failed on them.
  if (rest.includes('\u2028') || rest.includes('\u2029')) return null;
  return { separator, rest };
}

/** Whether `line` is a heading of `step`: marked as one, or the name alone on its line. */
function headingLine(line: string, step: IracStep): boolean {
  const names = HEADING_NAME_CPS[step];
  let p = 0;
  while (p < 3 && isSpaceOrTab(line[p])) p++;
  let h = 0;
  while (line[p + h] === '#') h++;
  const hashChoices = h >= 1 && h <= 6 ? [true, false] : [false];
  for (const hashes of hashChoices) {
    let q = p;
    if (hashes) {
      q += h;
      while (isSpaceOrTab(line[q])) q++;
    }
    const enumEnd = matchEnum(line, q);
    for (const enumeration of enumEnd >= 0 ? [true, false] : [false]) {
      const r = enumeration ? enumEnd : q;
      const boldHere = line.startsWith('**', r) || line.startsWith('__', r);
      for (const bold of boldHere ? [true, false] : [false]) {
        let s = bold ? r + 2 : r;
        while (isSpaceOrTab(line[s])) s++;
        const end = matchName(line, s, names);
        if (end < 0) continue;
        const tail = readTail(line, end);
        if (tail === null) continue;
        return hashes || enumeration || bold || tail.separator || tail.rest.trim().length === 0;
      }
    }
  }
  return false;
}

function hasHeading(lines: string[], step: IracStep): boolean {
  const prefilter = HEADING_PREFILTERS[step];
  return lines.some((line) => prefilter.test(line) && headingLine(line, step));
}

export type IracMechanism = Record<IracStep, string | null>;

export type IracResult = {
  verified: boolean;
  score: number;
  missing_steps: IracStep[];
  mechanism: IracMechanism;
};

export type MilestonesResult = {
  verified: boolean;
  process_rate: number;
  missed_milestones: string[];
};

export function verifyIrac(trace: string): IracResult {
  const lines = trace.split(/\r\n|\r|\n/);
  let foldedTrace: FoldedText | null = null;
  const folded = () => (foldedTrace ??= foldText(trace));
  const mechanism = {} as IracMechanism;
  const missing: IracStep[] = [];
  for (const step of IRAC_STEPS) {
    if (hasHeading(lines, step)) {
      mechanism[step] = 'heading';
      continue;
    }
    // The earliest cue in the trace names the mechanism.
    let best: { cue: string; index: number } | null = null;
    for (const { cue, find } of CUE_MATCHERS[step]) {
      const index = find(folded());
      if (index >= 0 && (best === null || index < best.index)) best = { cue, index };
    }
    mechanism[step] = best ? `cue:${best.cue}` : null;
    if (!best) missing.push(step);
  }
  const found = IRAC_STEPS.length - missing.length;
  return { verified: missing.length === 0, score: found / IRAC_STEPS.length, missing_steps: missing, mechanism };
}

/**
 * The regular expression that states how a milestone matches (documentation and tests; the
 * engine finds milestones with the equivalent linear-time phrase search below).
 */
export function milestoneRegex(milestone: string): RegExp {
  const text = milestone.trim();
  const body = text.split(/\s+/).map(escapeRegex).join('\\s+');
  const before = /^[\p{L}\p{N}_]/u.test(text) ? WB_BEFORE : '';
  const after = /[\p{L}\p{N}_]$/u.test(text) ? WB_AFTER : '';
  return new RegExp(`${before}${body}${after}`, 'iu');
}

export function verifyMilestones(trace: string, milestones: readonly string[]): MilestonesResult {
  if (milestones.length === 0) throw new RangeError('at least one milestone is required');
  const folded = foldText(trace);
  const missed = milestones.filter((m) => {
    const text = m.trim();
    const bounds = { before: /^[\p{L}\p{N}_]/u.test(text), after: /[\p{L}\p{N}_]$/u.test(text) };
    return findPhrase(folded, foldPhrase(words(text)), bounds) < 0;
  });
  const found = milestones.length - missed.length;
  return { verified: missed.length === 0, process_rate: found / milestones.length, missed_milestones: missed };
}

// ---- request (contract/process.ts) ----------------------------------------------------------

export {
  processRequestSchema,
  validateProcessRequest,
  type ProcessRequest,
  type ProcessRequestInput,
} from '../contract/process.js';
import type { ProcessRequest } from '../contract/process.js';

/** Runs the requested mode. Call with a validated request (processRequestSchema). */
export function verifyProcess(req: ProcessRequest): IracResult | MilestonesResult {
  if (req.mode === 'milestones') return verifyMilestones(req.trace, req.milestones ?? []);
  return verifyIrac(req.trace);
}
