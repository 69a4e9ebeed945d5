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
import {
  attestationIdFor,
  proofRidesInEntry,
  recordIssuedAttestation,
  sealProof,
  SIGNING_ERROR_CONSTRAINT,
  type ProofContext,
} from './proofs.js';
import { appendVerificationAudit, requireAuditSecret } from './audit.js';
import { attestationEntryId } from '../persistence/proofs.js';
import type { IssuedAttestation } from '../core/attestation.js';
import type { VerifyActivityInput } from './types.js';

export const MATH_TIMEOUT_DETAIL = 'Math verification timed out.';
const DEFAULT_MATH_TIMEOUT_MS = 5_000;

export function makeVerifyMathActivity(
  ctx: ProofContext & { mathTimeoutMs?: number; enginePool: EnginePool; auditSecret: string | undefined },
) {
  /** The verdict; `issued` is its attestation when it is to be recorded in the audit entry (not recorded yet). */
  async function verdict(
    req: VerifyActivityInput<MathRequest>,
    recordInAuditEntry = false,
  ): Promise<{ result: MathActivityResult; issued?: IssuedAttestation; artifact?: Record<string, unknown> }> {
    // The engine runs in the engine pool under the math deadline (docs/isolation.md).
    const { proof, ...engineResult } = await runIsolated('math', req.input, {
      orgId: req.org_id,
      timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? DEFAULT_MATH_TIMEOUT_MS),
      timeoutDetail: MATH_TIMEOUT_DETAIL,
      pool: ctx.enginePool,
    });
    if (engineResult.status === 'BLOCKED')
      return { result: { ...engineResult, status: 'BLOCKED', proof_ref: null, is_authoritative: false } };
    if (!proof)
      return { result: { ...engineResult, status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false } };
    const evaluated = typeof proof.expression === 'string' ? proof.expression : req.input.expression;
    const sealed = await sealProof(ctx, proof, {
      engine: 'math',
      orgId: req.org_id,
      evaluatedExpression: evaluated,
      // Audited here: every attempt issues the same attestation id, the one its entry names.
      ...(req.audit_entry
        ? { attestationId: attestationIdFor(req.org_id, req.workflow_id, req.audit_entry.id_time_ms) }
        : {}),
      recordInAuditEntry,
    });
    if (!sealed.ok) {
      return {
        result: {
          ...engineResult,
          status: 'UNVERIFIABLE',
          proof_ref: null,
          is_authoritative: false,
          constraint_id: SIGNING_ERROR_CONSTRAINT,
          attestation_error: sealed.attestationError,
        },
      };
    }
    const att = sealed.attestation;
    return {
      result: {
        ...engineResult,
        status: 'VERIFIED',
        proof_ref: sealed.proofRef,
        is_authoritative: true,
        attestation: { id: att.jti, token: att.token, status: att.status },
      },
      // The proof rides in the entry with the record (session 24): retained by the entry's insert.
      ...(recordInAuditEntry
        ? { issued: att, ...(proofRidesInEntry(ctx, true, proof) ? { artifact: proof } : {}) }
        : {}),
    };
  }

  return async function verifyMathActivity(req: VerifyActivityInput<MathRequest>): Promise<MathActivityResult> {
    const entry = req.audit_entry;
    if (!entry || req.org_id === null) return (await verdict(req)).result;
    // Without the audit secret no verdict can be returned: fail before any work (not retried).
    requireAuditSecret(ctx);
    const inEntry = entry.attestation_in_entry === true;
    const { result, issued, artifact } = await verdict(req, inEntry);
    // No verdict without its audit entry: a failed append fails the activity (retried, then the
    // run fails with a 503). The entry's id is derived from the workflow id (insert-once), so a
    // retry after an append that did land finds it instead of writing a second one. With
    // `attestation_in_entry` the id is derived from the attestation id (itself derived from the
    // workflow id, so the same for every attempt, whatever its verdict), and the entry carries
    // the attestation record: the record is stored by the same insert, before the verdict leaves.
    const appended = await appendVerificationAudit(ctx, {
      org_id: req.org_id,
      workflow_id: req.workflow_id,
      engine: 'math',
      input: req.input,
      result,
      audit: entry.audit,
      ...(inEntry
        ? { log_id: attestationEntryId(attestationIdFor(req.org_id, req.workflow_id, entry.id_time_ms)) as string }
        : entry.id_time_ms !== undefined
          ? { id_time_ms: entry.id_time_ms }
          : {}),
      ...(issued
        ? {
            attestation: {
              token: issued.token,
              claims: issued.claims,
              status: issued.status,
              ...(artifact ? { artifact } : {}),
            },
          }
        : {}),
    });
    if (!issued || !appended.existing || result.status !== 'VERIFIED') return result;
    // An earlier attempt wrote this entry: answer the attestation it stored, never a second token.
    // An entry without one (that attempt's verdict was not VERIFIED, e.g. it timed out) gets the
    // record in `attestations`, as a run without the flag does (insert-once by the same jti), and
    // the proof in `proofs` before it (session 24: the entry that was to carry it does not).
    const inStoredEntry = appended.attestation;
    if (inStoredEntry && inStoredEntry.claims?.svc?.proof_hash !== result.proof_ref)
      throw new Error(`attestation ${issued.jti} is stored for another proof`);
    const stored: IssuedAttestation =
      inStoredEntry && inStoredEntry.claims?.jti === issued.jti
        ? { ...inStoredEntry, jti: issued.jti }
        : await recordIssuedAttestation(ctx, issued, {
            orgId: req.org_id,
            engine: 'math',
            proofRef: result.proof_ref as string,
            derived: true,
            ...(artifact ? { artifact } : {}),
          });
    return { ...result, attestation: { id: stored.jti, token: stored.token, status: stored.status } };
  };
}
