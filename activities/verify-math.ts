// /verify/math as an activity: the pure engine, then the one finalisation path (sealProof:
// retain, sign, record) for proven identities. Everything that is not a retained, attested
// proof is reported as UNVERIFIABLE (or BLOCKED, as the engine decided): evaluation alone is
// never VERIFIED. When its workflow asks (`audit_entry`), the activity appends the
// verification's audit entry itself, after the verdict is sealed and before it is returned, so
// the verification runs one local activity fewer (docs/performance.md, "CPU per /verify/math").
import type { MathRequest } from '../engines/math.js';
import type { MathActivityResult } from '../core/verification-io.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { attestationIdFor, sealProof, SIGNING_ERROR_CONSTRAINT, type ProofContext } from './proofs.js';
import { appendVerificationAudit, requireAuditSecret } from './audit.js';
import type { VerifyActivityInput } from './types.js';

export const MATH_TIMEOUT_DETAIL = 'Math verification timed out.';
const DEFAULT_MATH_TIMEOUT_MS = 5_000;

export function makeVerifyMathActivity(
  ctx: ProofContext & { mathTimeoutMs?: number; enginePool: EnginePool; auditSecret: string | undefined },
) {
  async function verdict(req: VerifyActivityInput<MathRequest>): Promise<MathActivityResult> {
    // The engine runs in the engine pool under the math deadline (docs/isolation.md).
    const { proof, ...engineResult } = await runIsolated('math', req.input, {
      orgId: req.org_id,
      timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? DEFAULT_MATH_TIMEOUT_MS),
      timeoutDetail: MATH_TIMEOUT_DETAIL,
      pool: ctx.enginePool,
    });
    if (engineResult.status === 'BLOCKED')
      return { ...engineResult, status: 'BLOCKED', proof_ref: null, is_authoritative: false };
    if (!proof) return { ...engineResult, status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false };
    const evaluated = typeof proof.expression === 'string' ? proof.expression : req.input.expression;
    const sealed = await sealProof(ctx, proof, {
      engine: 'math',
      orgId: req.org_id,
      evaluatedExpression: evaluated,
      // Audited here: every attempt issues the same attestation id, the one its entry names.
      ...(req.audit_entry ? { attestationId: attestationIdFor(req.org_id, req.workflow_id) } : {}),
    });
    if (!sealed.ok) {
      return {
        ...engineResult,
        status: 'UNVERIFIABLE',
        proof_ref: null,
        is_authoritative: false,
        constraint_id: SIGNING_ERROR_CONSTRAINT,
        attestation_error: sealed.attestationError,
      };
    }
    const att = sealed.attestation;
    return {
      ...engineResult,
      status: 'VERIFIED',
      proof_ref: sealed.proofRef,
      is_authoritative: true,
      attestation: { id: att.jti, token: att.token, status: att.status },
    };
  }

  return async function verifyMathActivity(req: VerifyActivityInput<MathRequest>): Promise<MathActivityResult> {
    const entry = req.audit_entry;
    if (!entry || req.org_id === null) return verdict(req);
    // Without the audit secret no verdict can be returned: fail before any work (not retried).
    requireAuditSecret(ctx);
    const result = await verdict(req);
    // No verdict without its audit entry: a failed append fails the activity (retried, then the
    // run fails with a 503). The entry's id is derived from the workflow id (insert-once), so a
    // retry after an append that did land finds it instead of writing a second one.
    await appendVerificationAudit(ctx, {
      org_id: req.org_id,
      workflow_id: req.workflow_id,
      engine: 'math',
      input: req.input,
      result,
      audit: entry.audit,
    });
    return result;
  };
}
