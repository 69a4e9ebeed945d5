// Canonical forms: the symbolic proof engine.
//
// An expression is turned into a rational function num/den whose numerator and denominator are
// polynomials with exact rational coefficients over "factors": variables, pi, i, and atoms
// (roots, sin/cos/..., log, opaque calls). Every rewrite used is an identity valid for all
// complex values where both sides are defined (principal branches, as mathjs computes them):
//
//   ring laws (expand, collect, cancel)      exact rational arithmetic on literals
//   i^2 = -1                                  root_n(u)^n = u       (sqrt, cbrt, nthRoot, u^(1/n))
//   b^(p/q) = (b^(1/q))^p  (principal)        sqrt(c), cbrt(c), ... of rational constants: exact
//                                              when perfect powers, small square factors pulled out
//   exp(a)·exp(b) = exp(a+b), e = exp(1),     e^z = exp(z), log(e) = 1, log(exp(c)) = c (c rational)
//   sin(u)^2 = 1 - cos(u)^2                    sinh(u) = (exp(u) - exp(-u))/2, cosh likewise
//   tan = sin/cos, tanh = sinh/cosh           sin, tan odd; cos even (parity)
//   exp(c·log u) = u^c (integer c)            u^v = exp(v·log u) (principal power, u != 0)
//   gamma(z+1) = z·gamma(z), n! = gamma(n+1), binomial(n,k) = n!/(k!(n-k)!)
//   under the request's assumptions only: log of products/quotients/powers of positives,
//   log(exp(E)) = E for real E, roots of non-negative or real monomials, |u| = u for u >= 0,
//   |u|^2 = u^2 for real u, log(q^k) = k·log(q) for a positive polynomial q
//   sin, cos at rational multiples of pi with denominators 1, 2, 3, 4, 6
//   special values: sin(0), cos(0), exp(0), log(1), log10(10^k), log2(2^k), asin(0), acos(1), atan(0)
//   abs, sign, floor, ceil, round, min, max, mod, gcd, lcm, n! of rational constants: exact
//
// Division by a non-constant records the condition "divisor != 0": identities involving
// rational functions hold wherever both sides are defined. Two expressions with the same
// canonical difference 0 are therefore equal (a proof); a non-zero difference proves the
// opposite only when the only factors left are variables, pi and i (decided by the caller).
// Sizes are budgeted: past the budget a CanonicalLimitError is thrown and the caller falls
// back to (non-proving) numerical evaluation.
//
// The parts: canonical-polynomials.ts (the ring and rendering), canonical-assumptions.ts (what the
// assumptions allow), canonical-functions.ts (the function rules), and here the entry point.
import { ONE_POLY, type RF } from './canonical-polynomials.js';
import { ANGLE_FUNCTIONS, lcmBig, FunctionRules } from './canonical-functions.js';
import { GuardError } from './errors.js';
import { ALLOWED_FUNCTIONS } from './guards.js';
import { MATH_LIMITS } from './limits.js';
import type { AstNode } from './mathjs-instance.js';
import * as R from './rational.js';

export type { Domain, Poly, RF } from './canonical-polynomials.js';

/**
 * The canonicalizer: parses a mathjs tree into the canonical rational function, dispatching
 * operators and calls to the rules (canonical-functions.ts) over the polynomial ring
 * (canonical-polynomials.ts) under the request's assumptions (canonical-assumptions.ts).
 */
export class Canonicalizer extends FunctionRules {
  /**
   * Collects the angle basis from every trigonometric and hyperbolic argument of the request's
   * trees. With the basis shared by both sides, sin(2x) and 2·sin(x)·cos(x) expand to the same
   * polynomial in sin(x), cos(x) (Pythagorean reduction keeps it canonical).
   */
  prepareAngles(nodes: readonly AstNode[]): void {
    const scratch = new Canonicalizer(this.domain, this.assumptions);
    const visit = (node: AstNode | undefined, depth: number): void => {
      if (!node || depth > 200) return;
      if (node.type === 'FunctionNode') {
        const name = (node.fn as AstNode | undefined)?.name as string | undefined;
        const arg = node.args?.[0];
        if (arg && name && ANGLE_FUNCTIONS.has(name)) {
          try {
            const u = scratch.fromNode(arg);
            if (scratch.polyEqual(u.den, ONE_POLY)) {
              for (const t of u.num.values()) {
                if (t.mono.exp !== null || t.mono.key === '' || t.mono.key === 'pi') continue;
                const prev = this.angleDen.get(t.mono.key) ?? 1n;
                this.angleDen.set(t.mono.key, lcmBig(prev, t.coef.d));
              }
            }
          } catch {
            // The main pass reports the argument's problem; the basis just ignores it.
          }
        }
      }
      for (const a of node.args ?? []) visit(a, depth + 1);
      if (node.content) visit(node.content as AstNode, depth + 1);
    };
    for (const n of nodes) visit(n, 0);
  }

  // ---------------------------------------------------------------- parse tree → RF

  fromNode(node: AstNode): RF {
    switch (node.type) {
      case 'ConstantNode': {
        const value = R.parseDecimal(String(node.value));
        if (!value)
          throw new GuardError('literal_not_allowed', `Unsupported literal ${String(node.value).slice(0, 40)}.`);
        return this.constant(value);
      }
      case 'ParenthesisNode':
        return this.fromNode(node.content as AstNode);
      case 'SymbolNode':
        return this.symbol(node.name as string);
      case 'OperatorNode':
        return this.operator(
          String(node.fn),
          (node.args ?? []).map((a) => this.fromNode(a)),
        );
      case 'FunctionNode':
        return this.call((node.fn as AstNode).name as string, node.args ?? []);
      default:
        throw new GuardError('node_not_allowed', `Expression element ${node.type} is not allowed.`);
    }
  }

  protected operator(fn: string, args: RF[]): RF {
    const [a, b] = args as [RF, RF];
    switch (fn) {
      case 'add':
        return this.add(a, b);
      case 'subtract':
        return this.sub(a, b);
      case 'multiply':
        return this.mul(a, b);
      case 'divide':
        return this.div(a, b);
      case 'unaryMinus':
        return this.neg(a);
      case 'unaryPlus':
        return a;
      case 'pow':
        return this.power(a, b);
      case 'factorial':
        return this.factorial(a);
      case 'mod':
        return this.mod(a, b);
      default:
        throw new GuardError('operator_not_allowed', `The operator ${fn} is not allowed.`);
    }
  }

  protected call(name: string, argNodes: AstNode[]): RF {
    if (!Object.hasOwn(ALLOWED_FUNCTIONS, name))
      throw new GuardError('function_not_allowed', `The function ${name}() is not on the allow-list.`);
    const args = argNodes.map((a) => this.fromNode(a));
    const [u, v] = args as [RF, RF | undefined];
    switch (name) {
      case 'sqrt':
        return this.root(u, 2, 'principal');
      case 'cbrt':
        return this.root(u, 3, 'cbrt');
      case 'nthRoot':
        return this.root(
          u,
          v === undefined ? 2 : this.smallInteger(v, 'nthRoot', 1, MATH_LIMITS.maxRootIndex),
          'nthRoot',
        );
      case 'exp':
        return this.expOf(u);
      case 'log':
        return v === undefined ? this.log(u) : this.div(this.log(u), this.log(v));
      case 'log10':
        return this.logBase(u, 10n, 'log10');
      case 'log2':
        return this.logBase(u, 2n, 'log2');
      case 'sin':
      case 'cos':
        return this.trig(name, u);
      case 'tan':
        this.rules.add('tan_quotient');
        return this.div(this.trig('sin', u), this.trig('cos', u));
      case 'sinh':
      case 'cosh':
        return this.hyperbolic(name, u);
      case 'tanh':
        this.rules.add('tanh_quotient');
        return this.div(this.hyperbolic('sinh', u), this.hyperbolic('cosh', u));
      case 'gamma':
        return this.gamma(u);
      case 'binomial':
      case 'combinations':
        return this.binomial(u, v as RF);
      case 'asin':
      case 'atan':
        return this.isZero(u) ? this.special(this.constant(R.ZERO)) : this.opaque(name, [u]);
      case 'acos': {
        const c = this.rationalOf(u);
        return c && R.isOne(c) ? this.special(this.constant(R.ZERO)) : this.opaque(name, [u]);
      }
      case 'abs':
        return this.absOf(u);
      case 'sign':
        return this.signOf(u);
      case 'floor':
      case 'ceil':
      case 'round':
        return this.rounding(name, u, v);
      case 'factorial':
        return this.factorial(u);
      case 'mod':
        return this.mod(u, v as RF);
      case 'min':
      case 'max':
        return this.minMax(name, args);
      case 'gcd':
      case 'lcm':
        return this.gcdLcm(name, args);
      default:
        throw new GuardError('function_not_allowed', `The function ${name}() is not on the allow-list.`);
    }
  }
}
