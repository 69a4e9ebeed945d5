// One batch job = one workflow (id `batch-<org>-<job_id>`): items run as activities, at most
// `concurrency` at a time, each under the item time-out; an item that fails or times out is
// recorded as failed and the job goes on. Every finished item is in the workflow history, so
// a worker crash or an API restart loses nothing: the replayed workflow resumes where it was.
// The `progress` query returns the live snapshot; the last activity stores the finished job.
import { ActivityFailure, ApplicationFailure, TimeoutFailure, defineQuery, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import {
  LLM_ITEM_TYPES,
  SA_BATCH_STATUS,
  batchCounters,
  itemViews,
  llmNotConfigured,
  type BatchItemActivityInput,
  type BatchItemActivityResult,
  type BatchItemOutcome,
  type BatchItemType,
  type BatchJobView,
  type BatchWorkflowInput,
} from '../core/batch.js';

export const progressQuery = defineQuery<BatchJobView>('progress');

export interface BatchWorkflowResult {
  job_id: string;
  status: 'completed';
  total_items: number;
  completed_items: number;
  failed_items: number;
}

const ITEM_ACTIVITIES = {
  math: 'verifyMathBatchItemActivity',
  logic: 'verifyLogicBatchItemActivity',
  code: 'verifyCodeBatchItemActivity',
  sql: 'verifySqlBatchItemActivity',
} as const satisfies Partial<Record<BatchItemType, keyof VerificationActivities>>;

// Engine outcomes are values, so an activity failure is infrastructure (a crashed worker, the
// store down): retry within the item's budget, but not what an engine rejected for good.
const itemRetry = {
  initialInterval: '200 ms',
  backoffCoefficient: 2,
  maximumInterval: '2 s',
  maximumAttempts: 5,
  nonRetryableErrorTypes: ['DeterministicEngineError', 'ValidationError'],
};

/** Why an item failed, in words a caller can act on (no stack traces). */
function failureText(err: unknown, itemTimeoutMs: number): string {
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof TimeoutFailure) return `Item exceeded the batch item time-out (${itemTimeoutMs} ms).`;
    cur = (cur as { cause?: unknown }).cause;
  }
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
  return `Item failed: ${message.slice(0, 300)}`;
}

export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchWorkflowResult> {
  const { workflowId } = workflowInfo();
  const total = input.items.length;
  const outcomes: BatchItemOutcome[] = [];
  let status: 'running' | 'completed' = 'running';
  let completedAt: string | null = null;

  const snapshot = (): BatchJobView => ({
    job_id: input.job_id,
    status,
    ...batchCounters(total, outcomes),
    items: itemViews(input.job_id, input.items, outcomes),
    workflow_id: workflowId,
    created_at: input.created_at,
    completed_at: completedAt,
  });
  setHandler(progressQuery, snapshot);

  const proxies = new Map<string, VerificationActivities>();
  const activitiesFor = (type: BatchItemType): VerificationActivities => {
    const attempt = Math.min(input.attempt_timeout_ms[type] ?? input.item_timeout_ms, input.item_timeout_ms);
    let p = proxies.get(type);
    if (!p) {
      p = proxyActivities<VerificationActivities>({
        startToCloseTimeout: attempt,
        // The item's whole budget: queueing and retries included.
        scheduleToCloseTimeout: input.item_timeout_ms,
        retry: itemRetry,
      });
      proxies.set(type, p);
    }
    return p;
  };

  const runItem = async (index: number): Promise<BatchItemOutcome> => {
    const item = input.items[index]!;
    if (LLM_ITEM_TYPES.includes(item.type)) return { index, status: 'failed', error: llmNotConfigured(item.type), latency_ms: 0 };
    const name = ITEM_ACTIVITIES[item.type as keyof typeof ITEM_ACTIVITIES];
    const activity = activitiesFor(item.type)[name] as (req: BatchItemActivityInput) => Promise<BatchItemActivityResult>;
    try {
      const r = await activity({ job_id: input.job_id, index, query: item.query, params: item.params, org_id: input.org_id, workflow_id: workflowId });
      return { index, status: 'completed', result: r.result, latency_ms: r.latency_ms };
    } catch (err) {
      return { index, status: 'failed', error: failureText(err, input.item_timeout_ms), latency_ms: 0 };
    }
  };

  // Bounded concurrency: each lane takes the next unstarted item (deterministic on replay).
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const index = next++;
      outcomes.push(await runItem(index));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, total)) }, lane));

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
  });
  status = 'completed';
  completedAt = done.completed_at;
  upsertSearchAttributes([{ key: SA_BATCH_STATUS, value: 'completed' }]);
  const counters = batchCounters(total, outcomes);
  return { job_id: input.job_id, status: 'completed', total_items: total, completed_items: counters.completed_items, failed_items: counters.failed_items };
}
