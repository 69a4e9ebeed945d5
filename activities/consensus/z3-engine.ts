// The Z3 engine of a consensus. An equation is encoded in the logic DSL over Real variables as
// the negation of the claim: UNSAT proves the claim for every real assignment (VERIFIED, the
// logic engine's proof record is retained); a SAT model, checked exactly by the logic engine,
// is a counterexample. A closed expression is encoded as `v = E`, and the checked model gives
// its exact value (an answer, not a proof of a claim).
import { LogicInputError, solveLogic, type LogicPool } from '../../engines/logic/index.js';
import { DSL_VALUE_VARIABLE, encodeForZ3 } from './arith.js';
import type { Answer } from './agreement.js';
import * as R from '../../engines/math/rational.js';
import type { ArithmeticClaim, EngineRun } from './types.js';

/** Z3 model values are "p/q", "-p/q" or integers: normalized to the same text as the other engines. */
function modelValueText(v: string): string {
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(v.trim());
  if (!m) return v;
  return R.formatQ(R.q(BigInt(m[1] as string), BigInt(m[2] ?? '1')));
}

export async function runZ3Engine(
  claim: ArithmeticClaim,
  opts: { timeoutMs: number; orgId?: string | null; pool?: LogicPool },
): Promise<EngineRun> {
  const base = { engine: 'z3' as const, advisory: false };
  const t = claim.translation;
  if (!t.ok) {
    return t.kind === 'refused'
      ? { ...base, method: 'smt_real_arithmetic', status: 'BLOCKED', answer: null, message: t.message }
      : {
          ...base,
          method: 'smt_real_arithmetic',
          status: 'UNVERIFIABLE',
          answer: null,
          message: t.message.replace('this engine', 'Z3 arithmetic'),
        };
  }
  const enc = encodeForZ3(t);
  if (!enc.ok)
    return { ...base, method: 'smt_real_arithmetic', status: 'UNVERIFIABLE', answer: null, message: enc.message };
  const method = enc.mode === 'negated_claim' ? 'smt_negated_claim' : 'smt_model_value';
  let r;
  try {
    r = await solveLogic(enc.query, { timeoutMs: opts.timeoutMs, orgId: opts.orgId ?? null, pool: opts.pool });
  } catch (err) {
    if (err instanceof LogicInputError) {
      return {
        ...base,
        method,
        status: 'UNVERIFIABLE',
        answer: null,
        message: `Not expressible in the logic DSL: ${err.message}`,
      };
    }
    if (err instanceof RangeError)
      return {
        ...base,
        method,
        status: 'BLOCKED',
        answer: null,
        message: 'No time left for Z3 before the consensus deadline.',
      };
    throw err;
  }
  const detail = { dsl: enc.query };
  if (r.status === 'ERROR' || r.status === 'NATURAL_LANGUAGE') {
    return {
      ...base,
      method,
      status: 'BLOCKED',
      answer: null,
      message: `Z3 gave no usable answer (${r.reason}).`,
      detail,
    };
  }
  if (enc.mode === 'negated_claim') {
    if (r.status === 'UNSAT') {
      return {
        ...base,
        method,
        status: 'VERIFIED',
        answer: { kind: 'boolean', text: 'true', precision: 'exact' },
        message: 'Z3 proved the negation of the claim unsatisfiable over the reals: the claim holds.',
        proof: { engine: 'logic', artifact: r.proof as unknown as Record<string, unknown> },
        detail,
      };
    }
    return {
      ...base,
      method,
      status: 'UNVERIFIABLE',
      answer: { kind: 'boolean', text: 'false', precision: 'exact' },
      message: 'Z3 found a counterexample (checked exactly): the claim does not hold.',
      detail: { ...detail, counterexample: r.model },
    };
  }
  if (r.status !== 'SAT') {
    return {
      ...base,
      method,
      status: 'BLOCKED',
      answer: null,
      message: 'Z3 found no value for the expression.',
      detail,
    };
  }
  const value = r.model[DSL_VALUE_VARIABLE];
  if (value === undefined)
    return { ...base, method, status: 'BLOCKED', answer: null, message: 'Z3 returned no value.', detail };
  const answer: Answer = { kind: 'number', text: modelValueText(value), precision: 'exact' };
  return {
    ...base,
    method,
    status: 'UNVERIFIABLE',
    answer,
    message: 'Exact value from a Z3 model checked by the exact evaluator.',
    detail,
  };
}
