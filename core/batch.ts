// Batch jobs (POST /verify/batch): the shapes shared by the API, the batch workflow and its
// activities. Pure data and pure functions only: the workflow bundle imports this file.
import { defineSearchAttributeKey } from '@temporalio/common';
import type { AuditContext } from './engines.js';
import {
  BATCH_ITEM_TYPES,
  BATCH_MAX_ITEMS,
  BATCH_CAPACITY_DETAIL,
  BATCH_FOREIGN_DETAIL,
  BATCH_NOT_FOUND_DETAIL,
  type BatchItemType,
} from '../contract/batch-limits.js';

export {
  BATCH_ITEM_TYPES,
  BATCH_MAX_ITEMS,
  BATCH_CAPACITY_DETAIL,
  BATCH_FOREIGN_DETAIL,
  BATCH_NOT_FOUND_DETAIL,
  type BatchItemType,
};

/** Item types whose engine is not built: they fail closed (none left: natural_language runs workflows/provider-verify.ts, fact the fact activity). */
export const LLM_ITEM_TYPES: readonly BatchItemType[] = [];
export const llmNotConfigured = (type: BatchItemType) => `LLM provider not configured: ${type} items fail closed`;

/** Items of one job in flight at once. */
export const BATCH_CONCURRENCY = 8;

/** Temporal search attributes (registered by infra/stack.ts; docs/operations.md shows the filters). */
export const SA_ORG_ID = defineSearchAttributeKey('SvcOrgId', 'KEYWORD');
export const SA_ENGINE = defineSearchAttributeKey('SvcEngine', 'KEYWORD');
export const SA_ITEM_COUNT = defineSearchAttributeKey('SvcItemCount', 'INT');
export const SA_BATCH_STATUS = defineSearchAttributeKey('SvcBatchStatus', 'KEYWORD');

export interface BatchItemRequest {
  query: string;
  type: BatchItemType;
  params: Record<string, unknown>;
}

export interface BatchWorkflowInput {
  job_id: string;
  org_id: string;
  created_at: string;
  items: BatchItemRequest[];
  /** SVC_BATCH_ITEM_TIMEOUT in ms: how long an item may run (time spent waiting for a worker excluded). */
  item_timeout_ms: number;
  concurrency: number;
  /** SVC_ACTIVITY_MODE: items as normal (default) or local activities. */
  activity_mode: 'normal' | 'local';
  /** Math units and the finish step: local (default: no activity task round trip; docs/batch.md) or normal (SVC_ACTIVITY_MODE=normal). */
  unit_mode?: 'normal' | 'local';
  audit: AuditContext | null;
  /** SVC_PROVIDER_TIMEOUT in ms: the provider step of natural_language items (capped by the item time-out). */
  provider_timeout_ms?: number;
  /** The largest math unit (batchUnits); absent in workflows started before session 12: MATH_CHUNK_MAX. */
  math_unit_max?: number;
  /**
   * Session 13 (a job's fixed cost): a job that is one local math unit runs as that one local
   * activity (`mathBatchJobActivity`): it checks the workflow input itself (the deferred check,
   * workflows/input-auth.ts) and completes the job, so there is no separate input check and no
   * finish step. In the input, not a patch marker: runs started without it replay as before.
   */
  one_step_job?: boolean;
  /**
   * Session 17 (issue 22, one write fewer per batch chunk): math units store each VERIFIED item's
   * attestation record in the item's audit entry (written anyway, before the result document)
   * instead of a separate `attestations` insert; the entry's id is then derived from the
   * attestation id (activities/verify-batch.ts). In the input: runs started without it keep the
   * old layout on replay and retry.
   */
  attestation_in_audit_entry?: boolean;
  /**
   * Session 23 (set by the API): the items' and the job's audit entry ids (and the items'
   * attestation ids) start with the workflow's start time (workflowInfo().startTime, from its
   * history), so new entries sort after the stored ones (core/time-ordered-id.ts). In the input:
   * runs started without it keep the hash-only ids on replay and retry.
   */
  time_ordered_ids?: boolean;
}

export type BatchItemStatus = 'completed' | 'failed';

/** One finished item as the workflow records it (the query text is added from the request). */
export interface BatchItemOutcome {
  index: number;
  status: BatchItemStatus;
  result?: unknown;
  error?: string;
  latency_ms: number;
}

export interface BatchItemView {
  id: string;
  query: string;
  type: BatchItemType;
  status: BatchItemStatus;
  result?: unknown;
  error?: string;
  latency_ms: number;
}

/**
 * `failed`: the job's workflow closed without storing the job (terminated, timed out, cancelled,
 * failed, or gone): no item result was released (api/batch-jobs.ts, docs/batch.md).
 */
export type BatchJobStatus = 'running' | 'completed' | 'failed';

export interface BatchJobView {
  job_id: string;
  status: BatchJobStatus;
  progress_percent: number;
  total_items: number;
  completed_items: number;
  failed_items: number;
  items: BatchItemView[];
  workflow_id: string;
  created_at: string;
  completed_at: string | null;
}

/** What an item activity returns: the engine result and the time the activity spent on it. */
export interface BatchItemActivityResult {
  result: unknown;
  latency_ms: number;
}

export interface BatchItemActivityInput {
  job_id: string;
  index: number;
  query: string;
  params: Record<string, unknown>;
  org_id: string;
  workflow_id: string;
  /** The item time-out, enforced inside the activity (see activities/verify-batch.ts). */
  timeout_ms: number;
}

/** Math items of one job verified by one activity (docs/batch.md, "Math chunks"): at most this many. */
export const MATH_CHUNK_MAX = 25;
/**
 * The largest math unit of a job started since session 12 (the plan's size, sent in the
 * workflow input: `math_unit_max`): a 100-item job is ONE unit, so one audit group commit, one
 * result document and one marker instead of four (docs/batch.md, "Session 12"). Its engine work
 * still goes in tasks of MATH_CHUNK_MAX items, each under one item's budget.
 */
export const MATH_UNIT_MAX = 100;
/** Items of one math chunk in flight at once inside its activity. */
export const MATH_CHUNK_PARALLELISM = 4;

/** A chunk of math items of one job, verified by one activity; each item keeps its own time-out. */
export interface BatchMathChunkInput {
  job_id: string;
  items: Array<{ index: number; query: string; params: Record<string, unknown> }>;
  org_id: string;
  workflow_id: string;
  timeout_ms: number;
}

/**
 * Splits the math items' indices into chunks so that `lanes` chunks cover them in one round
 * (at most MATH_CHUNK_MAX each). Pure: the workflow calls it.
 */
export function mathChunks(indices: number[], lanes: number): number[][] {
  if (indices.length === 0) return [];
  const size = Math.max(1, Math.min(MATH_CHUNK_MAX, Math.ceil(indices.length / Math.max(1, lanes))));
  const out: number[][] = [];
  for (let i = 0; i < indices.length; i += size) out.push(indices.slice(i, i + size));
  return out;
}

/**
 * The units of a job (issue 22): a chunk of math items, or one item of another type. Unit u's
 * results are stored once in the result document `<job>#<u>` (persistence/batch.ts), so the
 * job document never holds items. Pure and deterministic: the workflow runs these units and the
 * API computes the same count at admission (to find a job's result documents by id).
 */
export type BatchUnit = { kind: 'math'; indices: number[] } | { kind: 'item'; index: number };

export function batchUnits(
  items: ReadonlyArray<{ type: BatchItemType }>,
  concurrency: number,
  mathUnitMax: number = MATH_CHUNK_MAX,
): BatchUnit[] {
  const math = items.flatMap((it, i) => (it.type === 'math' ? [i] : []));
  const max = Math.max(1, mathUnitMax);
  // As few math units as `mathUnitMax` allows (MATH_CHUNK_MAX by default, workflows before session 12: 100 items in 4 of 25), of even sizes: a unit's fixed cost (its result document, its audit group commit, a history event)
  // is paid per unit, and the engine pool, not the number of units, bounds the parallelism.
  const size = Math.max(1, Math.min(max, Math.ceil(math.length / Math.max(1, Math.ceil(math.length / max)))));
  const units: BatchUnit[] = [];
  for (let i = 0; i < math.length; i += size) units.push({ kind: 'math', indices: math.slice(i, i + size) });
  items.forEach((it, index) => {
    if (it.type !== 'math') units.push({ kind: 'item', index });
  });
  return units;
}

/** What the workflow keeps of a stored item: no result (that is in the store), only what its counters and progress need. */
export interface BatchItemSummary {
  index: number;
  status: BatchItemStatus;
}

/**
 * The `progress` query's answer: the job view with the items the workflow holds (items of
 * other types than math, and math chunks that failed for good) and the units already stored,
 * whose items the API reads from their result documents.
 */
export interface BatchProgress extends BatchJobView {
  stored_units?: number[];
}

/** A math chunk that stores its own results (unit `unit` of the job) after their audit entries. */
export interface BatchMathUnitInput extends BatchMathChunkInput {
  unit: number;
  audit: AuditContext | null;
  /**
   * Session 12: the job is this one math unit, so the job's own audit entry (`batch <job>: <n>
   * items`, as the finish step writes it, same id) goes out in this unit's group commit, after
   * its items' entries; the finish step then skips it (`job_audited`). Absent: the finish writes it.
   */
  job_entry?: { total_items: number };
  /** The workflow's `attestation_in_audit_entry` (session 17): the records ride in the items' audit entries. */
  attestation_in_entry?: boolean;
  /** The workflow's start time (epoch ms) when its input has `time_ordered_ids` (session 23): the ids start with it. */
  id_time_ms?: number;
}

/** Session 13: a job that is one math unit, run and completed by one activity (`one_step_job`). */
export interface BatchMathJobInput extends BatchMathUnitInput {
  job_entry: { total_items: number };
  /** The job's unit count as stored (1). */
  units: number;
}

/** The unit's summaries, and the job's completion as stored (null: not completed, the finish step does it). */
export interface BatchMathJobResult {
  summaries: BatchItemSummary[];
  finished: FinishBatchJobResult | null;
}

/** Items the workflow holds until the end (their results came back to it): stored by the finish activity. */
export interface BatchHeldUnit {
  unit: number;
  items: Array<{ query: string; type: BatchItemType; outcome: BatchItemOutcome }>;
}

export interface FinishBatchJobInput {
  job_id: string;
  org_id: string;
  workflow_id: string;
  total_items: number;
  units: number;
  completed_items: number;
  failed_items: number;
  held: BatchHeldUnit[];
  audit: AuditContext | null;
  /** The job's own audit entry was written by its math unit (`job_entry`): the finish step does not append it again. */
  job_audited?: boolean;
  /** The workflow's start time (epoch ms) when its input has `time_ordered_ids` (session 23): the entry ids start with it. */
  id_time_ms?: number;
}

export interface FinishBatchJobResult {
  stored: boolean;
  audited: boolean;
  completed_at: string;
  completed_items: number;
  failed_items: number;
}

/** Failure type of an item that ran past its time-out: final, never retried. */
export const ITEM_TIMEOUT_FAILURE = 'BatchItemTimeout';
export const itemTimeoutText = (ms: number) => `Item exceeded the batch item time-out (${ms} ms).`;

export const itemId = (jobId: string, index: number) => `${jobId}-${index}`;

export function batchCounters(total: number, outcomes: ReadonlyArray<{ status: BatchItemStatus }>) {
  const completed = outcomes.filter((o) => o.status === 'completed').length;
  const failed = outcomes.length - completed;
  return {
    total_items: total,
    completed_items: completed,
    failed_items: failed,
    // Floor: 100 only once every item is final.
    progress_percent: total === 0 ? 100 : Math.floor(((completed + failed) * 100) / total),
  };
}

/** Item views in index order, with the query text and type from the request. */
export function itemViews(
  jobId: string,
  requests: ReadonlyArray<{ query: string; type: BatchItemType }>,
  outcomes: readonly BatchItemOutcome[],
): BatchItemView[] {
  return [...outcomes]
    .sort((a, b) => a.index - b.index)
    .map((o) => {
      const req = requests[o.index];
      const view: BatchItemView = {
        id: itemId(jobId, o.index),
        query: req?.query ?? '',
        type: req?.type ?? 'natural_language',
        status: o.status,
        latency_ms: o.latency_ms,
      };
      if (o.result !== undefined) view.result = o.result;
      if (o.error !== undefined) view.error = o.error;
      return view;
    });
}
