// /verify/code as an activity: the scan runs in the engine pool, then finalizeOutcome retains
// the proof and signs the attestation; only that path can yield VERIFIED.
import { ApplicationFailure } from '@temporalio/common';
// The verdict's helpers only: the code engine's barrel (its rules, re2js, tree-sitter) loads in the
// engine threads, never on the worker's main thread (session 21: ~6 MB of its resident memory).
import { blockedOutcome, CONSTRAINT } from '../engines/code/verdict.js';
import type { EngineOutcome } from '../core/diagnostic.js';
import { DETERMINISTIC_ENGINE_FAILURE } from '../core/failure-types.js';
import type { DiagnosticActivityResult } from '../core/verification-io.js';
import { finalizeOutcome, type ProofContext } from './proofs.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { engineBudgetMs } from './isolation/run.js';
import type { VerifyActivityInput } from './types.js';
export type { DiagnosticActivityResult };

/** Time between the scan's cooperative deadline and the thread's hard one. */
const CODE_COOPERATIVE_MARGIN_MS = 250;

/** The attestation reference a diagnostic activity returns beside the diagnostic (code, SQL). */
export function withAttestation(f: Awaited<ReturnType<typeof finalizeOutcome>>): DiagnosticActivityResult {
  return f.attestation
    ? {
        ...f.diagnostic,
        attestation: { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status },
      }
    : f.diagnostic;
}

export function makeVerifyCodeActivity(ctx: ProofContext & { enginePool: EnginePool }, timeoutMs: number) {
  return async function verifyCodeActivity(
    req: VerifyActivityInput<{ code: string; language?: string }>,
  ): Promise<DiagnosticActivityResult> {
    // The scan runs in the engine pool: its cooperative deadline ends a little before the hard
    // one, and either way a late scan is the BLOCKED time-out verdict (never retried).
    const budget = engineBudgetMs(timeoutMs);
    const run = await ctx.enginePool.run<EngineOutcome>(
      {
        engine: 'code',
        input: {
          code: req.input.code,
          language: req.input.language ?? 'python',
          timeoutMs: Math.max(1, budget - CODE_COOPERATIVE_MARGIN_MS),
        },
      },
      { orgId: req.org_id, timeoutMs: budget },
    );
    if (run.kind === 'failed')
      throw ApplicationFailure.create({
        message: `Engine failed on this input: ${run.detail}`,
        type: DETERMINISTIC_ENGINE_FAILURE,
        nonRetryable: true,
      });
    const outcome = run.kind === 'ok' ? run.value : blockedOutcome(CONSTRAINT.timeout, 'Code verification timed out.');
    const f = await finalizeOutcome(ctx, outcome, {
      engine: 'code',
      orgId: req.org_id,
      evaluatedExpression: req.input.code,
      withAdmission: true,
    });
    return withAttestation(f);
  };
}
