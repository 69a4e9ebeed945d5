// Canonical forms, part 1 of 3: polynomials (engines/math/canonical.ts has the overview of the
// rewrite rules). Rational functions num/den over factors with exact rational coefficients:
// the ring laws (expand, collect, cancel), i^2 = -1, root_n(u)^n = u, sin^2 = 1 - cos^2, merged
// exponentials, the size budget (CanonicalLimitError), and rendering.
import { CanonicalLimitError, divisionByZero, GuardError } from './errors.js';
import { Assumptions } from './assumptions.js';
import { MATH_LIMITS } from './limits.js';
import * as R from './rational.js';
import type { Q } from './rational.js';

export type Domain = 'real' | 'complex';

type FactorKind = 'var' | 'pi' | 'i' | 'root' | 'sin' | 'cos' | 'log' | 'gamma' | 'opaque';
export type RootFlavor = 'principal' | 'cbrt' | 'nthRoot';
export interface Factor {
  kind: FactorKind;
  key: string;
  /** Rendered with parentheses before ^ (computed on registration). */
  wrapped?: string;
  /** Variables occurring in the factor (sorted). */
  vars: readonly string[];
  /** root: index n and, when it is a polynomial, the radicand (enables root^n = radicand). */
  index?: number;
  radicand?: Poly | null;
  flavor?: RootFlavor;
  /** sin/cos/log/gamma, and roots: the argument (radicand). */
  arg?: RF;
}

interface Mono {
  key: string;
  /** [factor key, non-zero integer exponent], sorted by key. */
  factors: ReadonlyArray<readonly [string, number]>;
  /** exp(arg) part (exponentials are merged: exp(a)·exp(b) = exp(a+b)). */
  exp: RF | null;
  degree: number;
  /** No exp part and no factor with a reduction rule: products need no normalization. */
  simple: boolean;
}
export interface Term {
  coef: Q;
  mono: Mono;
}
export type Poly = ReadonlyMap<string, Term>;
export interface RF {
  num: Poly;
  den: Poly;
}

const ONE_MONO: Mono = { key: '', factors: [], exp: null, degree: 0, simple: true };
/** Factor kinds with a reduction rule (i^2, root^n, sin^2). */
const REDUCIBLE = new Set<FactorKind>(['i', 'root', 'sin']);
const EMPTY: Poly = new Map();
export const polyOfConst = (c: Q): Poly => (R.isZero(c) ? EMPTY : new Map([['', { coef: c, mono: ONE_MONO }]]));
export const ONE_POLY = polyOfConst(R.ONE);

/** Identifier or call syntax needs no parentheses before ^. */
const ATOMIC_KEY = /^[\p{L}_][\p{L}\p{N}_]*(\(.*\))?$/u;

function compareMono(a: Mono, b: Mono): number {
  if (a.degree !== b.degree) return b.degree - a.degree;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** exp(c·log(u)) = u^c is applied for integers |c| up to this bound. */
const MAX_LOG_POWER = 64;

/**
 * The ring underneath the canonical form: state shared by every rule (rules and conditions used,
 * the registered factors, the work budget, the angle basis, the assumptions), exact arithmetic on
 * rational functions of polynomials over factors, and rendering. The reality check and the
 * recording of an assumption that monomial normalization needs come from the assumption rules
 * (canonical-assumptions.ts).
 */
export abstract class PolynomialForms {
  /** Names of the rewrite rules used (for the proof record). */
  readonly rules = new Set<string>();
  /** Conditions under which the rewrites hold ("divisor != 0"). */
  readonly conditions = new Set<string>();
  protected readonly factors = new Map<string, Factor>();
  protected work = 0;
  /**
   * Angle basis: for each monomial that occurs in a sin/cos/tan argument of the request,
   * the common denominator L of its coefficients, so every angle is an integer combination of
   * the basis angles m/L (set by prepareAngles before the sides are canonicalized).
   */
  protected readonly angleDen = new Map<string, bigint>();

  /** Assumptions a proof relied on ("x positive"). */
  readonly assumptionsUsed = new Set<string>();
  readonly domain: Domain;

  constructor(
    domain: Domain,
    readonly assumptions: Assumptions = new Assumptions(),
  ) {
    this.domain = domain;
  }

  protected abstract commit(uses: Set<string>, rule: string): void;
  protected abstract isRealPoly(p: Poly, uses: Set<string>): boolean;

  constant(c: Q): RF {
    return { num: polyOfConst(c), den: ONE_POLY };
  }

  add(a: RF, b: RF): RF {
    if (this.polyEqual(a.den, b.den)) return this.normalize(this.polyAdd(a.num, b.num), a.den);
    return this.normalize(
      this.polyAdd(this.polyMul(a.num, b.den), this.polyMul(b.num, a.den)),
      this.polyMul(a.den, b.den),
    );
  }

  neg(a: RF): RF {
    return { num: this.polyScale(a.num, R.qInt(-1)), den: a.den };
  }

  sub(a: RF, b: RF): RF {
    return this.add(a, this.neg(b));
  }

  mul(a: RF, b: RF): RF {
    return this.normalize(this.polyMul(a.num, b.num), this.polyMul(a.den, b.den));
  }

  div(a: RF, b: RF): RF {
    if (b.num.size === 0) throw divisionByZero();
    if (this.rationalOf(b) === null) this.conditions.add(`${this.render(b)} != 0`);
    return this.normalize(this.polyMul(a.num, b.den), this.polyMul(a.den, b.num));
  }

  isZero(a: RF): boolean {
    return a.num.size === 0;
  }

  /** The value when `a` is a rational constant. */
  rationalOf(a: RF): Q | null {
    if (a.num.size === 0) return R.ZERO;
    if (a.den !== ONE_POLY && !this.polyEqual(a.den, ONE_POLY)) return null;
    if (a.num.size !== 1) return null;
    const t = a.num.get('');
    return t ? t.coef : null;
  }

  /** re + im·i when `a` is a Gaussian rational constant. */
  gaussianOf(a: RF): { re: Q; im: Q } | null {
    if (!this.polyEqual(a.den, ONE_POLY)) return null;
    let re = R.ZERO;
    let im = R.ZERO;
    for (const t of a.num.values()) {
      if (t.mono.key === '') re = t.coef;
      else if (t.mono.key === 'i') im = t.coef;
      else return null;
    }
    return { re, im };
  }

  protected powInt(a: RF, n: number, constantBase: boolean): RF {
    if (!constantBase && Math.abs(n) > MATH_LIMITS.maxSymbolicExponent) {
      throw new GuardError(
        'exponent_too_large',
        `The exponent is too large (|n| > ${MATH_LIMITS.maxSymbolicExponent} on a symbolic base).`,
      );
    }
    if (n < 0) {
      if (a.num.size === 0) throw divisionByZero();
      if (this.rationalOf(a) === null) this.conditions.add(`${this.render(a)} != 0`);
      return this.powInt({ num: a.den, den: a.num }, -n, constantBase);
    }
    return this.normalize(this.polyPow(a.num, n), this.polyPow(a.den, n));
  }

  /** Normal form of num/den: monomial denominators folded in, otherwise a monic denominator. */
  protected normalize(num: Poly, den: Poly): RF {
    if (den.size === 0) throw divisionByZero();
    if (num.size === 0) return { num: EMPTY, den: ONE_POLY };
    if (den.size === 1) {
      const [t] = den.values() as IterableIterator<Term>;
      return { num: this.polyMul(num, this.invertTerm(t)), den: ONE_POLY };
    }
    const lead = this.sortedTerms(den)[0] as Term;
    if (!R.isOne(lead.coef)) {
      const s = R.div(R.ONE, lead.coef);
      num = this.polyScale(num, s);
      den = this.polyScale(den, s);
    }
    if (this.polyEqual(num, den)) return { num: ONE_POLY, den: ONE_POLY };
    const quotient = this.exactQuotient(num, den);
    if (quotient) return { num: quotient, den: ONE_POLY };
    return { num, den };
  }

  // ---------------------------------------------------------------- polynomials

  protected charge(n: number): void {
    this.work += n;
    if (this.work > MATH_LIMITS.maxWork) throw new CanonicalLimitError('work budget exhausted');
  }

  protected checkPoly(p: Map<string, Term>): Poly {
    if (p.size > MATH_LIMITS.maxTerms) throw new CanonicalLimitError('too many terms');
    return p;
  }

  polyEqual(a: Poly, b: Poly): boolean {
    if (a === b) return true;
    if (a.size !== b.size) return false;
    for (const [k, t] of a) {
      const u = b.get(k);
      if (!u || !R.eq(t.coef, u.coef)) return false;
    }
    return true;
  }

  protected polyAdd(a: Poly, b: Poly): Poly {
    this.charge(b.size);
    const out = new Map(a);
    for (const [k, t] of b) {
      const prev = out.get(k);
      if (!prev) out.set(k, t);
      else {
        const c = R.add(prev.coef, t.coef);
        if (R.isZero(c)) out.delete(k);
        else out.set(k, { coef: c, mono: t.mono });
      }
    }
    return this.checkPoly(out);
  }

  protected polyScale(a: Poly, c: Q): Poly {
    if (R.isZero(c)) return EMPTY;
    const out = new Map<string, Term>();
    for (const [k, t] of a) out.set(k, { coef: R.mul(t.coef, c), mono: t.mono });
    return out;
  }

  protected polyMul(a: Poly, b: Poly): Poly {
    if (a.size === 0 || b.size === 0) return EMPTY;
    if (a === ONE_POLY) return b;
    if (b === ONE_POLY) return a;
    this.charge(a.size * b.size);
    let out: Map<string, Term> = new Map();
    for (const s of a.values()) {
      for (const t of b.values()) {
        const coef = R.mul(s.coef, t.coef);
        if (R.sizeOf(coef) > MATH_LIMITS.maxCoefficientDigits) throw new CanonicalLimitError('coefficient too large');
        if (s.mono.simple && t.mono.simple) {
          const mono = this.simpleProduct(s.mono, t.mono);
          const prev = out.get(mono.key);
          if (!prev) out.set(mono.key, { coef, mono });
          else {
            const sum = R.add(prev.coef, coef);
            if (R.isZero(sum)) out.delete(mono.key);
            else out.set(mono.key, { coef: sum, mono });
          }
          continue;
        }
        this.charge(4); // products with reductions or exponentials cost several simple ones
        const product = this.monoMul(s.mono, t.mono);
        for (const [k, u] of product) {
          const c = R.mul(u.coef, coef);
          const prev = out.get(k);
          if (!prev) out.set(k, { coef: c, mono: u.mono });
          else {
            const sum = R.add(prev.coef, c);
            if (R.isZero(sum)) out.delete(k);
            else out.set(k, { coef: sum, mono: u.mono });
          }
        }
      }
      if (out.size > MATH_LIMITS.maxTerms) throw new CanonicalLimitError('too many terms');
    }
    out = this.checkPoly(out) as Map<string, Term>;
    return out;
  }

  protected polyPow(a: Poly, n: number): Poly {
    if (n === 0) return ONE_POLY;
    if (n === 1) return a;
    if (a.size === 0) return EMPTY;
    if (a.size === 1) {
      const [t] = a.values() as IterableIterator<Term>;
      const coef = R.pow(t.coef, n, MATH_LIMITS.maxExactDigits);
      if (R.sizeOf(coef) > MATH_LIMITS.maxCoefficientDigits && t.mono.key !== '')
        throw new CanonicalLimitError('coefficient too large');
      const factors = new Map(t.mono.factors.map(([k, e]) => [k, e * n] as [string, number]));
      const exp = t.mono.exp ? this.mul(t.mono.exp, this.constant(R.qInt(n))) : null;
      return this.polyScale(this.normalizeMono(factors, exp), coef);
    }
    let result = ONE_POLY;
    let base = a;
    let k = n;
    while (k > 0) {
      if (k & 1) result = this.polyMul(result, base);
      k >>= 1;
      if (k > 0) base = this.polyMul(base, base);
    }
    return result;
  }

  /** Product of two simple monomials: a linear merge of the sorted factor lists. */
  protected simpleProduct(a: Mono, b: Mono): Mono {
    if (a === ONE_MONO) return b;
    if (b === ONE_MONO) return a;
    const factors: Array<readonly [string, number]> = [];
    let i = 0;
    let j = 0;
    while (i < a.factors.length || j < b.factors.length) {
      const x = a.factors[i];
      const y = b.factors[j];
      if (y === undefined || (x !== undefined && x[0] < y[0])) {
        factors.push(x as readonly [string, number]);
        i++;
      } else if (x === undefined || y[0] < x[0]) {
        factors.push(y);
        j++;
      } else {
        const e = x[1] + y[1];
        if (e !== 0) factors.push([x[0], e]);
        i++;
        j++;
      }
    }
    return this.makeMono(factors, null);
  }

  protected makeMono(sorted: ReadonlyArray<readonly [string, number]>, exp: RF | null): Mono {
    if (sorted.length === 0 && !exp) return ONE_MONO;
    const parts = sorted.map(([k, e]) =>
      e === 1 ? k : `${(this.factors.get(k) as Factor).wrapped}^${e < 0 ? `(${e})` : e}`,
    );
    if (exp) parts.push(this.renderExp(exp));
    let degree = exp ? 1 : 0;
    let simple = !exp;
    for (const [k, e] of sorted) {
      degree += e;
      if (simple && REDUCIBLE.has((this.factors.get(k) as Factor).kind)) simple = false;
    }
    return { key: parts.join('*'), factors: sorted, exp, degree, simple };
  }

  protected monoMul(a: Mono, b: Mono): Poly {
    if (a === ONE_MONO && b === ONE_MONO) return ONE_POLY;
    const factors = new Map<string, number>(a.factors as Array<[string, number]>);
    for (const [k, e] of b.factors) factors.set(k, (factors.get(k) ?? 0) + e);
    let exp = a.exp;
    if (b.exp) exp = exp ? this.add(exp, b.exp) : b.exp;
    return this.normalizeMono(factors, exp);
  }

  /** Builds a monomial, applying the reduction rules (i^2, root^n, sin^2, exp(c·log u)). */
  protected normalizeMono(factors: Map<string, number>, exp: RF | null): Poly {
    let coef = R.ONE;
    const extra: Poly[] = [];
    for (const [key, e] of [...factors]) {
      if (e === 0) {
        factors.delete(key);
        continue;
      }
      const f = this.factors.get(key) as Factor;
      if (f.kind === 'i' && (e >= 2 || e < 0)) {
        const r = ((e % 2) + 2) % 2;
        if (((e - r) / 2) % 2 !== 0) coef = R.neg(coef);
        this.rules.add('imaginary_unit_square');
        if (r === 0) factors.delete(key);
        else factors.set(key, r);
      } else if (f.kind === 'root' && f.radicand && e >= (f.index as number)) {
        const n = f.index as number;
        extra.push(this.polyPow(f.radicand, Math.floor(e / n)));
        this.rules.add('radical_power');
        if (e % n === 0) factors.delete(key);
        else factors.set(key, e % n);
      } else if (f.kind === 'sin' && e >= 2) {
        const partner = this.factorPoly('cos', f.arg as RF);
        const square = this.polyMul(partner, partner);
        // sin^2 = 1 - cos^2
        extra.push(this.polyPow(this.polyAdd(ONE_POLY, this.polyScale(square, R.qInt(-1))), Math.floor(e / 2)));
        this.rules.add('pythagorean_sin_cos');
        if (e % 2 === 0) factors.delete(key);
        else factors.set(key, 1);
      } else if (
        f.kind === 'opaque' &&
        f.arg &&
        e >= 2 &&
        f.key.startsWith('abs(') &&
        this.polyEqual(f.arg.den, ONE_POLY)
      ) {
        // |u|^2 = u^2 for real u, so |u|^e = u^(e - e mod 2)·|u|^(e mod 2): one form for |x|^3 and x^2·|x|.
        const uses = new Set<string>();
        if (!this.isRealPoly(f.arg.num, uses)) continue;
        extra.push(this.polyPow(f.arg.num, e - (e % 2)));
        this.commit(uses, 'abs_square_of_real');
        if (e % 2 === 0) factors.delete(key);
        else factors.set(key, 1);
      }
    }
    if (exp && exp.num.size === 0) exp = null;
    if (exp) {
      // exp(c·log(u)) = u^c for integers c (exp(Log u) = u for every u != 0).
      const logTerms = this.polyEqual(exp.den, ONE_POLY)
        ? [...exp.num.values()].filter(
            (t) =>
              !t.mono.exp &&
              t.mono.factors.length === 1 &&
              t.mono.factors[0]![1] === 1 &&
              this.factors.get(t.mono.factors[0]![0])?.kind === 'log' &&
              R.isInteger(t.coef) &&
              R.qAbs(t.coef).n <= BigInt(MAX_LOG_POWER),
          )
        : [];
      const rest = new Map(exp.num);
      for (const t of logTerms) {
        const u = (this.factors.get(t.mono.factors[0]![0]) as Factor).arg as RF;
        const power = this.powInt(u, Number(t.coef.n), this.varsOf(u).length === 0);
        // A power with a polynomial denominator cannot be a factor of one term: it stays exp(c·log u).
        if (!this.polyEqual(power.den, ONE_POLY)) continue;
        rest.delete(t.mono.key);
        extra.push(power.num);
        this.rules.add('exp_of_log');
      }
      if (rest.size !== exp.num.size) exp = rest.size === 0 ? null : { num: rest, den: ONE_POLY };
    }
    const sorted = [...factors].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    const mono = this.makeMono(sorted, exp);
    let result: Poly = new Map([[mono.key, { coef, mono }]]);
    for (const p of extra) result = this.polyMul(result, p);
    return result;
  }

  protected invertTerm(t: Term): Poly {
    const factors = new Map(t.mono.factors.map(([k, e]) => [k, -e] as [string, number]));
    const exp = t.mono.exp ? this.neg(t.mono.exp) : null;
    return this.polyScale(this.normalizeMono(factors, exp), R.div(R.ONE, t.coef));
  }

  /** num / den when den divides num exactly (plain polynomials in variables only). */
  protected exactQuotient(num: Poly, den: Poly): Poly | null {
    const plain = (p: Poly) =>
      [...p.values()].every(
        (t) => !t.mono.exp && t.mono.factors.every(([k, e]) => e > 0 && this.factors.get(k)?.kind === 'var'),
      );
    if (!plain(num) || !plain(den)) return null;
    const lead = this.sortedTerms(den)[0] as Term;
    let rest: Poly = num;
    let quotient: Poly = EMPTY;
    for (let steps = 0; rest.size > 0; steps++) {
      if (steps > 500) return null;
      this.charge(rest.size);
      const top = this.sortedTerms(rest)[0] as Term;
      const exps = new Map(top.mono.factors as Array<[string, number]>);
      for (const [k, e] of lead.mono.factors) {
        const left = (exps.get(k) ?? 0) - e;
        if (left < 0) return null;
        exps.set(k, left);
      }
      const q = this.polyScale(this.normalizeMono(exps, null), R.div(top.coef, lead.coef));
      quotient = this.polyAdd(quotient, q);
      rest = this.polyAdd(rest, this.polyScale(this.polyMul(q, den), R.qInt(-1)));
    }
    this.rules.add('exact_polynomial_division');
    return quotient;
  }

  protected sortedTerms(p: Poly): Term[] {
    return [...p.values()].sort((a, b) => compareMono(a.mono, b.mono));
  }

  // ---------------------------------------------------------------- factors

  protected register(f: Factor): string {
    if (!this.factors.has(f.key))
      this.factors.set(f.key, { ...f, wrapped: ATOMIC_KEY.test(f.key) ? f.key : `(${f.key})` });
    return f.key;
  }

  protected factorPoly(kind: 'cos' | 'sin', arg: RF): Poly {
    const key = this.register({ kind, key: `${kind}(${this.render(arg)})`, vars: this.varsOf(arg), arg });
    return this.normalizeMono(new Map([[key, 1]]), null);
  }

  protected atom(f: Factor): RF {
    const key = this.register(f);
    return { num: this.normalizeMono(new Map([[key, 1]]), null), den: ONE_POLY };
  }

  protected renderExp(arg: RF): string {
    const c = this.rationalOf(arg);
    if (c && R.isOne(c)) return 'e';
    if (c && R.isInteger(c)) return c.n < 0n ? `e^(${c.n})` : `e^${c.n}`;
    return `exp(${this.render(arg)})`;
  }

  /** Variables occurring anywhere in `a` (sorted). */
  varsOf(a: RF): string[] {
    const out = new Set<string>();
    const visit = (p: Poly) => {
      for (const t of p.values()) {
        for (const [k] of t.mono.factors) for (const v of (this.factors.get(k) as Factor).vars) out.add(v);
        if (t.mono.exp) for (const v of this.varsOf(t.mono.exp)) out.add(v);
      }
    };
    visit(a.num);
    visit(a.den);
    return [...out].sort();
  }

  /** True when only variables, pi and i occur: then a non-zero form is not identically zero. */
  isDecisive(a: RF): boolean {
    const plain = (p: Poly) =>
      [...p.values()].every(
        (t) =>
          !t.mono.exp &&
          t.mono.factors.every(([k]) => ['var', 'pi', 'i'].includes((this.factors.get(k) as Factor).kind)),
      );
    return plain(a.num) && plain(a.den);
  }

  /** Whether the imaginary unit occurs at the top level of `a`. */
  hasImaginary(a: RF): boolean {
    return [...a.num.values(), ...a.den.values()].some((t) => t.mono.factors.some(([k]) => k === 'i'));
  }

  renderPoly(p: Poly): string {
    if (p.size === 0) return '0';
    let out = '';
    for (const t of this.sortedTerms(p)) {
      const negative = R.sign(t.coef) < 0;
      const c = R.qAbs(t.coef);
      let body: string;
      if (t.mono === ONE_MONO || t.mono.key === '') body = R.formatQ(c);
      else if (R.isOne(c)) body = t.mono.key;
      else {
        const text = R.formatQ(c);
        body = `${text.includes('/') ? `(${text})` : text}*${t.mono.key}`;
      }
      out += out === '' ? (negative ? `-${body}` : body) : negative ? ` - ${body}` : ` + ${body}`;
    }
    return out;
  }

  render(a: RF): string {
    if (this.polyEqual(a.den, ONE_POLY)) return this.renderPoly(a.num);
    return `(${this.renderPoly(a.num)})/(${this.renderPoly(a.den)})`;
  }
}
