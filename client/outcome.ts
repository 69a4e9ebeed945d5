// What a verdict means for a caller that must decide pass or fail (the CLI's exit code).
// Only a positive, endpoint-defined outcome is `verified`; anything unknown or missing is not.
//   verified     VERIFIED (math), admission ADMIT (code, sql), SAT (logic), SUPPORTED (fact,
//                image), consensus meets_requirement, process/rag verified: true
//   blocked      BLOCKED status or BLOCKED admission (proven unsafe, refused, fail-closed)
//   error        the service answered but could not complete the check (status ERROR)
//   not_verified everything else (UNVERIFIABLE, UNSAT, REFUTED, INCONCLUSIVE, ...)
export type Outcome = 'verified' | 'not_verified' | 'blocked' | 'error';
export type VerifyKind =
  'math' | 'logic' | 'code' | 'sql' | 'fact' | 'stats' | 'consensus' | 'natural_language' | 'image' | 'process' | 'rag';

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

export function outcomeOf(kind: VerifyKind, result: unknown): Outcome {
  if (!isObj(result)) return 'error';
  const status = result.status;
  if (status === 'BLOCKED') return 'blocked';
  if (status === 'ERROR') return 'error';
  switch (kind) {
    case 'math':
      // VERIFIED carries its proof: no proof_ref, no pass.
      return status === 'VERIFIED' && typeof result.proof_ref === 'string' ? 'verified' : 'not_verified';
    case 'code':
    case 'sql':
      if (result.admission === 'BLOCKED') return 'blocked';
      return status === 'VERIFIED' && result.admission === 'ADMIT' && typeof result.proof_ref === 'string'
        ? 'verified'
        : 'not_verified';
    case 'stats':
      // The contract never emits VERIFIED here; trust it only with a proof all the same.
      return status === 'VERIFIED' && typeof result.proof_ref === 'string' ? 'verified' : 'not_verified';
    case 'logic':
      return status === 'SAT' ? 'verified' : 'not_verified';
    case 'fact':
    case 'image':
      return result.verdict === 'SUPPORTED' ? 'verified' : 'not_verified';
    case 'consensus':
      return result.meets_requirement === true ? 'verified' : 'not_verified';
    case 'natural_language':
      // LLM-translated math is never better than INCONCLUSIVE (contract, States).
      return 'not_verified';
    case 'process':
    case 'rag':
      return result.verified === true ? 'verified' : 'not_verified';
  }
}

/** Batch item types map onto the verify kinds; a failed item is an error. */
export function batchOutcome(item: { type?: unknown; status?: unknown; result?: unknown }): Outcome {
  if (item.status !== 'completed') return 'error';
  const type = typeof item.type === 'string' ? item.type : 'natural_language';
  const kinds: readonly string[] = ['math', 'logic', 'code', 'sql', 'fact', 'natural_language'];
  if (!kinds.includes(type)) return 'error';
  // Batch math results are DiagnosticResults (status + proof_ref), like /verify/math.
  return outcomeOf(type as VerifyKind, item.result);
}
