// Regular expressions that see request text run in linear time by construction
// (docs/isolation.md): RE2 patterns (re2js), quantifier-free JavaScript prefilters, or no
// regular expression at all (folded phrase search). The process engine is also compared with
// its former backtracking implementation on random traces: same results.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TRACE_PREFILTERS, verifyIrac, verifyMilestones } from '../../engines/process.js';
import * as reference from './fixtures/process-regex-reference.js';
import { findPhrase, foldCodePoint, foldPhrase, foldText } from '../../engines/text/phrase-search.js';

/** A JavaScript regex whose source has no quantifier and no backreference cannot backtrack more than its length at each position. */
function isQuantifierFree(re: RegExp): boolean {
  const src = re.source.replace(/\\./g, '');
  return !/[*+?{]/.test(src.replace(/\(\?:/g, '(')) && !/\\[1-9k]/.test(re.source);
}

describe('process engine patterns are linear-time by construction', () => {
  it('the JavaScript regular expressions applied to the trace are quantifier-free', () => {
    expect(TRACE_PREFILTERS.length).toBe(4);
    for (const re of TRACE_PREFILTERS) expect(isQuantifierFree(re), re.source).toBe(true);
    expect(isQuantifierFree(/a[ \t]*b/)).toBe(false); // the check itself can fail
  });

  it('answers the issue #16 inputs (a million characters each) without backtracking', () => {
    expect(verifyIrac(`#${' '.repeat(1_000_000)}z`).score).toBe(0);
    expect(verifyIrac(`## Issue${' \t'.repeat(300_000)}\u2028`).mechanism.issue).toBe('cue:issue');
    expect(verifyIrac(`1.${' '.repeat(500_000)}**${' '.repeat(500_000)}x`).score).toBe(0);
    expect(verifyIrac(`article ${'1'.repeat(500_000)}xy`).mechanism.rule).toBe(null);
    expect(verifyIrac(`${'article '.repeat(100_000)}1x`).mechanism.rule).toBe('cue:article <n>');
    expect(verifyIrac(`${'#'.repeat(3)}${' '.repeat(500_000)}1.${' '.repeat(500_000)}Issue`).mechanism.issue).toBe(
      'heading',
    );
    const trace = Array.from({ length: 20_000 }, (_, i) => `w${i % 7}`).join(' ');
    const milestone =
      Array.from({ length: 330 }, (_, i) => `w${i % 7}`)
        .join(' ')
        .slice(0, 1000) + ' zz';
    expect(verifyMilestones(trace, Array(10).fill(milestone)).process_rate).toBe(0);
  });
});

describe('folded phrase search', () => {
  it('folds like /iu: Kelvin sign, long s, final sigma, dotted I', () => {
    expect(foldCodePoint(0x212a)).toBe(foldCodePoint('k'.codePointAt(0)!));
    expect(foldCodePoint(0x17f)).toBe(foldCodePoint('S'.codePointAt(0)!));
    expect(foldCodePoint('ς'.codePointAt(0)!)).toBe(foldCodePoint('Σ'.codePointAt(0)!));
    expect(foldCodePoint(0x130)).not.toBe(foldCodePoint('i'.codePointAt(0)!));
  });

  it('finds phrases across whitespace runs, with boundaries, at the original index', () => {
    const t = foldText('xx  The\u00a0Rule\n\tof  LAW, rules');
    expect(findPhrase(t, foldPhrase(['rule', 'of', 'law']), { before: true, after: true })).toBe(8);
    expect(findPhrase(t, foldPhrase(['rule']), { before: true, after: true })).toBe(8);
    expect(findPhrase(foldText('rules'), foldPhrase(['rule']), { before: true, after: true })).toBe(-1);
    expect(findPhrase(foldText('rules'), foldPhrase(['rule']), { before: true, after: false })).toBe(0);
  });
});

// Random traces built from the pieces the patterns care about.
const PIECES = [
  'issue',
  'Issues',
  'QUESTION',
  'question presented',
  'problem',
  'presented',
  'rule',
  'Rules',
  'law',
  'applicable law',
  'statute',
  'regulation',
  'article',
  'Article 12',
  'article IV',
  'article iv.',
  'article 3b',
  'article mmm',
  'article vx',
  'application',
  'analysis',
  'applying',
  'in this case',
  'conclusion',
  'holding',
  'verdict',
  'therefore',
  'ru\u212ae',
  'i\u017f\u017fue',
  'legal',
  'of',
  'the',
  '#',
  '##',
  '#######',
  '**',
  '__',
  ':',
  '-',
  '.',
  '\u2014',
  '\u2013',
  '(a)',
  'I.',
  '1.',
  'iv)',
  'x',
  '_',
  '9',
  'é',
  'Σ',
  'ς',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
];
const trace = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((xs) => xs.join(''));

describe('same results as the former regular expressions', () => {
  it('IRAC mode', () => {
    fc.assert(
      fc.property(trace, (t) => {
        expect(verifyIrac(t)).toEqual(reference.verifyIrac(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('milestones mode', () => {
    const milestone = fc
      .array(fc.constantFrom(...PIECES.filter((p) => p.trim() !== '')), { minLength: 1, maxLength: 3 })
      .map((xs) => xs.join(' '));
    fc.assert(
      fc.property(trace, fc.array(milestone, { minLength: 1, maxLength: 4 }), (t, ms) => {
        expect(verifyMilestones(t, ms)).toEqual(reference.verifyMilestones(t, ms));
      }),
      { numRuns: 800 },
    );
  });
});

// The other engines' former quadratic or worse expressions, compared with their rewrites.
import { SQL_TEXT } from '../../engines/code/predicates.js';
import { likeMatches } from '../../engines/sql/tautology.js';
import { splitAliasColumns } from '../../engines/sql/parser.js';
import { nameWords } from '../../engines/sql/sensitive.js';

const FORMER_SQL_TEXT =
  /\b(?:select\s[\s\S]*\bfrom|insert\s+into|update\s+\S+\s+set|delete\s+from|drop\s+(?:table|database)|create\s+table|alter\s+table|truncate\s|replace\s+into|union\s+select|where\s)/i;
const formerLike = (l: string, r: string) =>
  new RegExp(
    `^${r
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/%/g, '.*')
      .replace(/_/g, '.')}$`,
    'si',
  ).test(l);
const FORMER_ALIAS = /^\s*([^()]+?)\s*\((.*)\)\s*$/s;
const formerNameWords = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+|(?<=[a-z])(?=\d{2,})/)
    .filter((w) => w.length > 0);

describe('code and SQL engines: rewritten expressions', () => {
  const text = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((xs) => xs.join(''));
  it('SQL text detection', () => {
    const t = text([
      'select',
      'SELECT',
      ' ',
      '\n',
      'from',
      'xfrom',
      'From',
      '*',
      'x',
      'where ',
      'insert into',
      'update t set',
      '_',
    ]);
    fc.assert(
      fc.property(t, (s) => SQL_TEXT.test(s) === FORMER_SQL_TEXT.test(s)),
      { numRuns: 2000 },
    );
    expect(SQL_TEXT.test(`${'select '.repeat(200_000)}x`)).toBe(false);
  });
  it('LIKE', () => {
    const v = text(['a', 'A', 'b', '%', '_', 'ß', 'ſ', 'K', '\n', '.']);
    fc.assert(
      fc.property(v, v, (l, r) => likeMatches(l, r) === formerLike(l, r)),
      { numRuns: 3000 },
    );
    expect(likeMatches('a'.repeat(5000), `${'%a'.repeat(2000)}%b`)).toBe(false);
  });
  it('alias column lists', () => {
    const a = text(['g', ' ', '(', ')', 'n', ',', '\t', '"']);
    fc.assert(
      fc.property(a, (s) => {
        const m = FORMER_ALIAS.exec(s);
        expect(splitAliasColumns(s)).toEqual(m ? [m[0], m[1], m[2]] : null);
      }),
      { numRuns: 3000 },
    );
    expect(splitAliasColumns(`a${' '.repeat(200_000)}`)).toBe(null);
  });
  it('column name words', () => {
    const n = text(['A', 'B', 'a', 'b', '1', '22', '_', 'Id', 'HTML']);
    fc.assert(
      fc.property(n, (s) => {
        expect(nameWords(s)).toEqual(formerNameWords(s));
      }),
      { numRuns: 2000 },
    );
    expect(nameWords('A'.repeat(200_000))).toEqual(['a'.repeat(200_000)]);
  });
});
