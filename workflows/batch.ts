// One batch job = one workflow (id `batch-<org>-<job_id>`): items run as activities in units
// (a chunk of math items, or one item of another type; core/batch.ts batchUnits), at most
// `concurrency` at a time, each item under the item time-out; an item that fails or times out
// is recorded as failed and the job goes on. A math chunk stores its own results (result
// document `<job>#<unit>`, after their audit entries) and returns only a summary, so no math
// result crosses the history (issue 22); other items come back to the workflow and the last
// activity stores them. Every finished unit is in the workflow history, so a worker crash or an
// API restart loses nothing: the replayed workflow resumes where it was. The `progress` query
// returns the live snapshot (held items without a verdict until the finish step has audited
// them, + the units already stored, which are audited before they are stored).
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  defineQuery,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import type { ProviderName } from '../core/providers-config.js';
import { logicTranslateStep, naturalLanguageSteps } from './provider-verify.js';
import {
  ITEM_TIMEOUT_FAILURE,
  LLM_ITEM_TYPES,
  SA_BATCH_STATUS,
  batchCounters,
  itemTimeoutText,
  itemViews,
  llmNotConfigured,
  mathChunks,
  batchUnits,
  type BatchHeldUnit,
  type BatchItemOutcome,
  type BatchItemSummary,
  type BatchProgress,
  type BatchWorkflowInput,
  type FinishBatchJobResult,
} from '../core/batch.js';
import { ENGINE_TIMEOUT_FAILURE } from '../core/engine-failures.js';
import { batchItemActivities, batchItemActivityOf } from './engine-activities.js';
import { BATCH_MATH_CHUNKS, BATCH_RESULT_DOCS } from './early-patches.js';

export const progressQuery = defineQuery<BatchProgress>('progress');

export interface BatchWorkflowResult {
  job_id: string;
  status: 'completed';
  total_items: number;
  completed_items: number;
  failed_items: number;
  /** The job's completion as stored (absent from workflows started before result documents, or when the job was gone). */
  completed_at?: string;
}

// Engine outcomes are values, so an activity failure is infrastructure (a crashed worker, the
// store down): retry it, but never an item that ran past its time-out (the activity enforces
// it from the item's start) or what an engine rejected for good. There is no schedule-to-close
// limit: time spent waiting for a worker (an outage) does not count against the item.
const itemRetry = {
  initialInterval: '200 ms',
  backoffCoefficient: 2,
  maximumInterval: '2 s',
  maximumAttempts: 4,
  nonRetryableErrorTypes: [ITEM_TIMEOUT_FAILURE, 'DeterministicEngineError', 'ValidationError', ENGINE_TIMEOUT_FAILURE],
};

/** A crashed worker's attempt is noticed by its missing heartbeats (the activity beats every 2 s). */
const HEARTBEAT_TIMEOUT_MS = 15_000;
/** Backstop above the activity's own timer, for an engine that blocks the worker's event loop. */
const ATTEMPT_GRACE_MS = 2000;

/** Why an item failed, in words a caller can act on (no stack traces), and how long it ran. */
function failure(err: unknown, itemTimeoutMs: number): { error: string; latency_ms: number } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type === ITEM_TIMEOUT_FAILURE) {
    const ran = cause.details?.[0];
    return { error: cause.message, latency_ms: typeof ran === 'number' ? ran : itemTimeoutMs };
  }
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT')
      return { error: 'Item failed: its worker was lost on every attempt.', latency_ms: 0 };
    return { error: itemTimeoutText(itemTimeoutMs), latency_ms: itemTimeoutMs };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { error: `Item failed: ${message.slice(0, 300)}`, latency_ms: 0 };
}

/** Runs one item of a type other than math (or of the legacy per-item path): its outcome, result included. */
function itemRunner(input: BatchWorkflowInput, workflowId: string): (index: number) => Promise<BatchItemOutcome> {
  // SVC_ACTIVITY_MODE (docs/architecture.md): normal activities by default; local ones skip the
  // server round trip per item (their deadline is the worker's timer, and an attempt lost with
  // a crashed worker re-runs when the workflow task is retried).
  const items =
    input.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>({
          startToCloseTimeout: input.item_timeout_ms + ATTEMPT_GRACE_MS,
          retry: itemRetry,
        })
      : proxyActivities<VerificationActivities>({
          startToCloseTimeout: input.item_timeout_ms + ATTEMPT_GRACE_MS,
          heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
          retry: itemRetry,
        });

  const itemActivities = batchItemActivities(items);
  return async (index: number): Promise<BatchItemOutcome> => {
    const item = input.items[index]!;
    if (LLM_ITEM_TYPES.includes(item.type))
      return { index, status: 'failed', error: llmNotConfigured(item.type), latency_ms: 0 };
    if (item.type === 'natural_language') {
      // Provider step (its own activity, never retried) then evaluation and attestation, as /verify/natural_language.
      const providerMs = Math.min(input.provider_timeout_ms ?? 30_000, input.item_timeout_ms);
      try {
        const result = await naturalLanguageSteps(
          { query: item.query, provider: (item.params.provider as ProviderName | undefined) ?? 'local' },
          input.org_id,
          workflowId,
          providerMs,
          input.item_timeout_ms,
          input.activity_mode,
        );
        return {
          index,
          status: 'completed',
          result,
          latency_ms: typeof result.latency_ms === 'number' ? result.latency_ms : 0,
        };
      } catch (err) {
        return { index, status: 'failed', ...failure(err, input.item_timeout_ms) };
      }
    }
    // The item activity of its type, by reference (workflows/engine-activities.ts).
    const activity = batchItemActivityOf(itemActivities, item.type);
    if (activity === null)
      return { index, status: 'failed', error: `Unsupported item type: ${item.type}`, latency_ms: 0 };
    try {
      const r = await activity({
        job_id: input.job_id,
        index,
        query: item.query,
        params: item.params,
        org_id: input.org_id,
        workflow_id: workflowId,
        timeout_ms: input.item_timeout_ms,
      });
      const logicResult = r.result as { status?: string; reason?: string } | null;
      if (
        item.type === 'logic' &&
        logicResult?.status === 'ERROR' &&
        logicResult.reason === 'natural_language_requires_provider'
      ) {
        // Natural-language logic: the provider translates to the DSL (its own activity), then the same item activity solves it.
        const provider = (item.params.provider as ProviderName | undefined) ?? 'local';
        const t = await logicTranslateStep(
          { query: item.query, provider },
          input.org_id,
          workflowId,
          Math.min(input.provider_timeout_ms ?? 30_000, input.item_timeout_ms),
        );
        if (!t.ok) {
          const result = {
            status: t.blocked ? 'BLOCKED' : 'ERROR',
            error: 'Internal verification error',
            reason: t.reason,
            message: t.message,
            provider_used: provider,
          };
          return { index, status: 'completed', result, latency_ms: r.latency_ms };
        }
        const solved = await activity({
          job_id: input.job_id,
          index,
          query: t.dsl,
          params: item.params,
          org_id: input.org_id,
          workflow_id: workflowId,
          timeout_ms: input.item_timeout_ms,
        });
        const result = {
          ...(solved.result as Record<string, unknown>),
          provider_used: provider,
          translated_query: t.dsl,
        };
        return { index, status: 'completed', result, latency_ms: r.latency_ms + solved.latency_ms };
      }
      return { index, status: 'completed', result: r.result, latency_ms: r.latency_ms };
    } catch (err) {
      return { index, status: 'failed', ...failure(err, input.item_timeout_ms) };
    }
  };
}

export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchWorkflowResult> {
  // A one-step job (`one_step_job`, session 13) was started long after the legacy path: no patch
  // marker (and its search attribute upsert) to record, none on replay either.
  if (input.one_step_job !== true && !patched(BATCH_RESULT_DOCS)) return legacyBatchWorkflow(input);
  const { workflowId, startTime } = workflowInfo();
  // Session 23: entry ids that start with the run's start time (`startTime`: the execution chain's start, in its history, the same on every replay;
  // identical to the run's own `runStartTime` here: no continue-as-new, no workflow retry).
  const idTime = input.time_ordered_ids === true ? { id_time_ms: startTime.getTime() } : {};
  const total = input.items.length;
  const units = batchUnits(input.items, input.concurrency, input.math_unit_max);
  const summaries: BatchItemSummary[] = [];
  const held: BatchHeldUnit[] = [];
  const storedUnits: number[] = [];
  let status: 'running' | 'completed' = 'running';
  let completedAt: string | null = null;
  let final: { completed_items: number; failed_items: number } | null = null;

  const snapshot = (): BatchProgress => ({
    job_id: input.job_id,
    status,
    ...batchCounters(total, summaries),
    ...(final ?? {}),
    // A held verdict is shown only once the finish step has written its audit entry (no verdict
    // without its audit entry); until then it is counted, and a failed item (no verdict) is shown.
    items: itemViews(
      input.job_id,
      input.items,
      held
        .flatMap((u) => u.items.map((it) => it.outcome))
        .filter((o) => status === 'completed' || o.result === undefined),
    ),
    stored_units: [...storedUnits],
    workflow_id: workflowId,
    created_at: input.created_at,
    completed_at: completedAt,
  });
  setHandler(progressQuery, snapshot);

  const runItem = itemRunner(input, workflowId);
  const local = (input.unit_mode ?? input.activity_mode) === 'local';
  // A math unit's deadline covers its items one after another (each keeps its own time-out).
  const mathUnit = (n: number) => {
    const timeouts = { startToCloseTimeout: n * input.item_timeout_ms + ATTEMPT_GRACE_MS, retry: itemRetry };
    const { mathBatchUnitActivity } = local
      ? proxyLocalActivities<VerificationActivities>(timeouts)
      : proxyActivities<VerificationActivities>({ ...timeouts, heartbeatTimeout: HEARTBEAT_TIMEOUT_MS });
    return mathBatchUnitActivity;
  };
  /** The one-step job's activity (`one_step_job`): always local, with the unit's deadline. */
  const mathJob = (n: number) =>
    proxyLocalActivities<VerificationActivities>({
      startToCloseTimeout: n * input.item_timeout_ms + ATTEMPT_GRACE_MS,
      retry: itemRetry,
    }).mathBatchJobActivity;
  const hold = (unit: number, outcomes: BatchItemOutcome[]) => {
    held.push({
      unit,
      items: outcomes.map((outcome) => ({
        query: input.items[outcome.index]!.query,
        type: input.items[outcome.index]!.type,
        outcome,
      })),
    });
    summaries.push(...outcomes.map((o) => ({ index: o.index, status: o.status })));
  };

  // A job that is one math unit (session 12 inputs only: math_unit_max) has its own audit entry
  // written in that unit's group commit; the finish step then skips it.
  const jobEntryInUnit = input.math_unit_max !== undefined && units.length === 1 && units[0]!.kind === 'math';
  // Session 13 (`one_step_job`, a local unit): that unit is the job's only activity: it checks the
  // input (workflows/input-auth.ts) and completes the job, so no finish step runs unless it could not.
  const oneStep = input.one_step_job === true && jobEntryInUnit && local;
  let jobAudited = false;
  let finishedByUnit: FinishBatchJobResult | null = null;
  const runUnit = async (u: number): Promise<void> => {
    const unit = units[u]!;
    if (unit.kind === 'item') {
      hold(u, [await runItem(unit.index)]);
      return;
    }
    try {
      const req = {
        job_id: input.job_id,
        unit: u,
        items: unit.indices.map((index) => ({
          index,
          query: input.items[index]!.query,
          params: input.items[index]!.params,
        })),
        org_id: input.org_id,
        workflow_id: workflowId,
        timeout_ms: input.item_timeout_ms,
        audit: input.audit,
        // Session 17: from the input, so a replayed or retried run keeps the layout it started with.
        ...(input.attestation_in_audit_entry === true ? { attestation_in_entry: true } : {}),
        ...idTime,
      };
      let done: BatchItemSummary[];
      if (oneStep) {
        const r = await mathJob(unit.indices.length)({
          ...req,
          job_entry: { total_items: total },
          units: units.length,
        });
        done = r.summaries;
        finishedByUnit = r.finished;
      } else {
        done = await mathUnit(unit.indices.length)({
          ...req,
          ...(jobEntryInUnit ? { job_entry: { total_items: total } } : {}),
        });
      }
      summaries.push(...done);
      storedUnits.push(u);
      if (jobEntryInUnit) jobAudited = true;
    } catch (err) {
      // The unit failed for good (retries exhausted): each of its items failed, with the reason.
      hold(
        u,
        unit.indices.map((index) => ({ index, status: 'failed' as const, ...failure(err, input.item_timeout_ms) })),
      );
    }
  };

  // Bounded concurrency: each lane takes the next unstarted unit (deterministic on replay).
  let next = 0;
  const lanes = Math.max(1, Math.min(input.concurrency, units.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < units.length) await runUnit(next++);
    }),
  );

  /** The last step (unless the one-step job's unit completed the job): held items stored, the job completed. */
  const finish = (): Promise<FinishBatchJobResult> => {
    const counters = batchCounters(total, summaries);
    const finishOptions = { startToCloseTimeout: '30 s', retry: FINISH_RETRY } as const;
    const { finishBatchJobActivity } = local
      ? proxyLocalActivities<VerificationActivities>(finishOptions)
      : proxyActivities<VerificationActivities>(finishOptions);
    return finishBatchJobActivity({
      job_id: input.job_id,
      org_id: input.org_id,
      workflow_id: workflowId,
      total_items: total,
      units: units.length,
      completed_items: counters.completed_items,
      failed_items: counters.failed_items,
      held,
      audit: input.audit,
      ...(jobAudited ? { job_audited: true } : {}),
      ...idTime,
    });
  };
  const done = finishedByUnit ?? (await finish());
  final = { completed_items: done.completed_items, failed_items: done.failed_items };
  status = 'completed';
  completedAt = done.completed_at;
  upsertSearchAttributes([{ key: SA_BATCH_STATUS, value: 'completed' }]);
  return {
    job_id: input.job_id,
    status: 'completed',
    total_items: total,
    completed_items: done.completed_items,
    failed_items: done.failed_items,
    ...(done.stored ? { completed_at: done.completed_at } : {}),
  };
}

/** The finished job must reach the store: keep retrying through a store outage. */
const FINISH_RETRY = { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 s' };

/**
 * Jobs started before result documents (patch `batch-result-docs`): every result came back to
 * the workflow and the last activity wrote them into the job. Kept so that such a workflow
 * replays after an upgrade; removable once none runs.
 */
async function legacyBatchWorkflow(input: BatchWorkflowInput): Promise<BatchWorkflowResult> {
  const { workflowId } = workflowInfo();
  const total = input.items.length;
  const outcomes: BatchItemOutcome[] = [];
  let status: 'running' | 'completed' = 'running';
  let completedAt: string | null = null;

  const snapshot = (): BatchProgress => ({
    job_id: input.job_id,
    status,
    ...batchCounters(total, outcomes),
    items: itemViews(input.job_id, input.items, outcomes),
    workflow_id: workflowId,
    created_at: input.created_at,
    completed_at: completedAt,
  });
  setHandler(progressQuery, snapshot);

  const runItem = itemRunner(input, workflowId);

  // Math items go in chunks, one activity each (docs/batch.md, "Math chunks"): the per-item
  // Temporal round trip was the batch's cost, not the engine. Other types stay one activity
  // per item. Jobs started before chunks existed replay the per-item path (patch marker).
  type Unit = { kind: 'item'; index: number } | { kind: 'math'; indices: number[] };
  const lanes = Math.max(1, Math.min(input.concurrency, total));
  const units: Unit[] = [];
  if (patched(BATCH_MATH_CHUNKS)) {
    const math = input.items.flatMap((it, i) => (it.type === 'math' ? [i] : []));
    for (const indices of mathChunks(math, lanes)) units.push({ kind: 'math', indices });
    input.items.forEach((it, i) => {
      if (it.type !== 'math') units.push({ kind: 'item', index: i });
    });
  } else {
    for (let i = 0; i < total; i++) units.push({ kind: 'item', index: i });
  }
  const chunkActivity = (n: number) =>
    (input.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>({
          startToCloseTimeout: n * input.item_timeout_ms + ATTEMPT_GRACE_MS,
          retry: itemRetry,
        })
      : proxyActivities<VerificationActivities>({
          startToCloseTimeout: n * input.item_timeout_ms + ATTEMPT_GRACE_MS,
          heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
          retry: itemRetry,
        })
    ).verifyMathBatchChunkActivity;
  const runChunk = async (indices: number[]): Promise<BatchItemOutcome[]> => {
    try {
      return await chunkActivity(indices.length)({
        job_id: input.job_id,
        items: indices.map((index) => ({
          index,
          query: input.items[index]!.query,
          params: input.items[index]!.params,
        })),
        org_id: input.org_id,
        workflow_id: workflowId,
        timeout_ms: input.item_timeout_ms,
      });
    } catch (err) {
      // The chunk failed for good (retries exhausted): each of its items failed, with the reason.
      return indices.map((index) => ({ index, status: 'failed' as const, ...failure(err, input.item_timeout_ms) }));
    }
  };

  // Bounded concurrency: each lane takes the next unstarted unit (deterministic on replay).
  let next = 0;
  const lane = async () => {
    while (next < units.length) {
      const unit = units[next++]!;
      if (unit.kind === 'item') outcomes.push(await runItem(unit.index));
      else outcomes.push(...(await runChunk(unit.indices)));
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));

  const finish = proxyActivities<VerificationActivities>({
    startToCloseTimeout: '30 s',
    // The finished job must reach the store: keep retrying through a store outage.
    retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 s' },
  });
  const done = await finish.completeBatchJobActivity({
    job_id: input.job_id,
    org_id: input.org_id,
    workflow_id: workflowId,
    total_items: total,
    outcomes,
    audit: input.audit,
    items: input.items.map((it) => ({ query: it.query, type: it.type })),
  });
  status = 'completed';
  completedAt = done.completed_at;
  upsertSearchAttributes([{ key: SA_BATCH_STATUS, value: 'completed' }]);
  const counters = batchCounters(total, outcomes);
  return {
    job_id: input.job_id,
    status: 'completed',
    total_items: total,
    completed_items: counters.completed_items,
    failed_items: counters.failed_items,
  };
}
