// How engine results become gateway verdicts (docs/a2a-gateway.md). Pure.
import type { A2aStatusValue } from '../../core/a2a-workflow.js';

export interface MappedVerdict {
  status: A2aStatusValue;
  reason: string;
  /** For `verified`: the artifact to retain as the proof (its sha256 becomes proof_ref). */
  proofRef?: string | null;
}

const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** /verify/code's DiagnosticResult + admission → verdict. */
export function mapCodeResult(result: unknown): MappedVerdict {
  const r = rec(result);
  const df = rec(r.developer_fields);
  const constraint = typeof df.constraint_id === 'string' ? df.constraint_id : '';
  if (constraint === 'code_verifier.timeout') return { status: 'error', reason: 'engine_timeout' };
  if (r.status === 'VERIFIED' && r.admission === 'ADMIT' && typeof r.proof_ref === 'string')
    return {
      status: 'verified',
      reason: 'code_safe: no finding of the security rules (static analysis, proof retained)',
      proofRef: r.proof_ref,
    };
  if (r.status === 'VERIFIED')
    return { status: 'blocked', reason: `code_unsafe: ${String(r.agent_message ?? '').slice(0, 200)}` };
  if (r.status === 'UNVERIFIABLE' && df.is_valid === true && Number(df.critical_count ?? 0) === 0) {
    return {
      status: 'heuristic_pass',
      reason: `no blocking finding, but no proof: ${String(r.agent_message ?? '').slice(0, 200)}`,
    };
  }
  return { status: 'blocked', reason: `code_blocked: ${constraint || 'unverified'}` };
}

// logic_assertion verdicts: engines/a2a/entailment.ts (entailment by the facts, never mere satisfiability).
