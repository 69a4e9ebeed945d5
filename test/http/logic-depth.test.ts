// /verify/logic as users write it (issue 15): VAR inside AND, FORALL/EXISTS, unsat cores.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';

describe('POST /verify/logic: declarations, quantifiers, unsat cores', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/logic', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('accepts VAR declarations inside AND, before and after use', async () => {
    const res = await verify({ query: '(AND (EQ (MULT 4 x) 3) (VAR x Real) (AND (VAR p Bool) (IMPLIES p (LT x 0))))' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'SAT',
      model: { p: 'false', x: '3/4' },
      independent_check: { coverage: 'full', constraints_total: 1, constraints_unchecked_quantified: 0 },
      provider_used: null,
    });
  });

  it('solves FORALL and says that the quantified conjunct was not re-checked by evaluation', async () => {
    const res = await verify({
      query: 'AND(VAR(x, Int), FORALL(((n Int)), IMPLIES(GT(n, 0), GT(PLUS(n, x), 5))), LTE(x, 5))',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'SAT',
      model: { x: '5' },
      independent_check: {
        coverage: 'quantifier_free_parts',
        constraints_total: 1,
        constraints_unchecked_quantified: 1,
      },
      provider_used: null,
    });
  });

  it('answers UNSAT with the conflicting conjuncts (EXISTS among them)', async () => {
    const query = '(AND (VAR x Int) (GT x 0) (EXISTS ((y Int)) (AND (GT y x) (LT y 3))) (LT x 100) (GTE x 2))';
    const res = await verify({ query });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'UNSAT',
      unsat_core: [
        { index: 2, position: 27, constraint: '(EXISTS ((y Int)) (AND (GT y x) (LT y 3)))' },
        { index: 4, position: 81, constraint: '(GTE x 2)' },
      ],
      provider_used: null,
    });
    expect(query.slice(27, 33)).toBe('EXISTS');
  });

  it('rejects VAR under OR with 400 and the position', async () => {
    const res = await verify({ query: '(OR (VAR x Int) (GT x 1))' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/VAR declarations are only allowed where a conjunct stands.*at position 5/);
  });

  it('still blocks an unknown operator inside an AND that carries declarations', async () => {
    const res = await verify({ query: '(AND (VAR x Int) (EVAL x))' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 'BLOCKED', reason: 'unknown_operator', position: 18 });
  });
});
