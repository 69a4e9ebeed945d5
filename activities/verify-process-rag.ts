// /verify/process and /verify/rag as activities: deterministic checks whose responses are the
// contract's own shapes (verified flags and rates, no proof_ref). The route validated the
// request; the engine validates again (in its worker thread) because the RAG rate is parsed into
// exact fractions. Both run in the engine pool under their deadline (docs/isolation.md).
import type { IracResult, MilestonesResult } from '../engines/process.js';
import type { RagResult } from '../engines/rag.js';
import type { VerifyActivityInput } from './types.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { EnginePool } from './isolation/engine-pool.js';

/** The routes' budget (api/routes/verify-process-rag.ts). */
export const PROCESS_RAG_BUDGET_MS = 5_000;

type ValidationFailure = { error: 'validation_error'; detail: string };

/** Both activities over the engine pool the composition root passes. */
export function makeProcessRagActivities(pool: EnginePool) {
  return {
    verifyProcessActivity: (req: VerifyActivityInput<Record<string, unknown>>) => verifyProcessActivity(req, pool),
    verifyRagActivity: (req: VerifyActivityInput<Record<string, unknown>>) => verifyRagActivity(req, pool),
  };
}

export async function verifyProcessActivity(
  req: VerifyActivityInput<Record<string, unknown>>,
  pool: EnginePool,
): Promise<IracResult | MilestonesResult | ValidationFailure> {
  return runIsolated('process', req.input, {
    orgId: req.org_id,
    timeoutMs: engineBudgetMs(PROCESS_RAG_BUDGET_MS),
    timeoutDetail: 'Process verification timed out.',
    pool,
  });
}

export async function verifyRagActivity(
  req: VerifyActivityInput<Record<string, unknown>>,
  pool: EnginePool,
): Promise<RagResult | ValidationFailure> {
  return runIsolated('rag', req.input, {
    orgId: req.org_id,
    timeoutMs: engineBudgetMs(PROCESS_RAG_BUDGET_MS),
    timeoutDetail: 'RAG verification timed out.',
    pool,
  });
}
