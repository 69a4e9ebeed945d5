import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOGIC_LIMITS,
  LogicBlockedError,
  LogicInputError,
  LogicPool,
  LogicSyntaxError,
  LogicTypeError,
  compileLogicQuery,
  getLogicPool,
  looksLikeDsl,
  readPoolSize,
  readZ3TimeoutMs,
  shutdownLogicPool,
  solveLogic,
  type LogicBlockedReason,
  type LogicResult,
} from '../../engines/logic/index.js';
import { checkModel, type ModelValue } from '../../engines/logic/evaluator.js';
import { Rational, euclideanDivMod } from '../../engines/logic/rational.js';
import { setModelTamperHookForTests } from '../../engines/logic/test-hooks.js';

// Fermat n=3 over positive integers: Z3 can neither find a model nor refute it.
const PATHOLOGICAL = '(AND (GT x 0) (GT y 0) (GT z 0) (EQ (PLUS (POW x 3) (POW y 3)) (POW z 3)))';

let pool: LogicPool;

beforeAll(async () => {
  pool = new LogicPool({ size: 2, defaultTimeoutMs: 30_000 });
  await pool.warmUp();
}, 120_000);

afterAll(async () => {
  setModelTamperHookForTests(null);
  await pool.shutdown();
  await shutdownLogicPool();
});

const solve = (q: string, timeoutMs?: number) => solveLogic(q, { pool, timeoutMs });

function expectSat(r: LogicResult): Extract<LogicResult, { status: 'SAT' }> {
  if (r.status !== 'SAT') throw new Error(`expected SAT, got ${JSON.stringify(r)}`);
  return r;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

describe('SAT with exact (unique) models', () => {
  const cases: Array<[string, string, Record<string, string>, 'full' | 'quantifier_free_parts']> = [
    ['S-expression', '(AND (EQ x 3) (EQ y (PLUS x 4)))', { x: '3', y: '7' }, 'full'],
    ['call form', 'AND(EQ(x, 3), EQ(y, PLUS(x, 4)))', { x: '3', y: '7' }, 'full'],
    ['mixed syntax', '(AND GT(x, 1) (LT x 3))', { x: '2' }, 'full'],
    [
      'call form with a space after the operator',
      'AND (GT(x, 5), LT (x, 7)) VAR (p, Bool) NOT (p)',
      { p: 'false', x: '6' },
      'full',
    ],
    ['case-insensitive operators', '(and (gt x 1) (Lt x 3))', { x: '2' }, 'full'],
    ['several top-level forms are conjoined', '(VAR y Int) (GT y 1) (LT y 3)', { y: '2' }, 'full'],
    ['Real rational 1/3', '(VAR x Real) (EQ (MULT 3 x) 1)', { x: '1/3' }, 'full'],
    ['Real rational, call form', 'VAR(x, Real) EQ(MULT(3, x), 1)', { x: '1/3' }, 'full'],
    ['decimal literal is exact', '(VAR r Real) (EQ (PLUS r 0.1) 0.3)', { r: '1/5' }, 'full'],
    ['negative decimal', '(VAR r Real) (EQ r -0.75)', { r: '-3/4' }, 'full'],
    [
      'integral Real prints as integer',
      '(VAR r Real) (EQ (MULT 2 r) 5.0) (EQ s (MULT r 2))',
      { r: '5/2', s: '5' },
      'full',
    ],
    ['DIV of Int and Real is Real division', '(VAR r Real) (EQ r (DIV 1 4.0))', { r: '1/4' }, 'full'],
    ['DIV of two Ints is integer division', '(VAR r Real) (EQ r (DIV 7 2))', { r: '3' }, 'full'],
    ['DIV -7 2 (Euclidean)', '(EQ x (DIV -7 2))', { x: '-4' }, 'full'],
    ['MOD -7 2', '(EQ x (MOD -7 2))', { x: '1' }, 'full'],
    ['DIV 7 -2', '(EQ x (DIV 7 -2))', { x: '-3' }, 'full'],
    ['MOD 7 -2', '(EQ x (MOD 7 -2))', { x: '1' }, 'full'],
    ['DIV -7 -2', '(EQ x (DIV -7 -2))', { x: '4' }, 'full'],
    ['MOD -7 -2', '(EQ x (MOD -7 -2))', { x: '1' }, 'full'],
    ['POW cube root', '(EQ (POW x 3) -27)', { x: '-3' }, 'full'],
    ['POW square with sign', '(AND (EQ (POW x 2) 49) (LT x 0))', { x: '-7' }, 'full'],
    ['POW constant', '(EQ x (POW 2 10))', { x: '1024' }, 'full'],
    ['POW exponent 0 is 1, also for 0^0', '(EQ y 0) (EQ x (POW y 0))', { x: '1', y: '0' }, 'full'],
    ['POW of a compound base', '(VAR r Real) (EQ (POW (PLUS r 1) 2) 2.25) (GT r 0)', { r: '1/2' }, 'full'],
    ['ITE', '(EQ x (ITE (GT 3 2) 10 20))', { x: '10' }, 'full'],
    ['ITE on Bool branches', '(VAR p Bool) (ITE (EQ x 1) p (NOT p)) (EQ x 2)', { p: 'false', x: '2' }, 'full'],
    ['XOR', '(VAR p Bool) (VAR q Bool) (XOR p q) p', { p: 'true', q: 'false' }, 'full'],
    ['IFF', '(VAR p Bool) (VAR q Bool) (IFF p q) (NOT q)', { p: 'false', q: 'false' }, 'full'],
    ['IMPLIES', '(VAR p Bool) (IMPLIES p (EQ x 1)) (EQ x 2)', { p: 'false', x: '2' }, 'full'],
    ['DISTINCT', '(DISTINCT x y) (GTE x 0) (LTE x 1) (GTE y 0) (LTE y 1) (LT x y)', { x: '0', y: '1' }, 'full'],
    ['NEQ', '(NEQ x 0) (GTE x 0) (LTE x 1)', { x: '1' }, 'full'],
    ['MINUS n-ary and unary', '(EQ x (MINUS 10 3 2)) (EQ y (MINUS 5))', { x: '5', y: '-5' }, 'full'],
    ['TRUE/false literals', '(VAR p Bool) (VAR q Bool) (EQ p TRUE) (EQ q false)', { p: 'true', q: 'false' }, 'full'],
    ['identifiers are case-sensitive', '(VAR X Int) (EQ X 1) (EQ x 2)', { X: '1', x: '2' }, 'full'],
    ['decimal makes the comparison Real, x stays Int', '(GT x 2.5) (LT x 4)', { x: '3' }, 'full'],
    [
      'FORALL over Int (quantifier-free parts checked)',
      '(FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) 5))) (LTE x 5)',
      { x: '5' },
      'quantifier_free_parts',
    ],
    ['EXISTS, call form', 'EXISTS(((y Int)), AND(GT(y, x), LT(y, 3))) EQ(x, 1)', { x: '1' }, 'quantifier_free_parts'],
    [
      'FORALL over Bool is enumerated (full check)',
      '(VAR p Bool) (FORALL ((q Bool)) (IMPLIES q p))',
      { p: 'true' },
      'full',
    ],
    [
      'EXISTS over Bool is enumerated',
      '(VAR p Bool) (EXISTS ((q Bool) (s Bool)) (AND q s (NOT p)))',
      { p: 'false' },
      'full',
    ],
    [
      'a variable named __proto__ is a plain key',
      '(EQ __proto__ 5)',
      JSON.parse('{"__proto__":"5"}') as Record<string, string>,
      'full',
    ],
  ];

  it.each(cases)('%s: %s', async (_name, query, model, coverage) => {
    const r = expectSat(await solve(query));
    expect(Object.entries(r.model)).toEqual(Object.entries(model));
    expect(r.proof.model).toEqual(r.model);
    expect(r.proof.independent_check?.coverage).toBe(coverage);
    expect(r.proof.result).toBe('sat');
  });

  it('reports every variable, including declared ones no constraint mentions', async () => {
    const r = expectSat(await solve('(VAR b Bool) (VAR u Int) (VAR w Real) (EQ x 1)'));
    expect(Object.keys(r.model).sort()).toEqual(['b', 'u', 'w', 'x']);
    expect(r.model.x).toBe('1');
    expect(['true', 'false']).toContain(r.model.b);
    expect(r.model.u).toMatch(/^-?\d+$/);
    expect(r.model.w).toMatch(/^-?\d+(\/\d+)?$/);
  });

  it('a quantifier-only query has an empty model and reports partial coverage counts', async () => {
    const r = expectSat(await solve('(FORALL ((a Int)) (EXISTS ((b Int)) (GT b a)))'));
    expect(r.model).toEqual({});
    expect(r.proof.independent_check).toEqual({
      evaluator: 'svc-logic-exact-rational',
      coverage: 'quantifier_free_parts',
      constraints_total: 1,
      constraints_unchecked_quantified: 1,
    });
  });

  it('division by zero inside a decided OR does not block the check', async () => {
    const r = expectSat(await solve('(OR (GT x 0) (EQ (DIV 1 y) 2)) (EQ y 0) (EQ x 1)'));
    expect(r.model).toEqual({ x: '1', y: '0' });
    expect(r.proof.independent_check?.coverage).toBe('full');
  });

  it('Int DIV/MOD agree with Z3 for every sign combination', async () => {
    const forms: string[] = [];
    const expected: Record<string, string> = {};
    let i = 0;
    for (const a of [-7, -6, -1, 0, 1, 6, 7]) {
      for (const b of [-3, -2, 2, 3]) {
        const { q, r } = euclideanDivMod(BigInt(a), BigInt(b));
        forms.push(`(EQ q${i} (DIV ${a} ${b})) (EQ r${i} (MOD ${a} ${b}))`);
        expected[`q${i}`] = q.toString();
        expected[`r${i}`] = r.toString();
        i++;
      }
    }
    const r = expectSat(await solve(forms.join(' ')));
    expect(r.model).toEqual(expected);
    // -7 div -3 = 3 mod 2; -7 div -2 = 4 mod 1; -7 div 2 = -4 mod 1
    expect(expected).toMatchObject({ q0: '3', r0: '2', q1: '4', r1: '1', q2: '-4', r2: '1' });
  });
});

describe('UNSAT', () => {
  const cases: Array<[string, string]> = [
    ['contradiction', '(AND (GT x 5) (LT x 3))'],
    ['contradiction, call form', 'AND(GT(x, 5), LT(x, 3))'],
    ['no Int solution of 2x = 1', '(EQ (MULT 2 x) 1)'],
    ['XOR p p', '(VAR p Bool) (XOR p p)'],
    ['pigeonhole with DISTINCT', '(DISTINCT x y z) (GTE x 0) (LTE x 1) (GTE y 0) (LTE y 1) (GTE z 0) (LTE z 1)'],
    ['MOD is below the divisor', '(EQ (MOD x 2) 2)'],
    ['FORALL without a maximum', '(FORALL ((y Int)) (GT x y))'],
    ['square is never negative', '(VAR r Real) (EQ (POW r 2) -1)'],
    ['division is a function, even by zero', '(NEQ (DIV 7 y) (DIV 7 y))'],
    ['false literal', '(OR false false)'],
    ['IFF with its negation', '(VAR p Bool) (IFF p (NOT p))'],
  ];
  it.each(cases)('%s: %s', async (_name, query) => {
    const r = await solve(query);
    expect(r.status).toBe('UNSAT');
    if (r.status === 'UNSAT') {
      expect(r.proof.result).toBe('unsat');
      expect(r.proof.model).toBeUndefined();
    }
  });
});

describe('BLOCKED (LogicBlockedError, HTTP 403)', () => {
  const deep = (n: number) => '(NOT '.repeat(n - 1) + '(EQ x 1)' + ')'.repeat(n - 1);
  const cases: Array<[string, string, LogicBlockedReason, number | null]> = [
    ['double-quoted string', '(EQ x "abc")', 'string_literal', 6],
    ['single-quoted string', "EQ(x, 'a')", 'string_literal', 6],
    ['string in a shell-like call', 'system("rm -rf /")', 'string_literal', 7],
    ['unknown operator', '(FOO x 1)', 'unknown_operator', 1],
    ['unknown operator, call form', 'eval(x)', 'unknown_operator', 0],
    ['number in operator position', '(5 x)', 'unknown_operator', 1],
    ['list in operator position', '((GT x 1))', 'unknown_operator', 1],
    ['arity: GT with one argument', '(GT x)', 'wrong_arity', 1],
    ['arity: NOT with two, call form', 'NOT(x, y)', 'wrong_arity', 0],
    ['arity: ITE with two', '(ITE true 1)', 'wrong_arity', 1],
    ['arity: VAR without sort', '(VAR x)', 'wrong_arity', 0],
    ['arity: zero-argument call', 'AND()', 'wrong_arity', 0],
    ['identifier with a dot', '(EQ x.y 1)', 'invalid_identifier', 4],
    ['identifier with $', '(EQ x$ 1)', 'invalid_identifier', 4],
    ['non-ASCII identifier', '(EQ é 1)', 'invalid_identifier', 4],
    ['infix expression token', '(GT x+1 5)', 'invalid_identifier', 4],
    ['exponent notation', '(EQ x 1e5)', 'invalid_number', 6],
    ['leading-dot decimal', '(EQ x .5)', 'invalid_number', 6],
    ['identifier too long', `(EQ ${'a'.repeat(65)} 1)`, 'identifier_too_long', 4],
    ['number too long', `(EQ x ${'9'.repeat(101)})`, 'number_too_long', 6],
    ['operator name as variable', '(GT and 1)', 'reserved_identifier', 4],
    ['sort name as variable', '(VAR Int Int)', 'reserved_identifier', 5],
    ['POW with variable exponent', '(EQ (POW x y) 8)', 'unsupported_exponent', 11],
    ['POW with negative exponent', '(EQ (POW x -1) 8)', 'unsupported_exponent', 11],
    ['POW with exponent above 64', '(EQ (POW x 65) 8)', 'unsupported_exponent', 11],
    ['POW with decimal exponent', '(EQ (POW x 2.0) 8)', 'unsupported_exponent', 11],
    ['nested POW explosion', '(EQ (POW (POW (POW x 64) 64) 64) 8)', 'expression_too_complex', 15],
    ['nesting deeper than 64', deep(65), 'nesting_too_deep', 64 * 5],
    ['more than 5000 nodes', `(AND ${'(EQ x 1) '.repeat(1300)})`, 'too_many_nodes', null],
    ['input longer than the limit', `(EQ x 1)${' '.repeat(LOGIC_LIMITS.maxQueryLength)}`, 'input_too_long', null],
  ];

  it.each(cases)('%s', async (_name, query, reason, position) => {
    const e = await rejection(solve(query));
    expect(e).toBeInstanceOf(LogicBlockedError);
    const b = e as LogicBlockedError;
    expect(b.reason).toBe(reason);
    expect(b.status).toBe('BLOCKED');
    expect(b.refusal).toBe('policy');
    if (position !== null) expect(b.position).toBe(position);
  });

  it('nesting of exactly 64 levels is accepted', async () => {
    const r = await solve(deep(64));
    expect(r.status).toBe('SAT');
  });

  it('5000 nodes are accepted', () => {
    // (AND + 1249 * (EQ x 1) ) = 1 list + 1 head + 1249*4 = 4998 nodes
    expect(() => compileLogicQuery(`(AND ${'(EQ x 1) '.repeat(1249)})`)).not.toThrow();
  });
});

describe('syntax errors (LogicSyntaxError, HTTP 400, with position)', () => {
  const cases: Array<[string, string, number]> = [
    ['unbalanced: missing )', '(AND (GT x 5) (LT y 10)', 23],
    ['extra )', '(AND x))', 7],
    ['lone )', ')', 0],
    ['missing comma in call form', 'GT(x 5)', 5],
    ['unterminated call', 'GT(x, 5', 7],
    ['comma in S-expression', '(GT x, 5)', 5],
    ['empty list', '()', 0],
    ['trailing comma', 'GT(x,)', 5],
    ['VAR inside OR (not a conjunct)', '(OR (VAR x Int) true)', 5],
    ['VAR inside NOT', '(NOT (VAR p Bool))', 6],
    ['VAR inside a quantifier body', '(FORALL ((n Int)) (AND (VAR x Int) (GT n x)))', 24],
    ['malformed binder list', '(FORALL (x Int) (GT x 0))', 9],
    ['binder list in call form must be parenthesized', 'FORALL(x, GT(x, 0))', 7],
    ['VAR with a number as name', '(VAR 5 Int)', 5],
    ['whitespace-only query', '   ', 0],
    ['unexpected end after operator', '(NOT', 4],
  ];
  it.each(cases)('%s: %s', async (_name, query, position) => {
    const e = await rejection(solve(query));
    expect(e).toBeInstanceOf(LogicSyntaxError);
    expect((e as LogicSyntaxError).position).toBe(position);
    expect((e as LogicSyntaxError).refusal).toBe('invalid');
    expect((e as Error).message).toContain(`position ${position}`);
  });
});

describe('type conflicts (LogicTypeError, HTTP 400)', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['conflicting declarations', '(VAR x Int) (VAR x Real) (EQ x 1)', /declared as both Int and Real/],
    [
      'undeclared variable used as Bool',
      '(AND x (GT y 1))',
      /AND expects Bool, got Int .*undeclared variables are Int/,
    ],
    ['top-level constraint is a number', '(PLUS x 1)', /top-level constraint .* is Int, expected Bool/],
    ['MOD on Real', '(VAR r Real) (EQ (MOD r 2) 1)', /MOD requires Int operands/],
    ['Bool compared with GT', '(VAR p Bool) (GT p 1)', /GT expects numeric operands/],
    ['Bool equated with a number', '(VAR p Bool) (EQ p 1)', /EQ expects operands of the same sort/],
    ['unknown sort', '(VAR x Float) (EQ x 1)', /unknown sort/],
    ['variable bound twice', '(FORALL ((y Int) (y Int)) (GT y 0))', /bound twice/],
    ['ITE branches of different sorts', '(VAR p Bool) (EQ x (ITE p 1 true))', /ITE expects branches of the same sort/],
    ['quantifier body not Bool', '(EXISTS ((y Int)) (PLUS y 1))', /EXISTS expects Bool/],
    ['POW of a Bool', '(VAR p Bool) (EQ (POW p 2) 1)', /POW expects a number/],
  ];
  it.each(cases)('%s: %s', async (_name, query, message) => {
    const e = await rejection(solve(query));
    expect(e).toBeInstanceOf(LogicTypeError);
    expect((e as LogicTypeError).refusal).toBe('invalid');
    expect((e as Error).message).toMatch(message);
  });

  it('repeating an identical declaration is allowed', async () => {
    expect(expectSat(await solve('(VAR x Real) (VAR x Real) (EQ (MULT 3 x) 2)')).model).toEqual({ x: '2/3' });
  });
});

describe('natural-language detection', () => {
  const cases: Array<[string, boolean]> = [
    ['(AND (GT x 5) (LT y 10))', true],
    ['  AND(GT(x, 5), LT(y, 10))', true],
    ['AND (GT(x, 5), LT(y, 10))', true],
    ['VAR(x, Int) GT(x, 1)', true],
    ['foo(x)', true],
    ['Is x greater than 5 and y less than 10?', false],
    ['x > 5 and y < 10', false],
    ['Find (if possible) x with x > 5', false],
    ['Is (x > 5) true?', false],
    ['', false],
  ];
  it.each(cases)('looksLikeDsl(%j) = %s', (q, dsl) => {
    expect(looksLikeDsl(q)).toBe(dsl);
  });

  it('solveLogic returns a typed NATURAL_LANGUAGE result without solving', async () => {
    const before = pool.stats().totals.completed;
    const r = await solve('Is x greater than 5 and y less than 10?');
    expect(r).toEqual({
      status: 'NATURAL_LANGUAGE',
      reason: 'the query is not in the logic DSL and needs a translation step',
    });
    expect(pool.stats().totals.completed).toBe(before);
  });
});

describe('proof artifact', () => {
  it('records the normalized query, the exact SMT-LIB2 text and the Z3 version', async () => {
    const r = expectSat(await solve('AND(GT(x, 5), LT(y, 10)) (VAR b Bool) b'));
    expect(r.proof.normalized_query).toBe('(VAR b Bool) (VAR x Int) (VAR y Int) (AND (GT x 5) (LT y 10)) b');
    expect(r.proof.smtlib2).toBe(
      '(declare-const v_b Bool)\n(declare-const v_x Int)\n(declare-const v_y Int)\n(assert (and (> v_x 5) (< v_y 10)))\n(assert v_b)\n',
    );
    expect(r.proof.variables).toEqual([
      { name: 'b', sort: 'Bool', smt_symbol: 'v_b', declared: true },
      { name: 'x', sort: 'Int', smt_symbol: 'v_x', declared: false },
      { name: 'y', sort: 'Int', smt_symbol: 'v_y', declared: false },
    ]);
    expect(r.proof.solver.name).toBe('z3');
    expect(r.proof.solver.version).toMatch(/^Z3 \d+\.\d+\.\d+/);
    expect(r.proof.solver.binding).toMatch(/^z3-solver@\d+\.\d+\.\d+$/);
    expect(r.proof.solver.deadline_ms).toBe(30_000);
    expect(JSON.parse(JSON.stringify(r.proof))).toEqual(r.proof); // JSON-only values
  });

  it('emits explicit coercions, exact Real literals and let-expanded POW', () => {
    const c = compileLogicQuery('(VAR r Real) (GT (POW (PLUS r 1) 3) 0.5) (EQ r (MINUS x -2.25)) (EQ (DIV x 2) 1)');
    expect(c.smtlib).toBe(
      [
        '(declare-const v_r Real)',
        '(declare-const v_x Int)',
        '(assert (> (let ((p!0 (+ v_r 1.0))) (* p!0 p!0 p!0)) (/ 1.0 2.0)))',
        '(assert (= v_r (- (to_real v_x) (- (/ 9.0 4.0)))))',
        '(assert (= (div v_x 2) 1))',
        '',
      ].join('\n'),
    );
    expect(c.normalizedQuery).toBe(
      '(VAR r Real) (VAR x Int) (GT (POW (PLUS r 1.0) 3) 0.5) (EQ r (MINUS x -2.25)) (EQ (DIV x 2) 1)',
    );
  });

  it('the normalized query re-compiles to the same SMT-LIB2 text', () => {
    for (const q of [
      'AND(GT(x, 5), LT(y, 10))',
      '(VAR x Real) (EQ (MULT 3 x) 1)',
      '(FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) 5))) (LTE x 5)',
      '(VAR p Bool) (ITE (EQ x 1) p (NOT p)) (NEQ x 2) (DISTINCT x y 3)',
      '(VAR r Real) (EQ (POW (PLUS r 1) 2) 2.25) (EQ (MOD x 3) (DIV y -2)) (XOR true (IFF false true))',
    ]) {
      const c = compileLogicQuery(q);
      expect(compileLogicQuery(c.normalizedQuery).smtlib).toBe(c.smtlib);
    }
  });

  it('variable names never collide with SMT-LIB builtins', async () => {
    const r = expectSat(await solve('(EQ pi 4) (EQ let 2) (EQ abs (PLUS pi let)) (EQ to_real 1) (EQ assert 0)'));
    expect(r.model).toEqual({ abs: '6', assert: '0', let: '2', pi: '4', to_real: '1' });
  });
});

describe('fail closed', () => {
  it('a model tampered after Z3 is rejected by the independent evaluator (ERROR, not SAT)', async () => {
    setModelTamperHookForTests((m) => ({ ...m, x: '1/2' }));
    try {
      const r = await solve('(VAR x Real) (EQ (MULT 3 x) 1)');
      expect(r).toEqual({
        status: 'ERROR',
        error: 'Internal verification error',
        reason: 'independent_check_failed',
        detail: 'constraint #1 is false under the Z3 model; refusing to report SAT',
      });
    } finally {
      setModelTamperHookForTests(null);
    }
  });

  it('a tampered quantified query also fails closed on its quantifier-free part', async () => {
    setModelTamperHookForTests((m) => ({ ...m, x: '7' }));
    try {
      const r = await solve('(EXISTS ((y Int)) (AND (GT y x) (LT y 3))) (EQ x 1)');
      expect(r.status).toBe('ERROR');
      expect(r.status === 'ERROR' && r.reason).toBe('independent_check_failed');
    } finally {
      setModelTamperHookForTests(null);
    }
  });

  it('a malformed tampered value is model_unreadable', async () => {
    setModelTamperHookForTests((m) => ({ ...m, x: '0.5' }));
    try {
      const r = await solve('(EQ x 1)');
      expect(r.status === 'ERROR' && r.reason).toBe('model_unreadable');
    } finally {
      setModelTamperHookForTests(null);
    }
  });

  it('a model that needs division by zero cannot be checked: ERROR', async () => {
    const r = await solve('(EQ y 0) (EQ (DIV x y) 5)');
    expect(r.status === 'ERROR' && r.reason).toBe('independent_check_inconclusive');
    expect(r.status === 'ERROR' && r.error).toBe('Internal verification error');
  });

  it('an irrational model value cannot be checked exactly: ERROR', async () => {
    const r = await solve('(VAR r Real) (EQ (MULT r r) 2)');
    expect(r.status === 'ERROR' && r.reason).toBe('model_unreadable');
  });

  it('Z3 timeout (unknown) is ERROR "Internal verification error"', async () => {
    const t0 = Date.now();
    // 7.5 s: Z3 gets 6 s and the hard kill waits 1.5 s more (a 2 s budget left 0.4 s, which a loaded
    // machine overran: the kill came first and the answer was deadline_exceeded).
    const r = await solve(PATHOLOGICAL, 7_500);
    const elapsed = Date.now() - t0;
    expect(r.status).toBe('ERROR');
    expect(r.status === 'ERROR' && r.error).toBe('Internal verification error');
    expect(r.status === 'ERROR' && r.reason).toBe('solver_timeout');
    expect(elapsed).toBeGreaterThanOrEqual(5_500);
    expect(elapsed).toBeLessThan(15_000); // the budget ended it; an unbounded solve runs into the test's 30 s time-out
  }, 30_000);
});

describe('evaluator (exact, three-valued)', () => {
  const model = (o: Record<string, ModelValue>) => new Map(Object.entries(o));
  it('checks constraints with exact rationals', () => {
    const c = compileLogicQuery('(VAR r Real) (EQ (MULT 3 r) 1) (GT r 0.333) (LT r 0.334) (EQ x (POW -2 5))');
    expect(checkModel(c.typed.constraints, model({ r: Rational.of(1n, 3n), x: Rational.of(-32n) }))).toEqual([
      'true',
      'true',
      'true',
      'true',
    ]);
    expect(checkModel(c.typed.constraints, model({ r: Rational.parse('0.3333'), x: Rational.of(32n) }))).toEqual([
      'false',
      'true',
      'true',
      'false',
    ]);
  });
  it('division by zero is undefined unless the result is decided elsewhere', () => {
    const c = compileLogicQuery('(EQ (MOD x y) 1) (OR true (EQ (DIV x y) 1)) (AND false (EQ (DIV x y) 1))');
    expect(checkModel(c.typed.constraints, model({ x: Rational.of(5n), y: Rational.ZERO }))).toEqual([
      'unknown_undefined',
      'true',
      'false',
    ]);
  });
  it('Int/Real quantifiers are unknown, Bool quantifiers are enumerated', () => {
    const c = compileLogicQuery(
      '(FORALL ((n Int)) (GT n x)) (FORALL ((p Bool)) (OR p (NOT p))) (EXISTS ((p Bool)) (AND p (NOT p)))',
    );
    expect(checkModel(c.typed.constraints, model({ x: Rational.ZERO }))).toEqual([
      'unknown_quantifier',
      'true',
      'false',
    ]);
  });
  it('rational arithmetic normalizes', () => {
    expect(Rational.parse('-6/4').toString()).toBe('-3/2');
    expect(Rational.parse('2.50').toString()).toBe('5/2');
    expect(Rational.parse('-0.75').toDecimalString()).toBe('-0.75');
    expect(Rational.of(7n, -1n).toString()).toBe('-7');
    expect(Rational.parse('-7/2').floor()).toBe(-4n);
  });
});

describe('pool', () => {
  it('hard-kills a worker that overruns its deadline and replaces it', async () => {
    // Z3 is told to run far past the deadline, so only the hard kill can stop it.
    const p = new LogicPool({ size: 1, defaultTimeoutMs: 30_000, solverTimeoutMs: () => 120_000 });
    try {
      await p.warmUp();
      const t0 = Date.now();
      const r = await solveLogic(PATHOLOGICAL, { pool: p, timeoutMs: 1_500 });
      const elapsed = Date.now() - t0;
      expect(r).toMatchObject({ status: 'ERROR', error: 'Internal verification error', reason: 'deadline_exceeded' });
      expect(elapsed).toBeGreaterThanOrEqual(1_400);
      expect(elapsed).toBeLessThan(10_000); // the 1.5 s hard kill ended it, not Z3's 120 s budget
      expect(p.stats().totals.killed).toBe(1);
      const after = await solveLogic('(EQ x 41)', { pool: p });
      expect(expectSat(after).model).toEqual({ x: '41' });
      expect(p.stats().totals.spawned).toBe(2);
    } finally {
      await p.shutdown();
    }
  }, 60_000);

  it('20 parallel solves: one pathological query does not delay the others', async () => {
    // Measure the normal latency of the easy queries first (same pool, idle).
    const easy = (i: number) => `(AND (EQ x ${i}) (EQ y (MULT x 2)) (GT z y) (LT z (PLUS y 2)))`;
    const normal: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      expectSat(await solve(easy(i)));
      normal.push(Date.now() - t);
    }
    const t0 = Date.now();
    const jobs = Array.from({ length: 20 }, (_, i) =>
      (i === 0 ? solve(PATHOLOGICAL, 8_000) : solve(easy(i))).then((r) => ({ i, r, ms: Date.now() - t0 })),
    );
    const results = await Promise.all(jobs);
    const slow = results[0];
    expect(slow.r.status === 'ERROR' && slow.r.reason).toBe('solver_timeout');
    expect(slow.ms).toBeGreaterThanOrEqual(6_000); // Z3 gets the 8 s budget less its 1.5 s grace
    const easyDone = results.slice(1).map(({ i, r, ms }) => {
      expect(expectSat(r).model).toEqual({ x: String(i), y: String(2 * i), z: String(2 * i + 1) });
      return ms;
    });
    // The 19 easy solves run one after another on the free worker. None waits for the
    // pathological one: the first answers promptly and there is no gap between consecutive
    // answers anywhere near the pathological query's 6.5 s (a single easy solve is ~10-100 ms;
    // the bounds are under half of that, so a loaded machine's slower solves stay far below them).
    easyDone.sort((a, b) => a - b);
    expect(easyDone[0]).toBeLessThan(3_000); // promptly, not after the 6.5 s pathological solve
    const gaps = easyDone.slice(1).map((ms, k) => ms - easyDone[k]);
    expect(Math.max(...gaps)).toBeLessThan(3_000); // no easy solve waited for the pathological one
    // At their own pace, not after the pathological solve (waiting for it would add 6.5 s, twice this margin).
    expect(easyDone[easyDone.length - 1]).toBeLessThan(19 * Math.max(...normal) + 3_000);
  }, 60_000);

  it('a job whose deadline passes in the queue fails without running', async () => {
    const p = new LogicPool({ size: 1, defaultTimeoutMs: 30_000 });
    try {
      await p.warmUp();
      const slow = solveLogic(PATHOLOGICAL, { pool: p, timeoutMs: 2_000 });
      const queued = await solveLogic('(EQ x 1)', { pool: p, timeoutMs: 500 });
      expect(queued).toMatchObject({ status: 'ERROR', reason: 'deadline_exceeded' });
      expect((await slow).status).toBe('ERROR');
    } finally {
      await p.shutdown();
    }
  }, 60_000);

  it('refuses work beyond maxQueue and after shutdown', async () => {
    const p = new LogicPool({ size: 1, defaultTimeoutMs: 30_000, maxQueue: 1 });
    try {
      await p.warmUp();
      const running = solveLogic(PATHOLOGICAL, { pool: p, timeoutMs: 1_500 });
      await new Promise((r) => setTimeout(r, 50)); // dispatched: the queue is empty again
      // 40 s: the queued solve waits for the killed worker's replacement, whose start a loaded machine slows (>10 s seen).
      const queued = solveLogic('(EQ x 1)', { pool: p, timeoutMs: 40_000 });
      const refused = await solveLogic('(EQ x 2)', { pool: p, timeoutMs: 40_000 });
      expect(refused).toMatchObject({ status: 'ERROR', reason: 'queue_full' });
      expect((await running).status).toBe('ERROR');
      expect(expectSat(await queued).model).toEqual({ x: '1' });
    } finally {
      await p.shutdown();
    }
    expect(await solveLogic('(EQ x 1)', { pool: p })).toMatchObject({ status: 'ERROR', reason: 'pool_shut_down' });
  }, 60_000);

  it('a Z3 that cannot start fails the waiting solves with ERROR instead of retrying forever', async () => {
    // 1 MB is far too little memory for Z3: every worker's start-up check fails.
    const p = new LogicPool({ size: 1, defaultTimeoutMs: 60_000, z3MemoryMaxMb: 1 });
    try {
      const r = await solveLogic('(EQ x 1)', { pool: p });
      expect(r).toMatchObject({ status: 'ERROR', error: 'Internal verification error', reason: 'worker_start_failed' });
      expect(p.stats().totals.startFailures).toBe(3);
      expect(p.stats().workers).toEqual([]);
    } finally {
      await p.shutdown();
    }
  }, 60_000);

  it('recycles workers after maxSolvesPerWorker and keeps answering', async () => {
    const p = new LogicPool({ size: 1, defaultTimeoutMs: 30_000, maxSolvesPerWorker: 2 });
    try {
      for (let i = 0; i < 5; i++)
        expect(expectSat(await solveLogic(`(EQ x ${i})`, { pool: p })).model).toEqual({ x: String(i) });
      expect(p.stats().totals.recycled).toBe(2);
      expect(p.stats().totals.spawned).toBe(3);
    } finally {
      await p.shutdown();
    }
  }, 60_000);

  it('reports per-worker memory after each solve', async () => {
    await solve('(EQ x 1)');
    const mem = pool
      .stats()
      .workers.map((w) => w.memory)
      .filter((m) => m !== null);
    expect(mem.length).toBeGreaterThan(0);
    for (const m of mem) {
      expect(m!.z3AllocBytes).toBeGreaterThan(0);
      expect(m!.z3AllocBytes).toBeLessThan(16 * 1024 * 1024);
      expect(m!.heapUsedBytes).toBeGreaterThan(0);
    }
  });

  it('getLogicPool is a singleton until shutdownLogicPool', async () => {
    const a = getLogicPool();
    expect(getLogicPool()).toBe(a);
    await shutdownLogicPool();
    const b = getLogicPool();
    expect(b).not.toBe(a);
    await shutdownLogicPool();
  });

  it('reads SVC_Z3_TIMEOUT (seconds) and SVC_Z3_POOL_SIZE, rejecting invalid values', () => {
    expect(readZ3TimeoutMs({})).toBe(15_000);
    expect(readZ3TimeoutMs({ SVC_Z3_TIMEOUT: '2.5' })).toBe(2_500);
    expect(() => readZ3TimeoutMs({ SVC_Z3_TIMEOUT: 'abc' })).toThrow(/SVC_Z3_TIMEOUT/);
    expect(() => readZ3TimeoutMs({ SVC_Z3_TIMEOUT: '0' })).toThrow(/SVC_Z3_TIMEOUT/);
    expect(readPoolSize({})).toBe(2);
    expect(readPoolSize({ SVC_Z3_POOL_SIZE: '4' })).toBe(4);
    expect(() => readPoolSize({ SVC_Z3_POOL_SIZE: '1.5' })).toThrow(/SVC_Z3_POOL_SIZE/);
    expect(() => new LogicPool({ size: 0 })).toThrow(RangeError);
  });

  it('rejects an invalid timeoutMs', async () => {
    await expect(solve('(EQ x 1)', -1)).rejects.toThrow(RangeError);
  });
});

describe('differential: Z3 against the independent evaluator (random formulas)', () => {
  const small = fc.integer({ min: -6, max: 6 }).map(String);
  const nonzero = fc
    .integer({ min: -4, max: 4 })
    .filter((n) => n !== 0)
    .map(String);
  const { bool } = fc.letrec<{ int: string; bool: string }>((tie) => ({
    int: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      fc.constantFrom('x', 'y', 'z'),
      small,
      fc.tuple(fc.constantFrom('PLUS', 'MINUS', 'MULT'), tie('int'), tie('int')).map(([o, a, b]) => `(${o} ${a} ${b})`),
      fc
        .tuple(fc.constantFrom('DIV', 'MOD'), tie('int'), fc.oneof(nonzero, fc.constantFrom('x', 'y')))
        .map(([o, a, b]) => `(${o} ${a} ${b})`),
      fc.tuple(tie('bool'), tie('int'), tie('int')).map(([c, a, b]) => `(ITE ${c} ${a} ${b})`),
      fc.tuple(tie('int'), fc.integer({ min: 0, max: 3 })).map(([a, n]) => `(POW ${a} ${n})`),
      tie('int').map((a) => `(MINUS ${a})`),
    ),
    bool: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      fc.constantFrom('p', 'q', 'true', 'false'),
      fc
        .tuple(fc.constantFrom('GT', 'LT', 'GTE', 'LTE', 'EQ', 'NEQ'), tie('int'), tie('int'))
        .map(([o, a, b]) => `(${o} ${a} ${b})`),
      fc
        .tuple(fc.constantFrom('AND', 'OR', 'XOR', 'IFF', 'IMPLIES'), tie('bool'), tie('bool'))
        .map(([o, a, b]) => `(${o} ${a} ${b})`),
      tie('bool').map((b) => `(NOT ${b})`),
      fc.tuple(tie('int'), tie('int'), tie('int')).map(([a, b, c]) => `(DISTINCT ${a} ${b} ${c})`),
    ),
  }));
  const realTerm = fc.oneof(
    fc.constantFrom('r', 's'),
    fc.integer({ min: -20, max: 20 }).map((n) => (n / 4).toFixed(2)),
    fc
      .tuple(
        fc.constantFrom('r', 's'),
        fc.integer({ min: -9, max: 9 }).filter((n) => n !== 0),
      )
      .map(([v, k]) => `(DIV ${v} ${k}.5)`),
    fc.tuple(fc.constantFrom('r', 's'), fc.integer({ min: -5, max: 5 })).map(([v, k]) => `(MULT ${k} ${v})`),
  );
  const realAtom = fc
    .tuple(
      fc.constantFrom('GT', 'LT', 'GTE', 'LTE', 'EQ', 'NEQ'),
      fc.array(realTerm, { minLength: 2, maxLength: 3 }),
      realTerm,
    )
    .map(([o, terms, rhs]) => `(${o} (PLUS ${terms.join(' ')}) ${rhs})`);

  const assignments = fc.sample(
    fc.record({
      x: fc.integer({ min: -6, max: 6 }),
      y: fc.integer({ min: -6, max: 6 }),
      z: fc.integer({ min: -6, max: 6 }),
      p: fc.boolean(),
      q: fc.boolean(),
      r: fc.integer({ min: -12, max: 12 }),
      s: fc.integer({ min: -12, max: 12 }),
    }),
    { numRuns: 40, seed: 7 },
  );

  type Point = { x: number; y: number; z: number; p: boolean; q: boolean; r: number; s: number };
  // Optional pins force evaluation at chosen points (negative values included), so Z3's
  // arithmetic is compared with the evaluator's where they could differ.
  const pins = fc.record({
    x: fc.option(fc.integer({ min: -9, max: 9 })),
    y: fc.option(fc.integer({ min: -9, max: 9 })),
    z: fc.option(fc.integer({ min: -9, max: 9 })),
    p: fc.option(fc.boolean()),
  });
  type Pins = { x: number | null; y: number | null; z: number | null; p: boolean | null };
  const pinForms = (pin: Pins) =>
    [
      pin.x === null ? '' : `(EQ x ${pin.x})`,
      pin.y === null ? '' : `(EQ y ${pin.y})`,
      pin.z === null ? '' : `(EQ z ${pin.z})`,
      pin.p === null ? '' : pin.p ? 'p' : '(NOT p)',
    ].join(' ');

  async function agree(query: string, pin: Pins | null): Promise<string> {
    const c = compileLogicQuery(query);
    const r = await solve(query, 10_000);
    if (r.status === 'ERROR') {
      // Allowed: the evaluator cannot decide (division by zero); never a disagreement.
      expect([r.reason, query]).toEqual(['independent_check_inconclusive', query]);
      return r.status;
    }
    expect(r.status === 'SAT' || r.status === 'UNSAT').toBe(true);
    if (r.status === 'UNSAT') {
      // No assignment may satisfy an UNSAT query according to the evaluator.
      for (const sample of assignments) {
        const a: Point = { ...sample, ...Object.fromEntries(Object.entries(pin ?? {}).filter(([, v]) => v !== null)) };
        const model = new Map<string, ModelValue>();
        for (const v of c.variables) {
          const raw = a[v.name as keyof Point];
          model.set(
            v.name,
            v.sort === 'Bool'
              ? Boolean(raw)
              : v.sort === 'Real'
                ? Rational.of(BigInt(raw as number), 4n)
                : Rational.of(BigInt(raw as number)),
          );
        }
        const checks = checkModel(c.typed.constraints, model);
        expect([checks.every((k) => k === 'true'), query, a]).toEqual([false, query, a]);
      }
    }
    return r.status;
  }

  it('Int/Bool formulas: every SAT model checks, no UNSAT is contradicted', async () => {
    const seen = { SAT: 0, UNSAT: 0, ERROR: 0 } as Record<string, number>;
    await fc.assert(
      fc.asyncProperty(fc.array(bool, { minLength: 1, maxLength: 3 }), pins, async (forms, pin) => {
        seen[await agree(`(VAR p Bool) (VAR q Bool) ${forms.join(' ')} ${pinForms(pin)}`, pin)]++;
      }),
      { numRuns: 80, seed: 20240601 },
    );
    // The generator must exercise both answers, or the property proves little.
    expect(seen.SAT).toBeGreaterThan(10);
    expect(seen.UNSAT).toBeGreaterThan(10);
  }, 120_000);

  it('linear Real formulas with exact rationals', async () => {
    const seen = { SAT: 0, UNSAT: 0, ERROR: 0 } as Record<string, number>;
    await fc.assert(
      fc.asyncProperty(fc.array(realAtom, { minLength: 1, maxLength: 4 }), async (forms) => {
        seen[await agree(`(VAR r Real) (VAR s Real) ${forms.join(' ')}`, null)]++;
      }),
      { numRuns: 40, seed: 99 },
    );
    expect(seen.SAT).toBeGreaterThan(5);
    expect(seen.UNSAT).toBeGreaterThan(2);
  }, 120_000);
});

describe('parser robustness', () => {
  it('any input either compiles or throws a typed LogicInputError (never crashes)', () => {
    const alphabet = fc.constantFrom(
      '(',
      ')',
      ',',
      ' ',
      'AND',
      'GT',
      'x',
      'VAR',
      'Int',
      'FORALL',
      '5',
      '-2.5',
      '"',
      'é',
      '.',
      'POW',
      '64',
      'p(',
      'NOT ',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
        ),
        (q) => {
          try {
            compileLogicQuery(q);
          } catch (e) {
            expect(e).toBeInstanceOf(LogicInputError);
          }
        },
      ),
      { numRuns: 3_000, seed: 1 },
    );
  });
});
