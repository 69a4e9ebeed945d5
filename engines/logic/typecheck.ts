// Sort inference. Rules (see docs/logic-dsl.md):
//  - VAR declarations are collected first (order-independent); redeclaring with another sort
//    is an error, repeating the same declaration is allowed.
//  - Undeclared free variables are Int. Bool variables must be declared.
//  - Int and Real mix freely in arithmetic/comparisons: the operation becomes Real and Int
//    operands are coerced explicitly (to_real), so Z3 and the evaluator see the same terms.
//  - Bool never mixes with numbers. Sort errors are LogicTypeError (HTTP 400).

import type { Binder, Declaration, Expr, FreeVariable, QueryAst, TExpr, TypedQuery } from './ast.js';
import { LogicTypeError, excerpt } from './errors.js';
import type { SortName } from './operators.js';

type NumSort = 'Int' | 'Real';

class Checker {
  private readonly declared = new Map<string, SortName>();
  private readonly defaulted = new Set<string>();
  private readonly scopes: Map<string, SortName>[] = [];
  private quantifiers = false;

  constructor(declarations: Declaration[]) {
    for (const d of declarations) {
      const prev = this.declared.get(d.name);
      if (prev !== undefined && prev !== d.sort) {
        throw new LogicTypeError(
          `variable ${excerpt(d.name)} declared as both ${prev} and ${d.sort} (position ${d.pos})`,
          d.pos,
        );
      }
      this.declared.set(d.name, d.sort);
    }
  }

  run(constraints: Expr[]): TypedQuery {
    const typed = constraints.map((c) => {
      const t = this.check(c);
      if (t.sort !== 'Bool') {
        throw new LogicTypeError(`top-level constraint at position ${c.pos} is ${t.sort}, expected Bool`, c.pos);
      }
      return t;
    });
    const variables: FreeVariable[] = [];
    for (const [name, sort] of this.declared) variables.push({ name, sort, declared: true });
    for (const name of this.defaulted) variables.push({ name, sort: 'Int', declared: false });
    variables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { variables, constraints: typed, hasQuantifiers: this.quantifiers };
  }

  private lookup(name: string): { sort: SortName; bound: boolean } {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i].get(name);
      if (s !== undefined) return { sort: s, bound: true };
    }
    const d = this.declared.get(name);
    if (d !== undefined) return { sort: d, bound: false };
    this.defaulted.add(name);
    return { sort: 'Int', bound: false };
  }

  private check(e: Expr): TExpr {
    switch (e.kind) {
      case 'num':
        return { kind: 'num', sort: e.isDecimal ? 'Real' : 'Int', value: e.value };
      case 'bool':
        return { kind: 'bool', sort: 'Bool', value: e.value };
      case 'var': {
        const { sort, bound } = this.lookup(e.name);
        return { kind: 'var', sort, name: e.name, bound };
      }
      case 'pow': {
        const base = this.numeric(this.check(e.base), e.base.pos, 'POW');
        return { kind: 'pow', sort: base.sort as NumSort, base, exponent: e.exponent };
      }
      case 'quant':
        return this.quantifier(e.q, e.binders, e.body);
      case 'app':
        return this.app(e);
    }
  }

  private quantifier(q: 'FORALL' | 'EXISTS', binders: Binder[], body: Expr): TExpr {
    this.quantifiers = true;
    this.scopes.push(new Map(binders.map((b) => [b.name, b.sort])));
    try {
      const tb = this.bool(this.check(body), body.pos, q);
      return { kind: 'quant', sort: 'Bool', q, binders, body: tb };
    } finally {
      this.scopes.pop();
    }
  }

  private app(e: Expr & { kind: 'app' }): TExpr {
    const args = e.args.map((a) => this.check(a));
    const at = (i: number) => e.args[i].pos;
    switch (e.op) {
      case 'AND':
      case 'OR':
      case 'NOT':
      case 'IMPLIES':
      case 'IFF':
      case 'XOR':
        return { kind: 'app', sort: 'Bool', op: e.op, args: args.map((a, i) => this.bool(a, at(i), e.op)) };
      case 'EQ':
      case 'NEQ':
      case 'DISTINCT': {
        if (args.every((a) => a.sort === 'Bool')) return { kind: 'app', sort: 'Bool', op: e.op, args };
        return {
          kind: 'app',
          sort: 'Bool',
          op: e.op,
          args: this.unify(args, e, 'operands of the same sort (all Bool or all numeric)'),
        };
      }
      case 'GT':
      case 'LT':
      case 'GTE':
      case 'LTE':
        return { kind: 'app', sort: 'Bool', op: e.op, args: this.unify(args, e, 'numeric operands') };
      case 'PLUS':
      case 'MINUS':
      case 'MULT':
      case 'DIV': {
        const u = this.unify(args, e, 'numeric operands');
        return { kind: 'app', sort: u[0].sort, op: e.op, args: u };
      }
      case 'MOD':
        args.forEach((a, i) => {
          if (a.sort !== 'Int')
            throw new LogicTypeError(`MOD requires Int operands; operand at position ${at(i)} is ${a.sort}`, at(i));
        });
        return { kind: 'app', sort: 'Int', op: 'MOD', args };
      case 'ITE': {
        const cond = this.bool(args[0], at(0), 'ITE condition');
        const branches = args.slice(1);
        if (branches.every((a) => a.sort === 'Bool'))
          return { kind: 'app', sort: 'Bool', op: 'ITE', args: [cond, ...branches] };
        const u = this.unify(branches, { ...e, args: e.args.slice(1) }, 'branches of the same sort');
        return { kind: 'app', sort: u[0].sort, op: 'ITE', args: [cond, ...u] };
      }
    }
  }

  private bool(t: TExpr, pos: number, where: string): TExpr {
    if (t.sort !== 'Bool') {
      const hint =
        t.kind === 'var' && !t.bound && !this.declared.has(t.name)
          ? ` (undeclared variables are Int; declare it with (VAR ${t.name} Bool))`
          : '';
      throw new LogicTypeError(`${where} expects Bool, got ${t.sort} at position ${pos}${hint}`, pos);
    }
    return t;
  }

  private numeric(t: TExpr, pos: number, where: string): TExpr {
    if (t.sort === 'Bool') throw new LogicTypeError(`${where} expects a number, got Bool at position ${pos}`, pos);
    return t;
  }

  /** All numeric; if any is Real, coerce the Int ones to Real. */
  private unify(args: TExpr[], e: Expr & { kind: 'app' }, expected: string): TExpr[] {
    args.forEach((a, i) => {
      if (a.sort === 'Bool')
        throw new LogicTypeError(
          `${e.op} expects ${expected}; operand at position ${e.args[i].pos} is Bool`,
          e.args[i].pos,
        );
    });
    if (!args.some((a) => a.sort === 'Real')) return args;
    return args.map(toReal);
  }
}

export function toReal(t: TExpr): TExpr {
  if (t.sort === 'Real') return t;
  if (t.kind === 'num') return { kind: 'num', sort: 'Real', value: t.value };
  return { kind: 'to_real', sort: 'Real', arg: t };
}

export function typecheck(ast: QueryAst): TypedQuery {
  return new Checker(ast.declarations).run(ast.constraints);
}
