// The engine's private, locked-down mathjs instance.
//
// Standard mathjs hardening: functions that parse, compile, evaluate, import or define things
// are replaced in the instance's namespace by functions that throw, so an expression can never
// reach them. The engine keeps references to the real `parse` (taken before the override) and
// to the arithmetic it needs; it never hands user input to mathjs `evaluate`: expressions are
// evaluated by our own tree walker (numeric.ts) after the guards (guards.ts) have accepted them.
//
// Config: numbers parse as BigNumber (decimal.js) with 64 significant digits, so a literal such
// as 0.1 is kept exactly (as the decimal 0.1, not the double nearest to it).
import type { BigNumber, Complex } from 'mathjs';
import { create, factoriesFor } from './mathjs-factories.js';
import { MATH_LIMITS } from './limits.js';

/** Every mathjs function and constant the engine takes from its instance (M below, parse, pi, e, BigNumber). */
export const MATHJS_USED = [
  'parse',
  'add',
  'subtract',
  'multiply',
  'divide',
  'pow',
  'unaryMinus',
  'abs',
  'sqrt',
  'cbrt',
  'nthRoot',
  'exp',
  'log',
  'log10',
  'log2',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'sinh',
  'cosh',
  'tanh',
  'floor',
  'ceil',
  'round',
  'sign',
  'factorial',
  'gamma',
  'combinations',
  'mod',
  'gcd',
  'lcm',
  'min',
  'max',
  'bignumber',
  'complex',
  'pi',
  'e',
  'BigNumber',
] as const;

// Only the factories of what the engine uses and their dependencies (mathjs-factories.ts): the
// same functions as `create(all)` makes, without loading the rest of the library in every engine
// thread (docs/performance.md, memory).
const math = create(factoriesFor(MATHJS_USED) as never, {
  number: 'BigNumber',
  precision: MATH_LIMITS.decimalPrecision,
});

/** Minimal structural view of mathjs parse-tree nodes (the published generics are unwieldy). */
export interface AstNode {
  type: string;
  /** OperatorNode: operator text and function name ('add', 'pow', ...). FunctionNode: the callee node. */
  op?: string;
  fn?: string | AstNode;
  args?: AstNode[];
  implicit?: boolean;
  isPercentage?: boolean;
  /** ConstantNode */
  value?: unknown;
  /** SymbolNode */
  name?: string;
  /** ParenthesisNode */
  content?: AstNode;
  toString(options?: Record<string, unknown>): string;
}

// Types of the values the evaluator handles (decimal.js BigNumber, IEEE number, Complex).
export type BigNumberValue = BigNumber;
export type ComplexValue = Complex;
export type NumericValue = number | BigNumberValue | ComplexValue;

type AnyFn = (...args: unknown[]) => unknown;
const ref = (name: string): AnyFn => {
  const fn = (math as unknown as Record<string, AnyFn>)[name];
  if (typeof fn !== 'function') throw new Error(`mathjs function ${name} missing`);
  return fn;
};

// Real functions, referenced before the namespace is locked down.
const realParse = ref('parse');
export const M = {
  add: ref('add'),
  subtract: ref('subtract'),
  multiply: ref('multiply'),
  divide: ref('divide'),
  pow: ref('pow'),
  unaryMinus: ref('unaryMinus'),
  abs: ref('abs'),
  sqrt: ref('sqrt'),
  cbrt: ref('cbrt'),
  nthRoot: ref('nthRoot'),
  exp: ref('exp'),
  log: ref('log'),
  log10: ref('log10'),
  log2: ref('log2'),
  sin: ref('sin'),
  cos: ref('cos'),
  tan: ref('tan'),
  asin: ref('asin'),
  acos: ref('acos'),
  atan: ref('atan'),
  sinh: ref('sinh'),
  cosh: ref('cosh'),
  tanh: ref('tanh'),
  floor: ref('floor'),
  ceil: ref('ceil'),
  round: ref('round'),
  sign: ref('sign'),
  factorial: ref('factorial'),
  gamma: ref('gamma'),
  combinations: ref('combinations'),
  mod: ref('mod'),
  gcd: ref('gcd'),
  lcm: ref('lcm'),
  min: ref('min'),
  max: ref('max'),
  bignumber: ref('bignumber') as (x: string | number) => BigNumberValue,
  complex: ref('complex') as (re: number, im: number) => ComplexValue,
  isBigNumber: ref('isBigNumber') as (x: unknown) => x is BigNumberValue,
  isComplex: ref('isComplex') as (x: unknown) => x is ComplexValue,
};

/** pi and e at the configured precision (BigNumber). */
export const DECIMAL_PI = (math as unknown as { pi: BigNumberValue }).pi;
export const DECIMAL_E = (math as unknown as { e: BigNumberValue }).e;

/** The decimal.js constructor of this instance; its precision must survive exceptions. */
const Decimal = (math as unknown as { BigNumber: { precision: number; rounding: number } }).BigNumber;
const BASE_PRECISION = Decimal.precision;
const BASE_ROUNDING = Decimal.rounding;

/**
 * decimal.js raises precision temporarily inside sin/cos/ln/... and does not restore it when it
 * throws; a single failed call would make every later call slow and wrong. Call this after any
 * decimal computation that may have thrown.
 */
export function restoreDecimalConfig(): void {
  Decimal.precision = BASE_PRECISION;
  Decimal.rounding = BASE_ROUNDING;
}

const DISABLED = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'compile',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'rationalize',
  'derivative',
  'resolve',
  'reviver',
  'replacer',
  'parser',
  'chain',
  'help',
  'config',
] as const;

(math as unknown as { import: (o: Record<string, unknown>, opts: Record<string, unknown>) => void }).import(
  Object.fromEntries(
    DISABLED.map((name) => [
      name,
      function disabled() {
        throw new Error(`Function ${name} is disabled`);
      },
    ]),
  ),
  { override: true },
);

/** The locked instance itself (exported for the lock-down test only). */
export const lockedMath = math as unknown as Record<string, AnyFn>;
export const DISABLED_FUNCTIONS: readonly string[] = DISABLED;

/** Parses one side of an expression with the real mathjs parser (no evaluation). */
export function parseMath(text: string): AstNode {
  return realParse(text) as AstNode;
}

// Warm-up: mathjs creates its typed functions lazily and decimal.js computes constants on first
// use; doing it once here keeps the first request as fast as the others.
(function warmUp() {
  const b = M.bignumber('0.5');
  const c = M.complex(0.5, 0.5);
  for (const name of [
    'sqrt',
    'cbrt',
    'exp',
    'log',
    'log10',
    'log2',
    'sin',
    'cos',
    'tan',
    'asin',
    'acos',
    'atan',
    'sinh',
    'cosh',
    'tanh',
    'abs',
    'floor',
    'ceil',
    'round',
    'sign',
    'unaryMinus',
  ] as const) {
    for (const v of [b, 0.5, c]) {
      try {
        M[name](v);
      } catch {
        /* some combinations are undefined; only the creation cost matters here */
      }
    }
  }
  for (const name of ['add', 'subtract', 'multiply', 'divide', 'pow', 'mod', 'min', 'max'] as const) {
    for (const [x, y] of [
      [b, b],
      [0.5, 0.5],
      [c, c],
      [b, c],
      [c, b],
    ] as const) {
      try {
        M[name](x, y);
      } catch {
        /* as above */
      }
    }
  }
  restoreDecimalConfig();
})();
