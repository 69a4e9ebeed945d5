// /verify/math engine: identities, non-identities, ambiguity, domain errors, tolerance,
// guards (with a timing bound), precision modes, flags, lock-down and the batch mapping.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { all, create } from 'mathjs';
import {
  mathBatchOutcome,
  mathRequestSchema,
  verifyMath,
  type MathRequest,
  type MathResponse,
} from '../../engines/math.js';
import { DISABLED_FUNCTIONS, lockedMath, M, parseMath } from '../../engines/math/mathjs-instance.js';
import { samplePoint } from '../../engines/math/sampling.js';
import { buildDiagnostic } from '../../core/diagnostic.js';
import { canonicalJson } from '../../core/canonical-json.js';

const v = (expression: string, extra: Partial<MathRequest> = {}): MathResponse => verifyMath({ expression, ...extra });

/** Every value is JSON: finite numbers, plain objects, no undefined. */
function assertJsonSafe(value: unknown, path = '$'): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    expect(Number.isFinite(value), `${path} is finite`).toBe(true);
    expect(Object.is(value, -0), `${path} is not -0`).toBe(false);
    return;
  }
  if (Array.isArray(value)) return value.forEach((x, i) => assertJsonSafe(x, `${path}[${i}]`));
  expect(typeof value, `${path} type`).toBe('object');
  expect(Object.getPrototypeOf(value), `${path} is a plain object`).toBe(Object.prototype);
  for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
    expect(x, `${path}.${k} defined`).not.toBeUndefined();
    assertJsonSafe(x, `${path}.${k}`);
  }
}

describe('identities are proven symbolically', () => {
  it('(x+1)^2 = x^2+2x+1 with the full proof record', () => {
    expect(v('(x+1)^2 = x^2+2x+1')).toEqual({
      is_valid: true,
      result: true,
      left_side: 'x^2 + 2*x + 1',
      right_side: 'x^2 + 2*x + 1',
      simplified_difference: '0',
      is_equivalent: true,
      method: 'canonical_form',
      message: 'Identity proven: both sides reduce to the same canonical form (difference 0).',
      proof: {
        method: 'canonical_form',
        verifier: 'svc-math-canonical-form',
        verifier_version: '7.3.0',
        expression: '(x+1)^2 = x^2+2x+1',
        domain: 'complex',
        assumptions: [],
        assumptions_used: [],
        lhs: { input: '(x+1)^2', canonical: 'x^2 + 2*x + 1' },
        rhs: { input: 'x^2+2x+1', canonical: 'x^2 + 2*x + 1' },
        difference: '0',
        rules: [],
        conditions: [],
        variables: ['x'],
      },
    });
  });

  it.each([
    ['(a+b)*(a-b) = a^2-b^2', 'a^2 - b^2'],
    ['x/2 + x/2 = x', 'x'],
    ['(x+1)**3 = x^3 + 3x^2 + 3x + 1', 'x^3 + 3*x^2 + 3*x + 1'],
    ['(x+y)^2 - (x-y)^2 = 4 x y', '4*x*y'],
    ['1/3 + 1/3 + 1/3 = 1', '1'],
    ['x == x', 'x'],
    ['0.1 x + 0.2 x = 0.3 x', '0.3*x'],
  ])('%s', (expression, canonical) => {
    const r = v(expression);
    expect(r.is_valid).toBe(true);
    expect(r.result).toBe(true);
    expect(r.simplified_difference).toBe('0');
    expect(r.left_side).toBe(canonical);
    expect(r.right_side).toBe(canonical);
    expect(r.proof?.difference).toBe('0');
  });

  it('sin(x)^2 + cos(x)^2 = 1 by the Pythagorean rewrite rule', () => {
    const r = v('sin(x)^2 + cos(x)^2 = 1');
    expect(r.is_valid).toBe(true);
    expect(r.proof?.rules).toEqual(['pythagorean_sin_cos']);
    // Hyperbolic functions become exponentials: cosh² - sinh² = exp(x)·exp(-x) = 1.
    expect(v('cosh(x)^2 - sinh(x)^2 = 1').proof?.rules).toEqual(['exponential', 'hyperbolic_exponential']);
  });

  it('records the conditions of rational-function identities', () => {
    expect(v('tan(x) = sin(x)/cos(x)').proof?.conditions).toEqual(['cos(x) != 0']);
    const r = v('(x^2-1)/(x-1) = x+1');
    expect(r.proof?.conditions).toEqual(['x - 1 != 0']);
    expect(r.proof?.rules).toEqual(['exact_polynomial_division']);
    expect(r.message).toBe(
      'Identity proven: both sides reduce to the same canonical form (difference 0), wherever x - 1 != 0.',
    );
    expect(v('x/x = 1').proof?.conditions).toEqual(['x != 0']);
  });

  it.each([
    ['sqrt(x)^2 = x', 'radical_power'],
    ['sqrt(8) = 2 sqrt(2)', 'exact_root'],
    ['2^0.5 = sqrt(2)', 'rational_exponent'],
    ['e^x * e^y = e^(x+y)', 'exponential'],
    ['(1+i)^2 = 2i', 'imaginary_unit_square'],
    ['cos(pi/3) = 1/2', 'special_value'],
    ['sin(3 pi/4) = sqrt(2)/2', 'special_value'],
    ['e^(i*pi) + 1 = 0', 'euler_formula'],
    ['log(8) = 3 log(2)', 'log_of_rational'],
  ])('%s uses %s', (expression, rule) => {
    const r = v(expression);
    expect(r.is_valid).toBe(true);
    expect(r.proof?.rules).toContain(rule);
  });
});

describe('non-identities', () => {
  it('(x+1)^2 = x^2+1 reports the non-zero simplified difference and no proof', () => {
    expect(v('(x+1)^2 = x^2+1')).toEqual({
      is_valid: false,
      result: false,
      left_side: 'x^2 + 2*x + 1',
      right_side: 'x^2 + 1',
      simplified_difference: '2*x',
      is_equivalent: false,
      method: 'canonical_form',
      message: 'The sides are not equal: the simplified difference is 2*x.',
    });
  });

  it.each([
    ['x^2 = 4', 'x^2 - 4'],
    ['2+2 = 5', '-1'],
    ['pi = 3.14159', 'pi - 3.14159'],
    ['x = y', 'x - y'],
  ])('%s differs by %s', (expression, diff) => {
    const r = v(expression);
    expect(r.is_valid).toBe(false);
    expect(r.simplified_difference).toBe(diff);
    expect(r.proof).toBeUndefined();
    expect(r.status).toBeUndefined();
  });

  it('finds counterexamples by sampling when atoms block a symbolic decision', () => {
    const r = v('sqrt(x^2) = x');
    expect(r.is_valid).toBe(false);
    expect(r.method).toBe('numerical_sampling');
    expect(r.counterexample).toEqual({ x: '-2.9' });
    expect(r.message).toBe('The sides are not equal: at x = -2.9 the left side is 2.9 and the right side is -2.9.');
    // log(x·y) = log(x) + log(y) fails only when both are negative: the sample design covers it.
    expect(v('log(x*y) = log(x) + log(y)').counterexample).toEqual({ x: '-3.7', y: '-1.6' });
    expect(v('e = 2.718')).toMatchObject({
      is_valid: false,
      method: 'numerical_evaluation',
      simplified_difference: 'e - 2.718',
    });
  });
});

describe('angle addition over a shared basis', () => {
  it.each([
    'sin(2x) = 2 sin(x) cos(x)',
    'cos(2x) = cos(x)^2 - sin(x)^2',
    'cos(2x) = 1 - 2 sin(x)^2',
    'sin(x + y) = sin(x) cos(y) + cos(x) sin(y)',
    'cos(x - y) = cos(x) cos(y) + sin(x) sin(y)',
    'sin(x + pi/2) = cos(x)',
    'cos(x + pi) = -cos(x)',
    'cos(x) = 2 cos(x/2)^2 - 1',
    'sin(x)^2 = (1 - cos(2x))/2',
    'tan(2x) = 2 tan(x)/(1 - tan(x)^2)',
    'sin(3x) = 3 sin(x) - 4 sin(x)^3',
    'sinh(2x) = 2 sinh(x) cosh(x)',
    'cosh(x + y) = cosh(x) cosh(y) + sinh(x) sinh(y)',
    'cosh(2x) = 2 cosh(x)^2 - 1',
  ])('%s is proven on canonical forms', (e) => {
    const r = v(e);
    expect(r).toMatchObject({ is_valid: true, is_equivalent: true, method: 'canonical_form' });
  });

  it.each([
    'sin(2x) = 2 sin(x)',
    'cos(2x) = 2 cos(x) - 1',
    'sin(x + y) = sin(x) + sin(y)',
    'cosh(2x) = 2 cosh(x)^2 + 1',
  ])('%s is never VERIFIED', (e) => {
    expect(v(e)).toMatchObject({ is_valid: false });
  });
});

describe('numerical agreement is never a proof', () => {
  // log(exp(x)) = x holds for real x only (x = 2πi is a counterexample): the real sample points agree.
  it('log(exp(x)) = x is BLOCKED with is_equivalent false', () => {
    expect(v('log(exp(x)) = x')).toEqual({
      status: 'BLOCKED',
      is_valid: false,
      result: false,
      left_side: 'log(exp(x))',
      right_side: 'x',
      simplified_difference: 'log(exp(x)) - x',
      is_equivalent: false,
      method: 'numerical_sampling',
      samples_checked: 8,
      error: 'sampling_not_proof',
      message:
        'Both sides agree at 8 sample points, but numerical sampling is not a proof: the identity could not be proven symbolically.',
    });
  });

  it('in the real domain, points outside the domain are skipped', () => {
    const r = v('log(x*y) = log(x) + log(y)', { context: { domain: 'real' } });
    expect(r).toMatchObject({
      status: 'BLOCKED',
      is_equivalent: false,
      error: 'sampling_not_proof',
      samples_checked: 2,
    });
  });

  it('closed expressions that agree only numerically are BLOCKED', () => {
    expect(v('atan(1) = pi/4')).toMatchObject({
      status: 'BLOCKED',
      is_valid: false,
      is_equivalent: false,
      method: 'numerical_evaluation',
      error: 'numerical_agreement_not_proof',
    });
  });

  it('sides that cannot be evaluated anywhere are BLOCKED as not evaluable', () => {
    expect(v('sinh(x*10^6) = 1')).toMatchObject({ status: 'BLOCKED', error: 'not_evaluable', samples_checked: 0 });
  });
});

describe('ambiguous implicit multiplication after division', () => {
  it('8/2(2+2) is BLOCKED with warning ambiguous', () => {
    expect(v('8/2(2+2)')).toEqual({
      status: 'BLOCKED',
      is_valid: false,
      result: false,
      warning: 'ambiguous',
      error: 'ambiguous_expression',
      message:
        'Ambiguous expression: "8 / 2 (2 + 2)" has an implicit multiplication directly after a division, which can be read as (8 / 2) * (2 + 2) or as 8 / (2 * (2 + 2)). Add parentheses or an explicit "*".',
      simplified: '8 / 2 * (2 + 2)',
      interpretations: ['(8 / 2) * (2 + 2)', '8 / (2 * (2 + 2))'],
    });
  });

  it.each(['1/2x', '6/2x', '1/2x = 0.5x', 'a/b sin(x)', '8/(2)(2+2)', '1/-2x', 'sin(1/2x)'])(
    '%s is ambiguous',
    (expression) => {
      const r = v(expression);
      expect(r).toMatchObject({ status: 'BLOCKED', is_valid: false, result: false, warning: 'ambiguous' });
      expect(typeof r.simplified).toBe('string');
    },
  );

  it('2x/3 and (8/2)(2+2) are not ambiguous', () => {
    expect(v('2x/3')).toMatchObject({ is_valid: true, is_symbolic: true, simplified: '(2/3)*x', value: null });
    expect(v('(8/2)(2+2)')).toMatchObject({ is_valid: true, value: 16, simplified: '16' });
    expect(v('8/2*(2+2)').value).toBe(16);
  });
});

describe('domain errors: is_valid false with error and message', () => {
  it.each([
    ['1/0', 'division_by_zero', 'Division by zero is undefined.'],
    ['log(0)', 'log_of_zero', 'The logarithm of zero is undefined.'],
    ['tan(pi/2)', 'division_by_zero', 'Division by zero is undefined.'],
    ['0^-1', 'division_by_zero', 'Division by zero is undefined.'],
    ['(-3)!', 'factorial_domain', 'The factorial is defined here for non-negative integers only.'],
    ['gcd(2.5, 5)', 'integer_argument_required', 'gcd() takes integer arguments only.'],
    [
      'nthRoot(-4, 2)',
      'even_root_of_negative',
      'An even root of a negative number is undefined (use sqrt for the principal complex root).',
    ],
    ['10^400', 'result_out_of_range', 'The value is outside the representable range.'],
  ])('%s → %s', (expression, error, message) => {
    expect(v(expression)).toEqual({ is_valid: false, original: expression, error, message });
  });

  it('sqrt(-4) in the real domain is an error; without a restriction it is complex', () => {
    expect(v('sqrt(-4)', { context: { domain: 'real' } })).toEqual({
      is_valid: false,
      original: 'sqrt(-4)',
      error: 'sqrt_of_negative',
      message: 'The square root of a negative number is undefined in the real domain.',
    });
    expect(v('sqrt(-4)')).toEqual({
      is_valid: true,
      value: '2i',
      simplified: '2*i',
      original: 'sqrt(-4)',
      is_complex: true,
      real: 0,
      imaginary: 2,
      message: 'Expression evaluated; the result is complex.',
    });
  });

  it('real-domain logarithms and inverse sines of out-of-domain values are errors', () => {
    expect(v('log(-1)', { context: { domain: 'real' } }).error).toBe('log_of_negative');
    expect(v('asin(2)', { context: { domain: 'real' } }).error).toBe('complex_in_real_domain');
    expect(v('i + 1', { context: { domain: 'real' } }).error).toBe('complex_in_real_domain');
    expect(v('log(-1)')).toMatchObject({
      is_valid: true,
      is_complex: true,
      simplified: 'i*pi',
      real: 0,
      imaginary: Math.PI,
    });
  });

  it('equations report domain errors with result false', () => {
    expect(v('x/0 = 1')).toEqual({
      is_valid: false,
      result: false,
      error: 'division_by_zero',
      message: 'Division by zero is undefined.',
    });
  });
});

describe('tolerance', () => {
  const blockedFields = (error: string, requested: string, max: string | null, calc: string | null) => ({
    status: 'BLOCKED',
    is_valid: false,
    result: false,
    is_correct: false,
    error,
    requested_tolerance: requested,
    max_allowed_tolerance: max,
    calculated_value: calc,
    precision_mode: 'decimal',
  });

  it.each([
    [-1, 'tolerance_negative', '-1'],
    ['-0.5', 'tolerance_negative', '-0.5'],
    [Number.NaN, 'tolerance_not_finite', 'NaN'],
    ['NaN', 'tolerance_not_finite', 'NaN'],
    [Number.POSITIVE_INFINITY, 'tolerance_not_finite', 'Infinity'],
    ['-Infinity', 'tolerance_not_finite', '-Infinity'],
    ['abc', 'tolerance_not_numeric', 'abc'],
    [true, 'tolerance_not_numeric', 'true'],
    ['0x10', 'tolerance_not_numeric', '0x10'],
  ])('tolerance %s → %s', (tolerance, error, requested) => {
    const r = v('250 = 251', { tolerance: tolerance as MathRequest['tolerance'] });
    expect(r).toMatchObject(blockedFields(error, requested, '2.5', '250'));
    expect(typeof r.message).toBe('string');
  });

  it('exactly at the bound is allowed, just above is BLOCKED', () => {
    expect(v('250 = 251', { tolerance: 2.5 })).toEqual({
      is_valid: true,
      result: true,
      left_side: '250',
      right_side: '251',
      simplified_difference: '-1',
      method: 'tolerance_comparison',
      is_correct: true,
      message: 'The sides agree within the tolerance 2.5 (a numeric comparison, not a proof).',
      requested_tolerance: '2.5',
      max_allowed_tolerance: '2.5',
      calculated_value: '250',
      precision_mode: 'decimal',
      tolerance_applied: true,
    });
    expect(v('250 = 251', { tolerance: '2.5000001' })).toEqual({
      ...blockedFields('tolerance_above_maximum', '2.5000001', '2.5', '250'),
      message: 'The requested tolerance 2.5000001 exceeds the maximum allowed 2.5 (max(0.01, 1% of |250|)).',
    });
  });

  it('the bound never goes below 0.01', () => {
    expect(v('1 = 1.005', { tolerance: 0.01 })).toMatchObject({ is_valid: true, max_allowed_tolerance: '0.01' });
    expect(v('1 = 1.005', { tolerance: '0.0100001' })).toMatchObject(
      blockedFields('tolerance_above_maximum', '0.0100001', '0.01', '1'),
    );
  });

  it('compares |lhs - rhs| with the tolerance', () => {
    expect(v('2+2 = 4.02', { tolerance: 0.01 })).toMatchObject({
      is_valid: false,
      result: false,
      is_correct: false,
      simplified_difference: '-0.02',
    });
    expect(v('1/3 = 0.333', { tolerance: 0.001 })).toMatchObject({
      is_valid: true,
      is_correct: true,
      calculated_value: '0.3333333333333333333333333333333333333333333333333333333333333333',
    });
  });

  it('an exact identity under a tolerance is still proven', () => {
    const r = v('sqrt(-4) = 2i', { tolerance: 0.001 });
    expect(r).toMatchObject({
      is_valid: true,
      is_correct: true,
      max_allowed_tolerance: '0.02',
      calculated_value: '2i',
    });
    expect(r.proof?.difference).toBe('0');
  });

  it('symbolic claims: malformed tolerances are BLOCKED, valid ones are not applied', () => {
    expect(v('x = x', { tolerance: 'abc' })).toMatchObject(blockedFields('tolerance_not_numeric', 'abc', null, null));
    expect(v('x = x', { tolerance: 0.001 })).toMatchObject({ is_valid: true, tolerance_applied: false });
  });

  it('reports float precision mode when requested', () => {
    expect(v('1 = 1', { tolerance: -1, precision_mode: 'float' }).precision_mode).toBe('float');
  });
});

describe('precision modes and exponentiation', () => {
  it('0.1 + 0.2 = 0.3 is exactly true in decimal mode (the default) and false in float mode', () => {
    expect(v('0.1+0.2 = 0.3')).toMatchObject({ is_valid: true, left_side: '0.3', simplified_difference: '0' });
    expect(v('0.1+0.2 = 0.3', { precision_mode: 'float' })).toEqual({
      is_valid: false,
      result: false,
      left_side: '0.30000000000000004',
      right_side: '0.3',
      simplified_difference: '5.551115123125783e-17',
      method: 'exact_float_comparison',
      message: 'The sides differ in IEEE-754 double arithmetic (float mode) by 5.551115123125783e-17.',
    });
    expect(v('0.1+0.2')).toMatchObject({ value: 0.3, simplified: '0.3' });
    expect(v('0.1+0.2', { precision_mode: 'float' })).toMatchObject({
      value: 0.30000000000000004,
      simplified: '0.30000000000000004',
    });
  });

  it('float-mode equality is never a proof', () => {
    const r = v('0.5 + 0.25 = 0.75', { precision_mode: 'float' });
    expect(r).toMatchObject({ is_valid: true, method: 'exact_float_comparison' });
    expect(r.proof).toBeUndefined();
    expect(v('sqrt(2)^2 = 2', { precision_mode: 'float' }).is_valid).toBe(false);
    expect(v('sqrt(2)^2 = 2').is_valid).toBe(true);
  });

  it('^ and ** are both exponentiation (right-associative)', () => {
    expect(v('2**10')).toMatchObject({ value: 1024, simplified: '1024' });
    expect(v('2**3**2').value).toBe(512);
    expect(v('2**3 = 2^3').is_valid).toBe(true);
    expect(v('x**2 * x**3 = x^5').proof?.lhs.canonical).toBe('x^5');
  });

  it('exact rationals and irrational values', () => {
    expect(v('1/3')).toMatchObject({ value: 0.3333333333333333, simplified: '1/3' });
    expect(v('sqrt(2)')).toMatchObject({ value: 1.4142135623730951, simplified: 'sqrt(2)' });
    expect(v('round(2.5)').value).toBe(3);
    expect(v('round(-2.5)').value).toBe(-3);
    expect(v('round(1.005, 2)').value).toBe(1.01);
    expect(v('mod(-7, 3)').value).toBe(2);
    expect(v('170!').value).toBe(7.257415615307999e306);
  });
});

describe('symbolic and complex flags', () => {
  it('free variables make an expression symbolic', () => {
    expect(v('x + y + x')).toEqual({
      is_valid: true,
      value: null,
      simplified: '2*x + y',
      original: 'x + y + x',
      is_symbolic: true,
      variables: ['x', 'y'],
      message: 'The expression is symbolic (free variables: x, y); it has no numeric value.',
    });
    expect(v('x - x')).toMatchObject({ is_valid: true, value: 0 });
    expect(v('x - x').is_symbolic).toBeUndefined();
  });

  it('complex results carry is_complex and their parts', () => {
    expect(v('(-8)^(1/3)')).toMatchObject({
      is_complex: true,
      value: '1 + 1.732050807568877i',
      real: 1,
      imaginary: 1.732050807568877,
    });
    expect(v('cbrt(-8)')).toMatchObject({ value: -2 });
    expect(v('i^2')).toMatchObject({ value: -1 });
    expect(v('i^2').is_complex).toBeUndefined();
  });
});

describe('guards: rejected before evaluation, fast', () => {
  const GUARDS: Array<[string, string]> = [
    ['9^9^9', 'power_tower'],
    ['2^2^2^2^2', 'power_tower'],
    ['10^1000000', 'exponent_too_large'],
    ['2^-1000000', 'exponent_too_large'],
    ['x^(10^6)', 'power_tower'],
    ['x^5000', 'exponent_too_large'],
    ['1.1^10000', 'exponent_too_large'],
    ['100000!', 'factorial_too_large'],
    ['factorial(171)', 'factorial_too_large'],
    ['(2^1000)(2^1000)(2^1000)(2^1000)(2^1000)(2^1000)', 'result_too_large'],
    ['2^1000 * 2^1000 * 2^1000 * 2^1000 * 2^1000 * 2^1000', 'result_too_large'],
    ['1' + '0'.repeat(400), 'literal_too_large'],
    ['1e400', 'literal_too_large'],
    ['zeros(5000,5000)', 'matrix_construction'],
    ['[1,2]', 'matrix_construction'],
    ['1:10', 'range_construction'],
    ['f(x)=x', 'function_definition'],
    ['f(x, y) = x + y', 'function_definition'],
    ['(a=1)+2', 'assignment'],
    ['a = b = c', 'chained_equation'],
    ['import({}, {})', 'function_not_allowed'],
    ['evaluate("1")', 'function_not_allowed'],
    ['createUnit("x")', 'function_not_allowed'],
    ['parse("1")', 'function_not_allowed'],
    ['compile("1")', 'function_not_allowed'],
    ['simplify("x")', 'function_not_allowed'],
    ['derivative("x^2", "x")', 'function_not_allowed'],
    ['a.b', 'index_or_accessor'],
    ['a[1]', 'index_or_accessor'],
    ['{a: 1}', 'object_construction'],
    ['"abc"', 'string_literal'],
    ['true', 'literal_not_allowed'],
    ['Infinity', 'non_finite_constant'],
    ['1; 2', 'multiple_statements'],
    ['x ? 1 : 2', 'conditional'],
    ['x < 1', 'comparison_not_allowed'],
    ['3!=6', 'comparison_not_allowed'],
    ['5 cm to inch', 'operator_not_allowed'],
    ['50%', 'operator_not_allowed'],
    ['sin x', 'invalid_symbol'],
    ['nthRoot(x, 2.5)', 'invalid_arguments'],
    ['sin(1, 2)', 'invalid_arguments'],
    ['1 + 1 # = 3', 'comment_not_allowed'],
    ['x'.padEnd(2001, '+'), 'expression_too_long'],
    ['x' + '+x'.repeat(300), 'too_many_nodes'],
    ['('.repeat(50) + '1' + ')'.repeat(50), 'nesting_too_deep'],
    ['1 +', 'parse_error'],
    ['', 'parse_error'],
  ];

  it('every guard blocks with its name, before the work it guards against', () => {
    const t0 = performance.now();
    const results = GUARDS.map(([expression]) => v(expression));
    const elapsed = performance.now() - t0;
    results.forEach((r, i) => {
      const [expression, guard] = GUARDS[i] as [string, string];
      expect({ expression, status: r.status, is_valid: r.is_valid, error: r.error }).toEqual({
        expression,
        status: 'BLOCKED',
        is_valid: false,
        error: guard,
      });
      expect(r.message.length, expression).toBeGreaterThan(0);
    });
    // Refused before any work (~50 ms on a quiet machine): building zeros(5000,5000) or expanding x^(10^6) takes far longer.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('guard messages name the bound', () => {
    expect(v('9^9^9').message).toBe(
      'Power towers whose exponent is too large (about 3.7e+8 digits, limit 1000) are not evaluated.',
    );
    expect(v('100000!').message).toBe('Factorials are computed for n <= 170 only.');
    expect(v('import({}, {})').message).toBe('The function import() is not on the allow-list.');
  });

  it('expensive but legitimate inputs stay bounded', () => {
    const t0 = performance.now();
    for (const e of [
      '(x+y+z+w+1)^1000 = 1',
      '(x+1)^1000 = 1',
      '(pi + e + sqrt(2) + 1)^300 = 1',
      'sinh(x*10^6) = 1',
      'sin(10^30)',
      'exp(10000)',
    ]) {
      const r = v(e);
      expect(r.error === 'internal_error', e).toBe(false);
    }
    // Bounded: ~0.5 s on a quiet machine; expanding (x+y+z+w+1)^1000 without its bounds does not finish.
    expect(performance.now() - t0).toBeLessThan(15_000);
  });
});

describe('mathjs lock-down', () => {
  it('expression-callable mathjs functions of the private instance throw', () => {
    for (const name of [
      'import',
      'createUnit',
      'evaluate',
      'parse',
      'simplify',
      'derivative',
      'compile',
      'resolve',
      'reviver',
    ]) {
      expect(DISABLED_FUNCTIONS).toContain(name);
      expect(() => lockedMath[name]?.('1'), name).toThrow(`Function ${name} is disabled`);
    }
  });

  it('the engine keeps its own parser', () => {
    expect(parseMath('2 x').toString()).toBe('2 x');
  });

  it('a decimal.js precision left raised by a failed call is restored', () => {
    expect(() => M.sin(M.bignumber('1e1000'))).toThrow();
    const r = v('sin(1)');
    expect(r.value).toBe(0.8414709848078965);
  });
});

describe('request schema', () => {
  it('ignores unknown keys and validates known keys strictly', () => {
    expect(mathRequestSchema.parse({ expression: '1+1', extra: 1, context: { domain: 'real', other: true } })).toEqual({
      expression: '1+1',
      context: { domain: 'real' },
    });
    expect(mathRequestSchema.safeParse({}).error?.issues[0]?.message).toBe('expression is required');
    expect(mathRequestSchema.safeParse({ expression: 5 }).error?.issues[0]?.message).toBe(
      'expression must be a string',
    );
    expect(mathRequestSchema.safeParse({ expression: 'x', context: { domain: 'reals' } }).success).toBe(false);
    expect(mathRequestSchema.safeParse({ expression: 'x', precision_mode: 'double' }).success).toBe(false);
    expect(mathRequestSchema.safeParse({ expression: 'x', tolerance: { a: 1 } }).success).toBe(false);
    expect(mathRequestSchema.parse({ expression: 'x', tolerance: 'abc' }).tolerance).toBe('abc');
  });
});

describe('batch math items', () => {
  it('an identity is proven with developer_fields and the same proof artifact', () => {
    const outcome = mathBatchOutcome('(x+1)^2 = x^2+2x+1');
    expect(outcome).toEqual({
      kind: 'proven',
      agentMessage: 'Identity proven: the difference of the two sides simplifies to 0.',
      developerFields: {
        constraint_id: 'math_verifier.identity_proven',
        is_valid: true,
        simplified_difference: '0',
        left_side: 'x^2 + 2*x + 1',
        right_side: 'x^2 + 2*x + 1',
        method: 'canonical_form',
        is_equivalent: true,
        expression: '(x+1)^2 = x^2+2x+1',
      },
      proof: v('(x+1)^2 = x^2+2x+1').proof,
    });
    if (outcome.kind !== 'proven') throw new Error('unreachable');
    expect(() => canonicalJson(outcome.proof)).not.toThrow();
  });

  it('sides that differ are UNVERIFIABLE with a non-zero diff', () => {
    const outcome = mathBatchOutcome('(x+1)^2 = x^2+1');
    expect(outcome).toEqual({
      kind: 'unverifiable',
      agentMessage: 'The sides are not equal: the simplified difference is 2*x.',
      developerFields: {
        constraint_id: 'math_verifier.sides_differ',
        is_valid: false,
        diff: '2*x',
        simplified_difference: '2*x',
        left_side: 'x^2 + 2*x + 1',
        right_side: 'x^2 + 1',
        method: 'canonical_form',
      },
    });
    const d = buildDiagnostic({
      status: 'UNVERIFIABLE',
      agentMessage: outcome.agentMessage,
      developerFields: outcome.developerFields,
    });
    expect(d).toMatchObject({ status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false });
  });

  it('a bare expression is UNVERIFIABLE with simplified set', () => {
    expect(mathBatchOutcome('2+3')).toEqual({
      kind: 'unverifiable',
      agentMessage: 'Expression evaluated; a bare expression makes no claim to verify.',
      developerFields: {
        constraint_id: 'math_verifier.expression_evaluated',
        is_valid: true,
        simplified: '5',
        value: 5,
        original: '2+3',
      },
    });
  });

  it.each([
    ['9^9^9', 'math_verifier.power_tower'],
    ['8/2(2+2)', 'math_verifier.ambiguous_expression'],
    ['1/0', 'math_verifier.division_by_zero'],
    ['sqrt(-4) = 2', 'math_verifier.sides_differ'],
    ['log(exp(x)) = x', 'math_verifier.sampling_not_proof'],
    ['import({}, {})', 'math_verifier.function_not_allowed'],
  ])('%s → %s', (expression, constraint) => {
    const outcome = mathBatchOutcome(expression);
    expect(outcome.developerFields.constraint_id).toBe(constraint);
    expect(outcome.developerFields.is_valid).toBe(false);
    expect(outcome.kind).toBe(constraint === 'math_verifier.sides_differ' ? 'unverifiable' : 'blocked');
  });

  it('the ambiguity block keeps the warning; domain errors are blocked', () => {
    expect(mathBatchOutcome('8/2(2+2)').developerFields).toMatchObject({
      warning: 'ambiguous',
      simplified: '8 / 2 * (2 + 2)',
    });
    expect(mathBatchOutcome('sqrt(-4)', { context: { domain: 'real' } })).toMatchObject({
      kind: 'blocked',
      developerFields: { constraint_id: 'math_verifier.sqrt_of_negative' },
    });
  });

  it('params are validated; numeric equality without proof is UNVERIFIABLE', () => {
    expect(mathBatchOutcome('1+1', { precision_mode: 'double' })).toMatchObject({
      kind: 'blocked',
      developerFields: { constraint_id: 'math_verifier.invalid_request', is_valid: false },
    });
    expect(mathBatchOutcome('0.5 + 0.25 = 0.75', { precision_mode: 'float' })).toMatchObject({
      kind: 'unverifiable',
      developerFields: { constraint_id: 'math_verifier.numeric_equality_unproven', method: 'exact_float_comparison' },
    });
    expect(mathBatchOutcome('250 = 251', { tolerance: 5 })).toMatchObject({
      kind: 'blocked',
      developerFields: { constraint_id: 'math_verifier.tolerance_above_maximum', max_allowed_tolerance: '2.5' },
    });
  });
});

describe('determinism and JSON output', () => {
  const CORPUS = [
    '(x+1)^2 = x^2+2x+1',
    '(x+1)^2 = x^2+1',
    'sin(2x) = 2 sin(x) cos(x)',
    '8/2(2+2)',
    'sqrt(-4)',
    '1/0',
    '2^1000',
    '10^400',
    '170!',
    'x + y',
    'log(-1)',
    'sqrt(x^2) = x',
    'e = 2.718',
    '9^9^9',
    'exp(log(2)) = 2',
    '(-8)^(1/3)',
    'tan(x) = sin(x)/cos(x)',
  ];

  it('same input, same output; every output is plain JSON', () => {
    for (const e of CORPUS) {
      for (const extra of [
        {},
        { precision_mode: 'float' as const },
        { tolerance: 0.01 },
        { context: { domain: 'real' as const } },
      ]) {
        const a = v(e, extra);
        const b = v(e, extra);
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        assertJsonSafe(a);
        expect(a.error === 'internal_error', e).toBe(false);
      }
    }
  });

  it('sample points are fixed and cover the sign patterns of three variables', () => {
    const signs = new Set(
      Array.from({ length: 8 }, (_, j) =>
        Object.values(samplePoint(['a', 'b', 'c'], j))
          .map((x) => x.startsWith('-'))
          .join(),
      ),
    );
    expect(signs.size).toBe(8);
    expect(samplePoint(['x'], 1)).toEqual({ x: '-2.9' });
    expect(samplePoint(['x', 'y'], 0)).toEqual({ x: '0.7', y: '5' });
  });
});

describe('soundness (property): a proven identity holds numerically', () => {
  // An independent plain mathjs instance evaluates both sides at random points.
  const reference = create(all);
  const leaf = fc.oneof(
    fc.constantFrom('x', 'y', 'pi', 'e'),
    fc.integer({ min: -5, max: 9 }).map(String),
    fc.constantFrom('0.5', '1.25'),
  );
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(tie('e'), fc.constantFrom('+', '-', '*'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie('e'), fc.integer({ min: 0, max: 3 })).map(([a, n]) => `(${a})^${n}`),
      fc.tuple(fc.constantFrom('sin', 'cos', 'exp', 'sqrt', 'abs'), tie('e')).map(([f, a]) => `${f}(${a})`),
    ),
  })).e;
  // Pairs that are often equal: an expression and a rewriting of it.
  const pair = fc.oneof(
    fc.tuple(expr, expr),
    expr.map((a) => [a, `((${a}) + 1)^2 - 2*(${a}) - 1`] as [string, string]),
    fc.tuple(expr, expr).map(([a, b]) => [`(${a})*(${b})`, `(${b})*(${a})`] as [string, string]),
    expr.map((a) => [`sin(${a})^2`, `1 - cos(${a})^2`] as [string, string]),
    expr.map((a) => [`(${a})^2`, `((${a})^2)`] as [string, string]),
  );

  it('proven equations agree at random points', () => {
    let proven = 0;
    fc.assert(
      fc.property(
        pair,
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        ([a, b], x, y) => {
          const r = v(`${a} = ${b}`);
          expect(r.error === 'internal_error').toBe(false);
          if (!r.proof) return;
          proven++;
          expect(r.is_valid).toBe(true);
          const scope = { x, y };
          const l = reference.evaluate(a, scope) as number | { re: number; im: number };
          const rr = reference.evaluate(b, scope) as number | { re: number; im: number };
          const c = (z: typeof l) => (typeof z === 'number' ? { re: z, im: 0 } : { re: z.re, im: z.im });
          const L = c(l);
          const R = c(rr);
          if (![L.re, L.im, R.re, R.im].every(Number.isFinite)) return;
          const scale = Math.max(1, Math.hypot(L.re, L.im), Math.hypot(R.re, R.im));
          expect(Math.hypot(L.re - R.re, L.im - R.im)).toBeLessThanOrEqual(1e-6 * scale);
        },
      ),
      { numRuns: 150, seed: 20250101 },
    );
    // The generator must actually exercise the prover.
    expect(proven).toBeGreaterThan(40);
  });
});

describe('robustness (property): any allow-listed input gives a JSON verdict, never an internal error', () => {
  const fns = [
    'sin',
    'cos',
    'tan',
    'asin',
    'acos',
    'atan',
    'sinh',
    'cosh',
    'tanh',
    'exp',
    'log',
    'log10',
    'log2',
    'sqrt',
    'cbrt',
    'abs',
    'floor',
    'ceil',
    'round',
    'sign',
    'factorial',
  ];
  const leaf = fc.constantFrom('x', 'y', 'pi', 'e', 'i', '0', '1', '-1', '2', '0.5', '10', '1e10', '3.7');
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc
        .tuple(tie('e'), fc.constantFrom('+', '-', '*', '/', '^', ' mod '), tie('e'))
        .map(([a, o, b]) => `(${a}${o}${b})`),
      fc.tuple(fc.constantFrom(...fns), tie('e')).map(([f, a]) => `${f}(${a})`),
      fc
        .tuple(fc.constantFrom('min', 'max', 'gcd', 'lcm', 'nthRoot', 'log', 'round', 'mod'), tie('e'), tie('e'))
        .map(([f, a, b]) => `${f}(${a}, ${b})`),
      tie('e').map((a) => `(${a})!`),
    ),
  })).e;

  it('holds for random expressions and equations in both modes and domains', () => {
    fc.assert(
      fc.property(
        fc.tuple(expr, fc.option(expr), fc.constantFrom('decimal', 'float'), fc.constantFrom('real', 'complex')),
        ([a, b, mode, domain]) => {
          const r = verifyMath({
            expression: b === null ? a : `${a} = ${b}`,
            precision_mode: mode as 'decimal' | 'float',
            context: { domain: domain as 'real' | 'complex' },
          });
          expect(r.error).not.toBe('internal_error');
          expect(r.error).not.toBe('unbound_variable');
          assertJsonSafe(r);
          if (r.status === 'BLOCKED') expect(r.is_valid).toBe(false);
          if (r.proof) expect(r.is_valid && r.result).toBe(true);
        },
      ),
      { numRuns: 400, seed: 7 },
    );
  });
});
