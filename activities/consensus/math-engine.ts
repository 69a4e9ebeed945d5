// The math engine in a consensus: /verify/math's engine, unchanged. VERIFIED only for an
// equation it proves by canonical forms (the proof is retained); everything else it says is
// an answer (UNVERIFIABLE) or a refusal (BLOCKED).
import { verifyMath } from '../../engines/math.js';
import { Canonicalizer } from '../../engines/math/canonical.js';
import { NumericEvaluator, valueText } from '../../engines/math/numeric.js';
import { parseInput } from '../../engines/math/parse.js';
import { restoreDecimalConfig, type AstNode } from '../../engines/math/mathjs-instance.js';
import * as R from '../../engines/math/rational.js';
import type { Answer } from './agreement.js';
import type { EngineRun } from './types.js';

/** The value of a closed expression: exact when rational, else 64-digit decimal; null if neither. */
export function closedValue(expression: string): Answer | null {
  try {
    const node = (parseInput(expression).sides[0] as { node: AstNode }).node;
    try {
      const canon = new Canonicalizer('complex');
      const g = canon.gaussianOf(canon.fromNode(node));
      if (g && R.isZero(g.im)) return { kind: 'number', text: R.formatQ(g.re), precision: 'exact' };
    } catch {
      // Beyond the canonical form's budget: evaluate numerically below.
    }
    const v = new NumericEvaluator('decimal', 'complex').evaluate(node);
    const text = valueText(v);
    return /i$/.test(text)
      ? { kind: 'text', text, precision: 'float' }
      : { kind: 'number', text, precision: 'decimal' };
  } catch {
    return null;
  } finally {
    restoreDecimalConfig();
  }
}

export function runMathEngine(expression: string): EngineRun {
  const r = verifyMath({ expression });
  const base = { engine: 'math' as const, advisory: false };
  if (r.proof && r.is_valid) {
    return {
      ...base,
      method: 'canonical_form',
      status: 'VERIFIED',
      answer: { kind: 'boolean', text: 'true', precision: 'exact' },
      message: r.message,
      proof: { engine: 'math', artifact: r.proof as unknown as Record<string, unknown> },
    };
  }
  if (r.status === 'BLOCKED' || r.error !== undefined) {
    return {
      ...base,
      method: r.method ?? 'guards',
      status: 'BLOCKED',
      answer: null,
      message: r.message,
      detail: { error: r.error ?? 'blocked' },
    };
  }
  if (r.result !== undefined) {
    // An equation the engine decided without a proof of equality: the sides differ.
    const decisive = r.method === 'canonical_form';
    return {
      ...base,
      method: r.method ?? 'canonical_form',
      status: 'UNVERIFIABLE',
      answer: { kind: 'boolean', text: r.is_valid ? 'true' : 'false', precision: decisive ? 'exact' : 'decimal' },
      message: r.message,
      detail: {
        simplified_difference: r.simplified_difference,
        ...(r.counterexample ? { counterexample: r.counterexample } : {}),
      },
    };
  }
  if (r.is_symbolic) {
    return {
      ...base,
      method: 'canonical_form',
      status: 'UNVERIFIABLE',
      answer: { kind: 'text', text: String(r.simplified), precision: 'exact' },
      message: 'A symbolic expression makes no claim; its canonical form is reported.',
    };
  }
  const value = closedValue(expression) ?? {
    kind: 'number' as const,
    text: String(r.value),
    precision: 'float' as const,
  };
  return {
    ...base,
    method: value.precision === 'exact' ? 'exact_evaluation' : 'decimal_evaluation',
    status: 'UNVERIFIABLE',
    answer: value,
    message: 'Expression evaluated; a bare expression makes no claim to verify.',
  };
}
