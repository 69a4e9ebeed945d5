// Canonical DSL text of a typed query (S-expression form, upper-case operators, every free
// variable declared). Re-parsing it yields the same typed query; it is what the proof
// records as the statement actually evaluated.

import type { TExpr, TypedQuery } from './ast.js';

function num(t: TExpr & { kind: 'num' }): string {
  if (t.sort === 'Int') return t.value.num.toString();
  return t.value.toDecimalString() ?? `(DIV ${t.value.num}.0 ${t.value.den}.0)`;
}

/** Canonical DSL text of one typed expression. */
export function printExpr(t: TExpr): string {
  return expr(t);
}

function expr(t: TExpr): string {
  switch (t.kind) {
    case 'num':
      return num(t);
    case 'bool':
      return t.value ? 'true' : 'false';
    case 'var':
      return t.name;
    case 'to_real':
      return expr(t.arg);
    case 'pow':
      return `(POW ${expr(t.base)} ${t.exponent})`;
    case 'quant':
      return `(${t.q} (${t.binders.map((b) => `(${b.name} ${b.sort})`).join(' ')}) ${expr(t.body)})`;
    case 'app':
      return `(${t.op} ${t.args.map(expr).join(' ')})`;
  }
}

export function printNormalized(q: TypedQuery): string {
  return [...q.variables.map((v) => `(VAR ${v.name} ${v.sort})`), ...q.constraints.map(expr)].join(' ');
}
