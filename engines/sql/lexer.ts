// A raw-text SQL lexer. node-sql-parser drops comments and some dialect quirks silently, so
// everything that hides in comments (MySQL executable comments, optimizer hints, comment
// truncation after a string literal) and everything that spans statements is found here,
// on tokens that respect string literals, quoted identifiers and comments as the server would.
import type { LexProfile } from './dialects.js';

export type TokenKind =
  | 'word' // bare identifier or keyword
  | 'quoted_ident' // "x", `x`, [x]
  | 'string' // '…' and dialect variants; value is the decoded content
  | 'number'
  | 'param' // ?, $1, :name
  | 'variable' // @x, @@x
  | 'op'
  | 'punct' // ( ) , ; . [ ] { }
  | 'comment' // line or block comment (value is the body)
  | 'hint' // /*+ … */ optimizer hint (value is the body)
  | 'exec_open' // /*!NNNNN or /*M!NNNNNN (MySQL / MariaDB executable comment start)
  | 'exec_close'; // the */ that ends an executable comment

export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
  /** Identifier name without quotes, decoded string content, or comment body. */
  value: string;
  /** Parenthesis depth before this token. */
  depth: number;
  /** True for tokens inside a MySQL/MariaDB executable comment. */
  inExecutableComment: boolean;
  /** Line comments: how the comment was introduced (`--`, `#`, `//`); block comments: `/*`. */
  marker?: string;
  /** String literals: the prefix letter(s) (N, E, X, B, R, U&) if any. */
  prefix?: string;
}

export interface LexResult {
  tokens: Token[];
  /** The query with comments and executable-comment markers blanked (offsets and newlines kept). */
  analysisText: string;
  executableCommentCount: number;
  maxDepth: number;
}

export class SqlLexError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'SqlLexError';
  }
}

const OPERATORS = [
  '<=>',
  '->>',
  '#>>',
  '!~*',
  '::',
  '||',
  '<=',
  '>=',
  '<>',
  '!=',
  '==',
  '<<',
  '>>',
  '->',
  '#>',
  '&&',
  '~*',
  '!~',
  ':=',
  '@>',
  '<@',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '=',
  '~',
  '!',
  '&',
  '|',
  '^',
  '#',
  '@',
  ':',
  '`',
  '\\',
  '$',
];
const PUNCT = new Set(['(', ')', ',', ';', '.', '[', ']', '{', '}']);

const isWordStart = (c: string) => /[A-Za-z_\u0080-\uFFFF]/.test(c);
const isWordChar = (c: string) => /[A-Za-z0-9_$\u0080-\uFFFF]/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';
// MySQL: "--" opens a comment only when followed by a space or control character (or the end).
const isSpaceOrControl = (c: string | undefined) => c === undefined || c.charCodeAt(0) <= 0x20;

export function lexSql(input: string, profile: LexProfile): LexResult {
  const tokens: Token[] = [];
  const blank: Array<[number, number]> = [];
  let i = 0;
  let depth = 0;
  let maxDepth = 0;
  let execDepth = 0;
  let execCount = 0;
  const n = input.length;

  const push = (kind: TokenKind, start: number, end: number, value: string, extra: Partial<Token> = {}) => {
    tokens.push({
      kind,
      text: input.slice(start, end),
      start,
      end,
      value,
      depth,
      inExecutableComment: execDepth > 0,
      ...extra,
    });
  };

  // Reads a quoted run starting at `i` (on the opening quote); returns [endExclusive, decoded].
  const readQuoted = (open: number, close: string, backslash: boolean, what: string): [number, string] => {
    let j = open + 1;
    let out = '';
    while (j < n) {
      const c = input[j];
      if (backslash && c === '\\' && j + 1 < n) {
        out += decodeBackslash(input[j + 1]);
        j += 2;
        continue;
      }
      if (c === close) {
        if (input[j + 1] === close) {
          out += close;
          j += 2;
          continue;
        }
        return [j + 1, out];
      }
      out += c;
      j++;
    }
    throw new SqlLexError(`unterminated ${what}`, open);
  };

  while (i < n) {
    const c = input[i];
    const next = input[i + 1];

    if (/\s/.test(c)) {
      i++;
      continue;
    }

    // Line comments.
    const dashComment = c === '-' && next === '-' && (!profile.dashCommentNeedsSpace || isSpaceOrControl(input[i + 2]));
    const hashComment = c === '#' && profile.hashComment;
    const slashComment = c === '/' && next === '/' && profile.slashSlashComment;
    if (dashComment || hashComment || slashComment) {
      const markerLen = hashComment ? 1 : 2;
      let j = i + markerLen;
      while (j < n && input[j] !== '\n') j++;
      push('comment', i, j, input.slice(i + markerLen, j), { marker: input.slice(i, i + markerLen) });
      blank.push([i, j]);
      i = j;
      continue;
    }

    // End of an executable comment.
    if (execDepth > 0 && c === '*' && next === '/') {
      push('exec_close', i, i + 2, '');
      blank.push([i, i + 2]);
      execDepth--;
      i += 2;
      continue;
    }

    // Block comments, hints and executable comments.
    if (c === '/' && next === '*') {
      const isExec =
        profile.executableComments && (input[i + 2] === '!' || (input[i + 2] === 'M' && input[i + 3] === '!'));
      if (isExec) {
        let j = i + (input[i + 2] === '!' ? 3 : 4);
        let digits = 0;
        while (j < n && isDigit(input[j]) && digits < 6) {
          j++;
          digits++;
        }
        push('exec_open', i, j, input.slice(i, j));
        blank.push([i, j]);
        execDepth++;
        execCount++;
        i = j;
        continue;
      }
      const isHint = input[i + 2] === '+';
      let j = i + 2;
      let level = 1;
      while (j < n && level > 0) {
        if (input[j] === '*' && input[j + 1] === '/') {
          level--;
          j += 2;
          continue;
        }
        if (profile.nestedBlockComments && input[j] === '/' && input[j + 1] === '*') {
          level++;
          j += 2;
          continue;
        }
        j++;
      }
      if (level > 0 && !profile.unterminatedBlockCommentOk) throw new SqlLexError('unterminated block comment', i);
      const bodyEnd = level > 0 ? n : j - 2;
      push(isHint ? 'hint' : 'comment', i, j, input.slice(i + (isHint ? 3 : 2), bodyEnd), { marker: '/*' });
      blank.push([i, j]);
      i = j;
      continue;
    }

    // String literals with a prefix: N'…', E'…', X'…', B'…', R'…', U&'…'.
    const prefixMatch = /^(?:[nNxXbBrR]|[eE]|[uU]&)'/.exec(input.slice(i, i + 3));
    if (prefixMatch && (i === 0 || !isWordChar(input[i - 1]))) {
      const prefix = prefixMatch[0].slice(0, -1).toUpperCase();
      if (prefix !== 'E' || profile.escapeStringPrefix) {
        const quoteAt = i + prefixMatch[0].length - 1;
        const backslash = prefix === 'E' || (profile.backslashEscapes && prefix !== 'R');
        const [end, value] = readQuoted(quoteAt, "'", backslash, 'string literal');
        push('string', i, end, value, { prefix });
        i = end;
        continue;
      }
    }

    if (profile.tripleQuotes && (input.startsWith("'''", i) || input.startsWith('"""', i))) {
      const q = input.slice(i, i + 3);
      const end = input.indexOf(q, i + 3);
      if (end < 0) throw new SqlLexError('unterminated string literal', i);
      push('string', i, end + 3, input.slice(i + 3, end));
      i = end + 3;
      continue;
    }

    if (c === "'") {
      const [end, value] = readQuoted(i, "'", profile.backslashEscapes, 'string literal');
      push('string', i, end, value);
      i = end;
      continue;
    }
    if (c === '"') {
      if (profile.doubleQuoteString) {
        const [end, value] = readQuoted(i, '"', profile.backslashEscapes, 'string literal');
        push('string', i, end, value);
        i = end;
      } else {
        const [end, value] = readQuoted(i, '"', false, 'quoted identifier');
        push('quoted_ident', i, end, value);
        i = end;
      }
      continue;
    }
    if (c === '`' && profile.backtickIdent) {
      const [end, value] = readQuoted(i, '`', false, 'quoted identifier');
      push('quoted_ident', i, end, value);
      i = end;
      continue;
    }
    if (c === '[' && profile.bracketIdent) {
      const [end, value] = readQuoted(i, ']', false, 'quoted identifier');
      push('quoted_ident', i, end, value);
      i = end;
      continue;
    }

    if (c === '$') {
      if (profile.dollarQuotes) {
        const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(input.slice(i, i + 66));
        if (tag) {
          const end = input.indexOf(tag[0], i + tag[0].length);
          if (end < 0) throw new SqlLexError('unterminated dollar-quoted string', i);
          push('string', i, end + tag[0].length, input.slice(i + tag[0].length, end), { prefix: '$' });
          i = end + tag[0].length;
          continue;
        }
      }
      const num = /^\$\d+/.exec(input.slice(i, i + 12));
      if (num) {
        push('param', i, i + num[0].length, num[0]);
        i += num[0].length;
        continue;
      }
    }

    if (isDigit(c) || (c === '.' && isDigit(next ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|0[bB][01]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(input.slice(i, i + 400));
      const len = m ? m[0].length : 1;
      push('number', i, i + len, input.slice(i, i + len));
      i += len;
      continue;
    }

    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordChar(input[j])) j++;
      push('word', i, j, input.slice(i, j));
      i = j;
      continue;
    }

    if (c === '?') {
      push('param', i, i + 1, '?');
      i++;
      continue;
    }
    if (c === ':' && next !== ':' && next !== '=' && isWordStart(next ?? '') && input[i - 1] !== ':') {
      let j = i + 2;
      while (j < n && isWordChar(input[j])) j++;
      push('param', i, j, input.slice(i, j));
      i = j;
      continue;
    }
    if (c === '@' && (isWordStart(next ?? '') || (next === '@' && isWordStart(input[i + 2] ?? '')))) {
      let j = i + (next === '@' ? 2 : 1);
      while (j < n && (isWordChar(input[j]) || input[j] === '.')) j++;
      push('variable', i, j, input.slice(i, j));
      i = j;
      continue;
    }

    if (PUNCT.has(c)) {
      if (c === ')') depth = Math.max(0, depth - 1);
      push('punct', i, i + 1, c);
      if (c === '(') {
        depth++;
        maxDepth = Math.max(maxDepth, depth);
      }
      i++;
      continue;
    }

    const op = OPERATORS.find((o) => input.startsWith(o, i));
    if (op) {
      push('op', i, i + op.length, op);
      i += op.length;
      continue;
    }
    // Any other character is passed through; the parser decides whether it is valid.
    push('op', i, i + 1, c);
    i++;
  }
  if (execDepth > 0) throw new SqlLexError('unterminated executable comment', n);

  const chars = input.split('');
  for (const [s, e] of blank) {
    for (let k = s; k < e; k++) if (chars[k] !== '\n' && chars[k] !== '\r') chars[k] = ' ';
  }
  // node-sql-parser's grammars treat a backslash in a string as an escape in every dialect. Where the
  // dialect does not (SQLite, standard PostgreSQL strings…), the parser would see a different string
  // boundary than the server; replacing those backslashes keeps both views of the query identical.
  for (const t of tokens) {
    if (t.kind !== 'string' || t.prefix === 'E' || t.prefix === '$' || (profile.backslashEscapes && t.prefix !== 'R'))
      continue;
    for (let k = t.start; k < t.end; k++) if (chars[k] === '\\') chars[k] = '/';
  }
  return { tokens, analysisText: chars.join(''), executableCommentCount: execCount, maxDepth };
}

function decodeBackslash(c: string): string {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case '0':
      return '\0';
    case 'b':
      return '\b';
    case 'Z':
      return '\x1a';
    default:
      return c;
  }
}

/** Tokens the server interprets (comments, hints and executable-comment markers removed). */
export function significantTokens(tokens: Token[]): Token[] {
  return tokens.filter(
    (t) => t.kind !== 'comment' && t.kind !== 'hint' && t.kind !== 'exec_open' && t.kind !== 'exec_close',
  );
}

/** Splits significant tokens into statements at top-level semicolons; empty statements are dropped. */
export function splitStatements(tokens: Token[]): Token[][] {
  const out: Token[][] = [];
  let cur: Token[] = [];
  for (const t of tokens) {
    if (t.kind === 'punct' && t.value === ';' && t.depth === 0) {
      if (cur.length > 0) out.push(cur);
      cur = [];
      continue;
    }
    cur.push(t);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

export const isWord = (t: Token | undefined, ...words: string[]): boolean =>
  t !== undefined && t.kind === 'word' && words.includes(t.value.toUpperCase());

/** The identifier name of a word or quoted identifier token, else null. */
export const identName = (t: Token | undefined): string | null =>
  t && (t.kind === 'word' || t.kind === 'quoted_ident') ? t.value : null;

/**
 * The comma-separated items of the parenthesised list that opens at `st[open]` (commas at the
 * list's own depth only: nested lists stay inside their item), or null when it never closes.
 */
export function parenthesisedItems(st: readonly Token[], open: number): Token[][] | null {
  const depth = st[open].depth;
  const items: Token[][] = [];
  let cur: Token[] = [];
  for (let i = open + 1; i < st.length; i++) {
    const t = st[i];
    if (t.kind === 'punct' && t.value === ')' && t.depth === depth) {
      items.push(cur);
      return items;
    }
    if (t.kind === 'punct' && t.value === ',' && t.depth === depth + 1) {
      items.push(cur);
      cur = [];
      continue;
    }
    cur.push(t);
  }
  return null;
}
