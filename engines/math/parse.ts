// From request text to parse trees, without evaluating anything.
//
// 1. Text checks: length, nesting depth, no `#` comments.
// 2. `**` is exponentiation like `^` (rewritten before mathjs sees it).
// 3. The equation marker: exactly one top-level `=` (or `==`, treated the same) splits the text
//    into two sides. `<=`, `>=` and `!=` are comparisons, never markers (mathjs reads `3!=6` as
//    "3 unequal 6"; write `3! = 6`). Markers inside parentheses, brackets, braces or quotes are
//    not top-level: they stay in the side's text and the guards reject the assignment there.
// 4. Each side is parsed with the real mathjs parser.
import { GuardError } from './errors.js';
import { MATH_LIMITS } from './limits.js';
import { parseMath, type AstNode } from './mathjs-instance.js';

export interface ParsedInput {
  /** The normalized text (`**` → `^`, trimmed). */
  normalized: string;
  kind: 'expression' | 'equation';
  /** One side for an expression, two for an equation. */
  sides: Array<{ text: string; node: AstNode }>;
}

/** Rewrites `**` to `^` outside string literals. */
export function normalizePower(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    if (ch === '*' && text[i + 1] === '*') {
      out += '^';
      i++;
      continue;
    }
    out += ch;
  }
  return out;
}

/** Text-level checks that protect the parser itself. */
export function checkText(text: string): void {
  if (text.length > MATH_LIMITS.maxExpressionLength) {
    throw new GuardError(
      'expression_too_long',
      `The expression has ${text.length} characters; at most ${MATH_LIMITS.maxExpressionLength} are accepted.`,
    );
  }
  if (text.trim() === '') throw new GuardError('parse_error', 'The expression is empty.');
  let depth = 0;
  let maxDepth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#') throw new GuardError('comment_not_allowed', 'Comments (#) are not allowed in expressions.');
    else if (ch === '(' || ch === '[' || ch === '{') maxDepth = Math.max(maxDepth, ++depth);
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
  }
  if (maxDepth > MATH_LIMITS.maxNestingDepth) {
    throw new GuardError(
      'nesting_too_deep',
      `Parentheses are nested ${maxDepth} deep; at most ${MATH_LIMITS.maxNestingDepth} levels are accepted.`,
    );
  }
}

/** Positions and lengths of top-level equation markers (`=` or `==`). */
export function findEquationMarkers(text: string): Array<{ index: number; length: number }> {
  const markers: Array<{ index: number; length: number }> = [];
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === '=' && depth === 0) {
      const prev = text[i - 1];
      if (prev === '<' || prev === '>' || prev === '!') continue;
      const length = text[i + 1] === '=' ? 2 : 1;
      markers.push({ index: i, length });
      i += length - 1;
    }
  }
  return markers;
}

function parseSide(text: string, which: string): AstNode {
  if (text.trim() === '') throw new GuardError('parse_error', `The ${which} is empty.`);
  try {
    return parseMath(text);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new GuardError('nesting_too_deep', 'The expression is nested too deeply to parse.');
    }
    const detail = err instanceof Error ? err.message.slice(0, 200) : 'unknown error';
    throw new GuardError('parse_error', `The ${which} could not be parsed: ${detail}`);
  }
}

export function parseInput(expression: string): ParsedInput {
  checkText(expression);
  const normalized = normalizePower(expression).trim();
  const markers = findEquationMarkers(normalized);
  if (markers.length > 1) {
    throw new GuardError(
      'chained_equation',
      'Only one top-level "=" is allowed (chained equations and assignments are not supported).',
    );
  }
  if (markers.length === 0) {
    return { normalized, kind: 'expression', sides: [{ text: normalized, node: parseSide(normalized, 'expression') }] };
  }
  const { index, length } = markers[0] as { index: number; length: number };
  const left = normalized.slice(0, index).trim();
  const right = normalized.slice(index + length).trim();
  return {
    normalized,
    kind: 'equation',
    sides: [
      { text: left, node: parseSide(left, 'left side') },
      { text: right, node: parseSide(right, 'right side') },
    ],
  };
}
