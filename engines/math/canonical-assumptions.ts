// Canonical forms, part 2 of 3: the assumption rules (engines/math/canonical.ts has the
// overview). Sign and reality of factors, polynomials and rational functions under the
// request's assumptions ("x positive"), each use recorded for the proof.
import { ONE_POLY, PolynomialForms, type Factor, type Poly, type RF } from './canonical-polynomials.js';
import type { Property } from './assumptions.js';
import * as R from './rational.js';

/**
 * What the request's assumptions allow: positivity, non-negativity, reality and integrality of
 * factors, polynomials and rational functions. Every use is recorded (`commit`) so the proof
 * names the assumptions it relied on.
 */
export abstract class AssumptionRules extends PolynomialForms {
  protected commit(uses: Set<string>, rule: string): void {
    for (const u of uses) this.assumptionsUsed.add(u);
    this.rules.add(rule);
  }

  // ---------------------------------------------------------------- properties (conservative)

  protected varHas(name: string, p: Property, uses: Set<string>): boolean {
    if (!this.assumptions.has(name, p)) return false;
    uses.add(`${name} ${p}`);
    return true;
  }

  /** f > 0 for every value of the variables allowed by the assumptions. */
  protected isPositiveFactor(f: Factor, uses: Set<string>): boolean {
    switch (f.kind) {
      case 'var':
        return this.varHas(f.key, 'positive', uses);
      case 'pi':
        return true;
      case 'root':
        return f.radicand !== null && f.radicand !== undefined && this.isPositivePoly(f.radicand, uses);
      case 'gamma':
        return this.isPositiveRF(f.arg as RF, uses);
      case 'log':
        return false;
      default:
        return false;
    }
  }

  protected isNonnegativeFactor(f: Factor, uses: Set<string>): boolean {
    if (f.kind === 'var') return this.varHas(f.key, 'nonnegative', uses);
    if (f.kind === 'opaque' && f.key.startsWith('abs(')) return true;
    if (f.kind === 'root')
      return f.radicand !== null && f.radicand !== undefined && this.isNonnegativePoly(f.radicand, uses);
    return this.isPositiveFactor(f, uses);
  }

  protected isRealFactor(f: Factor, uses: Set<string>): boolean {
    switch (f.kind) {
      case 'var':
        return this.varHas(f.key, 'real', uses);
      case 'pi':
        return true;
      case 'sin':
      case 'cos':
        return this.isRealRF(f.arg as RF, uses);
      case 'log':
        return this.isPositiveRF(f.arg as RF, uses);
      case 'gamma':
        return this.isRealRF(f.arg as RF, uses);
      case 'root': {
        if (!f.radicand) return false;
        if ((f.index as number) % 2 === 1 && f.flavor !== 'principal') return this.isRealPoly(f.radicand, uses);
        return this.isNonnegativePoly(f.radicand, uses);
      }
      case 'opaque':
        return f.key.startsWith('abs(');
      default:
        return false;
    }
  }

  /** Every term ≥ 0 and at least one term > 0 (y + 1 for non-negative y). */
  protected isPositivePoly(p: Poly, uses: Set<string>): boolean {
    if (p.size === 0) return false;
    const local = new Set<string>();
    let strict = false;
    for (const t of p.values()) {
      if (R.sign(t.coef) <= 0) return false;
      if (t.mono.exp && !this.isRealRF(t.mono.exp, local)) return false;
      const trial = new Set<string>();
      if (t.mono.factors.every(([k]) => this.isPositiveFactor(this.factors.get(k) as Factor, trial))) {
        strict = true;
        for (const u of trial) local.add(u);
        continue;
      }
      for (const [k, e] of t.mono.factors) {
        const f = this.factors.get(k) as Factor;
        if (e < 0 && !this.isPositiveFactor(f, local)) return false;
        if (!this.isNonnegativeFactor(f, local) && !(e % 2 === 0 && this.isRealFactor(f, local))) return false;
      }
    }
    if (!strict) return false;
    for (const u of local) uses.add(u);
    return true;
  }

  /** Every term ≥ 0 (non-negative factors, or real factors to even powers) and some positive coefficient. */
  protected isNonnegativePoly(p: Poly, uses: Set<string>): boolean {
    if (p.size === 0) return true;
    for (const t of p.values()) {
      if (R.sign(t.coef) <= 0) return false;
      if (t.mono.exp && !this.isRealRF(t.mono.exp, uses)) return false;
      for (const [k, e] of t.mono.factors) {
        const f = this.factors.get(k) as Factor;
        if (e < 0 && !this.isPositiveFactor(f, uses)) return false;
        if (!this.isNonnegativeFactor(f, uses) && !(e % 2 === 0 && this.isRealFactor(f, uses))) return false;
      }
    }
    return true;
  }

  protected isRealPoly(p: Poly, uses: Set<string>): boolean {
    for (const t of p.values()) {
      if (t.mono.exp && !this.isRealRF(t.mono.exp, uses)) return false;
      if (!t.mono.factors.every(([k]) => this.isRealFactor(this.factors.get(k) as Factor, uses))) return false;
    }
    return true;
  }

  isPositiveRF(a: RF, uses: Set<string>): boolean {
    return this.isPositivePoly(a.num, uses) && this.isPositivePoly(a.den, uses);
  }

  isRealRF(a: RF, uses: Set<string>): boolean {
    return this.isRealPoly(a.num, uses) && this.isRealPoly(a.den, uses);
  }

  protected isNonnegativeRF(a: RF, uses: Set<string>): boolean {
    return this.isNonnegativePoly(a.num, uses) && this.isPositivePoly(a.den, uses);
  }

  /** An integer for every value allowed by the assumptions (integer coefficients, integer variables). */
  protected isIntegerRF(a: RF, uses: Set<string>): boolean {
    if (!this.polyEqual(a.den, ONE_POLY)) return false;
    for (const t of a.num.values()) {
      if (!R.isInteger(t.coef) || t.mono.exp) return false;
      for (const [k, e] of t.mono.factors) {
        const f = this.factors.get(k) as Factor;
        if (e < 0 || f.kind !== 'var' || !this.varHas(f.key, 'integer', uses)) return false;
      }
    }
    return true;
  }
}
