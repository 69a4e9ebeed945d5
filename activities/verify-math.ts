// /verify/math as an activity: the pure engine, then proof retention and attestation for
// proven identities. Everything that is not a retained, attested proof is reported as
// UNVERIFIABLE (or BLOCKED, as the engine decided): evaluation alone is never VERIFIED.
import type { MathRequest, MathResponse } from '../engines/math.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import { retainProof, SIGNING_ERROR_CONSTRAINT, type ProofContext } from './proofs.js';
import { AttestationError } from '../core/attestation.js';
import { recordAttestation } from '../persistence/proofs.js';
import type { VerifyActivityInput } from './types.js';

export const MATH_TIMEOUT_DETAIL = 'Math verification timed out.';
const DEFAULT_MATH_TIMEOUT_MS = 5_000;

export function makeVerifyMathActivity(ctx: ProofContext & { mathTimeoutMs?: number }) {
  return async function verifyMathActivity(req: VerifyActivityInput<MathRequest>): Promise<Record<string, unknown>> {
    // The engine runs in the engine pool under the math deadline (docs/isolation.md).
    const engine = await runIsolated<MathResponse>(
      { engine: 'math', input: req.input },
      { orgId: req.org_id, timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? DEFAULT_MATH_TIMEOUT_MS), timeoutDetail: MATH_TIMEOUT_DETAIL },
    );
    const { proof, ...engineResult } = engine as unknown as Record<string, unknown> & { proof?: Record<string, unknown> };
    if (engineResult.status === 'BLOCKED') {
      return { ...engineResult, proof_ref: null, is_authoritative: false };
    }
    if (!proof) {
      return { ...engineResult, status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false };
    }
    const proofRef = await retainProof(ctx.store, 'math', req.org_id, proof);
    const evaluated = typeof proof.expression === 'string' ? proof.expression : req.input.expression;
    try {
      const att = await ctx.signer.sign({
        evaluatedExpression: evaluated,
        status: 'VERIFIED',
        verified: true,
        engine: 'math',
        confidence: 1,
        proofRef,
      });
      // Store errors are not AttestationErrors: rethrown below, so the activity retries.
      await recordAttestation(ctx.store, att, { orgId: req.org_id, engine: 'math', proofRef });
      return {
        ...engineResult,
        status: 'VERIFIED',
        proof_ref: proofRef,
        is_authoritative: true,
        attestation: { id: att.jti, token: att.token, status: att.status },
      };
    } catch (err) {
      if (!(err instanceof AttestationError)) throw err;
      return {
        ...engineResult,
        status: 'UNVERIFIABLE',
        proof_ref: null,
        is_authoritative: false,
        constraint_id: SIGNING_ERROR_CONSTRAINT,
        attestation_error: err.code,
      };
    }
  };
}
