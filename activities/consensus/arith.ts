// The arithmetic of a consensus query as plain data, for the engines that are not the math
// engine: the Python engine receives it as JSON (never as code), and the Z3 engine encodes it
// in the logic DSL (below). The translation into it (arith-translate.ts) uses the math engine's
// parser and runs in the engine threads; this module loads no mathjs, so the worker's main
// thread does not either (docs/performance.md, memory).

export type Arith =
  | { op: 'num'; value: string }
  | { op: 'var'; name: string }
  | { op: 'neg' | 'sqrt' | 'abs'; arg: Arith }
  | { op: 'add' | 'sub' | 'mul' | 'div' | 'pow'; args: [Arith, Arith] };

export type ArithTranslation =
  | { ok: true; shape: 'expression' | 'equation'; sides: Arith[]; variables: string[] }
  /** The math engine's parser or guards refuse the text (the math engine reports the same). */
  | { ok: false; kind: 'refused'; message: string }
  /** Valid for the math engine, but uses something outside this small arithmetic (sin, pi, i, ...). */
  | { ok: false; kind: 'unsupported'; message: string };

/** A construct outside this small arithmetic (thrown by the translation and the Z3 encoding). */
export class Unsupported extends Error {}

// ------------------------------------------------------------------ logic DSL (Z3)

/** Largest exponent the logic DSL's POW accepts. */
const MAX_DSL_EXPONENT = 64;

/** An integer literal exponent, possibly negated: its value, else null. */
function integerExponent(a: Arith): number | null {
  if (a.op === 'num' && /^\d+$/.test(a.value)) return Number(a.value);
  if (a.op === 'neg' && a.arg.op === 'num' && /^\d+$/.test(a.arg.value)) return -Number(a.arg.value);
  return null;
}

/**
 * The term in the logic DSL, over Real. Literals are written as decimals so that DIV is exact
 * division (two Int operands would make it integer division). Throws Unsupported for sqrt and
 * for exponents that are not integer literals within ±64.
 */
function dslTerm(a: Arith): string {
  switch (a.op) {
    case 'num':
      return a.value.includes('.') ? a.value : `${a.value}.0`;
    case 'var':
      return a.name;
    case 'neg':
      return `(MINUS ${dslTerm(a.arg)})`;
    case 'abs': {
      const x = dslTerm(a.arg);
      return `(ITE (GTE ${x} 0.0) ${x} (MINUS ${x}))`;
    }
    case 'sqrt':
      throw new Unsupported('sqrt() (Z3 real arithmetic here is polynomial)');
    case 'pow': {
      const n = integerExponent(a.args[1]);
      if (n === null || !Number.isSafeInteger(n) || Math.abs(n) > MAX_DSL_EXPONENT) {
        throw new Unsupported(`exponents other than integer literals within ±${MAX_DSL_EXPONENT}`);
      }
      const base = dslTerm(a.args[0]);
      return n >= 0 ? `(POW ${base} ${n})` : `(DIV 1.0 (POW ${base} ${-n}))`;
    }
    default: {
      const name = { add: 'PLUS', sub: 'MINUS', mul: 'MULT', div: 'DIV' }[a.op];
      return `(${name} ${dslTerm(a.args[0])} ${dslTerm(a.args[1])})`;
    }
  }
}

/** The name of the value variable of a bare expression (not a valid math-engine variable: too long to clash). */
export const DSL_VALUE_VARIABLE = 'consensus_value_of_expression';

export type DslEncoding = { ok: true; query: string; mode: 'negated_claim' | 'value' } | { ok: false; message: string };

/**
 * Equation `L = R`: `(NOT (EQ L R))` over Real variables; UNSAT proves the claim for every real
 * assignment. Closed expression `E`: `(EQ v E)`; the (checked) model gives the exact value.
 */
export function encodeForZ3(t: Extract<ArithTranslation, { ok: true }>): DslEncoding {
  try {
    const decls = t.variables.map((v) => `(VAR ${v} Real)`);
    if (t.shape === 'equation') {
      const [l, r] = t.sides as [Arith, Arith];
      return { ok: true, mode: 'negated_claim', query: [...decls, `(NOT (EQ ${dslTerm(l)} ${dslTerm(r)}))`].join(' ') };
    }
    if (t.variables.length > 0)
      return { ok: false, message: 'The expression has free variables, so it has no single value to compute.' };
    return {
      ok: true,
      mode: 'value',
      query: `(VAR ${DSL_VALUE_VARIABLE} Real) (EQ ${DSL_VALUE_VARIABLE} ${dslTerm(t.sides[0] as Arith)})`,
    };
  } catch (err) {
    if (err instanceof Unsupported) return { ok: false, message: `Not expressible in Z3 arithmetic: ${err.message}.` };
    throw err;
  }
}
