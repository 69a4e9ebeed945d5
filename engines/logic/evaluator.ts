// The independent evaluator: checks a Z3 model against the typed constraints with exact
// BigInt rationals, without Z3. Three-valued (Kleene) logic:
//   - a definite value (Rational or boolean);
//   - UNKNOWN_QUANTIFIER: a FORALL/EXISTS over Int/Real (cannot be enumerated). SAT is then
//     reported with independent_check.coverage = "quantifier_free_parts";
//   - UNKNOWN_UNDEFINED: a value SMT-LIB leaves unspecified (division/modulus by zero) or a
//     value too large to check. The caller fails closed (ERROR) if a constraint ends here.
// AND/OR/IMPLIES/ITE/DISTINCT short-circuit on definite values, so an unknown part that
// cannot change the result does not block the check.

import type { TExpr } from './ast.js';
import { Rational, euclideanDivMod } from './rational.js';

export type Unknown = { unknown: 'quantifier' | 'undefined' };
export type Value = Rational | boolean | Unknown;
export type ModelValue = Rational | boolean;

export const UNKNOWN_QUANTIFIER: Unknown = Object.freeze({ unknown: 'quantifier' });
export const UNKNOWN_UNDEFINED: Unknown = Object.freeze({ unknown: 'undefined' });

export const EVALUATOR_LIMITS = Object.freeze({
  /** Values with a numerator/denominator above this many bits are not checked (fail closed). */
  maxValueBits: 1_000_000,
  /** Node evaluations spent enumerating Bool-quantifiers before they count as unknown. */
  maxSteps: 2_000_000,
  /** Bool binders a single FORALL/EXISTS may enumerate (2^n assignments). */
  maxEnumeratedBinders: 12,
});

const BIT_LIMIT = 1n << BigInt(EVALUATOR_LIMITS.maxValueBits);

function isUnknown(v: Value): v is Unknown {
  return typeof v === 'object' && v !== null && 'unknown' in v;
}

/** Undefined dominates quantifier-unknown: it means the check cannot succeed at all. */
function merge(a: Unknown, b: Unknown): Unknown {
  return a.unknown === 'undefined' || b.unknown === 'undefined' ? UNKNOWN_UNDEFINED : UNKNOWN_QUANTIFIER;
}

function firstUnknown(vs: Value[]): Unknown | null {
  let u: Unknown | null = null;
  for (const v of vs) if (isUnknown(v)) u = u === null ? v : merge(u, v);
  return u;
}

function bounded(r: Rational): Value {
  const n = r.num < 0n ? -r.num : r.num;
  return n >= BIT_LIMIT || r.den >= BIT_LIMIT ? UNKNOWN_UNDEFINED : r;
}

function valuesEqual(a: Rational | boolean, b: Rational | boolean): boolean {
  return typeof a === 'boolean' || typeof b === 'boolean' ? a === b : a.equals(b);
}

function powRational(b: Rational, n: number): Value {
  let result = Rational.ONE;
  let base = b;
  let e = n;
  while (e > 0) {
    if (e & 1) {
      const r = bounded(result.mul(base));
      if (isUnknown(r)) return r;
      result = r as Rational;
    }
    e >>= 1;
    if (e > 0) {
      const sq = bounded(base.mul(base));
      if (isUnknown(sq)) return sq;
      base = sq as Rational;
    }
  }
  return result;
}

export class Evaluator {
  private steps = 0;
  private readonly scopes: Map<string, ModelValue>[] = [];

  constructor(private readonly model: ReadonlyMap<string, ModelValue>) {}

  evaluate(t: TExpr): Value {
    this.steps++;
    switch (t.kind) {
      case 'num':
        return t.value;
      case 'bool':
        return t.value;
      case 'var':
        return this.lookup(t.name, t.bound);
      case 'to_real':
        return this.evaluate(t.arg);
      case 'pow': {
        const b = this.evaluate(t.base);
        return isUnknown(b) ? b : powRational(b as Rational, t.exponent);
      }
      case 'quant':
        return this.quantifier(t);
      case 'app':
        return this.app(t);
    }
  }

  private lookup(name: string, bound: boolean): ModelValue {
    if (bound) {
      for (let i = this.scopes.length - 1; i >= 0; i--) {
        const v = this.scopes[i].get(name);
        if (v !== undefined) return v;
      }
    }
    const v = this.model.get(name);
    // Never guess a value: a missing model entry is a bug upstream, not a default.
    if (v === undefined) throw new Error(`evaluator: no value for variable ${name}`);
    return v;
  }

  private quantifier(t: TExpr & { kind: 'quant' }): Value {
    const n = t.binders.length;
    if (t.binders.some((b) => b.sort !== 'Bool') || n > EVALUATOR_LIMITS.maxEnumeratedBinders)
      return UNKNOWN_QUANTIFIER;
    if (this.steps + 2 ** n * countNodes(t.body) > EVALUATOR_LIMITS.maxSteps) return UNKNOWN_QUANTIFIER;
    const forall = t.q === 'FORALL';
    let unknown: Unknown | null = null;
    for (let mask = 0; mask < 2 ** n; mask++) {
      this.scopes.push(new Map(t.binders.map((b, i) => [b.name, ((mask >> i) & 1) === 1])));
      let v: Value;
      try {
        v = this.evaluate(t.body);
      } finally {
        this.scopes.pop();
      }
      if (isUnknown(v)) unknown = unknown === null ? v : merge(unknown, v);
      else if (v === !forall) return !forall; // counterexample (FORALL) or witness (EXISTS)
    }
    return unknown ?? forall;
  }

  private app(t: TExpr & { kind: 'app' }): Value {
    switch (t.op) {
      case 'AND':
      case 'OR': {
        const decisive = t.op === 'OR';
        let unknown: Unknown | null = null;
        for (const a of t.args) {
          const v = this.evaluate(a);
          if (isUnknown(v)) unknown = unknown === null ? v : merge(unknown, v);
          else if (v === decisive) return decisive;
        }
        return unknown ?? !decisive;
      }
      case 'NOT': {
        const v = this.evaluate(t.args[0]);
        return isUnknown(v) ? v : !v;
      }
      case 'IMPLIES': {
        const a = this.evaluate(t.args[0]);
        if (a === false) return true;
        const b = this.evaluate(t.args[1]);
        if (b === true) return true;
        if (a === true && b === false) return false;
        return firstUnknown([a, b]) as Unknown;
      }
      case 'ITE': {
        const c = this.evaluate(t.args[0]);
        if (c === true) return this.evaluate(t.args[1]);
        if (c === false) return this.evaluate(t.args[2]);
        const x = this.evaluate(t.args[1]);
        const y = this.evaluate(t.args[2]);
        if (!isUnknown(x) && !isUnknown(y) && valuesEqual(x, y)) return x;
        return firstUnknown([c, x, y]) as Unknown;
      }
      case 'DISTINCT': {
        const vs = t.args.map((a) => this.evaluate(a));
        const known = vs.filter((v): v is Rational | boolean => !isUnknown(v));
        for (let i = 0; i < known.length; i++) {
          for (let j = i + 1; j < known.length; j++) if (valuesEqual(known[i], known[j])) return false;
        }
        return firstUnknown(vs) ?? true;
      }
      default:
        break;
    }
    const vs = t.args.map((a) => this.evaluate(a));
    const u = firstUnknown(vs);
    if (u !== null) return u;
    return strictOp(t.op, t.sort, vs as (Rational | boolean)[]);
  }
}

/** Operators whose result needs every operand defined. */
function strictOp(op: string, sort: string, vs: (Rational | boolean)[]): Value {
  const r = vs as Rational[];
  switch (op) {
    case 'IFF':
    case 'EQ':
      return valuesEqual(vs[0], vs[1]);
    case 'NEQ':
      return !valuesEqual(vs[0], vs[1]);
    case 'XOR':
      return vs[0] !== vs[1];
    case 'GT':
      return r[0].cmp(r[1]) > 0;
    case 'LT':
      return r[0].cmp(r[1]) < 0;
    case 'GTE':
      return r[0].cmp(r[1]) >= 0;
    case 'LTE':
      return r[0].cmp(r[1]) <= 0;
    case 'PLUS':
      return bounded(r.reduce((a, b) => a.add(b)));
    case 'MINUS':
      return bounded(r.length === 1 ? r[0].neg() : r.reduce((a, b) => a.sub(b)));
    case 'MULT':
      return bounded(r.reduce((a, b) => a.mul(b)));
    case 'DIV':
      if (r[1].isZero()) return UNKNOWN_UNDEFINED; // SMT-LIB: unspecified value
      return sort === 'Int' ? Rational.of(euclideanDivMod(r[0].num, r[1].num).q) : bounded(r[0].div(r[1]));
    case 'MOD':
      if (r[1].isZero()) return UNKNOWN_UNDEFINED;
      return Rational.of(euclideanDivMod(r[0].num, r[1].num).r);
    default:
      throw new Error(`evaluator: unhandled operator ${op}`);
  }
}

function countNodes(t: TExpr): number {
  switch (t.kind) {
    case 'num':
    case 'bool':
    case 'var':
      return 1;
    case 'to_real':
      return 1 + countNodes(t.arg);
    case 'pow':
      return 1 + countNodes(t.base);
    case 'quant':
      return 1 + countNodes(t.body);
    case 'app':
      return t.args.reduce((n, a) => n + countNodes(a), 1);
  }
}

export type ConstraintCheck = 'true' | 'false' | 'unknown_quantifier' | 'unknown_undefined';

/** Evaluates each top-level constraint under the model. */
export function checkModel(constraints: TExpr[], model: ReadonlyMap<string, ModelValue>): ConstraintCheck[] {
  const ev = new Evaluator(model);
  return constraints.map((c) => {
    const v = ev.evaluate(c);
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (isUnknown(v)) return v.unknown === 'quantifier' ? 'unknown_quantifier' : 'unknown_undefined';
    throw new Error('evaluator: top-level constraint is not Boolean');
  });
}
