// Activities of the engines that answer with the contract's DiagnosticResult (+ admission):
// /verify/code and /verify/sql. Each runs its pure engine, then finalizeOutcome retains the
// proof and signs the attestation; only that path can yield VERIFIED.
import { scanCode } from './engines/code/index.js';
import { verifySqlChecked, validateSqlRequest } from './engines/sql/index.js';
import { finalizeOutcome, type ProofContext } from './proofs.js';
import { blockedDiagnostic } from '../core/diagnostic.js';
import type { VerifyActivityInput } from './types.js';
import type { DiagnosticResult } from '../core/diagnostic.js';

export interface DiagnosticActivityResult extends DiagnosticResult {
  attestation?: { id: string; token: string; status: string } | null;
}

function withAttestation(f: Awaited<ReturnType<typeof finalizeOutcome>>): DiagnosticActivityResult {
  return f.attestation ? { ...f.diagnostic, attestation: { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status } } : f.diagnostic;
}

export function makeVerifyCodeActivity(ctx: ProofContext, timeoutMs: number) {
  return async function verifyCodeActivity(req: VerifyActivityInput<{ code: string; language?: string }>): Promise<DiagnosticActivityResult> {
    const outcome = await scanCode(req.input.code, req.input.language ?? 'python', { timeoutMs });
    const f = await finalizeOutcome(ctx, outcome, { engine: 'code', orgId: req.org_id, evaluatedExpression: req.input.code, withAdmission: true });
    return withAttestation(f);
  };
}

export function makeVerifySqlActivity(ctx: ProofContext) {
  return async function verifySqlActivity(req: VerifyActivityInput<Record<string, unknown>>): Promise<DiagnosticActivityResult> {
    const parsed = validateSqlRequest(req.input);
    if (!parsed.ok) return blockedDiagnostic(parsed.detail, 'sql_verifier.parse_error', {}, true);
    const outcome = await verifySqlChecked(parsed.value);
    const f = await finalizeOutcome(ctx, outcome, { engine: 'sql', orgId: req.org_id, evaluatedExpression: parsed.value.query, withAdmission: true });
    return withAttestation(f);
  };
}
