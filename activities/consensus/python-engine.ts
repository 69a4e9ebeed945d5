// The Python engine of a consensus (advisory: never VERIFIED). A fixed program
// (exact_arith.py) evaluates the claim's arithmetic tree, received as JSON, with Python's
// fractions (exact) and decimal (50 digits, for irrational results), in the Docker sandbox.
import { readFileSync } from 'node:fs';
import {
  runPython,
  SandboxCapacityError,
  SandboxUnavailableError,
  SANDBOX_CAPACITY_MESSAGE,
} from '../sandbox/runner.js';
import type { SlotPool } from '../sandbox/slots.js';
import * as R from '../../engines/math/rational.js';
import type { Answer } from './agreement.js';
import type { ArithmeticClaim, EngineRun } from './types.js';

const PROGRAM = readFileSync(new URL('./exact_arith.py', import.meta.url), 'utf8');

/** Rational sample points for equations with variables: small, mixed signs, no common special values. */
const SAMPLE_VALUES = ['2/3', '-5/7', '3', '11/13', '-1/2', '7/4', '-3', '17/19'];

export function samplePoints(variables: string[]): Array<Record<string, string>> {
  return SAMPLE_VALUES.map((_, j) =>
    Object.fromEntries(variables.map((v, k) => [v, SAMPLE_VALUES[(j + 3 * k) % SAMPLE_VALUES.length] as string])),
  );
}

export async function runPythonEngine(
  claim: ArithmeticClaim,
  opts: { timeoutMs: number; slots?: SlotPool },
): Promise<EngineRun> {
  const base = { engine: 'python' as const, advisory: true };
  const t = claim.translation;
  if (!t.ok) {
    return t.kind === 'refused'
      ? { ...base, method: 'fractions', status: 'BLOCKED', answer: null, message: t.message }
      : { ...base, method: 'fractions', status: 'UNVERIFIABLE', answer: null, message: t.message };
  }
  if (t.shape === 'expression' && t.variables.length > 0) {
    return {
      ...base,
      method: 'fractions',
      status: 'UNVERIFIABLE',
      answer: null,
      message: 'The expression has free variables, so it has no value to compute.',
    };
  }
  const spec = { shape: t.shape, sides: t.sides, variables: t.variables, samples: samplePoints(t.variables) };
  let result;
  try {
    result = await runPython(PROGRAM, { stdin: JSON.stringify(spec), timeoutMs: opts.timeoutMs, slots: opts.slots });
  } catch (err) {
    if (err instanceof SandboxCapacityError) {
      return {
        ...base,
        method: 'fractions',
        status: 'BLOCKED',
        answer: null,
        message: SANDBOX_CAPACITY_MESSAGE,
        sandboxFailure: 'capacity',
      };
    }
    if (err instanceof SandboxUnavailableError) {
      return {
        ...base,
        method: 'fractions',
        status: 'BLOCKED',
        answer: null,
        message: 'The code-execution sandbox is unavailable.',
        sandboxFailure: 'unavailable',
      };
    }
    throw err;
  }
  if (result.timedOut || result.oomKilled || result.exitCode !== 0) {
    const why = result.timedOut
      ? 'did not finish in time'
      : result.oomKilled
        ? 'ran out of memory'
        : `failed (exit status ${result.exitCode})`;
    return { ...base, method: 'fractions', status: 'BLOCKED', answer: null, message: `The Python evaluation ${why}.` };
  }
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    return {
      ...base,
      method: 'fractions',
      status: 'BLOCKED',
      answer: null,
      message: 'The Python evaluation returned no readable result.',
    };
  }
  if (out.ok !== true) {
    return {
      ...base,
      method: 'fractions',
      status: 'BLOCKED',
      answer: null,
      message: `The Python evaluation failed: ${String(out.message ?? 'unknown error').slice(0, 200)}.`,
    };
  }
  const exact = out.exact === true;
  const method = exact ? 'fractions' : 'decimal';
  let answer: Answer;
  let message: string;
  const detail: Record<string, unknown> = { sandbox_ms: result.durationMs };
  if (t.shape === 'expression') {
    answer = exact
      ? { kind: 'number', text: R.formatQ(R.q(BigInt(String(out.num)), BigInt(String(out.den)))), precision: 'exact' }
      : { kind: 'number', text: String(out.decimal), precision: 'decimal' };
    message = exact
      ? 'Evaluated with exact rationals (fractions).'
      : 'Evaluated with 50-digit decimals (an irrational intermediate result).';
  } else if (t.variables.length === 0) {
    answer = { kind: 'boolean', text: out.equal === true ? 'true' : 'false', precision: exact ? 'exact' : 'decimal' };
    message = exact
      ? 'Both sides evaluated with exact rationals and compared exactly.'
      : 'Both sides evaluated with 50-digit decimals and compared to 1e-30.';
  } else {
    detail.points_checked = out.points;
    if (out.equal === true) {
      answer = { kind: 'boolean', text: 'true', precision: 'sampled' };
      message = `Both sides agree at ${String(out.points)} rational sample points (evidence, not a proof).`;
    } else {
      detail.counterexample = out.counterexample;
      answer = { kind: 'boolean', text: 'false', precision: exact ? 'exact' : 'decimal' };
      message = `The sides differ at ${JSON.stringify(out.counterexample)}.`;
    }
  }
  return {
    ...base,
    method: t.variables.length > 0 && t.shape === 'equation' ? `${method}_sampling` : method,
    status: 'UNVERIFIABLE',
    answer,
    message,
    detail,
  };
}
