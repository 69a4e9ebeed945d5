// Canonical forms, part 3 of 3: the function rules (engines/math/canonical.ts has the overview).
import {
  polyOfConst,
  ONE_POLY,
  type RootFlavor,
  type Factor,
  type Term,
  type Poly,
  type RF,
} from './canonical-polynomials.js';
import { AssumptionRules } from './canonical-assumptions.js';
import {
  complexInRealDomain,
  divisionByZero,
  GuardError,
  logOfNegative,
  logOfZero,
  MathDomainError,
  sqrtOfNegative,
} from './errors.js';
import { MATH_LIMITS } from './limits.js';
import * as R from './rational.js';
import type { Q } from './rational.js';

/** Functions whose arguments define the angle basis (hyperbolic ones become exponentials). */
export const ANGLE_FUNCTIONS = new Set(['sin', 'cos', 'tan']);
/** gamma(w + k) is shifted to gamma(w) for |k| up to this bound (else it stays an atom). */
const MAX_GAMMA_SHIFT = 24;
/** binomial(n, k) of constants is computed exactly for n up to this bound. */
const MAX_BINOMIAL_N = MATH_LIMITS.maxBinomialN;
/** Expansion bounds: basis angles per argument, and the sum of |n_j| (sin(24x) expands, sin(25x) does not). */
const MAX_ANGLE_PARTS = 6;
const MAX_ANGLE_MULTIPLE = 24;

function isPrime(k: number): boolean {
  for (let d = 2; d * d <= k; d++) if (k % d === 0) return false;
  return k >= 2;
}

export function lcmBig(a: bigint, b: bigint): bigint {
  const g = R.gcd(a, b);
  return g === 0n ? 0n : (a / g) * b;
}

/**
 * The rules of the functions: symbols (pi, e, i), powers and exponentials, roots, logarithms,
 * sin/cos/tan and the hyperbolic functions (angle basis), abs, sign, rounding, factorial and
 * gamma, binomial, mod, min/max, gcd/lcm. Each rewrite is an identity on the principal branches;
 * the ones that need the request's assumptions go through the assumption rules.
 */
export abstract class FunctionRules extends AssumptionRules {
  protected symbol(name: string): RF {
    if (name === 'pi') return this.atom({ kind: 'pi', key: 'pi', vars: [] });
    if (name === 'e') return this.expOf(this.constant(R.ONE));
    if (name === 'i') {
      if (this.domain === 'real') throw complexInRealDomain('The imaginary unit i');
      return this.atom({ kind: 'i', key: 'i', vars: [] });
    }
    return this.atom({ kind: 'var', key: name, vars: [name] });
  }

  /** An argument that must be an integer constant in [min, max] (root index, rounding digits). */
  protected smallInteger(a: RF, name: string, min: number, max: number): number {
    const c = this.rationalOf(a);
    if (c === null || !R.isInteger(c) || c.n < BigInt(min) || c.n > BigInt(max)) {
      throw new GuardError(
        'invalid_arguments',
        `The second argument of ${name}() must be an integer constant from ${min} to ${max}.`,
      );
    }
    return Number(c.n);
  }

  // ---------------------------------------------------------------- rational functions

  protected opaque(name: string, args: RF[], sortArgs = false): RF {
    const rendered = args.map((a) => this.render(a));
    if (sortArgs) rendered.sort();
    const vars = [...new Set(args.flatMap((a) => this.varsOf(a)))].sort();
    return this.atom({ kind: 'opaque', key: `${name}(${rendered.join(', ')})`, vars });
  }

  protected special(value: RF): RF {
    this.rules.add('special_value');
    return value;
  }

  protected expOf(arg: RF): RF {
    if (arg.num.size === 0) return this.special(this.constant(R.ONE));
    // Euler: exp(a + k·i·pi) = exp(a)·(cos(k·pi) + i·sin(k·pi)) when the values are tabulated.
    const euler = this.polyEqual(arg.den, ONE_POLY) ? arg.num.get('i*pi') : undefined;
    if (euler) {
      const c = this.trigAtPi('cos', euler.coef);
      const s = this.trigAtPi('sin', euler.coef);
      if (c && s) {
        this.rules.add('euler_formula');
        const rest = new Map(arg.num);
        rest.delete('i*pi');
        return this.mul(this.expOf({ num: rest, den: ONE_POLY }), this.add(c, this.mul(this.symbol('i'), s)));
      }
    }
    this.rules.add('exponential');
    return { num: this.normalizeMono(new Map(), arg), den: ONE_POLY };
  }

  /** exp(c) for a rational constant c when `a` is exactly that (coefficient 1). */
  protected expConstantOf(a: RF): Q | null {
    if (!this.polyEqual(a.den, ONE_POLY) || a.num.size !== 1) return null;
    const [t] = a.num.values() as IterableIterator<Term>;
    if (!R.isOne(t.coef) || t.mono.factors.length !== 0 || !t.mono.exp) return null;
    return this.rationalOf(t.mono.exp);
  }

  protected power(base: RF, exponent: RF): RF {
    const k = this.rationalOf(exponent);
    const baseConst = this.varsOf(base).length === 0;
    if (k !== null && R.isInteger(k)) {
      if (k.n > BigInt(Number.MAX_SAFE_INTEGER) || k.n < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new GuardError('exponent_too_large', 'The exponent is too large.');
      }
      return this.powInt(base, Number(k.n), baseConst);
    }
    // e^z = exp(z); exp(c)^z = exp(c·z) for a rational c (Log(exp(c)) = c).
    const c = this.expConstantOf(base);
    if (c !== null) return this.expOf(this.mul(this.constant(c), exponent));
    if (k !== null) {
      if (this.isZero(base)) {
        if (R.sign(k) < 0) throw divisionByZero();
        return this.constant(R.ZERO);
      }
      if (k.d > BigInt(MATH_LIMITS.maxRootIndex)) return this.opaquePower(base, exponent);
      // b^(p/q) = (b^(1/q))^p (principal branch).
      this.rules.add('rational_exponent');
      return this.powInt(this.root(base, Number(k.d), 'principal'), Number(k.n), baseConst);
    }
    // exp(E)^v = exp(E·v) when E is real (Log(exp E) = E) or v is an integer.
    const single = this.singleExp(base);
    if (single) {
      const uses = new Set<string>();
      if (this.isRealRF(single, uses) || this.isIntegerRF(exponent, uses)) {
        this.commit(uses, 'power_of_exponential');
        return this.expOf(this.mul(single, exponent));
      }
    }
    // u^v = exp(v·Log(u)) for u != 0: the definition of the principal power (as mathjs computes it).
    const c0 = this.rationalOf(base);
    if (this.isZero(base) || (c0 !== null && R.sign(c0) < 0 && this.domain === 'real'))
      return this.opaquePower(base, exponent);
    if (c0 === null) this.conditions.add(`${this.render(base)} != 0`);
    this.rules.add('power_as_exponential');
    return this.expOf(this.mul(exponent, this.log(base)));
  }

  /** E when `a` is exactly exp(E) (coefficient 1, no other factor). */
  protected singleExp(a: RF): RF | null {
    if (!this.polyEqual(a.den, ONE_POLY) || a.num.size !== 1) return null;
    const [t] = a.num.values() as IterableIterator<Term>;
    return R.isOne(t.coef) && t.mono.factors.length === 0 && t.mono.exp ? t.mono.exp : null;
  }

  protected opaquePower(base: RF, exponent: RF): RF {
    const vars = [...new Set([...this.varsOf(base), ...this.varsOf(exponent)])].sort();
    return this.atom({ kind: 'opaque', key: `(${this.render(base)})^(${this.render(exponent)})`, vars });
  }

  /**
   * n-th root. 'principal' = u^(1/n) as mathjs computes it (sqrt is the principal square root);
   * 'cbrt' and 'nthRoot' are real roots (negative for a negative radicand and odd n).
   */
  protected root(u: RF, n: number, flavor: 'principal' | 'cbrt' | 'nthRoot'): RF {
    if (n === 1) return u;
    if (this.isZero(u)) return this.constant(R.ZERO);
    const c = this.rationalOf(u);
    if (c !== null) {
      if (R.sign(c) > 0) return this.positiveRoot(c, n);
      // Negative rational radicand.
      if (flavor === 'principal') {
        if (n === 2) {
          if (this.domain === 'real') throw sqrtOfNegative();
          this.rules.add('principal_sqrt_of_negative');
          return this.mul(this.symbol('i'), this.positiveRoot(R.neg(c), 2));
        }
        if (this.domain === 'real') throw complexInRealDomain(`(${R.formatQ(c)})^(1/${n})`);
        return this.rootAtom(u, n, 'principal');
      }
      if (n % 2 === 0) {
        throw new MathDomainError(
          'even_root_of_negative',
          'An even root of a negative number is undefined (use sqrt for the principal complex root).',
        );
      }
      this.rules.add('odd_root_of_negative');
      return this.neg(this.positiveRoot(R.neg(c), n));
    }
    return this.rootOfMonomial(u, n, flavor) ?? this.rootAtom(u, n, flavor);
  }

  /**
   * Roots of a monomial c·Π f^e·exp(E) with c > 0, under the assumptions:
   *   root_n(Π a_j) = Π root_n(a_j)      for non-negative a_j (principal roots of reals ≥ 0),
   *   root_n(f^(n·m)) = |f|^m              for real f and even n (f^m when m is even),
   *   cbrt/nthRoot(f^(n·m)) = f^m          for real f and odd n (real odd roots),
   *   root_n(exp(E)) = exp(E/n)            for real E.
   * Returns null when a factor's property is not implied (then the root stays an atom).
   */
  protected rootOfMonomial(u: RF, n: number, flavor: RootFlavor): RF | null {
    if (!this.polyEqual(u.den, ONE_POLY) || u.num.size !== 1) return null;
    const [t] = u.num.values() as IterableIterator<Term>;
    if (R.sign(t.coef) <= 0) return null;
    // Nothing to split: a single factor below the root's degree (sqrt(x), sqrt(pi)).
    if (
      R.isOne(t.coef) &&
      !t.mono.exp &&
      t.mono.factors.length === 1 &&
      t.mono.factors[0]![1] > 0 &&
      t.mono.factors[0]![1] < n
    )
      return null;
    const uses = new Set<string>();
    if (t.mono.exp && !this.isRealRF(t.mono.exp, uses)) return null;
    const parts: Array<() => RF> = [];
    for (const [k, e] of t.mono.factors) {
      const f = this.factors.get(k) as Factor;
      const single = (): RF => this.atom(f);
      if (this.isNonnegativeFactor(f, uses) && (e > 0 || this.isPositiveFactor(f, uses))) {
        const q = Math.floor(e / n);
        const r = e - q * n;
        parts.push(() =>
          this.mul(
            this.powInt(single(), q, false),
            r === 0 ? this.constant(R.ONE) : this.powInt(this.rootAtom(single(), n, flavor), r, false),
          ),
        );
      } else if (e % n === 0 && e > 0 && this.isRealFactor(f, uses)) {
        const m = e / n;
        if (n % 2 === 1 && flavor === 'principal' && m % 2 === 1) return null; // principal odd root of a negative is complex
        if (n % 2 === 1 || m % 2 === 0) parts.push(() => this.powInt(single(), m, false));
        else parts.push(() => this.powInt(this.absOf(single()), m, false));
      } else return null;
    }
    if (parts.length === 0 && !t.mono.exp) return null;
    this.commit(uses, 'root_of_product');
    let out = this.positiveRoot(t.coef, n);
    if (t.mono.exp) out = this.mul(out, this.expOf(this.mul(t.mono.exp, this.constant(R.q(1n, BigInt(n))))));
    for (const part of parts) out = this.mul(out, part());
    return out;
  }

  /** c^(1/n) for a positive rational: perfect powers exact, small n-th power factors pulled out. */
  protected positiveRoot(c: Q, n: number): RF {
    // c = a/b → (a·b^(n-1))^(1/n) / b
    const radicand = c.n * c.d ** BigInt(n - 1);
    if (R.digitsOf(radicand) > 400) return this.rootAtom(this.constant(c), n, 'principal');
    const { outside, inside } = R.extractPower(radicand, n);
    const factor = R.q(outside, c.d);
    this.rules.add('exact_root');
    if (inside === 1n) return this.constant(factor);
    const key = n === 2 ? `sqrt(${inside})` : n === 3 ? `cbrt(${inside})` : `nthRoot(${inside}, ${n})`;
    const atom = this.atom({
      kind: 'root',
      key,
      vars: [],
      index: n,
      radicand: polyOfConst(R.q(inside)),
      flavor: 'principal',
      arg: this.constant(R.q(inside)),
    });
    return this.mul(this.constant(factor), atom);
  }

  protected rootAtom(u: RF, n: number, flavor: RootFlavor): RF {
    const body = this.render(u);
    const key =
      flavor === 'principal'
        ? n === 2
          ? `sqrt(${body})`
          : `(${body})^(1/${n})`
        : flavor === 'cbrt'
          ? `cbrt(${body})`
          : `nthRoot(${body}, ${n})`;
    const radicand = this.polyEqual(u.den, ONE_POLY) ? u.num : null;
    // Real domain: an even root is defined only for a non-negative radicand (unless the assumptions imply it).
    if (this.domain === 'real' && n % 2 === 0 && !(radicand && this.isNonnegativePoly(radicand, new Set())))
      this.conditions.add(`${body} >= 0`);
    return this.atom({ kind: 'root', key, vars: this.varsOf(u), index: n, radicand, flavor, arg: u });
  }

  protected log(u: RF): RF {
    if (this.isZero(u)) throw logOfZero();
    const c = this.rationalOf(u);
    if (c !== null) {
      if (R.isOne(c)) return this.special(this.constant(R.ZERO));
      if (R.sign(c) < 0) {
        if (this.domain === 'real') throw logOfNegative();
        // Principal branch: log(-c) = log(c) + i·pi for c > 0.
        this.rules.add('log_of_negative');
        return this.add(this.log(this.constant(R.neg(c))), this.mul(this.symbol('i'), this.symbol('pi')));
      }
      return this.logOfPositive(c);
    }
    const e = this.expConstantOf(u);
    if (e !== null) {
      this.rules.add('log_of_exp');
      return this.constant(e);
    }
    return this.logUnderAssumptions(u) ?? this.logAtom(u);
  }

  protected logAtom(u: RF): RF {
    return this.atom({ kind: 'log', key: `log(${this.render(u)})`, vars: this.varsOf(u), arg: u });
  }

  /**
   * Logarithm rules that need the request's assumptions (principal branch):
   *   log(exp(E)) = E                    when E is real (Im E in (-pi, pi]),
   *   log(a·b) = log(a) + log(b)         when a > 0 (then arg(a·b) = arg b), applied to monomials
   *                                      whose factors are all positive, and to a positive
   *                                      monomial content times a positive rest,
   *   log(a/b) = log(a) - log(b)         for positive a and b,
   *   log(f^n) = n·log(f), log(root_n(f)) = log(f)/n   for f > 0.
   * Returns null (no rewrite) when a needed property is not implied by the assumptions.
   */
  protected logUnderAssumptions(u: RF): RF | null {
    const uses = new Set<string>();
    if (!this.polyEqual(u.den, ONE_POLY)) {
      if (!this.isPositivePoly(u.num, uses) || !this.isPositivePoly(u.den, uses)) return null;
      this.commit(uses, 'log_of_quotient');
      return this.sub(this.log({ num: u.num, den: ONE_POLY }), this.log({ num: u.den, den: ONE_POLY }));
    }
    if (u.num.size === 1) {
      const [t] = u.num.values() as IterableIterator<Term>;
      if (R.sign(t.coef) <= 0) return null;
      const positive = t.mono.factors.filter(([k]) => this.isPositiveFactor(this.factors.get(k) as Factor, uses));
      const realExp = t.mono.exp !== null && this.isRealRF(t.mono.exp, uses);
      if (positive.length < t.mono.factors.length || (t.mono.exp && !realExp)) {
        // log(a·b) = log(a) + log(b) for a > 0 and any b != 0 (arg(a·b) = arg b): split off the positive part.
        if (positive.length === 0 && R.isOne(t.coef) && !realExp) return null;
        const others = new Map(t.mono.factors.filter((f) => !positive.includes(f)) as Array<[string, number]>);
        const rest: RF = { num: this.normalizeMono(others, realExp ? null : t.mono.exp), den: ONE_POLY };
        let sum: RF = realExp ? (t.mono.exp as RF) : this.constant(R.ZERO);
        if (!R.isOne(t.coef)) sum = this.add(sum, this.log(this.constant(t.coef)));
        for (const [k, e] of positive)
          sum = this.add(sum, this.mul(this.constant(R.qInt(e)), this.log(this.atom(this.factors.get(k) as Factor))));
        this.commit(uses, 'log_of_product');
        return this.add(sum, this.logAtom(rest));
      }
      if (t.mono.factors.length === 1 && t.mono.factors[0]![1] === 1 && R.isOne(t.coef) && !t.mono.exp) {
        // A single positive factor: roots split, other atoms stay log atoms.
        const f = this.factors.get(t.mono.factors[0]![0]) as Factor;
        if (
          f.kind === 'root' &&
          f.radicand &&
          (f.flavor === 'principal' || f.flavor === 'cbrt' || f.flavor === 'nthRoot')
        ) {
          this.commit(uses, 'log_of_power');
          return this.mul(
            this.constant(R.q(1n, BigInt(f.index as number))),
            this.log({ num: f.radicand, den: ONE_POLY }),
          );
        }
        return null;
      }
      let sum: RF = t.mono.exp ?? this.constant(R.ZERO);
      if (!R.isOne(t.coef)) sum = this.add(sum, this.log(this.constant(t.coef)));
      for (const [k, e] of t.mono.factors) {
        const single = this.atom(this.factors.get(k) as Factor);
        sum = this.add(sum, this.mul(this.constant(R.qInt(e)), this.log(single)));
      }
      this.commit(uses, t.mono.factors.length === 0 ? 'log_of_exp' : 'log_of_product');
      return sum;
    }
    // A positive monomial content g times a positive rest: log(g·rest) = log(g) + log(rest).
    const content = this.monomialContent(u.num);
    if (!content) return this.logOfPositivePolynomial(u.num, uses);
    const rest = this.normalize(u.num, content);
    if (!this.polyEqual(rest.den, ONE_POLY) || rest.num.size !== u.num.size) return null;
    const g: RF = { num: content, den: ONE_POLY };
    if (!this.isPositivePoly(content, uses) || !this.isPositivePoly(rest.num, uses)) return null;
    this.commit(uses, 'log_of_product');
    return this.add(this.log(g), this.log(rest));
  }

  /**
   * log of a positive polynomial p (several terms, no monomial content), real logarithms:
   *   log(c·q) = log(c) + log(q)       for the positive rational content c of p,
   *   log(q^k) = k·log(q)              when p = q^k exactly and q > 0 under the assumptions.
   * So log((y+1)^2) and 2·log(y+1) meet; a base that is not provably positive, as y - 1, is left alone.
   */
  protected logOfPositivePolynomial(p: Poly, uses: Set<string>): RF | null {
    if (p.size < 2 || !this.isPositivePoly(p, uses)) return null;
    let num = 0n;
    let den = 1n;
    for (const t of p.values()) {
      num = R.gcd(num, t.coef.n < 0n ? -t.coef.n : t.coef.n);
      den = lcmBig(den, t.coef.d);
    }
    const c = R.q(num, den);
    if (!R.isOne(c)) {
      this.commit(uses, 'log_of_product');
      return this.add(this.log(this.constant(c)), this.log({ num: this.polyScale(p, R.div(R.ONE, c)), den: ONE_POLY }));
    }
    const root = this.perfectPower(p);
    if (!root) return null;
    const base: RF = { num: root.base, den: ONE_POLY };
    if (!this.isPositivePoly(root.base, uses)) return null;
    this.commit(uses, 'log_of_power');
    return this.mul(this.constant(R.qInt(root.k)), this.log(base));
  }

  /**
   * p = q^k for a prime k and a polynomial q with positive leading coefficient (plain
   * polynomials in variables), found term by term in lexicographic order and checked exactly.
   */
  protected perfectPower(p: Poly): { base: Poly; k: number } | null {
    const terms = [...p.values()];
    if (
      !terms.every((t) => !t.mono.exp && t.mono.factors.every(([k, e]) => e > 0 && this.factors.get(k)?.kind === 'var'))
    )
      return null;
    const vars = [...new Set(terms.flatMap((t) => t.mono.factors.map(([k]) => k)))].sort();
    const vec = (t: Term) => {
      const m = new Map(t.mono.factors);
      return vars.map((v) => m.get(v) ?? 0);
    };
    const lexCompare = (a: number[], b: number[]) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (b[i] as number) - (a[i] as number);
      return 0;
    };
    const leading = (q: Poly): Term => [...q.values()].sort((a, b) => lexCompare(vec(a), vec(b)))[0] as Term;
    const lead = leading(p);
    const leadVec = vec(lead);
    let g = 0;
    for (const e of leadVec) g = Number(R.gcd(BigInt(g), BigInt(e)));
    for (let k = 2; k <= g; k++) {
      if (g % k !== 0 || !isPrime(k)) continue; // q^(a·b) is found as (q^a)^b by recursion
      const rootOf = (c: Q): Q | null => {
        if (R.sign(c) <= 0) return null;
        const n = R.exactRoot(c.n, k);
        const d = R.exactRoot(c.d, k);
        return n === null || d === null ? null : R.q(n, d);
      };
      const leadCoef = rootOf(lead.coef);
      if (!leadCoef) continue;
      const mono = (exps: number[]) =>
        this.normalizeMono(new Map(vars.map((v, i) => [v, exps[i] as number] as [string, number])), null);
      const qLead = this.polyScale(mono(leadVec.map((e) => e / k)), leadCoef);
      // Each step: rest = p - q^k; its leading term is k·lead(q)^(k-1)·(next term of q).
      const divisor = this.polyScale(this.polyPow(qLead, k - 1), R.qInt(k));
      const divTerm = leading(divisor);
      let q = qLead;
      for (let steps = 0; steps <= p.size + 8; steps++) {
        this.charge(p.size);
        const rest = this.polyAdd(p, this.polyScale(this.polyPow(q, k), R.qInt(-1)));
        if (rest.size === 0) {
          this.rules.add('polynomial_perfect_power');
          return { base: q, k };
        }
        const top = leading(rest);
        const exps = vec(top).map((e, i) => e - (vec(divTerm)[i] as number));
        if (exps.some((e) => e < 0)) break;
        q = this.polyAdd(q, this.polyScale(mono(exps), R.div(top.coef, divTerm.coef)));
      }
    }
    return null;
  }

  /** The largest monomial with positive exponents dividing every term (null when it is 1). */
  protected monomialContent(p: Poly): Poly | null {
    let common: Map<string, number> | null = null;
    for (const t of p.values()) {
      if (t.mono.exp) return null;
      const here = new Map(t.mono.factors.filter(([, e]) => e > 0) as Array<[string, number]>);
      if (common === null) common = here;
      else for (const [k, e] of common) common.set(k, Math.min(e, here.get(k) ?? 0));
    }
    if (!common) return null;
    for (const [k, e] of [...common]) if (e <= 0) common.delete(k);
    if (common.size === 0) return null;
    return this.normalizeMono(common, null);
  }

  /**
   * log(c) for a positive rational: the sum of e·log(p) over its small prime factors (real
   * logarithms of positive numbers), with log(m) for a cofactor that has no small factors.
   */
  protected logOfPositive(c: Q): RF {
    const parts = new Map<bigint, bigint>();
    const split = (x: bigint, sign: bigint) => {
      for (let p = 2n; p <= 997n && p * p <= x; p += p === 2n ? 1n : 2n) {
        while (x % p === 0n) {
          x /= p;
          parts.set(p, (parts.get(p) ?? 0n) + sign);
        }
      }
      if (x > 1n) parts.set(x, (parts.get(x) ?? 0n) + sign);
    };
    split(c.n, 1n);
    split(c.d, -1n);
    let sum = this.constant(R.ZERO);
    for (const [p, e] of [...parts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (e !== 0n) sum = this.add(sum, this.mul(this.constant(R.q(e)), this.logAtom(this.constant(R.q(p)))));
    }
    if (parts.size > 1 || [...parts.values()].some((e) => e !== 1n)) this.rules.add('log_of_rational');
    return sum;
  }

  protected logBase(u: RF, base: bigint, name: 'log10' | 'log2'): RF {
    if (this.isZero(u)) throw logOfZero();
    const c = this.rationalOf(u);
    if (c !== null) {
      if (R.sign(c) < 0 && this.domain === 'real') throw logOfNegative();
      const k = exactLog(c, base);
      if (k !== null) return this.special(this.constant(R.qInt(k)));
    }
    return this.opaque(name, [u]);
  }

  /** Sign of the leading coefficient (for parity rules). */
  protected leadingSign(a: RF): number {
    if (a.num.size === 0) return 0;
    return R.sign((this.sortedTerms(a.num)[0] as Term).coef);
  }

  protected trig(name: 'sin' | 'cos', u: RF): RF {
    if (this.leadingSign(u) < 0) {
      this.rules.add('trig_parity');
      const inner = this.trig(name, this.neg(u));
      return name === 'sin' ? this.neg(inner) : inner;
    }
    if (this.isZero(u)) return this.special(this.constant(name === 'sin' ? R.ZERO : R.ONE));
    const k = this.piMultiple(u);
    if (k !== null) {
      const value = this.trigAtPi(name, k);
      if (value) return this.special(value);
    }
    return this.expandAngle(name, u) ?? { num: this.factorPoly(name, u), den: ONE_POLY };
  }

  /**
   * Angle addition over the basis (valid for all complex arguments):
   *   sin(a+b) = sin a cos b + cos a sin b,  cos(a+b) = cos a cos b - sin a sin b,
   * with u = Σ n_j·θ_j (θ_j = m_j/L_j, n_j integers) plus a tabulated multiple of pi.
   * Returns null when u is already a basis angle or the expansion would be too large.
   */
  protected expandAngle(name: 'sin' | 'cos', u: RF): RF | null {
    if (!this.polyEqual(u.den, ONE_POLY)) return null;
    const parts: { theta: RF; n: number }[] = [];
    let piPart: { s: RF; c: RF } | null = null;
    let total = 0;
    for (const t of this.sortedTerms(u.num)) {
      if (t.mono.exp !== null || t.mono.key === '') return null;
      if (t.mono.key === 'pi') {
        const s = this.trigAtPi('sin', t.coef);
        const c = this.trigAtPi('cos', t.coef);
        if (s && c) {
          piPart = { s, c };
          continue;
        }
      }
      const L = lcmBig(this.angleDen.get(t.mono.key) ?? 1n, t.coef.d);
      const scaled = R.mul(t.coef, R.q(L, 1n));
      if (!R.isInteger(scaled)) return null;
      const n = Number(scaled.n);
      if (!Number.isSafeInteger(n)) return null;
      total += Math.abs(n);
      parts.push({ theta: { num: new Map([[t.mono.key, { coef: R.q(1n, L), mono: t.mono }]]), den: ONE_POLY }, n });
    }
    if (!piPart && parts.length === 1 && parts[0]!.n === 1) return null;
    if (parts.length > MAX_ANGLE_PARTS || total > MAX_ANGLE_MULTIPLE) return null;
    let s: RF = this.constant(R.ZERO);
    let c: RF = this.constant(R.ONE);
    const addAngle = (sa: RF, ca: RF) => {
      const ns = this.add(this.mul(s, ca), this.mul(c, sa));
      const nc = this.sub(this.mul(c, ca), this.mul(s, sa));
      s = ns;
      c = nc;
    };
    for (const { theta, n } of parts) {
      const st: RF = { num: this.factorPoly('sin', theta), den: ONE_POLY };
      const ct: RF = { num: this.factorPoly('cos', theta), den: ONE_POLY };
      const sa = n < 0 ? this.neg(st) : st;
      for (let i = 0; i < Math.abs(n); i++) addAngle(sa, ct);
    }
    if (piPart) addAngle(piPart.s, piPart.c);
    this.rules.add('angle_addition');
    return name === 'sin' ? s : c;
  }

  /**
   * sinh(u) = (exp(u) - exp(-u))/2, cosh(u) = (exp(u) + exp(-u))/2: identities for all complex u.
   * With exponentials merged (exp(a)·exp(b) = exp(a+b)), angle addition, parity and
   * cosh² - sinh² = 1 follow, and the exponential forms of a claim meet these. The size stays
   * bounded by the polynomial budget (a power of sinh(u) has one term per exponent).
   */
  protected hyperbolic(name: 'sinh' | 'cosh', u: RF): RF {
    this.rules.add('hyperbolic_exponential');
    const sign = name === 'sinh' ? R.qInt(-1) : R.ONE;
    const half = this.constant(R.q(1n, 2n));
    return this.mul(half, this.add(this.expOf(u), this.mul(this.constant(sign), this.expOf(this.neg(u)))));
  }

  /** k when u = k·pi for a rational k. */
  protected piMultiple(u: RF): Q | null {
    if (!this.polyEqual(u.den, ONE_POLY) || u.num.size !== 1) return null;
    const [t] = u.num.values() as IterableIterator<Term>;
    return t.mono.key === 'pi' ? t.coef : null;
  }

  /** sin/cos(k·pi) for denominators 1, 2, 3, 4, 6 (exact, with sqrt(2) and sqrt(3)). */
  protected trigAtPi(name: 'sin' | 'cos', k: Q): RF | null {
    if (![1n, 2n, 3n, 4n, 6n].includes(k.d)) return null;
    // Angle in twelfths of pi reduced to [0, 24): k·pi = m·pi/12.
    const m = Number(((((k.n * 12n) / k.d) % 24n) + 24n) % 24n);
    const s = name === 'sin' ? m : (m + 6) % 24; // cos(x) = sin(x + pi/2)
    // sin(m·pi/12) for the multiples of pi/12 that occur (multiples of 2 and 3): quadrant folding.
    const quadrant = Math.floor(s / 6);
    const r = s % 6;
    const base = quadrant % 2 === 0 ? r : 6 - r; // sin is symmetric about pi/2
    const sign = quadrant >= 2 ? -1 : 1;
    const half = R.q(1n, 2n);
    let value: RF;
    switch (base) {
      case 0:
        value = this.constant(R.ZERO);
        break;
      case 2:
        value = this.constant(half);
        break; // pi/6
      case 3:
        value = this.mul(this.constant(half), this.positiveRoot(R.qInt(2), 2));
        break; // pi/4
      case 4:
        value = this.mul(this.constant(half), this.positiveRoot(R.qInt(3), 2));
        break; // pi/3
      case 6:
        value = this.constant(R.ONE);
        break; // pi/2
      default:
        return null;
    }
    return sign < 0 ? this.neg(value) : value;
  }

  protected absOf(u: RF): RF {
    const g = this.gaussianOf(u);
    if (g) {
      if (R.isZero(g.im)) return this.constant(R.qAbs(g.re));
      this.rules.add('complex_modulus');
      return this.root(this.constant(R.add(R.mul(g.re, g.re), R.mul(g.im, g.im))), 2, 'principal');
    }
    if (this.leadingSign(u) < 0) {
      this.rules.add('abs_parity');
      return this.absOf(this.neg(u));
    }
    const uses = new Set<string>();
    if (this.isNonnegativeRF(u, uses)) {
      this.commit(uses, 'abs_of_nonnegative');
      return u;
    }
    // The argument is kept so |u|^2 = u^2 can apply to a real u (normalizeMono).
    return this.atom({ kind: 'opaque', key: `abs(${this.render(u)})`, vars: this.varsOf(u), arg: u });
  }

  protected signOf(u: RF): RF {
    const c = this.rationalOf(u);
    if (c !== null) return this.constant(R.qInt(R.sign(c)));
    if (this.leadingSign(u) < 0) {
      this.rules.add('sign_parity');
      return this.neg(this.signOf(this.neg(u)));
    }
    return this.opaque('sign', [u]);
  }

  protected rounding(name: 'floor' | 'ceil' | 'round', u: RF, digits: RF | undefined): RF {
    const c = this.rationalOf(u);
    const n = digits === undefined ? 0 : this.smallInteger(digits, name, 0, MATH_LIMITS.maxRoundDigits);
    if (c === null) return this.opaque(name, digits === undefined ? [u] : [u, digits]);
    if (name === 'floor') return this.constant(R.q(R.floorQ(c)));
    if (name === 'ceil') return this.constant(R.q(R.ceilQ(c)));
    const scale = 10n ** BigInt(n);
    return this.constant(R.q(R.roundQ(R.mul(c, R.q(scale))), scale));
  }

  protected factorial(u: RF): RF {
    const c = this.rationalOf(u);
    if (c === null) {
      // n! = gamma(n + 1) (mathjs defines the factorial of non-integers that way too).
      this.rules.add('factorial_as_gamma');
      return this.gamma(this.add(u, this.constant(R.ONE)));
    }
    if (!R.isInteger(c) || c.n < 0n) {
      throw new MathDomainError('factorial_domain', 'The factorial is defined here for non-negative integers only.');
    }
    if (c.n > BigInt(MATH_LIMITS.maxFactorial)) {
      throw new GuardError('factorial_too_large', `Factorials are computed for n <= ${MATH_LIMITS.maxFactorial} only.`);
    }
    let r = 1n;
    for (let k = 2n; k <= c.n; k++) r *= k;
    return this.constant(R.q(r));
  }

  /**
   * gamma(w + k) for an integer k (the constant term of the argument split as k + [0, 1)):
   *   gamma(w + k) = gamma(w)·w(w+1)…(w+k-1)   (k > 0),   gamma(w)/((w-1)…(w+k))   (k < 0),
   * from gamma(z+1) = z·gamma(z), which holds wherever both sides are defined (z not a pole).
   * Constants: gamma(n) = (n-1)! for integers 1..171, poles at 0, -1, ... are domain errors,
   * gamma(1/2) = sqrt(pi). Bounded: |k| ≤ MAX_GAMMA_SHIFT, else gamma(u) stays an atom.
   */
  protected gamma(u: RF): RF {
    const c = this.rationalOf(u);
    if (c !== null && R.isInteger(c)) {
      if (c.n <= 0n)
        throw new MathDomainError('gamma_pole', 'gamma() has poles at 0, -1, -2, ...: the value is undefined.');
      if (c.n > BigInt(MATH_LIMITS.maxFactorial + 1)) {
        throw new GuardError(
          'factorial_too_large',
          `gamma(n) is computed for n <= ${MATH_LIMITS.maxFactorial + 1} only.`,
        );
      }
      return this.factorial(this.constant(R.q(c.n - 1n)));
    }
    if (!this.polyEqual(u.den, ONE_POLY)) return this.gammaAtom(u);
    const c0 = u.num.get('')?.coef ?? R.ZERO;
    const k = R.floorQ(c0);
    if (k > BigInt(MAX_GAMMA_SHIFT) || k < -BigInt(MAX_GAMMA_SHIFT)) return this.gammaAtom(u);
    const w = this.sub(u, this.constant(R.q(k)));
    const wc = this.rationalOf(w);
    let base: RF;
    if (wc !== null && R.eq(wc, R.q(1n, 2n))) {
      this.rules.add('special_value');
      base = this.root(this.symbol('pi'), 2, 'principal'); // gamma(1/2) = sqrt(pi)
    } else base = this.gammaAtom(w);
    if (k === 0n) return base;
    this.rules.add('gamma_recurrence');
    if (k > 0n && wc === null) this.conditions.add(`${this.render(w)} is not 0, -1, -2, ...`);
    let out = base;
    if (k > 0n) for (let j = 0n; j < k; j++) out = this.mul(out, this.add(w, this.constant(R.q(j))));
    else for (let j = 1n; j <= -k; j++) out = this.div(out, this.sub(w, this.constant(R.q(j))));
    return out;
  }

  protected gammaAtom(u: RF): RF {
    return this.atom({ kind: 'gamma', key: `gamma(${this.render(u)})`, vars: this.varsOf(u), arg: u });
  }

  /**
   * binomial(n, k) (mathjs: combinations) = n!/(k!·(n-k)!) = gamma(n+1)/(gamma(k+1)·gamma(n-k+1)):
   * the definition for integers 0 ≤ k ≤ n, where mathjs defines it. Constants are exact.
   */
  protected binomial(n: RF, k: RF): RF {
    const a = this.rationalOf(n);
    const b = this.rationalOf(k);
    if (a !== null && b !== null) {
      if (!R.isInteger(a) || !R.isInteger(b) || b.n < 0n || b.n > a.n) {
        throw new MathDomainError('binomial_domain', 'binomial(n, k) is defined here for integers 0 <= k <= n only.');
      }
      if (a.n > BigInt(MAX_BINOMIAL_N))
        throw new GuardError('binomial_too_large', `binomial(n, k) is computed for n <= ${MAX_BINOMIAL_N} only.`);
      let r = 1n;
      const kk = b.n < a.n - b.n ? b.n : a.n - b.n;
      for (let j = 1n; j <= kk; j++) r = (r * (a.n - kk + j)) / j;
      return this.constant(R.q(r));
    }
    this.rules.add('binomial_as_gamma');
    const one = this.constant(R.ONE);
    return this.div(
      this.gamma(this.add(n, one)),
      this.mul(this.gamma(this.add(k, one)), this.gamma(this.add(this.sub(n, k), one))),
    );
  }

  protected mod(a: RF, b: RF): RF {
    const x = this.rationalOf(a);
    const y = this.rationalOf(b);
    if (x === null || y === null) return this.opaque('mod', [a, b]);
    if (R.isZero(y)) return this.constant(x); // mathjs: mod(x, 0) = x
    return this.constant(R.sub(x, R.mul(y, R.q(R.floorQ(R.div(x, y))))));
  }

  protected minMax(name: 'min' | 'max', args: RF[]): RF {
    const values = args.map((a) => this.rationalOf(a));
    if (values.some((v) => v === null)) return this.opaque(name, args, true);
    const qs = values as Q[];
    return this.constant(qs.reduce((m, v) => ((name === 'min' ? R.cmp(v, m) < 0 : R.cmp(v, m) > 0) ? v : m)));
  }

  protected gcdLcm(name: 'gcd' | 'lcm', args: RF[]): RF {
    const values = args.map((a) => this.rationalOf(a));
    if (values.some((v) => v === null)) return this.opaque(name, args, true);
    const ints = (values as Q[]).map((v) => {
      if (!R.isInteger(v))
        throw new MathDomainError('integer_argument_required', `${name}() takes integer arguments only.`);
      return v.n < 0n ? -v.n : v.n;
    });
    const result = ints.reduce((acc, v) => {
      if (name === 'gcd') return R.gcd(acc, v);
      if (acc === 0n || v === 0n) return 0n;
      return (acc / R.gcd(acc, v)) * v;
    });
    return this.constant(R.q(result));
  }

  // ---------------------------------------------------------------- inspection and rendering
}

/** k with c = base^k (k may be negative), or null. */
function exactLog(c: Q, base: bigint): number | null {
  if (R.sign(c) <= 0) return null;
  const [top, bottom, sign] = c.d === 1n ? [c.n, 1n, 1] : c.n === 1n ? [c.d, 1n, -1] : [0n, 0n, 0];
  if (sign === 0 || bottom !== 1n) return null;
  let k = 0;
  let v = top;
  while (v > 1n && v % base === 0n) {
    v /= base;
    k++;
  }
  return v === 1n ? sign * k : null;
}
