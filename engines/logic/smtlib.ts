// Emits the normalized SMT-LIB2 text that Z3 solves and that is stored as the proof
// artifact. Variables are renamed with a fixed prefix (x -> v_x): SMT-LIB/Z3 builtins
// (and, pi, abs, div, ...) cannot then collide with user names, and the mapping is injective.

import type { TExpr, TypedQuery } from './ast.js';
import type { Rational } from './rational.js';

export const SMT_SYMBOL_PREFIX = 'v_';

export function smtSymbol(name: string): string {
  return SMT_SYMBOL_PREFIX + name;
}

function intLiteral(v: bigint): string {
  return v < 0n ? `(- ${-v})` : `${v}`;
}

function realLiteral(v: Rational): string {
  const neg = v.num < 0n;
  const mag = neg ? -v.num : v.num;
  const body = v.den === 1n ? `${mag}.0` : `(/ ${mag}.0 ${v.den}.0)`;
  return neg ? `(- ${body})` : body;
}

const SMT_OPS: Record<string, string> = {
  AND: 'and',
  OR: 'or',
  NOT: 'not',
  IMPLIES: '=>',
  IFF: '=',
  XOR: 'xor',
  EQ: '=',
  DISTINCT: 'distinct',
  GT: '>',
  LT: '<',
  GTE: '>=',
  LTE: '<=',
  PLUS: '+',
  MINUS: '-',
  MULT: '*',
  MOD: 'mod',
  ITE: 'ite',
};

class Emitter {
  /** Counter for let-bound names of POW bases; `!` never occurs in user symbols. */
  private lets = 0;

  expr(t: TExpr): string {
    switch (t.kind) {
      case 'num':
        return t.sort === 'Int' ? intLiteral(t.value.num) : realLiteral(t.value);
      case 'bool':
        return t.value ? 'true' : 'false';
      case 'var':
        return smtSymbol(t.name);
      case 'to_real':
        return `(to_real ${this.expr(t.arg)})`;
      case 'quant': {
        const binders = t.binders.map((b) => `(${smtSymbol(b.name)} ${b.sort})`).join(' ');
        return `(${t.q === 'FORALL' ? 'forall' : 'exists'} (${binders}) ${this.expr(t.body)})`;
      }
      case 'pow':
        return this.pow(t.base, t.exponent, t.sort);
      case 'app': {
        const args = t.args.map((a) => this.expr(a));
        if (t.op === 'NEQ') return `(not (= ${args.join(' ')}))`;
        if (t.op === 'DIV') return `(${t.sort === 'Int' ? 'div' : '/'} ${args.join(' ')})`;
        return `(${SMT_OPS[t.op]} ${args.join(' ')})`;
      }
    }
  }

  /** POW with a literal exponent is expanded to multiplication, so its semantics are exact (x^0 = 1). */
  private pow(base: TExpr, n: number, sort: 'Int' | 'Real'): string {
    if (n === 0) return sort === 'Int' ? '1' : '1.0';
    const b = this.expr(base);
    if (n === 1) return b;
    if (base.kind === 'var' || base.kind === 'num') return `(* ${Array(n).fill(b).join(' ')})`;
    const name = `p!${this.lets++}`;
    return `(let ((${name} ${b})) (* ${Array(n).fill(name).join(' ')}))`;
  }
}

/** One declare-const per free variable (sorted by name), then one assert per constraint. */
export function emitSmtLib(q: TypedQuery): string {
  const e = new Emitter();
  const lines = q.variables.map((v) => `(declare-const ${smtSymbol(v.name)} ${v.sort})`);
  for (const c of q.constraints) lines.push(`(assert ${e.expr(c)})`);
  return lines.join('\n') + '\n';
}

/**
 * The same declarations with one assert per named conjunct (top-level ANDs flattened), in
 * conjunct order. The worker tracks each assert to extract an unsat core; the solve that
 * decides SAT/UNSAT still uses emitSmtLib's text.
 */
export function emitConjunctSmtLib(q: TypedQuery, conjuncts: TExpr[]): string {
  const e = new Emitter();
  const lines = q.variables.map((v) => `(declare-const ${smtSymbol(v.name)} ${v.sort})`);
  for (const c of conjuncts) lines.push(`(assert ${e.expr(c)})`);
  return lines.join('\n') + '\n';
}
