import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';

describe('POST /verify/logic', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/logic', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('answers SAT with a model for every variable (S-expression form)', async () => {
    const res = await verify({ query: '(AND (GT x 5) (LT x 7) (EQ y (PLUS x 1)))' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'SAT',
      model: { x: '6', y: '7' },
      independent_check: { coverage: 'full', constraints_total: 1, constraints_unchecked_quantified: 0 },
      provider_used: null,
    });
    expect(res.headers.get('x-workflow-id')).toMatch(/^verify-logic-/);
  });

  it('answers SAT in call form with exact rationals for Real', async () => {
    const res = await verify({ query: 'VAR(x, Real) EQ(MULT(3, x), 1)' });
    expect(res.body).toEqual({
      status: 'SAT',
      model: { x: '1/3' },
      independent_check: { coverage: 'full', constraints_total: 1, constraints_unchecked_quantified: 0 },
      provider_used: null,
    });
  });

  it('answers UNSAT', async () => {
    const res = await verify({ query: '(AND (GT x 5) (LT x 3))' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'UNSAT',
      unsat_core: [
        { index: 1, position: 6, constraint: '(GT x 5)' },
        { index: 2, position: 15, constraint: '(LT x 3)' },
      ],
      provider_used: null,
    });
  });

  it.each([
    ['a string literal', '(EQ x "abc")'],
    ['an unknown operator', '(SYSTEM x)'],
    ['wrong arity', '(NOT x y)'],
    ['nesting beyond the limit', `${'(NOT '.repeat(200)}b${')'.repeat(200)}`],
  ])('blocks %s with 403', async (_label, query) => {
    const res = await verify({ query });
    expect(res.status).toBe(403);
    expect(res.body.status).toBe('BLOCKED');
    expect(typeof res.body.reason).toBe('string');
    expect(typeof res.body.detail).toBe('string');
  });

  it('rejects unbalanced input with 400 and the position', async () => {
    const res = await verify({ query: '(AND (GT x 5) (LT x 7)' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/position \d+/);
  });

  it('fails closed on natural language the local translator cannot read', async () => {
    const res = await verify({ query: 'Is there a number greater than five and less than seven?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ERROR',
      error: 'Internal verification error',
      provider_used: 'local',
      reason: 'not_translatable',
    });
    expect(res.body.model).toBeUndefined();
  });

  it('rejects a missing query with 400', async () => {
    const res = await verify({});
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/query/);
  });

  it('answers 20 parallel requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => verify({ query: `(AND (GT x ${i}) (LT x ${i + 2}))` })),
    );
    results.forEach((r, i) =>
      expect(r.body).toMatchObject({ status: 'SAT', model: { x: String(i + 1) }, provider_used: null }),
    );
  });
});
