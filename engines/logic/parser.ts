// Hand-written lexer and recursive-descent parser for the logic DSL (no eval, no regex
// backtracking on untrusted input beyond fixed, linear token patterns).
//
// It produces a raw tree: atoms and parenthesized lists. Both surface syntaxes map to the
// same List shape, `items[0]` being the head:
//   (GT x 5)   -> List[Atom GT, Atom x, Atom 5]      (S-expression; items separated by whitespace)
//   GT(x, 5)   -> List[Atom GT, Atom x, Atom 5]      (call form; identifier immediately followed by
//                                                    '(' and comma-separated arguments)
// An operator name or VAR followed by whitespace and '(' is also a call (`AND (p, q)`), except
// at the head of an S-expression: a bare operator name is never a valid atom, so this reading
// cannot change the meaning of a valid query.
// Operators, arity and sorts are checked later (ast-builder.ts, typecheck.ts).

import { LogicBlockedError, LogicSyntaxError, excerpt } from './errors.js';
import { LOGIC_LIMITS } from './limits.js';
import { DECLARATION_KEYWORD, lookupOperator } from './operators.js';
import { Rational } from './rational.js';

export type RawNode = RawAtom | RawList;

export type RawAtom =
  | { kind: 'ident'; name: string; pos: number }
  | { kind: 'number'; value: Rational; isDecimal: boolean; text: string; pos: number }
  | { kind: 'bool'; value: boolean; pos: number };

export interface RawList {
  kind: 'list';
  items: RawNode[];
  style: 'sexpr' | 'call';
  /** Position of the '(' (S-expression) or of the head identifier (call form). */
  pos: number;
}

type Token =
  | { t: '('; pos: number }
  | { t: ')'; pos: number }
  | { t: ','; pos: number }
  | { t: 'word'; text: string; pos: number };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isDelimiter(c: string): boolean {
  return isSpace(c) || c === '(' || c === ')' || c === ',' || c === '"' || c === "'";
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (isSpace(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: c, pos: i });
      i++;
    } else if (c === '"' || c === "'") {
      throw new LogicBlockedError('string_literal', `string literals are not allowed (position ${i})`, i);
    } else {
      const start = i;
      while (i < src.length && !isDelimiter(src[i])) i++;
      tokens.push({ t: 'word', text: src.slice(start, i), pos: start });
    }
  }
  return tokens;
}

function classifyWord(text: string, pos: number): RawAtom {
  if (NUMBER.test(text)) {
    if (text.length > LOGIC_LIMITS.maxNumberLength) {
      throw new LogicBlockedError(
        'number_too_long',
        `numeric literal longer than ${LOGIC_LIMITS.maxNumberLength} characters at position ${pos}`,
        pos,
      );
    }
    return { kind: 'number', value: Rational.parse(text), isDecimal: text.includes('.'), text, pos };
  }
  if (IDENT.test(text)) {
    if (text.length > LOGIC_LIMITS.maxIdentifierLength) {
      throw new LogicBlockedError(
        'identifier_too_long',
        `identifier longer than ${LOGIC_LIMITS.maxIdentifierLength} characters at position ${pos}`,
        pos,
      );
    }
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === 'false') return { kind: 'bool', value: lower === 'true', pos };
    return { kind: 'ident', name: text, pos };
  }
  if (/^[-+.0-9]/.test(text)) {
    throw new LogicBlockedError('invalid_number', `malformed numeric literal ${excerpt(text)} at position ${pos}`, pos);
  }
  throw new LogicBlockedError(
    'invalid_identifier',
    `invalid identifier ${excerpt(text)} at position ${pos} (identifiers match [A-Za-z_][A-Za-z0-9_]*)`,
    pos,
  );
}

class Parser {
  private i = 0;
  private nodes = 0;
  constructor(
    private readonly src: string,
    private readonly tokens: Token[],
  ) {}

  parseQuery(): RawNode[] {
    const forms: RawNode[] = [];
    while (this.i < this.tokens.length) forms.push(this.parseExpr(0, false));
    if (forms.length === 0) throw new LogicSyntaxError('empty query (position 0)', 0);
    return forms;
  }

  private countNode(pos: number): void {
    if (++this.nodes > LOGIC_LIMITS.maxNodes) {
      throw new LogicBlockedError('too_many_nodes', `query has more than ${LOGIC_LIMITS.maxNodes} nodes`, pos);
    }
  }

  private enter(depth: number, pos: number): void {
    if (depth > LOGIC_LIMITS.maxDepth) {
      throw new LogicBlockedError(
        'nesting_too_deep',
        `nesting deeper than ${LOGIC_LIMITS.maxDepth} levels at position ${pos}`,
        pos,
      );
    }
  }

  private endError(expected: string): LogicSyntaxError {
    return new LogicSyntaxError(
      `unexpected end of input at position ${this.src.length}: expected ${expected}`,
      this.src.length,
    );
  }

  /** `depth`: lists enclosing this expression; `isHead`: first item of an S-expression. */
  private parseExpr(depth: number, isHead: boolean): RawNode {
    const tok = this.tokens[this.i];
    if (tok === undefined) throw this.endError('an expression');
    if (tok.t === ')' || tok.t === ',') {
      throw new LogicSyntaxError(`unexpected '${tok.t}' at position ${tok.pos}`, tok.pos);
    }
    this.countNode(tok.pos);
    if (tok.t === '(') return this.parseSexpr(depth + 1);
    this.i++;
    const next = this.tokens[this.i];
    if (
      next !== undefined &&
      next.t === '(' &&
      (next.pos === tok.pos + tok.text.length || (!isHead && isOperatorWord(tok.text)))
    ) {
      return this.parseCall(tok, depth + 1);
    }
    return classifyWord(tok.text, tok.pos);
  }

  private parseSexpr(depth: number): RawList {
    const open = this.tokens[this.i++];
    this.enter(depth, open.pos);
    const items: RawNode[] = [];
    for (;;) {
      const tok = this.tokens[this.i];
      if (tok === undefined) throw this.endError(`')' to close '(' at position ${open.pos}`);
      if (tok.t === ')') {
        this.i++;
        break;
      }
      if (tok.t === ',') {
        throw new LogicSyntaxError(
          `unexpected ',' at position ${tok.pos} (S-expression items are separated by whitespace)`,
          tok.pos,
        );
      }
      items.push(this.parseExpr(depth, items.length === 0));
    }
    if (items.length === 0) throw new LogicSyntaxError(`empty list '()' at position ${open.pos}`, open.pos);
    return { kind: 'list', items, style: 'sexpr', pos: open.pos };
  }

  private parseCall(head: Token & { t: 'word' }, depth: number): RawList {
    this.enter(depth, head.pos);
    this.countNode(head.pos); // the head atom, so both syntaxes count the same nodes
    const headAtom = classifyWord(head.text, head.pos);
    const open = this.tokens[this.i++];
    const items: RawNode[] = [headAtom];
    const first = this.tokens[this.i];
    if (first !== undefined && first.t === ')') {
      this.i++;
      return { kind: 'list', items, style: 'call', pos: head.pos };
    }
    for (;;) {
      items.push(this.parseExpr(depth, false));
      const sep = this.tokens[this.i];
      if (sep === undefined) throw this.endError(`',' or ')' to close '(' at position ${open.pos}`);
      this.i++;
      if (sep.t === ')') break;
      if (sep.t !== ',') {
        throw new LogicSyntaxError(
          `expected ',' or ')' at position ${sep.pos} (call-form arguments are comma-separated)`,
          sep.pos,
        );
      }
    }
    return { kind: 'list', items, style: 'call', pos: head.pos };
  }
}

function isOperatorWord(text: string): boolean {
  return lookupOperator(text) !== null || text.toUpperCase() === DECLARATION_KEYWORD;
}

/** Lexes and parses a query into its top-level forms. Throws LogicBlockedError / LogicSyntaxError. */
export function parseRaw(src: string): RawNode[] {
  if (src.length > LOGIC_LIMITS.maxQueryLength) {
    throw new LogicBlockedError('input_too_long', `query longer than ${LOGIC_LIMITS.maxQueryLength} characters`, null);
  }
  return new Parser(src, tokenize(src)).parseQuery();
}
