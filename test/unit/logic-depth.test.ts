// Logic DSL depth (issue 15): VAR declarations wherever a conjunct stands, quantifiers solved
// by Z3, and unsat cores over the named conjuncts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LogicPool,
  LogicSyntaxError,
  compileLogicQuery,
  solveLogic,
  type LogicResult,
} from '../../engines/logic/index.js';
import { setModelTamperHookForTests } from '../../engines/logic/test-hooks.js';

let pool: LogicPool;
beforeAll(async () => {
  pool = new LogicPool({ size: 2, defaultTimeoutMs: 30_000 });
  await pool.warmUp();
}, 120_000);
afterAll(async () => {
  setModelTamperHookForTests(null);
  await pool.shutdown();
});

const solve = (q: string, timeoutMs?: number) => solveLogic(q, { pool, timeoutMs });

function sat(r: LogicResult): Extract<LogicResult, { status: 'SAT' }> {
  if (r.status !== 'SAT') throw new Error(`expected SAT, got ${JSON.stringify(r)}`);
  return r;
}
function unsat(r: LogicResult): Extract<LogicResult, { status: 'UNSAT' }> {
  if (r.status !== 'UNSAT') throw new Error(`expected UNSAT, got ${JSON.stringify(r)}`);
  return r;
}

describe('VAR wherever a conjunct stands', () => {
  it.each([
    ['inside AND, before use', '(AND (VAR x Real) (EQ (MULT 3 x) 1))', { x: '1/3' }],
    ['inside AND, after use', '(AND (EQ (MULT 3 x) 1) (VAR x Real))', { x: '1/3' }],
    ['in a nested AND', '(AND (GT y 0) (AND (VAR p Bool) (IMPLIES p (LT y 0))) (LT y 2))', { p: 'false', y: '1' }],
    ['call form', 'AND(VAR(x, Real), GT(x, 0.5), LT(x, 1), EQ(MULT(4, x), 3))', { x: '3/4' }],
    ['Bool declared after its use as a Bool', '(AND (NOT b) (EQ x 2) (VAR b Bool))', { b: 'false', x: '2' }],
    ['AND of declarations only', '(AND (VAR p Bool) (VAR q Bool)) (AND p (NOT q))', { p: 'true', q: 'false' }],
  ])('%s: %s', async (_name, query, model) => {
    const r = sat(await solve(query));
    expect(r.model).toEqual(model);
    expect(r.proof.independent_check?.coverage).toBe('full');
  });

  it('declarations are hoisted in the normalized query; a VAR-only AND leaves no constraint', () => {
    const c = compileLogicQuery('(AND (VAR x Real) (GT x 0) (AND (VAR y Int) (LT y 3))) (AND (VAR p Bool))');
    expect(c.normalizedQuery).toBe('(VAR p Bool) (VAR x Real) (VAR y Int) (AND (GT x 0.0) (LT y 3))');
    expect(c.typed.constraints).toHaveLength(1);
    // Re-compiling the normalized text gives the same SMT-LIB.
    expect(compileLogicQuery(c.normalizedQuery).smtlib).toBe(c.smtlib);
  });

  it('declaring one name with two sorts across conjuncts is still a type error', () => {
    expect(() => compileLogicQuery('(AND (VAR x Int) (GT x 0)) (AND (VAR x Real))')).toThrow(
      /declared as both Int and Real/,
    );
  });

  it('VAR below OR/NOT/quantifiers or as an operator argument stays a 400 with its position', () => {
    for (const [q, pos] of [
      ['(OR (VAR x Int) (GT x 1))', 5],
      ['(IMPLIES (VAR p Bool) p)', 10],
      ['(EXISTS ((n Int)) (AND (VAR x Int) (GT n x)))', 24],
      ['(GT (VAR x Int) 1)', 5],
    ] as const) {
      let err: unknown = null;
      try {
        compileLogicQuery(q);
      } catch (e) {
        err = e;
      }
      expect(err, q).toBeInstanceOf(LogicSyntaxError);
      expect((err as LogicSyntaxError).position, q).toBe(pos);
    }
  });
});

describe('FORALL / EXISTS are compiled to SMT-LIB and solved by Z3', () => {
  it('FORALL fixes the free variable (x = 5 is the only value with n + x > 5 for all n >= 1 and x <= 5)', async () => {
    const r = sat(await solve('(AND (VAR x Int) (FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) 5))) (LTE x 5))'));
    expect(r.model).toEqual({ x: '5' });
    expect(r.proof.smtlib2).toContain('(forall ((v_n Int)) (=> (> v_n 0) (> (+ v_n v_x) 5)))');
    expect(r.proof.independent_check).toEqual({
      evaluator: 'svc-logic-exact-rational',
      coverage: 'quantifier_free_parts',
      constraints_total: 1,
      constraints_unchecked_quantified: 1,
    });
  });

  it('EXISTS over Real with a unique free value', async () => {
    const r = sat(
      await solve('(VAR x Real) (EXISTS ((y Real)) (AND (GT y x) (LT y 1))) (GTE x 0.99) (EQ (MULT 100 x) 99)'),
    );
    expect(r.model).toEqual({ x: '99/100' });
  });

  it('nested quantifiers: every Int has a larger Int (closed formula, SAT with an empty model)', async () => {
    const r = sat(await solve('(FORALL ((a Int)) (EXISTS ((b Int)) (GT b a)))'));
    expect(r.model).toEqual({});
  });

  it('a false closed quantified formula is UNSAT', async () => {
    const r = unsat(await solve('(EXISTS ((a Int)) (AND (GT a 1) (LT a 2)))'));
    expect(r.unsatCore).toEqual([{ index: 1, position: 1, constraint: '(EXISTS ((a Int)) (AND (GT a 1) (LT a 2)))' }]);
  });

  it('Bool binders are enumerated by the evaluator: full coverage', async () => {
    const r = sat(await solve('(VAR p Bool) (FORALL ((q Bool)) (OR q (NOT q) p))'));
    expect(r.proof.independent_check?.coverage).toBe('full');
  });

  it('a tampered model still fails closed on the quantifier-free conjuncts', async () => {
    setModelTamperHookForTests((m) => ({ ...m, x: '4' }));
    try {
      const r = await solve('(FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) 5))) (EQ x 5)');
      expect(r.status === 'ERROR' && r.reason).toBe('independent_check_failed');
    } finally {
      setModelTamperHookForTests(null);
    }
  });
});

describe('unsat cores over the named conjuncts', () => {
  it('names the two conflicting conjuncts among several (top-level ANDs flattened)', async () => {
    const q = '(AND (VAR x Int) (GT x 5) (AND (VAR y Int) (LT y 3)) (LT x 3) (GT y -10))';
    const r = unsat(await solve(q));
    expect(r.unsatCore).toEqual([
      { index: 1, position: 18, constraint: '(GT x 5)' },
      { index: 3, position: 54, constraint: '(LT x 3)' },
    ]);
    expect(q.slice(18, 20)).toBe('GT');
    expect(r.proof.unsat_core).toEqual(r.unsatCore);
    // The proof's SMT-LIB is still the query's own text (the core comes from a second, tracked check).
    expect(r.proof.smtlib2).toContain('(assert (and (> v_x 5) (< v_y 3) (< v_x 3) (> v_y (- 10))))');
  });

  it('the core is minimal: a redundant third conflicting bound is left out', async () => {
    const r = unsat(await solve('(GT x 10) (GT y 0) (LT x 5) (LT x 11)'));
    const idx = r.unsatCore?.map((c) => c.index);
    expect(idx).toHaveLength(2);
    expect(idx).toContain(1);
    expect(idx?.includes(3) || idx?.includes(4)).toBe(true);
    expect(idx).not.toContain(2);
  });

  it('a single conjunct is its own core', async () => {
    const r = unsat(await solve('(EQ (MULT 2 x) 1)'));
    expect(r.unsatCore).toEqual([{ index: 1, position: 1, constraint: '(EQ (MULT 2 x) 1)' }]);
  });

  it('Bool and quantified conjuncts, call form', async () => {
    const r = unsat(
      await solve('VAR(b, Bool) AND(b, GT(x, 1)) NOT(b) FORALL(((n Int)), GTE(MULT(n, n), x)) LT(x, 100)'),
    );
    expect(r.unsatCore?.map((c) => c.constraint)).toEqual(['b', '(NOT b)']);
  });

  it('pigeonhole: every DISTINCT and bound conjunct takes part', async () => {
    const r = unsat(
      await solve('(DISTINCT x y z) (GTE x 0) (LTE x 1) (GTE y 0) (LTE y 1) (GTE z 0) (LTE z 1) (EQ w 3)'),
    );
    expect(r.unsatCore?.map((c) => c.index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
