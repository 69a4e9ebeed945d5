import { beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { createHash } from 'node:crypto';
import { newTenant, post, retainedProof, type Member } from './helpers.js';

describe('POST /verify/math through the workflow', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/math', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('proves an identity symbolically: VERIFIED with a retained proof and a signed attestation', async () => {
    const res = await verify({ expression: '(x+1)^2 = x^2 + 2*x + 1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      result: true,
      simplified_difference: '0',
      is_authoritative: true,
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(res.body.proof).toBeUndefined();
    const stored = await retainedProof(res.body.proof_ref);
    expect(stored?.artifact).toMatchObject({ method: 'canonical_form', expression: '(x+1)^2 = x^2 + 2*x + 1' });
    const token = res.body.attestation.token as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'svc-attestation+jwt' });
    const claims = decodeJwt(token) as any;
    expect(claims.svc.proof_hash).toBe(res.body.proof_ref);
    expect(claims.svc.query_hash).toBe(
      `sha256:${createHash('sha256').update('(x+1)^2 = x^2 + 2*x + 1').digest('hex')}`,
    );
    expect(claims.svc.result).toEqual({ status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 });
    expect(claims.jti).toBe(res.body.attestation.id);
  });

  it('accepts ** as exponentiation', async () => {
    const res = await verify({ expression: '(a+b)**2 = a**2 + 2*a*b + b**2' });
    expect(res.body.status).toBe('VERIFIED');
  });

  it('reports a non-identity with its difference, never VERIFIED', async () => {
    const res = await verify({ expression: '(x+1)^2 = x^2 + 1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      is_valid: false,
      simplified_difference: '2*x',
      proof_ref: null,
      is_authoritative: false,
    });
  });

  it('evaluates an expression without calling it VERIFIED', async () => {
    const res = await verify({ expression: '2^10 + 3*7' });
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      is_valid: true,
      value: 1045,
      proof_ref: null,
      is_authoritative: false,
    });
  });

  it('blocks implicit multiplication after division as ambiguous', async () => {
    const res = await verify({ expression: '8/2(2+2)' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      is_valid: false,
      result: false,
      warning: 'ambiguous',
      proof_ref: null,
    });
    expect(typeof res.body.message).toBe('string');
    expect(typeof res.body.simplified).toBe('string');
  });

  it.each(['1/0', 'log(0)'])('reports the domain error of %s', async (expression) => {
    const res = await verify({ expression });
    expect(res.body.is_valid).toBe(false);
    expect(typeof res.body.error).toBe('string');
    expect(typeof res.body.message).toBe('string');
    expect(res.body.status).not.toBe('VERIFIED');
  });

  it('reports sqrt of a negative in the real domain as an error', async () => {
    const res = await verify({ expression: 'sqrt(-4)', context: { domain: 'real' } });
    expect(res.body.is_valid).toBe(false);
    expect(typeof res.body.error).toBe('string');
  });

  it.each(['9^9^9', '10^1000000', '100000!', 'zeros(5000,5000)', 'f(x)=x', 'import({}, {})', 'evaluate("1")'])(
    'rejects %s before evaluating it',
    async (expression) => {
      const started = Date.now();
      const res = await verify({ expression });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'BLOCKED', is_valid: false, proof_ref: null });
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );

  it.each([-0.5, 'NaN', 'Infinity', 'abc', 1000])('blocks the tolerance %s', async (tolerance) => {
    const res = await verify({ expression: '2 + 2 = 4', tolerance });
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      is_correct: false,
      requested_tolerance: String(tolerance),
      max_allowed_tolerance: expect.any(String),
      calculated_value: expect.any(String),
      precision_mode: expect.stringMatching(/^(decimal|float)$/),
    });
    expect(typeof res.body.error).toBe('string');
  });

  it('proves 0.1 + 0.2 = 0.3 exactly', async () => {
    const res = await verify({ expression: '0.1 + 0.2 = 0.3' });
    expect(res.body).toMatchObject({ status: 'VERIFIED', is_valid: true });
  });

  it.each([
    [{}, "Invalid field 'expression'"],
    [{ expression: 42 }, "Invalid field 'expression'"],
    [{ expression: '' }, "Invalid field 'expression'"],
  ])('rejects the bad request %j with 400 naming the field', async (body, detail) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(detail);
  });

  it('ignores unknown fields', async () => {
    const res = await verify({ expression: '1 + 1', client_version: '9.9', extra: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.value).toBe(2);
  });
});
