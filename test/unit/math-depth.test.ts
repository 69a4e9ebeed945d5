// Depth of the math prover: hyperbolic ↔ exponential forms, exp/log/root rules under the
// request's assumptions (context.domain, context.assumptions), and the gamma/factorial/binomial
// family. Every proof names the assumptions it used; false claims are never VERIFIED and a
// counterexample satisfies the declared assumptions.
import { describe, expect, it } from 'vitest';
import { mathRequestSchema, verifyMath, type MathRequest, type MathResponse } from '../../engines/math.js';

const v = (expression: string, extra: Partial<MathRequest> = {}): MathResponse => verifyMath({ expression, ...extra });
const ctx = (context: MathRequest['context']) => ({ context });

describe('hyperbolic functions in exponential form (all complex x)', () => {
  it.each([
    'sinh(x) = (exp(x) - exp(-x))/2',
    'cosh(x) = (exp(x) + exp(-x))/2',
    'cosh(x) + sinh(x) = exp(x)',
    'cosh(x) - sinh(x) = exp(-x)',
    'cosh(2*x) = (exp(2*x) + exp(-2*x))/2',
    'tanh(x) = (exp(2x) - 1)/(exp(2x) + 1)',
    'sinh(x + y) = sinh(x) cosh(y) + cosh(x) sinh(y)',
    'sinh(-x) = -sinh(x)',
    'cosh(3x) = 4 cosh(x)^3 - 3 cosh(x)',
  ])('%s is proven without assumptions', (e) => {
    const r = v(e);
    expect(r).toMatchObject({ is_valid: true, method: 'canonical_form' });
    expect(r.proof?.rules).toContain('hyperbolic_exponential');
    expect(r.proof?.assumptions_used).toEqual([]);
  });

  it.each(['sinh(x) = (exp(x) + exp(-x))/2', 'cosh(x) + sinh(x) = exp(-x)', 'cosh(2x) = exp(2x)'])(
    '%s is false',
    (e) => {
      expect(v(e)).toMatchObject({ is_valid: false, result: false });
    },
  );
});

describe('exp/log/root rules under assumptions', () => {
  it('log(x*y) = log(x) + log(y): a counterexample without assumptions, proven for positive x, y', () => {
    expect(v('log(x*y) = log(x) + log(y)')).toMatchObject({
      is_valid: false,
      counterexample: { x: '-3.7', y: '-1.6' },
    });
    const r = v('log(x*y) = log(x) + log(y)', ctx({ domain: 'positive' }));
    expect(r).toMatchObject({
      is_valid: true,
      method: 'canonical_form',
      assumptions_used: ['x positive', 'y positive'],
    });
    expect(r.message).toBe(
      'Identity proven: both sides reduce to the same canonical form (difference 0) under the assumptions x positive, y positive.',
    );
    expect(r.proof).toMatchObject({
      domain: 'positive',
      assumptions: ['all variables positive'],
      assumptions_used: ['x positive', 'y positive'],
      rules: ['log_of_product'],
    });
    const per = v('log(x*y) = log(x) + log(y)', ctx({ assumptions: { x: 'positive', y: ['positive'] } }));
    expect(per.proof).toMatchObject({
      domain: 'complex',
      assumptions: ['x positive', 'y positive'],
      assumptions_used: ['x positive', 'y positive'],
    });
  });

  it('the real domain alone does not prove log(x*y) = log(x) + log(y)', () => {
    expect(v('log(x*y) = log(x) + log(y)', ctx({ domain: 'real' }))).toMatchObject({
      status: 'BLOCKED',
      is_valid: false,
    });
  });

  it('log(x^n) = n log(x) and (x^a)^b = x^(a*b) for positive variables only', () => {
    expect(v('log(x^n) = n*log(x)').is_valid).toBe(false);
    expect(v('log(x^n) = n*log(x)', ctx({ domain: 'positive' })).assumptions_used).toEqual(['n real', 'x positive']);
    expect(v('log(x^3) = 3 log(x)', ctx({ assumptions: { x: 'positive' } })).assumptions_used).toEqual(['x positive']);
    expect(v('(x^a)^b = x^(a*b)')).toMatchObject({ is_valid: false, method: 'numerical_sampling' });
    expect(v('(x^a)^b = x^(a*b)', ctx({ domain: 'positive' }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['a real', 'x positive'],
    });
  });

  it('sqrt(x^2): x for non-negative x, |x| for real x, a counterexample otherwise', () => {
    expect(v('sqrt(x^2) = x')).toMatchObject({ is_valid: false, counterexample: { x: '-2.9' } });
    expect(v('sqrt(x^2) = x', ctx({ domain: 'nonnegative' }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['x nonnegative'],
    });
    expect(v('sqrt(x^2) = abs(x)', ctx({ domain: 'real' }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['x real'],
    });
    expect(v('sqrt(x^2) = x', ctx({ domain: 'real' }))).toMatchObject({
      is_valid: false,
      counterexample: { x: '-2.9' },
    });
    expect(v('sqrt(x*y) = sqrt(x)*sqrt(y)', ctx({ domain: 'positive' })).is_valid).toBe(true);
    expect(v('cbrt(x^3) = x', ctx({ domain: 'real' })).is_valid).toBe(true);
  });

  it('log of a power of a positive polynomial splits only when the base is provably positive', () => {
    const r = v('log(x^3*(y + 1)^2) = 3*log(x) + 2*log(y + 1)', ctx({ domain: 'positive' }));
    expect(r).toMatchObject({
      is_valid: true,
      method: 'canonical_form',
      assumptions_used: ['x positive', 'y positive'],
    });
    expect(r.proof?.rules).toEqual(
      expect.arrayContaining(['log_of_product', 'log_of_power', 'polynomial_perfect_power']),
    );
    expect(v('log((y + 1)^6) = 6*log(y + 1)', ctx({ assumptions: { y: 'nonnegative' } }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['y nonnegative'],
    });
    expect(v('log(2*(y + 1)^2) = log(2) + 2*log(y + 1)', ctx({ domain: 'positive' })).is_valid).toBe(true);
    // y - 1 is not positive for every positive y (y = 1/2): no rewrite, and a counterexample.
    expect(v('log((y - 1)^2) = 2*log(y - 1)', ctx({ domain: 'positive' }))).toMatchObject({
      is_valid: false,
      method: 'numerical_sampling',
    });
    // Without assumptions log((y+1)^2) = 2 log(y+1) fails for y + 1 in the left half-plane.
    expect(v('log((y + 1)^2) = 2*log(y + 1)')).toMatchObject({ is_valid: false, method: 'numerical_sampling' });
    expect(v('log((y + 1)^2) = 3*log(y + 1)', ctx({ domain: 'positive' })).is_valid).toBe(false);
  });

  it('odd powers under a square root: sqrt(x^(2m)) = x^(2k)·|x| for real x only', () => {
    for (const e of ['sqrt(x^6) = x^2*abs(x)', 'sqrt(x^10) = x^4*abs(x)', 'sqrt(x^6) = abs(x)^3', 'abs(x)^2 = x^2']) {
      const r = v(e, ctx({ domain: 'real' }));
      expect(r, e).toMatchObject({ is_valid: true, method: 'canonical_form', assumptions_used: ['x real'] });
    }
    expect(v('sqrt(x^6) = abs(x)^3', ctx({ domain: 'real' })).proof?.rules).toContain('abs_square_of_real');
    // |x|^2 = x^2 is false for complex x (x = i: 1 vs -1); x^3 is negative for negative x.
    expect(v('abs(x)^2 = x^2').is_valid).toBe(false);
    expect(v('sqrt(x^6) = x^2*abs(x)').is_valid).toBe(false);
    expect(v('sqrt(x^6) = x^3', ctx({ domain: 'real' })).is_valid).toBe(false);
    expect(v('sqrt(x^6) = 2*x^2*abs(x)', ctx({ domain: 'real' })).is_valid).toBe(false);
  });

  it('exp(log(x)) = x holds for every x != 0 (principal logarithm); log(exp(x)) = x needs real x', () => {
    const r = v('exp(log(x)) = x');
    expect(r).toMatchObject({ is_valid: true, method: 'canonical_form' });
    expect(r.assumptions_used).toBeUndefined();
    expect(r.proof?.rules).toContain('exp_of_log');
    expect(v('exp(2*log(x)) = x^2').is_valid).toBe(true);
    expect(v('log(exp(x)) = x')).toMatchObject({ status: 'BLOCKED', is_valid: false });
    expect(v('log(exp(x)) = x', ctx({ domain: 'real' }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['x real'],
    });
  });

  it('exp(a+b) = exp(a)exp(b) unconditionally; exp(n x) = exp(x)^n for integer n', () => {
    expect(v('exp(a + b) = exp(a)*exp(b)').is_valid).toBe(true);
    expect(v('exp(3x) = exp(x)^3').is_valid).toBe(true);
    expect(v('exp(n*x) = exp(x)^n').is_valid).toBe(false);
    expect(v('exp(n*x) = exp(x)^n', ctx({ assumptions: { n: 'integer' } }))).toMatchObject({
      is_valid: true,
      assumptions_used: ['n integer'],
    });
    expect(v('x^y * x^z = x^(y+z)').proof?.conditions).toEqual(['x != 0']);
  });

  it('a counterexample satisfies the declared assumptions', () => {
    const r = v('log(x + y) = log(x) + log(y)', ctx({ domain: 'positive' }));
    expect(r.is_valid).toBe(false);
    for (const value of Object.values(r.counterexample ?? {})) expect(Number(value)).toBeGreaterThan(0);
    const n = v('n^2 = n', ctx({ assumptions: { n: 'integer' } }));
    expect(n.is_valid).toBe(false);
    const m = v('sin(pi*n) = 1', ctx({ assumptions: { n: 'integer' } }));
    expect(m.is_valid).toBe(false);
    expect(Number.isInteger(Number(m.counterexample?.n))).toBe(true);
  });

  it('validates the context strictly', () => {
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { domain: 'positive' } }).success).toBe(true);
    expect(
      mathRequestSchema.safeParse({ expression: 'x', context: { assumptions: { x: ['positive', 'integer'] } } })
        .success,
    ).toBe(true);
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { domain: 'negative' } }).success).toBe(false);
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { assumptions: { x: 'prime' } } }).success).toBe(
      false,
    );
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { assumptions: { 'x y': 'real' } } }).success).toBe(
      false,
    );
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { assumptions: { x: [] } } }).success).toBe(false);
  });
});

describe('gamma, factorial and binomial', () => {
  it.each([
    'gamma(x+1) = x*gamma(x)',
    'gamma(x+2) = (x+1)*x*gamma(x)',
    'gamma(x) = (x-1)*gamma(x-1)',
    'factorial(n) = n*factorial(n-1)',
    'n! = n*(n-1)!',
    'factorial(x) = gamma(x+1)',
    'binomial(n, k) = binomial(n, n-k)',
    'binomial(n, k) = factorial(n)/(factorial(k)*factorial(n-k))',
    'binomial(n, k) = binomial(n-1, k-1) + binomial(n-1, k)',
    'combinations(n, k) = binomial(n, k)',
    'binomial(n, 2) = n*(n-1)/2',
    'gamma(1/2) = sqrt(pi)',
    'gamma(5) = 24',
    'binomial(10, 3) = 120',
  ])('%s is proven', (e) => {
    expect(v(e)).toMatchObject({ is_valid: true, method: 'canonical_form' });
  });

  it('records the condition of the gamma recurrence', () => {
    expect(v('gamma(x+1) = x*gamma(x)').proof).toMatchObject({
      rules: ['gamma_recurrence'],
      conditions: ['x is not 0, -1, -2, ...'],
    });
  });

  it.each([
    ['gamma(x+1) = gamma(x) + 1', 'x'],
    ['gamma(x+1) = (x+1)*gamma(x)', 'x'],
    ['factorial(n) = n*factorial(n-2)', 'n'],
    ['binomial(n, k) = binomial(n-1, k-1)', 'n'],
    ['binomial(n, k) = binomial(n, k+1)', 'n'],
  ])('%s is false with a counterexample', (e, variable) => {
    const r = v(e);
    expect(r).toMatchObject({ is_valid: false, result: false, method: 'numerical_sampling' });
    expect(r.counterexample?.[variable]).toBeDefined();
  });

  it('keeps the numeric guards and poles', () => {
    expect(v('gamma(200)')).toMatchObject({ status: 'BLOCKED', error: 'factorial_too_large' });
    expect(v('factorial(171)')).toMatchObject({ status: 'BLOCKED', error: 'factorial_too_large' });
    expect(v('binomial(5000, 2)')).toMatchObject({ status: 'BLOCKED', error: 'binomial_too_large' });
    expect(v('gamma(0)')).toMatchObject({ is_valid: false, error: 'gamma_pole' });
    expect(v('gamma(-2)')).toMatchObject({ is_valid: false, error: 'gamma_pole' });
    expect(v('binomial(3, 5)')).toMatchObject({ is_valid: false, error: 'binomial_domain' });
    expect(v('gamma(4.5)')).toMatchObject({ is_valid: true });
    expect(Number(v('gamma(0.5)^2').value)).toBeCloseTo(Math.PI, 12);
  });
});
