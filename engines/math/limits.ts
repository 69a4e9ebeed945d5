// Bounds of the math engine. Every bound exists so that the cost of one request is small and
// predictable: the guards check them on the parse tree before anything is computed, and the
// exact and numeric evaluators check them again at run time (defence in depth).

export const MATH_LIMITS = {
  /** Characters of the whole expression (both sides of an equation). */
  maxExpressionLength: 2_000,
  /** Parenthesis / bracket nesting depth, checked on the text before parsing. */
  maxNestingDepth: 40,
  /** Nodes of the parse tree (both sides together). */
  maxNodes: 500,
  /** Significant digits of a number literal, and the magnitude of its decimal exponent. */
  maxLiteralDigits: 300,
  maxLiteralExponent: 300,
  /** Estimated decimal digits of an integer power b^n (|n| * log10|b|) with a constant base. */
  maxPowerDigits: 1_000,
  /** |n| for a power whose base contains variables ((x+1)^n would be expanded). */
  maxSymbolicExponent: 1_000,
  /** Estimated digits of the exact value of any constant sub-expression (sums, products of powers). */
  maxExactDigits: 5_000,
  /** n! is computed for integers 0..170 only (171! overflows an IEEE double). */
  maxFactorial: 170,
  /** binomial(n, k) is computed exactly for n up to this bound (at most about 300 digits). */
  maxBinomialN: 1_000,
  /** nthRoot(x, n): n must be an integer constant in 1..maxRootIndex. */
  maxRootIndex: 100,
  /** round(x, n): n must be an integer constant in 0..maxRoundDigits. */
  maxRoundDigits: 15,
  /** min/max/gcd/lcm argument count. */
  maxVariadicArgs: 20,
  /** Length of a variable name. */
  maxSymbolLength: 32,
  /** Canonical form: terms of one polynomial, work units (one per simple term product), coefficient digits. */
  maxTerms: 500,
  maxWork: 10_000,
  maxCoefficientDigits: 3_000,
  /** Characters of a rendered canonical form (longer forms are not used for proofs or output). */
  maxRenderedLength: 20_000,
  /** BigNumber significant digits of decimal mode. */
  decimalPrecision: 64,
  /** Numeric evaluation: |log10|v|| of any intermediate decimal value. */
  maxDecimalExponent: 1_000,
  /** |x| above which sin/cos/tan are refused (argument reduction cost and meaning). */
  maxTrigArgument: 1e20,
  /** |x| above which exp/sinh/cosh overflow the decimal range (e^2300 ≈ 1e999). */
  maxExpArgument: 2_300,
  /** Sample points of the (non-proving) numerical identity check. */
  samplePoints: 8,
  /** Tolerance strings longer than this are not numeric. */
  maxToleranceLength: 100,
} as const;

/** Relative agreement below which two decimal values are "numerically equal" (never a proof). */
export const DECIMAL_AGREEMENT = '1e-30';
/** The same for values that passed through IEEE doubles (complex arithmetic, float mode). */
export const FLOAT_AGREEMENT = 1e-9;
