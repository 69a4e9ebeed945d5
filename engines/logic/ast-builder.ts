// Structural pass over the raw parse tree: operator names, arity, declarations, binder
// lists, POW exponents and the expanded-size bound. Everything that is a security policy
// violation is a LogicBlockedError; malformed structure is a LogicSyntaxError.

import type { Binder, Declaration, Expr, QueryAst } from './ast.js';
import { LogicBlockedError, LogicSyntaxError, LogicTypeError, excerpt } from './errors.js';
import { LOGIC_LIMITS } from './limits.js';
import {
  DECLARATION_KEYWORD,
  OPERATOR_ARITY,
  formatArity,
  isReservedWord,
  lookupOperator,
  lookupSort,
} from './operators.js';
import type { RawList, RawNode } from './parser.js';

class Builder {
  /** Leaves after POW expansion (see LOGIC_LIMITS.maxExpandedLeaves). */
  private expandedLeaves = 0;

  build(forms: RawNode[]): QueryAst {
    const declarations: Declaration[] = [];
    const constraints: Expr[] = [];
    this.declarations = declarations;
    for (const form of forms) {
      const c = this.conjunct(form);
      if (c !== null) constraints.push(c);
    }
    return { declarations, constraints };
  }

  /** Declarations found so far (VAR may stand wherever a conjunct of the query stands). */
  private declarations: Declaration[] = [];

  /**
   * A form in conjunct position: at top level, or an argument of an AND that is itself in
   * conjunct position. A VAR there is a declaration (returns null); an AND keeps its other
   * arguments (null when it held only declarations); anything else is an expression.
   */
  private conjunct(form: RawNode): Expr | null {
    if (isDeclaration(form)) {
      this.declarations.push(this.declaration(form));
      return null;
    }
    const node: RawNode = form as RawNode; // (isDeclaration's guard over-narrows here)
    if (
      node.kind === 'list' &&
      node.items.length >= 2 &&
      node.items[0].kind === 'ident' &&
      lookupOperator(node.items[0].name) === 'AND'
    ) {
      const head = node.items[0];
      const args: Expr[] = [];
      for (const item of node.items.slice(1)) {
        const c = this.conjunct(item);
        if (c !== null) args.push(c);
      }
      if (args.length === 0) return null;
      // (AND (VAR y Int) (LT y 3)) is the constraint (LT y 3).
      if (args.length === 1 && node.items.length > 2) return args[0];
      return { kind: 'app', op: 'AND', args, pos: head.pos };
    }
    return this.expr(form, 1);
  }

  private declaration(form: RawList): Declaration {
    const args = form.items.slice(1);
    if (args.length !== 2) {
      throw new LogicBlockedError(
        'wrong_arity',
        `VAR takes exactly 2 arguments (name, sort), got ${args.length} at position ${form.pos}`,
        form.pos,
      );
    }
    const [nameNode, sortNode] = args;
    const name = this.variableName(nameNode, 'VAR');
    return { name, sort: this.sortName(sortNode), pos: nameNode.pos };
  }

  private variableName(node: RawNode, where: string): string {
    if (node.kind !== 'ident') {
      throw new LogicSyntaxError(`${where}: expected a variable name at position ${node.pos}`, node.pos);
    }
    if (isReservedWord(node.name)) {
      throw new LogicBlockedError(
        'reserved_identifier',
        `${excerpt(node.name)} is a reserved word and cannot name a variable (position ${node.pos})`,
        node.pos,
      );
    }
    return node.name;
  }

  private sortName(node: RawNode) {
    const sort = node.kind === 'ident' ? lookupSort(node.name) : null;
    if (sort === null) {
      throw new LogicTypeError(`unknown sort at position ${node.pos} (expected Int, Real or Bool)`, node.pos);
    }
    return sort;
  }

  private leaf(multiplier: number, pos: number): void {
    this.expandedLeaves += multiplier;
    if (this.expandedLeaves > LOGIC_LIMITS.maxExpandedLeaves) {
      throw new LogicBlockedError(
        'expression_too_complex',
        `expression expands to more than ${LOGIC_LIMITS.maxExpandedLeaves} leaves (POW nesting) at position ${pos}`,
        pos,
      );
    }
  }

  /** `multiplier`: how many times this subtree is repeated after POW expansion. */
  private expr(node: RawNode, multiplier: number): Expr {
    switch (node.kind) {
      case 'number':
        this.leaf(multiplier, node.pos);
        return { kind: 'num', value: node.value, isDecimal: node.isDecimal, pos: node.pos };
      case 'bool':
        this.leaf(multiplier, node.pos);
        return { kind: 'bool', value: node.value, pos: node.pos };
      case 'ident':
        this.leaf(multiplier, node.pos);
        return { kind: 'var', name: this.variableName(node, 'expression'), pos: node.pos };
      case 'list':
        return this.application(node, multiplier);
    }
  }

  private application(node: RawList, multiplier: number): Expr {
    const head = node.items[0];
    if (head.kind !== 'ident') {
      throw new LogicBlockedError(
        'unknown_operator',
        `operator position holds no operator name at position ${head.pos}`,
        head.pos,
      );
    }
    if (head.name.toUpperCase() === DECLARATION_KEYWORD) {
      throw new LogicSyntaxError(
        `VAR declarations are only allowed where a conjunct stands (top level, or inside AND at top level), not inside other operators (position ${head.pos})`,
        head.pos,
      );
    }
    const op = lookupOperator(head.name);
    if (op === null) {
      throw new LogicBlockedError(
        'unknown_operator',
        `unknown operator ${excerpt(head.name)} at position ${head.pos}`,
        head.pos,
      );
    }
    const args = node.items.slice(1);
    const [min, max] = OPERATOR_ARITY[op];
    if (args.length < min || args.length > max) {
      throw new LogicBlockedError(
        'wrong_arity',
        `${op} takes ${formatArity(OPERATOR_ARITY[op])} argument(s), got ${args.length} at position ${head.pos}`,
        head.pos,
      );
    }
    const pos = head.pos;
    if (op === 'FORALL' || op === 'EXISTS') {
      const binders = this.binders(args[0], op);
      return { kind: 'quant', q: op, binders, body: this.expr(args[1], multiplier), pos };
    }
    if (op === 'POW') {
      const exponent = powExponent(args[1]);
      const inner = multiplier * exponent;
      if (inner > LOGIC_LIMITS.maxExpandedLeaves) this.leaf(inner, pos);
      return { kind: 'pow', base: this.expr(args[0], inner), exponent, pos };
    }
    return { kind: 'app', op, args: args.map((a) => this.expr(a, multiplier)), pos };
  }

  /** `((x Int) (y Real))`: a parenthesized list of (name sort) pairs, in either syntax. */
  private binders(node: RawNode, op: string): Binder[] {
    if (node.kind !== 'list' || node.style !== 'sexpr') {
      throw new LogicSyntaxError(
        `${op}: expected a binder list like ((x Int) (y Int)) at position ${node.pos}`,
        node.pos,
      );
    }
    const seen = new Set<string>();
    return node.items.map((b) => {
      if (b.kind !== 'list' || b.style !== 'sexpr' || b.items.length !== 2) {
        throw new LogicSyntaxError(`${op}: each binder is (name sort), at position ${b.pos}`, b.pos);
      }
      const name = this.variableName(b.items[0], op);
      if (seen.has(name))
        throw new LogicTypeError(`${op}: variable ${excerpt(name)} bound twice at position ${b.pos}`, b.pos);
      seen.add(name);
      return { name, sort: this.sortName(b.items[1]), pos: b.items[0].pos };
    });
  }
}

function isDeclaration(form: RawNode): form is RawList {
  if (form.kind !== 'list') return false;
  const head = form.items[0];
  return head.kind === 'ident' && head.name.toUpperCase() === DECLARATION_KEYWORD;
}

/** POW exponents are non-negative integer literals up to maxExponent: keeps POW polynomial and exact. */
function powExponent(node: RawNode): number {
  if (
    node.kind !== 'number' ||
    node.isDecimal ||
    node.value.sign() < 0 ||
    node.value.num > BigInt(LOGIC_LIMITS.maxExponent)
  ) {
    throw new LogicBlockedError(
      'unsupported_exponent',
      `POW exponent must be an integer literal from 0 to ${LOGIC_LIMITS.maxExponent} (position ${node.pos})`,
      node.pos,
    );
  }
  return Number(node.value.num);
}

export function buildAst(forms: RawNode[]): QueryAst {
  return new Builder().build(forms);
}
