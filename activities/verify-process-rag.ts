// /verify/process and /verify/rag as activities: deterministic checks whose responses are the
// contract's own shapes (verified flags and rates, no proof_ref). The route validated the
// request; the engine validates again (in its worker thread) because the RAG rate is parsed into
// exact fractions. Both run in the engine pool under their deadline (docs/isolation.md).
import type { IracResult, MilestonesResult } from '../engines/process.js';
import type { RagResult } from '../engines/rag.js';
import type { VerifyActivityInput } from './types.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';

/** The routes' budget (api/routes/verify-process-rag.ts). */
export const PROCESS_RAG_BUDGET_MS = 5_000;

type ValidationFailure = { error: 'validation_error'; detail: string };

export async function verifyProcessActivity(req: VerifyActivityInput<Record<string, unknown>>): Promise<IracResult | MilestonesResult | ValidationFailure> {
  return runIsolated(
    'process',
    req.input,
    { orgId: req.org_id, timeoutMs: engineBudgetMs(PROCESS_RAG_BUDGET_MS), timeoutDetail: 'Process verification timed out.' },
  );
}

export async function verifyRagActivity(req: VerifyActivityInput<Record<string, unknown>>): Promise<RagResult | ValidationFailure> {
  return runIsolated(
    'rag',
    req.input,
    { orgId: req.org_id, timeoutMs: engineBudgetMs(PROCESS_RAG_BUDGET_MS), timeoutDetail: 'RAG verification timed out.' },
  );
}
