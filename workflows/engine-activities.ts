// Which activity runs one verification of each engine, by reference: the workflows build this
// map from their activity proxies (`proxyActivities<VerificationActivities>`, as Temporal's
// activities-dependency-injection sample does), so go-to-definition on an entry leads to the
// activity, and each entry is typed by the engine's input and result (core/verification-io.ts
// `EngineIO`). An engine added to the registry (core/engines.ts) without an activity of the
// right type fails to compile here. The same for one batch item (`batchItemActivities`): the
// registry names no activity by a string.
import type { VerificationActivities } from '../activities/index.js';
import type { VerifyActivityInput } from '../activities/types.js';
import type { BatchItemActivityInput, BatchItemActivityResult } from '../core/batch.js';
import type { EngineName, VerifyWorkflowEngine } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import type { BatchItemType } from '../contract/batch-limits.js';

export type EngineActivity<E extends EngineName> = (
  req: VerifyActivityInput<EngineInput<E>>,
) => Promise<EngineResult<E>>;
/** Every engine whose route starts verifyWorkflow (natural language starts providerVerifyWorkflow, whose steps are its own). */
export type EngineActivityMap = { readonly [E in VerifyWorkflowEngine]: EngineActivity<E> };

/** The engine → activity map over one set of proxies (normal or local). */
export function engineActivities(acts: VerificationActivities): EngineActivityMap {
  return {
    math: acts.verifyMathActivity,
    logic: acts.verifyLogicActivity,
    code: acts.verifyCodeActivity,
    sql: acts.verifySqlActivity,
    process: acts.verifyProcessActivity,
    rag: acts.verifyRagActivity,
    consensus: acts.verifyConsensusActivity,
    stats: acts.verifyStatsActivity,
    fact: acts.verifyFactActivity,
    image: acts.verifyImageActivity,
  };
}

/** Runs `engine`'s activity: the one place a workflow dispatches on the engine name. */
export function runEngineActivity<E extends VerifyWorkflowEngine>(
  map: EngineActivityMap,
  engine: E,
  req: VerifyActivityInput<EngineInput<E>>,
): Promise<EngineResult<E>> {
  const activity: EngineActivity<E> = map[engine];
  return activity(req);
}

/** The activity of one batch item (its own time-out from its start, proof, attestation: workflows/batch.ts). */
export type BatchItemActivity = (req: BatchItemActivityInput) => Promise<BatchItemActivityResult>;
/** Batch item types with an item activity of their own; natural-language items run the provider steps (workflows/batch.ts). */
export type ActivityBatchItemType = Exclude<BatchItemType, 'natural_language'>;
export type BatchItemActivityMap = { readonly [T in ActivityBatchItemType]: BatchItemActivity };

/** The batch item type → item activity map over one set of proxies (normal or local). */
export function batchItemActivities(acts: VerificationActivities): BatchItemActivityMap {
  return {
    math: acts.verifyMathBatchItemActivity,
    logic: acts.verifyLogicBatchItemActivity,
    code: acts.verifyCodeBatchItemActivity,
    sql: acts.verifySqlBatchItemActivity,
    fact: acts.verifyFactBatchItemActivity,
  };
}

/** The item activity of a batch item type, or null for a type without one of its own (or not a batch type). */
export function batchItemActivityOf(map: BatchItemActivityMap, type: string): BatchItemActivity | null {
  return Object.hasOwn(map, type) ? map[type as ActivityBatchItemType] : null;
}
