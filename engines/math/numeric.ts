// Numeric evaluation of an accepted parse tree, by our own walker over mathjs arithmetic.
//
// decimal mode: literals are exact decimals and real arithmetic is decimal.js BigNumber with
// 64 significant digits. float mode: IEEE doubles. Complex values (sqrt(-4) outside the real
// domain, i, log(-1), ...) are mathjs Complex numbers (double precision) in both modes.
//
// Every operation checks its operands first (division by zero, log(0), real-domain violations,
// arguments that would make decimal.js slow or overflow) and its result afterwards (finite,
// within range); failures are MathDomainErrors, never NaN or Infinity in the output.
import {
  complexInRealDomain,
  divisionByZero,
  logOfNegative,
  logOfZero,
  MathDomainError,
  resultOutOfRange,
  sqrtOfNegative,
  GuardError,
} from './errors.js';
import type { Domain } from './canonical.js';
import { MATH_LIMITS } from './limits.js';
import {
  DECIMAL_E,
  DECIMAL_PI,
  M,
  restoreDecimalConfig,
  type AstNode,
  type BigNumberValue,
  type ComplexValue,
  type NumericValue,
} from './mathjs-instance.js';

export type PrecisionMode = 'decimal' | 'float';

const isBig = (v: unknown): v is BigNumberValue => M.isBigNumber(v);
const isComplex = (v: unknown): v is ComplexValue => M.isComplex(v);

/** A real value as a double (complex values must be handled before). */
const toDouble = (v: NumericValue): number => (typeof v === 'number' ? v : isBig(v) ? v.toNumber() : NaN);

function isZeroValue(v: NumericValue): boolean {
  if (typeof v === 'number') return v === 0;
  if (isBig(v)) return v.isZero();
  return v.re === 0 && v.im === 0;
}

/** Real and negative (complex values are never "negative"). */
function isNegativeReal(v: NumericValue): boolean {
  if (typeof v === 'number') return v < 0;
  if (isBig(v)) return v.isNegative() && !v.isZero();
  return v.im === 0 && v.re < 0;
}

/** |log10|v|| as a double (0 for zero); for size pre-checks only. */
function log10Magnitude(v: NumericValue): number {
  if (typeof v === 'number') return v === 0 ? 0 : Math.abs(Math.log10(Math.abs(v)));
  if (isBig(v)) {
    if (v.isZero()) return 0;
    return Math.abs(v.e) < 300 ? Math.abs(Math.log10(Math.abs(v.toNumber()))) : Math.abs(v.e) + 1;
  }
  const m = Math.hypot(v.re, v.im);
  return m === 0 ? 0 : Math.abs(Math.log10(m));
}

/** |v| as a double. */
function magnitude(v: NumericValue): number {
  if (typeof v === 'number') return Math.abs(v);
  if (isBig(v)) return v.abs().toNumber();
  return Math.hypot(v.re, v.im);
}

export class NumericEvaluator {
  /**
   * Set when a value passed through double precision (a complex intermediate, gamma of a
   * non-integer): comparisons must then use the double agreement bound, never 1e-30.
   */
  lossy = false;

  constructor(
    readonly mode: PrecisionMode,
    readonly domain: Domain,
    readonly scope: ReadonlyMap<string, NumericValue> = new Map(),
  ) {}

  /** Evaluates `node`; throws MathDomainError when it has no value. */
  evaluate(node: AstNode): NumericValue {
    try {
      return this.visit(node);
    } catch (err) {
      restoreDecimalConfig();
      if (err instanceof MathDomainError || err instanceof GuardError) throw err;
      const message = err instanceof Error ? err.message.slice(0, 200) : 'unknown error';
      throw new MathDomainError('evaluation_error', `The expression could not be evaluated: ${message}`);
    }
  }

  private visit(node: AstNode): NumericValue {
    switch (node.type) {
      case 'ConstantNode':
        return this.mode === 'decimal' ? M.bignumber(String(node.value)) : Number(String(node.value));
      case 'ParenthesisNode':
        return this.visit(node.content as AstNode);
      case 'SymbolNode':
        return this.symbol(node.name as string);
      case 'OperatorNode':
        return this.operator(
          String(node.fn),
          (node.args ?? []).map((a) => this.visit(a)),
        );
      case 'FunctionNode':
        return this.call(
          (node.fn as AstNode).name as string,
          (node.args ?? []).map((a) => this.visit(a)),
        );
      default:
        throw new GuardError('node_not_allowed', `Expression element ${node.type} is not allowed.`);
    }
  }

  private symbol(name: string): NumericValue {
    if (name === 'pi') return this.mode === 'decimal' ? DECIMAL_PI : Math.PI;
    if (name === 'e') return this.mode === 'decimal' ? DECIMAL_E : Math.E;
    if (name === 'i') {
      if (this.domain === 'real') throw complexInRealDomain('The imaginary unit i');
      return M.complex(0, 1);
    }
    const v = this.scope.get(name);
    if (v === undefined) throw new MathDomainError('unbound_variable', `The variable ${name} has no value.`);
    return v;
  }

  /** Post-check of every intermediate result. */
  private check(v: unknown, what: string): NumericValue {
    if (typeof v === 'number') {
      if (Number.isNaN(v)) throw new MathDomainError('undefined_value', `${what} is undefined.`);
      if (!Number.isFinite(v)) throw resultOutOfRange(what);
      return v;
    }
    if (isBig(v)) {
      if (v.isNaN()) throw new MathDomainError('undefined_value', `${what} is undefined.`);
      if (!v.isFinite() || (!v.isZero() && Math.abs(v.e) > MATH_LIMITS.maxDecimalExponent))
        throw resultOutOfRange(what);
      return v;
    }
    if (isComplex(v)) {
      if (Number.isNaN(v.re) || Number.isNaN(v.im))
        throw new MathDomainError('undefined_value', `${what} is undefined.`);
      if (!Number.isFinite(v.re) || !Number.isFinite(v.im)) throw resultOutOfRange(what);
      this.lossy = true;
      if (v.im === 0) return this.mode === 'decimal' ? M.bignumber(v.re) : v.re;
      if (this.domain === 'real') throw complexInRealDomain(what);
      return v;
    }
    throw new MathDomainError('evaluation_error', `${what} did not produce a number.`);
  }

  private realOnly(v: NumericValue, fn: string): void {
    if (isComplex(v))
      throw new MathDomainError('evaluation_error', `${fn}() is not defined for complex arguments here.`);
  }

  private operator(fn: string, args: NumericValue[]): NumericValue {
    const [a, b] = args as [NumericValue, NumericValue];
    switch (fn) {
      case 'add':
        return this.check(M.add(a, b), 'The sum');
      case 'subtract':
        return this.check(M.subtract(a, b), 'The difference');
      case 'multiply':
        return this.check(M.multiply(a, b), 'The product');
      case 'divide':
        if (isZeroValue(b)) throw divisionByZero();
        return this.check(M.divide(a, b), 'The quotient');
      case 'unaryMinus':
        return this.check(M.unaryMinus(a), 'The value');
      case 'unaryPlus':
        return a;
      case 'pow':
        return this.power(a, b);
      case 'factorial':
        return this.factorial(a);
      case 'mod':
        this.realOnly(a, 'mod');
        this.realOnly(b, 'mod');
        return this.check(M.mod(a, b), 'The remainder');
      default:
        throw new GuardError('operator_not_allowed', `The operator ${fn} is not allowed.`);
    }
  }

  private power(a: NumericValue, b: NumericValue): NumericValue {
    if (isZeroValue(a)) {
      const re = isComplex(b) ? b.re : toDouble(b);
      if (re < 0) throw divisionByZero();
    }
    // Size pre-check: |b| * |log10|a|| bounds the decimal exponent of the result.
    if (
      !isZeroValue(a) &&
      magnitude(b) * (log10Magnitude(a) + (isComplex(a) || isComplex(b) ? 1 : 0)) > MATH_LIMITS.maxDecimalExponent
    ) {
      throw resultOutOfRange('The power');
    }
    if (this.domain === 'real' && isNegativeReal(a) && !isComplex(b) && !Number.isInteger(toDouble(b))) {
      throw complexInRealDomain('A negative number raised to a non-integer power');
    }
    return this.check(M.pow(a, b), 'The power');
  }

  private factorial(a: NumericValue): NumericValue {
    const n = isComplex(a) ? NaN : toDouble(a);
    if (!Number.isInteger(n) || n < 0) {
      throw new MathDomainError('factorial_domain', 'The factorial is defined here for non-negative integers only.');
    }
    if (n > MATH_LIMITS.maxFactorial) throw resultOutOfRange('The factorial');
    return this.check(M.factorial(this.mode === 'decimal' ? M.bignumber(n) : n), 'The factorial');
  }

  /** gamma: exact (n-1)! at positive integers, else mathjs' double-precision Lanczos value (lossy). */
  private gamma(x: NumericValue): NumericValue {
    const re = isComplex(x) ? x.re : toDouble(x);
    const im = isComplex(x) ? x.im : 0;
    if (im === 0 && Number.isInteger(re)) {
      if (re <= 0)
        throw new MathDomainError('gamma_pole', 'gamma() has poles at 0, -1, -2, ...: the value is undefined.');
      return this.factorial(this.mode === 'decimal' ? M.bignumber(re - 1) : re - 1);
    }
    if (Math.abs(re) > MATH_LIMITS.maxFactorial + 1 || Math.abs(im) > MATH_LIMITS.maxFactorial)
      throw resultOutOfRange('gamma()');
    this.lossy = true;
    const v = M.gamma(im === 0 ? re : M.complex(re, im));
    return this.check(typeof v === 'number' && this.mode === 'decimal' ? M.bignumber(v) : v, 'gamma()');
  }

  /** binomial(n, k) = combinations(n, k): integers 0 <= k <= n, exact. */
  private binomial(n: NumericValue, k: NumericValue): NumericValue {
    const a = isComplex(n) ? NaN : toDouble(n);
    const b = isComplex(k) ? NaN : toDouble(k);
    if (!Number.isInteger(a) || !Number.isInteger(b) || b < 0 || b > a) {
      throw new MathDomainError('binomial_domain', 'binomial(n, k) is defined here for integers 0 <= k <= n only.');
    }
    if (a > MATH_LIMITS.maxBinomialN) throw resultOutOfRange('binomial()');
    const exact = M.combinations(M.bignumber(a), M.bignumber(b)) as BigNumberValue;
    return this.check(this.mode === 'decimal' ? exact : exact.toNumber(), 'binomial()');
  }

  private call(name: string, args: NumericValue[]): NumericValue {
    const [x, y] = args as [NumericValue, NumericValue | undefined];
    const what = `${name}()`;
    switch (name) {
      case 'sqrt':
        if (this.domain === 'real' && isNegativeReal(x)) throw sqrtOfNegative();
        return this.check(M.sqrt(x), what);
      case 'cbrt':
        return this.check(M.cbrt(x), what);
      case 'nthRoot': {
        const n = y === undefined ? 2 : toDouble(y);
        if (isNegativeReal(x) && n % 2 === 0) {
          throw new MathDomainError(
            'even_root_of_negative',
            'An even root of a negative number is undefined (use sqrt for the principal complex root).',
          );
        }
        this.realOnly(x, name);
        return this.check(M.nthRoot(x, this.mode === 'decimal' ? M.bignumber(n) : n), what);
      }
      case 'exp':
      case 'sinh':
      case 'cosh': {
        const re = isComplex(x) ? x.re : toDouble(x);
        if (Math.abs(re) > MATH_LIMITS.maxExpArgument) throw resultOutOfRange(what);
        return this.check(M[name](x), what);
      }
      case 'tanh': {
        if (!isComplex(x) && Math.abs(toDouble(x)) > 100)
          return this.check(
            this.mode === 'decimal' ? M.bignumber(Math.sign(toDouble(x))) : Math.sign(toDouble(x)),
            what,
          );
        if (isComplex(x) && Math.abs(x.re) > MATH_LIMITS.maxExpArgument) throw resultOutOfRange(what);
        return this.check(M.tanh(x), what);
      }
      case 'log':
        if (y !== undefined) {
          const lb = this.call('log', [y]);
          if (isZeroValue(lb)) throw divisionByZero();
          return this.check(M.divide(this.call('log', [x]), lb), what);
        }
      // fallthrough
      case 'log10':
      case 'log2':
        if (isZeroValue(x)) throw logOfZero();
        if (isNegativeReal(x) && this.domain === 'real') throw logOfNegative();
        return this.check(M[name](x), what);
      case 'sin':
      case 'cos':
      case 'tan': {
        const m = isComplex(x) ? Math.abs(x.re) : Math.abs(toDouble(x));
        if (m > MATH_LIMITS.maxTrigArgument)
          throw new MathDomainError(
            'argument_out_of_range',
            `The argument of ${what} is too large to evaluate meaningfully.`,
          );
        if (isComplex(x) && Math.abs(x.im) > MATH_LIMITS.maxExpArgument) throw resultOutOfRange(what);
        return this.check(M[name](x), what);
      }
      case 'asin':
      case 'acos': {
        if (!isComplex(x) && Math.abs(toDouble(x)) > 1) {
          if (this.domain === 'real') throw complexInRealDomain(what);
          return this.check(M[name](toDouble(x)), what); // decimal.js has no complex branch
        }
        return this.check(M[name](x), what);
      }
      case 'atan':
        return this.check(M.atan(x), what);
      case 'abs':
        return this.check(M.abs(x), what);
      case 'sign':
        return this.check(M.sign(x), what);
      case 'floor':
      case 'ceil':
        this.realOnly(x, name);
        return this.check(M[name](x), what);
      case 'round':
        this.realOnly(x, name);
        return this.check(
          y === undefined ? M.round(x) : M.round(x, this.mode === 'decimal' ? M.bignumber(toDouble(y)) : toDouble(y)),
          what,
        );
      case 'factorial':
        return this.factorial(x);
      case 'gamma':
        return this.gamma(x);
      case 'binomial':
      case 'combinations':
        return this.binomial(x, y as NumericValue);
      case 'mod':
        return this.operator('mod', args);
      case 'min':
      case 'max':
        for (const a of args) this.realOnly(a, name);
        return this.check(M[name](...args), what);
      case 'gcd':
      case 'lcm':
        for (const a of args) {
          if (isComplex(a) || !Number.isInteger(toDouble(a))) {
            throw new MathDomainError('integer_argument_required', `${name}() takes integer arguments only.`);
          }
        }
        return this.check(M[name](...args), what);
      default:
        throw new GuardError('function_not_allowed', `The function ${name}() is not on the allow-list.`);
    }
  }
}

/** A numeric value in output form (JSON-safe). */
export type OutputValue =
  | { kind: 'real'; number: number; text: string; big: BigNumberValue }
  | { kind: 'complex'; re: number; im: number; text: string };

/** Formats a complex value the way mathjs does: "2i", "1 + 2i", "1 - 2i". */
export function formatComplex(re: number, im: number): string {
  const imText = `${Math.abs(im) === 1 ? '' : String(Math.abs(im))}i`;
  if (re === 0) return im < 0 ? `-${imText}` : imText;
  return `${String(re)} ${im < 0 ? '-' : '+'} ${imText}`;
}

/** Text of any evaluated value (never throws; decimal values keep their 64 digits). */
export function valueText(v: NumericValue): string {
  if (isComplex(v)) return formatComplex(v.re === 0 ? 0 : v.re, v.im);
  return isBig(v) ? v.toString() : String(v);
}

/** Converts an evaluated value for output; values beyond the double range are an error. */
export function toOutput(v: NumericValue): OutputValue {
  if (isComplex(v)) {
    const re = v.re === 0 ? 0 : v.re; // no -0
    return { kind: 'complex', re, im: v.im, text: formatComplex(re, v.im) };
  }
  const big = isBig(v) ? v : M.bignumber(String(v));
  const number = big.toNumber();
  if (!Number.isFinite(number)) throw resultOutOfRange('The value');
  return {
    kind: 'real',
    number: number === 0 ? 0 : number,
    text: typeof v === 'number' ? String(v) : big.toString(),
    big,
  };
}
