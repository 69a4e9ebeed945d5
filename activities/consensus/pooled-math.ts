// The consensus steps that need the math engine, run in the worker's engine threads
// (ENGINE_TASKS.consensus_translate / consensus_math / consensus_agree), for the caller's
// organization (fair slots) and under a deadline: mathjs stays out of the worker's main thread
// (docs/performance.md, memory), and the math engine's run can be cut at the consensus deadline
// like every other engine (docs/isolation.md). Types only from the math side.
import { CONSENSUS_TIMEOUT_DETAIL } from '../../contract/deadlines.js';
import type { EnginePool } from '../isolation/engine-pool.js';
import { runIsolated } from '../isolation/run.js';
import type { ConsensusMath } from './types.js';

/**
 * Budget of the translation and of the agreement (each a parse or a comparison of bounded
 * inputs: milliseconds). Past it the consensus fails closed with its 503 time-out detail.
 */
export const CONSENSUS_STEP_BUDGET_MS = 5_000;

export function pooledConsensusMath(pool: EnginePool, orgId: string | null): ConsensusMath {
  const opts = (timeoutMs: number) => ({ pool, orgId, timeoutMs, timeoutDetail: CONSENSUS_TIMEOUT_DETAIL });
  return {
    translate: (expression) => runIsolated('consensus_translate', { expression }, opts(CONSENSUS_STEP_BUDGET_MS)),
    math: (expression, timeoutMs) => runIsolated('consensus_math', { expression }, opts(timeoutMs)),
    agree: (entries) => runIsolated('consensus_agree', { entries }, opts(CONSENSUS_STEP_BUDGET_MS)),
  };
}
