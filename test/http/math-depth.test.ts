// The math engine's depth rules through the real stack (issue 15): hyperbolic ↔ exponential,
// exp/log/root rules under context assumptions, and the gamma/factorial/binomial family.
// VERIFIED only with a retained proof (proof_ref) whose record names the assumptions used.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, retainedProof, type Member } from './helpers.js';

describe('POST /verify/math: depth rules', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/math', body, { 'x-api-key': t.key });
  const storedProof = async (ref: string) => (await retainedProof(ref))?.artifact as Record<string, unknown>;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('proves a hyperbolic identity in exponential form: VERIFIED with proof_ref', async () => {
    const res = await verify({ expression: 'cosh(x) + sinh(x) = exp(x)' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      simplified_difference: '0',
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const proof = await storedProof(res.body.proof_ref);
    expect(proof).toMatchObject({ method: 'canonical_form', domain: 'complex', assumptions: [], assumptions_used: [] });
    expect(proof.rules).toContain('hyperbolic_exponential');
  });

  it('log(x*y) = log(x) + log(y) without assumptions: a counterexample, never VERIFIED', async () => {
    const res = await verify({ expression: 'log(x*y) = log(x) + log(y)' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      is_valid: false,
      proof_ref: null,
      counterexample: { x: '-3.7', y: '-1.6' },
    });
  });

  it('the same identity under context.domain positive: VERIFIED, the assumptions named', async () => {
    const res = await verify({ expression: 'log(x*y) = log(x) + log(y)', context: { domain: 'positive' } });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      assumptions_used: ['x positive', 'y positive'],
    });
    expect(res.body.message).toContain('under the assumptions x positive, y positive');
    const proof = await storedProof(res.body.proof_ref);
    expect(proof).toMatchObject({
      domain: 'positive',
      assumptions: ['all variables positive'],
      assumptions_used: ['x positive', 'y positive'],
      rules: ['log_of_product'],
    });
  });

  it('sqrt(x^2) = x: false without assumptions, VERIFIED for a non-negative x (per-variable assumption)', async () => {
    const bare = await verify({ expression: 'sqrt(x^2) = x' });
    expect(bare.body).toMatchObject({ status: 'UNVERIFIABLE', is_valid: false, counterexample: { x: '-2.9' } });
    const res = await verify({ expression: 'sqrt(x^2) = x', context: { assumptions: { x: 'nonnegative' } } });
    expect(res.body).toMatchObject({ status: 'VERIFIED', assumptions_used: ['x nonnegative'] });
  });

  it('log of a power of a positive polynomial factor: VERIFIED under positivity, never without it', async () => {
    for (const expression of [
      'log(x**3*(y + 1)**2) = 3*log(x) + 2*log(y + 1)',
      'log(x**2*(y + 1)**2) = 2*log(x) + 2*log(y + 1)',
    ]) {
      const res = await verify({ expression, context: { domain: 'positive' } });
      expect(res.body, expression).toMatchObject({
        status: 'VERIFIED',
        is_valid: true,
        assumptions_used: ['x positive', 'y positive'],
      });
      const proof = await storedProof(res.body.proof_ref);
      expect(proof.rules).toEqual(
        expect.arrayContaining(['log_of_product', 'log_of_power', 'polynomial_perfect_power']),
      );
      const bare = await verify({ expression });
      expect(bare.body, expression).toMatchObject({ is_valid: false, proof_ref: null });
      expect(bare.body.status).not.toBe('VERIFIED');
    }
    const notPositive = await verify({ expression: 'log((y - 1)**2) = 2*log(y - 1)', context: { domain: 'positive' } });
    expect(notPositive.body).toMatchObject({ is_valid: false, proof_ref: null });
  });

  it('odd powers of |x| under a square root: VERIFIED for real x, never for complex x', async () => {
    for (const expression of ['sqrt(x**6) = x**2*abs(x)', 'sqrt(x**10) = x**4*abs(x)']) {
      const res = await verify({ expression, context: { domain: 'real' } });
      expect(res.body, expression).toMatchObject({ status: 'VERIFIED', is_valid: true, assumptions_used: ['x real'] });
      expect((await storedProof(res.body.proof_ref)).rules).toContain('abs_square_of_real');
      const bare = await verify({ expression });
      expect(bare.body, expression).toMatchObject({ is_valid: false, proof_ref: null });
    }
    expect((await verify({ expression: 'sqrt(x**6) = x**3', context: { domain: 'real' } })).body).toMatchObject({
      is_valid: false,
      proof_ref: null,
    });
  });

  it('(x^a)^b = x^(a*b) is not VERIFIED without positivity, VERIFIED with it', async () => {
    expect((await verify({ expression: '(x^a)^b = x^(a*b)' })).body.status).not.toBe('VERIFIED');
    expect((await verify({ expression: '(x^a)^b = x^(a*b)', context: { domain: 'real' } })).body.status).not.toBe(
      'VERIFIED',
    );
    const res = await verify({ expression: '(x^a)^b = x^(a*b)', context: { domain: 'positive' } });
    expect(res.body).toMatchObject({ status: 'VERIFIED', assumptions_used: ['a real', 'x positive'] });
  });

  it('proves gamma(x+1) = x*gamma(x) (the reference disproves it) and Pascal’s rule', async () => {
    const res = await verify({ expression: 'gamma(x+1) = x*gamma(x)' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      proof_ref: expect.stringMatching(/^sha256:/),
    });
    const proof = await storedProof(res.body.proof_ref);
    expect(proof).toMatchObject({ rules: ['gamma_recurrence'], conditions: ['x is not 0, -1, -2, ...'] });
    const pascal = await verify({
      expression: 'binomial(n, k) = binomial(n-1, k-1) + binomial(n-1, k)',
      context: { assumptions: { n: ['positive', 'integer'], k: ['positive', 'integer'] } },
    });
    expect(pascal.body).toMatchObject({ status: 'VERIFIED', is_valid: true });
  });

  it('gamma(x+1) = gamma(x) + 1 is false with its counterexample', async () => {
    const res = await verify({ expression: 'gamma(x+1) = gamma(x) + 1' });
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      is_valid: false,
      proof_ref: null,
      method: 'numerical_sampling',
      counterexample: { x: '0.7' },
    });
    expect(res.body.message).toMatch(/^The sides are not equal: at x = 0\.7 the left side is 0\.908/);
  });

  it('a factorial claim false for positive integers gets an integer counterexample', async () => {
    const res = await verify({
      expression: 'factorial(n) = n^2*factorial(n-1)',
      context: { assumptions: { n: ['positive', 'integer'] } },
    });
    expect(res.body).toMatchObject({ status: 'UNVERIFIABLE', is_valid: false });
    expect(Number.isInteger(Number(res.body.counterexample.n))).toBe(true);
    expect(Number(res.body.counterexample.n)).toBeGreaterThan(0);
  });

  it('keeps the factorial guard for gamma and rejects unknown assumptions with 400', async () => {
    expect((await verify({ expression: 'gamma(500)' })).body).toMatchObject({
      status: 'BLOCKED',
      error: 'factorial_too_large',
    });
    const bad = await verify({ expression: 'x = x', context: { assumptions: { x: 'prime' } } });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.detail).toBe('string');
  });
});
