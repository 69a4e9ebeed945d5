// Unit rows of issue 28 items 9 and 10: the gateway's strict JSON reader with exact numbers,
// money at the currency's exponent, and logic_assertion entailment by the facts (real Z3).
import { afterAll, describe, expect, it } from 'vitest';
import { isExactJsonNumber, parseStrictJson, StrictJsonError } from '../../core/strict-json.js';
import { checkFinancialTransaction } from '../../engines/a2a/financial.js';
import { checkEntailment, type Solve } from '../../engines/a2a/entailment.js';
import { shutdownLogicPool, solveLogic } from '../../engines/logic/index.js';

const code = (text: string, opts = { exactNumbers: true }) => {
  try {
    parseStrictJson(text, opts);
    return 'ok';
  } catch (err) {
    return err instanceof StrictJsonError ? `${err.code} ${err.path}` : 'other';
  }
};

describe('strict JSON with exactNumbers', () => {
  const rows: Array<[string, string]> = [
    ['{"a":0.1}', 'ok'],
    ['{"a":1.50}', 'ok'],
    ['{"a":1e2}', 'ok'],
    ['{"a":-0.0}', 'ok'],
    ['{"a":0.30000000000000004}', 'ok'],
    ['{"a":9007199254740991}', 'ok'],
    ['{"a":10.0000000000000001}', 'inexact_number $.a'],
    ['{"a":0.1000000000000000055511151231257827}', 'inexact_number $.a'],
    ['{"a":[1,2,3.14159265358979323846]}', 'inexact_number $.a[2]'],
    ['{"a":9007199254740993}', 'unsafe_integer $.a'],
    ['{"a":1,"a":2}', 'duplicate_key $.a'],
    ['{"a":1e-400}', 'number_out_of_range $.a'],
  ];
  for (const [text, want] of rows) it(`${text} → ${want}`, () => expect(code(text)).toBe(want));
  it('is off by default (the webhook and Verification Context keep their reading)', () => {
    expect(code('{"a":10.0000000000000001}', { exactNumbers: false })).toBe('ok');
    expect(isExactJsonNumber('2.5')).toBe(true);
    expect(isExactJsonNumber('2.50000000000000000001')).toBe(false);
  });
});

describe('financial_transaction at the currency exponent', () => {
  const FIN = { amount: '10.50', currency: 'USD', balance_before: '100.00', balance_after: '89.25', fee: '0.25' };
  const rows: Array<[string, Record<string, unknown>, string]> = [
    ['holds', FIN, 'ok'],
    ['numbers', { amount: 0.1, fee: 0.2, currency: 'EUR', balance_before: 0.3, balance_after: 0 }, 'ok'],
    [
      '16 decimals',
      { ...FIN, amount: '10.5000000000000001' },
      'precision_exceeds_minor_unit: amount has 16 decimal places; USD allows 2',
    ],
    [
      'trailing zeros beyond the exponent',
      { ...FIN, amount: '10.500' },
      'precision_exceeds_minor_unit: amount has 3 decimal places; USD allows 2',
    ],
    [
      'JPY has no decimals',
      { amount: '10.0', currency: 'JPY', balance_before: '100', balance_after: '90' },
      'precision_exceeds_minor_unit: amount has 1 decimal places; JPY allows 0',
    ],
    ['BHD has three', { amount: '1.125', currency: 'BHD', balance_before: '2', balance_after: '0.875' }, 'ok'],
    [
      'fee too precise',
      { ...FIN, fee: '0.251' },
      'precision_exceeds_minor_unit: fee has 3 decimal places; USD allows 2',
    ],
    [
      'beyond 2^53 as strings, off by one',
      {
        amount: '10000000000000001',
        currency: 'JPY',
        balance_before: '20000000000000000',
        balance_after: '10000000000000000',
      },
      'balance_mismatch: balance_after must equal balance_before - amount - fee = 9999999999999999 JPY',
    ],
    [
      'beyond 2^53 as strings, exact',
      {
        amount: '10000000000000001',
        currency: 'JPY',
        balance_before: '20000000000000000',
        balance_after: '9999999999999999',
      },
      'ok',
    ],
  ];
  for (const [name, payload, want] of rows) {
    it(name, () => {
      const c = checkFinancialTransaction(payload);
      expect(c.ok ? 'ok' : `${c.reason}: ${c.detail}`).toBe(want);
    });
  }
});

describe('logic_assertion: entailment by the facts (Z3)', () => {
  afterAll(async () => {
    await shutdownLogicPool();
  });
  const solve: Solve = (dsl, timeoutMs) => solveLogic(dsl, { timeoutMs });
  const Q = '(AND (GT amount 1000000) (EQ sanctions_check_passed 1))';
  const rows: Array<[string, string, unknown, string, RegExp]> = [
    ['satisfiable, no facts', Q, undefined, 'unverifiable', /^not_entailed: .*open: amount, sanctions_check_passed/],
    [
      'entailed by the facts',
      Q,
      { amount: 2500000, sanctions_check_passed: 1 },
      'verified',
      /^entailed: .*exact evaluator agrees/,
    ],
    [
      'refuted by the facts',
      Q,
      { amount: 2500000, sanctions_check_passed: 0 },
      'blocked',
      /^assertion_refuted: constraint #1 is false/,
    ],
    ['one variable open', Q, { amount: 2500000 }, 'unverifiable', /^not_entailed: .*open: sanctions_check_passed/],
    ['open but refuted for every value', '(AND (GT x 5) (LT x 3))', {}, 'blocked', /^assertion_refuted: no values/],
    ['valid without facts', '(OR (GT x 5) (LTE x 5))', {}, 'verified', /^entailed: /],
    ['entailed with an open variable', '(OR (GT amount 10) (EQ y 1))', { amount: 11 }, 'verified', /^entailed: /],
    ['decimal facts for a Real variable', '(VAR r Real) (GT r 0.5)', { r: '0.75' }, 'verified', /^entailed: /],
    ['Bool facts', '(VAR ok Bool) (IMPLIES ok (GT n 0))', { ok: true, n: 3 }, 'verified', /^entailed: /],
    [
      'Int variable given a fraction',
      Q,
      { amount: 2500000.5, sanctions_check_passed: 1 },
      'unverifiable',
      /^invalid_facts: fact 'amount' must be an integer/,
    ],
    [
      'Int variable given a boolean',
      Q,
      { amount: 2500000, sanctions_check_passed: true },
      'unverifiable',
      /^invalid_facts: fact 'sanctions_check_passed' must be a number/,
    ],
    [
      'Bool variable given 1',
      '(VAR ok Bool) ok',
      { ok: 1 },
      'unverifiable',
      /^invalid_facts: fact 'ok' must be true or false/,
    ],
    ['facts not an object', Q, [1, 2], 'unverifiable', /^invalid_facts: facts must be an object/],
    ['natural language', 'the amount is large', {}, 'unverifiable', /^natural_language_requires_provider/],
    ['policy', '(EVAL x)', {}, 'blocked', /^logic_policy: unknown_operator/],
    ['type error', '(GT p 1) (VAR p Bool)', {}, 'unverifiable', /^invalid_query: /],
  ];
  for (const [name, query, facts, status, reason] of rows) {
    it(name, async () => {
      const r = await checkEntailment(query, facts, solve, 15_000);
      expect(r.status, r.reason).toBe(status);
      expect(r.reason).toMatch(reason);
    });
  }

  it('the verified proof records the facts, the negation and the solver', async () => {
    const r = await checkEntailment(Q, { amount: 2500000, sanctions_check_passed: 1, unrelated: 'x' }, solve, 15_000);
    expect(r.status).toBe('verified');
    if (r.status !== 'verified') return;
    expect(r.proof).toMatchObject({
      engine: 'z3-entailment',
      facts: { amount: '2500000', sanctions_check_passed: '1' },
      open_variables: [],
      unused_facts: ['unrelated'],
      negation_dsl:
        '(VAR amount Int) (VAR sanctions_check_passed Int) (EQ amount 2500000) (EQ sanctions_check_passed 1) (NOT (AND (GT amount 1000000) (EQ sanctions_check_passed 1)))',
      result: 'unsat',
      independent_evaluation: 'true',
    });
  });

  it('fails closed when the solver disagrees with the exact evaluator or runs out of time', async () => {
    const lying: Solve = async () => ({ status: 'SAT', model: { amount: '0' }, proof: {} as never });
    expect(await checkEntailment(Q, { amount: 2500000, sanctions_check_passed: 1 }, lying, 1000)).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/^engine_error: Z3 found a counterexample/),
    });
    const slow: Solve = async () => ({
      status: 'ERROR',
      error: 'Internal verification error',
      reason: 'solver_timeout',
      detail: '',
    });
    expect(await checkEntailment(Q, { amount: 2500000, sanctions_check_passed: 1 }, slow, 1000)).toEqual({
      status: 'error',
      reason: 'engine_timeout',
    });
    expect(await checkEntailment(Q, {}, solve, 10)).toEqual({ status: 'error', reason: 'engine_timeout' });
  });
});
