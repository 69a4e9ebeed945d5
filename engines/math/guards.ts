// Denial-of-service and safety guards on the parse tree, run before anything is evaluated.
//
// Only a small language is accepted: number literals, the constants pi, e and i, variables,
// + - * / ^ unary minus, n!, mod, parentheses, and calls of allow-listed functions. Everything
// else (assignments, function definitions, matrices, ranges, indexing, objects, strings,
// comparisons, blocks, any other function) is rejected with a named guard.
//
// Size guards use a cheap static estimate over constant sub-trees: `approx` (an IEEE double
// approximation computed with plain Math, never with mathjs) and `size` (an upper estimate of
// the decimal digits of the exact rational value). They reject huge literals, oversized
// exponents (|n| * log10|b|), power towers, large factorials, and products of huge powers
// (sizes add up through explicit and implicit multiplication).
import { GuardError } from './errors.js';
import { MATH_LIMITS } from './limits.js';
import type { AstNode } from './mathjs-instance.js';

/** Allow-listed functions and their arities [min, max]. */
export const ALLOWED_FUNCTIONS: Readonly<Record<string, readonly [number, number]>> = {
  sin: [1, 1],
  cos: [1, 1],
  tan: [1, 1],
  asin: [1, 1],
  acos: [1, 1],
  atan: [1, 1],
  sinh: [1, 1],
  cosh: [1, 1],
  tanh: [1, 1],
  exp: [1, 1],
  log: [1, 2],
  log10: [1, 1],
  log2: [1, 1],
  sqrt: [1, 1],
  cbrt: [1, 1],
  nthRoot: [1, 2],
  abs: [1, 1],
  floor: [1, 1],
  ceil: [1, 1],
  round: [1, 2],
  sign: [1, 1],
  factorial: [1, 1],
  gamma: [1, 1],
  binomial: [2, 2],
  /** mathjs' name of binomial(n, k). */
  combinations: [2, 2],
  mod: [2, 2],
  min: [1, MATH_LIMITS.maxVariadicArgs],
  max: [1, MATH_LIMITS.maxVariadicArgs],
  gcd: [2, MATH_LIMITS.maxVariadicArgs],
  lcm: [2, MATH_LIMITS.maxVariadicArgs],
};

/** Symbols with a fixed meaning; every other (valid) symbol is a free variable. */
export const CONSTANTS = new Set(['pi', 'e', 'i']);

const ALLOWED_OPERATORS = new Set([
  'add',
  'subtract',
  'multiply',
  'divide',
  'pow',
  'unaryMinus',
  'unaryPlus',
  'factorial',
  'mod',
]);
const COMPARISONS = new Set(['equal', 'unequal', 'smaller', 'larger', 'smallerEq', 'largerEq', 'compare', 'deepEqual']);
/** mathjs functions that build matrices or ranges get their own guard name. */
const MATRIX_FUNCTIONS = new Set([
  'zeros',
  'ones',
  'matrix',
  'identity',
  'diag',
  'range',
  'sparse',
  'random',
  'randomInt',
  'resize',
  'reshape',
  'concat',
  'fill',
  'map',
  'forEach',
  'kron',
  'transpose',
  'flatten',
  'size',
  'squeeze',
]);
const VARIABLE_NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;
/** Functions whose exact value is a rational built from their arguments (size adds up). */
const EXACT_FUNCTIONS = new Set([
  'abs',
  'floor',
  'ceil',
  'round',
  'sign',
  'min',
  'max',
  'mod',
  'gcd',
  'lcm',
  'sqrt',
  'cbrt',
  'nthRoot',
]);

const NODE_GUARDS: Record<string, [string, string]> = {
  AssignmentNode: ['assignment', 'Assignments are not allowed (a single top-level "=" marks an equation).'],
  FunctionAssignmentNode: ['function_definition', 'Function definitions are not allowed.'],
  ArrayNode: ['matrix_construction', 'Matrices and arrays are not allowed.'],
  MatrixNode: ['matrix_construction', 'Matrices and arrays are not allowed.'],
  RangeNode: ['range_construction', 'Ranges (a:b) are not allowed.'],
  AccessorNode: ['index_or_accessor', 'Property access and indexing are not allowed.'],
  IndexNode: ['index_or_accessor', 'Property access and indexing are not allowed.'],
  ObjectNode: ['object_construction', 'Objects are not allowed.'],
  BlockNode: ['multiple_statements', 'Only a single expression or equation is allowed.'],
  ConditionalNode: ['conditional', 'Conditional expressions (a ? b : c) are not allowed.'],
  RelationalNode: ['comparison_not_allowed', 'Comparison operators are not allowed; use a single "=" for an equation.'],
};

interface Info {
  /** No free variables below this node. */
  closed: boolean;
  /** Approximate value (NaN when unknown or complex). */
  approx: number;
  /** Upper estimate of the decimal digits of the exact value (numerator + denominator). */
  size: number;
  /** A power or factorial occurs below (for the power-tower guard name). */
  hasPow: boolean;
}

export interface GuardReport {
  /** Free variables, sorted. */
  variables: string[];
  nodeCount: number;
}

const label = (name: string) =>
  name.length > MATH_LIMITS.maxSymbolLength ? `${name.slice(0, MATH_LIMITS.maxSymbolLength)}…` : name;

function literalInfo(value: unknown): Info {
  if (value === null || value === undefined || typeof value === 'boolean') {
    throw new GuardError('literal_not_allowed', `The literal ${String(value)} is not allowed.`);
  }
  if (typeof value === 'string') throw new GuardError('string_literal', 'String literals are not allowed.');
  const text = String(value);
  if (!/^-?[0-9.]+(e[+-]?\d+)?$/i.test(text)) {
    throw new GuardError('non_finite_constant', `The constant ${label(text)} is not a finite number.`);
  }
  const m = /^-?([0-9.]+)(?:e([+-]?\d+))?$/i.exec(text) as RegExpExecArray;
  const mantissa = (m[1] as string).replace('.', '');
  const significant = mantissa.replace(/^0+/, '').replace(/0+$/, '');
  const point = (m[1] as string).indexOf('.');
  const intDigits = point < 0 ? (m[1] as string).length : point;
  // Decimal exponent of the leading digit.
  const leadingZeros = mantissa.length - mantissa.replace(/^0+/, '').length;
  const magnitude = significant === '' ? 0 : Number(m[2] ?? '0') + intDigits - leadingZeros - 1;
  if (significant.length > MATH_LIMITS.maxLiteralDigits || Math.abs(magnitude) > MATH_LIMITS.maxLiteralExponent) {
    throw new GuardError(
      'literal_too_large',
      `Number literals are limited to ${MATH_LIMITS.maxLiteralDigits} significant digits and magnitudes up to 1e${MATH_LIMITS.maxLiteralExponent}.`,
    );
  }
  const size = Math.max(1, significant.length, Math.abs(magnitude) + 1);
  return { closed: true, approx: Number(text), size, hasPow: false };
}

function approxFunction(name: string, a: number[]): number {
  const [x = NaN, y = NaN] = a;
  switch (name) {
    case 'sin':
      return Math.sin(x);
    case 'cos':
      return Math.cos(x);
    case 'tan':
      return Math.tan(x);
    case 'asin':
      return Math.asin(x);
    case 'acos':
      return Math.acos(x);
    case 'atan':
      return Math.atan(x);
    case 'sinh':
      return Math.sinh(x);
    case 'cosh':
      return Math.cosh(x);
    case 'tanh':
      return Math.tanh(x);
    case 'exp':
      return Math.exp(x);
    case 'log':
      return a.length === 2 ? Math.log(x) / Math.log(y) : Math.log(x);
    case 'log10':
      return Math.log10(x);
    case 'log2':
      return Math.log2(x);
    case 'sqrt':
      return Math.sqrt(x);
    case 'cbrt':
      return Math.cbrt(x);
    case 'nthRoot':
      return Math.sign(x) * Math.abs(x) ** (1 / (a.length === 2 ? y : 2));
    case 'abs':
      return Math.abs(x);
    case 'floor':
      return Math.floor(x);
    case 'ceil':
      return Math.ceil(x);
    case 'round':
      return Math.round(x);
    case 'sign':
      return Math.sign(x);
    case 'factorial':
      return approxFactorial(x);
    case 'gamma':
      return Number.isInteger(x) ? (x <= 0 ? NaN : approxFactorial(x - 1)) : NaN;
    case 'binomial':
    case 'combinations':
      return NaN; // exact, re-checked at run time (n bounded by the guard)
    case 'mod':
      return y === 0 ? x : x - y * Math.floor(x / y);
    case 'min':
      return Math.min(...a);
    case 'max':
      return Math.max(...a);
    default:
      return NaN; // gcd, lcm: not needed for size decisions (re-checked at run time)
  }
}

function approxFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) return NaN;
  if (n > MATH_LIMITS.maxFactorial) return Infinity;
  let r = 1;
  for (let k = 2; k <= n; k++) r *= k;
  return r;
}

class GuardWalker {
  nodeCount = 0;
  readonly variables = new Set<string>();

  walk(node: AstNode, depth: number): Info {
    if (++this.nodeCount > MATH_LIMITS.maxNodes) {
      throw new GuardError('too_many_nodes', `The expression has more than ${MATH_LIMITS.maxNodes} parse-tree nodes.`);
    }
    const info = this.visit(node, depth);
    if (info.closed && info.size > MATH_LIMITS.maxExactDigits) {
      throw new GuardError(
        'result_too_large',
        `A constant part of the expression would have more than ${MATH_LIMITS.maxExactDigits} digits.`,
      );
    }
    return info;
  }

  private visit(node: AstNode, depth: number): Info {
    const guard = NODE_GUARDS[node.type];
    if (guard) throw new GuardError(guard[0], guard[1]);
    switch (node.type) {
      case 'ConstantNode':
        return literalInfo(node.value);
      case 'ParenthesisNode':
        return this.walk(node.content as AstNode, depth + 1);
      case 'SymbolNode':
        return this.symbol(node.name ?? '');
      case 'OperatorNode':
        return this.operator(node, depth);
      case 'FunctionNode':
        return this.call(node, depth);
      default:
        throw new GuardError('node_not_allowed', `Expression element ${label(node.type)} is not allowed.`);
    }
  }

  private symbol(name: string): Info {
    if (CONSTANTS.has(name)) {
      return { closed: true, approx: name === 'pi' ? Math.PI : name === 'e' ? Math.E : NaN, size: 1, hasPow: false };
    }
    if (Object.hasOwn(ALLOWED_FUNCTIONS, name)) {
      throw new GuardError(
        'invalid_symbol',
        `${name} is a function and must be called with parentheses, e.g. ${name}(x).`,
      );
    }
    if (name.length > MATH_LIMITS.maxSymbolLength || !VARIABLE_NAME.test(name)) {
      throw new GuardError('invalid_symbol', `Invalid variable name ${label(name)}.`);
    }
    this.variables.add(name);
    return { closed: false, approx: NaN, size: 1, hasPow: false };
  }

  private operator(node: AstNode, depth: number): Info {
    const fn = String(node.fn);
    if (node.isPercentage)
      throw new GuardError('operator_not_allowed', 'Percentages (x%) are not allowed; write x/100.');
    if (COMPARISONS.has(fn)) {
      throw new GuardError(
        'comparison_not_allowed',
        `The comparison "${node.op}" is not allowed; use a single "=" for an equation.`,
      );
    }
    if (!ALLOWED_OPERATORS.has(fn))
      throw new GuardError('operator_not_allowed', `The operator "${label(String(node.op))}" is not allowed.`);
    const args = (node.args ?? []).map((a) => this.walk(a, depth + 1));
    const [a, b] = args as [Info, Info];
    const closed = args.every((x) => x.closed);
    const hasPow = args.some((x) => x.hasPow);
    switch (fn) {
      case 'unaryMinus':
        return { ...a, approx: -a.approx };
      case 'unaryPlus':
        return a;
      case 'add':
      case 'subtract':
        return {
          closed,
          approx: fn === 'add' ? a.approx + b.approx : a.approx - b.approx,
          size: a.size + b.size + 1,
          hasPow,
        };
      case 'multiply':
        return { closed, approx: a.approx * b.approx, size: a.size + b.size, hasPow };
      case 'divide':
        return { closed, approx: a.approx / b.approx, size: a.size + b.size, hasPow };
      case 'mod':
        return { closed, approx: approxFunction('mod', [a.approx, b.approx]), size: a.size + b.size + 1, hasPow };
      case 'factorial':
        return this.factorial(a);
      default:
        return this.power(a, b);
    }
  }

  private power(base: Info, exponent: Info): Info {
    const hasPow = true;
    if (!exponent.closed) return { closed: false, approx: NaN, size: 1, hasPow };
    const x = exponent.approx;
    const tooLarge = (what: string) =>
      exponent.hasPow
        ? new GuardError('power_tower', `Power towers whose exponent is too large (${what}) are not evaluated.`)
        : new GuardError('exponent_too_large', `The exponent is too large (${what}).`);
    if (x === Infinity || x === -Infinity) throw tooLarge('the exponent overflows');
    if (Number.isNaN(x)) return { closed: base.closed, approx: NaN, size: 1, hasPow };
    if (!base.closed) {
      if (Math.abs(x) > MATH_LIMITS.maxSymbolicExponent)
        throw tooLarge(`|n| > ${MATH_LIMITS.maxSymbolicExponent} on a symbolic base`);
      return { closed: false, approx: NaN, size: 1, hasPow };
    }
    // |x| * log10|b| bounds the size of the value; unknown (complex) bases are re-checked at run time.
    const b = Math.abs(base.approx);
    const magnitude = Number.isNaN(b) || b === 0 ? 0 : b === Infinity ? Infinity : Math.abs(x * Math.log10(b));
    if (magnitude > MATH_LIMITS.maxPowerDigits) {
      throw tooLarge(`about ${formatDigits(magnitude)} digits, limit ${MATH_LIMITS.maxPowerDigits}`);
    }
    const integer = Number.isInteger(x);
    const exactDigits = integer ? Math.abs(x) * base.size : 1;
    if (exactDigits > MATH_LIMITS.maxExactDigits) {
      throw tooLarge(`exact value of about ${formatDigits(exactDigits)} digits, limit ${MATH_LIMITS.maxExactDigits}`);
    }
    return { closed: true, approx: base.approx ** x, size: Math.max(1, exactDigits), hasPow };
  }

  private factorial(arg: Info): Info {
    if (arg.closed && !Number.isNaN(arg.approx) && arg.approx > MATH_LIMITS.maxFactorial) {
      throw new GuardError('factorial_too_large', `Factorials are computed for n <= ${MATH_LIMITS.maxFactorial} only.`);
    }
    return { closed: arg.closed, approx: approxFactorial(arg.approx), size: 310, hasPow: true };
  }

  private call(node: AstNode, depth: number): Info {
    const callee = node.fn as AstNode | undefined;
    const name = callee && typeof callee === 'object' && callee.type === 'SymbolNode' ? (callee.name ?? '') : '';
    if (name === '')
      throw new GuardError('function_not_allowed', 'Only calls of allow-listed functions by name are allowed.');
    if (!Object.hasOwn(ALLOWED_FUNCTIONS, name)) {
      if (MATRIX_FUNCTIONS.has(name))
        throw new GuardError('matrix_construction', `Matrix and range functions such as ${name}() are not allowed.`);
      throw new GuardError('function_not_allowed', `The function ${label(name)}() is not on the allow-list.`);
    }
    const [min, max] = ALLOWED_FUNCTIONS[name] as readonly [number, number];
    const argNodes = node.args ?? [];
    if (argNodes.length < min || argNodes.length > max) {
      throw new GuardError(
        'invalid_arguments',
        `${name}() takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${argNodes.length}.`,
      );
    }
    const args = argNodes.map((a) => this.walk(a, depth + 1));
    const closed = args.every((x) => x.closed);
    const hasPow = args.some((x) => x.hasPow);
    if (name === 'factorial') return this.factorial(args[0] as Info);
    if (name === 'gamma') {
      const a = args[0] as Info;
      // gamma(n) = (n-1)!: the same bound as the factorial (gamma(172) overflows a double).
      if (a.closed && !Number.isNaN(a.approx) && a.approx > MATH_LIMITS.maxFactorial + 1) {
        throw new GuardError(
          'factorial_too_large',
          `gamma(x) is computed for x <= ${MATH_LIMITS.maxFactorial + 1} only.`,
        );
      }
      return { closed: a.closed, approx: approxFunction('gamma', [a.approx]), size: 310, hasPow: true };
    }
    if (name === 'binomial' || name === 'combinations') {
      const n = args[0] as Info;
      if (n.closed && !Number.isNaN(n.approx) && n.approx > MATH_LIMITS.maxBinomialN) {
        throw new GuardError(
          'binomial_too_large',
          `binomial(n, k) is computed for n <= ${MATH_LIMITS.maxBinomialN} only.`,
        );
      }
      return { closed, approx: NaN, size: Math.ceil(MATH_LIMITS.maxBinomialN * 0.302) + 1, hasPow };
    }
    if (name === 'nthRoot' && args.length === 2)
      this.integerArgument(name, args[1] as Info, 1, MATH_LIMITS.maxRootIndex);
    if (name === 'round' && args.length === 2)
      this.integerArgument(name, args[1] as Info, 0, MATH_LIMITS.maxRoundDigits);
    const size = EXACT_FUNCTIONS.has(name) ? args.reduce((s, x) => s + x.size, 1) : 1;
    return {
      closed,
      approx: approxFunction(
        name,
        args.map((x) => x.approx),
      ),
      size,
      hasPow,
    };
  }

  private integerArgument(name: string, info: Info, min: number, max: number): void {
    if (!info.closed || !Number.isInteger(info.approx) || info.approx < min || info.approx > max) {
      throw new GuardError(
        'invalid_arguments',
        `The second argument of ${name}() must be an integer constant from ${min} to ${max}.`,
      );
    }
  }
}

const formatDigits = (n: number) => (n >= 1e6 ? n.toExponential(1) : String(Math.round(n)));

/**
 * Checks all sides of a request. For an equation, a left side that looks like a function
 * head (`f(x) = ...` with an unknown f) is reported as a function definition.
 */
export function guardTrees(nodes: AstNode[], isEquation: boolean): GuardReport {
  if (isEquation) {
    const lhs = nodes[0] as AstNode;
    const callee = lhs.fn as AstNode | undefined;
    if (
      lhs.type === 'FunctionNode' &&
      callee?.type === 'SymbolNode' &&
      !Object.hasOwn(ALLOWED_FUNCTIONS, callee.name ?? '') &&
      (lhs.args ?? []).every((a) => a.type === 'SymbolNode')
    ) {
      throw new GuardError('function_definition', 'Function definitions (f(x) = ...) are not allowed.');
    }
  }
  const walker = new GuardWalker();
  for (const node of nodes) walker.walk(node, 0);
  return { variables: [...walker.variables].sort(), nodeCount: walker.nodeCount };
}
