// Workflow tier (docs/testing.md): batchWorkflow on @temporalio/testing, against the temporal
// CLI the project installs (.tools/bin/temporal, infra/install-tools.sh; never a downloaded
// server), with scripted item activities instead of engines and a store. It proves the
// workflow's own logic — bounded concurrency, every item exactly once in index order, item
// time-outs final and never retried, infrastructure failures retried, a lost item recorded as
// failed while the job goes on — without the stack. The contract rows (status codes, bodies,
// the real engines) stay black-box in test/http/batch*.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ROOT } from '../../infra/stack.js';
import {
  ITEM_TIMEOUT_FAILURE,
  SA_BATCH_STATUS,
  SA_ENGINE,
  SA_ITEM_COUNT,
  SA_ORG_ID,
  itemTimeoutText,
  type BatchItemActivityInput,
  type BatchItemOutcome,
  type BatchWorkflowInput,
} from '../../core/batch.js';
import { batchWorkflow, progressQuery } from '../../workflows/batch.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';

const TASK_QUEUE = 'workflow-tier-batch';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// What the scripted item activity saw: attempts per item, items in flight at once.
const attempts = new Map<string, number>();
let inFlight = 0;
let maxInFlight = 0;
const completions: Array<{ job_id: string; outcomes: BatchItemOutcome[] }> = [];

/** The per-item activity (logic items; math items go in chunks, proven black-box in test/http/batch*.test.ts), scripted by the query: ok-*, timeout-*, flaky-* (fails once), broken-*. */
async function verifyLogicBatchItemActivity(req: BatchItemActivityInput) {
  const key = `${req.job_id}/${req.index}`;
  attempts.set(key, (attempts.get(key) ?? 0) + 1);
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  try {
    await sleep(40);
    if (req.query.startsWith('timeout-')) throw ApplicationFailure.nonRetryable(itemTimeoutText(req.timeout_ms), ITEM_TIMEOUT_FAILURE, req.timeout_ms + 7);
    if (req.query.startsWith('flaky-') && Context.current().info.attempt === 1) throw new Error('store unavailable');
    if (req.query.startsWith('broken-')) throw new Error('store unavailable');
    return { result: { status: 'VERIFIED', query: req.query }, latency_ms: 5 };
  } finally {
    inFlight--;
  }
}

async function completeBatchJobActivity(req: { job_id: string; outcomes: BatchItemOutcome[] }) {
  completions.push({ job_id: req.job_id, outcomes: req.outcomes });
  return { completed_at: '2026-01-01T00:00:00.000Z' };
}

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: path.join(ROOT, '.tools', 'bin', 'temporal') },
      searchAttributes: [SA_ORG_ID, SA_ENGINE, SA_ITEM_COUNT, SA_BATCH_STATUS],
    },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    // The same prebuilt bundle the stack's workers load (built here if the sources changed).
    workflowBundle: await workflowBundle(),
    activities: { verifyLogicBatchItemActivity, completeBatchJobActivity },
  });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
});

function input(jobId: string, queries: string[], concurrency: number): BatchWorkflowInput {
  return {
    job_id: jobId,
    org_id: 'org_workflow_tier',
    created_at: '2026-01-01T00:00:00.000Z',
    items: queries.map((query) => ({ query, type: 'logic' as const, params: {} })),
    item_timeout_ms: 3000,
    concurrency,
    activity_mode: 'normal',
    audit: null,
  };
}

async function run(jobId: string, queries: string[], concurrency: number) {
  const handle = await env.client.workflow.start(batchWorkflow, { args: [input(jobId, queries, concurrency)], taskQueue: TASK_QUEUE, workflowId: `batch-wf-${jobId}` });
  const result = await handle.result();
  const view = await handle.query(progressQuery);
  return { result, view };
}

describe('batchWorkflow (workflow tier)', () => {
  it('runs at most `concurrency` items at once and records every item exactly once, in index order', async () => {
    maxInFlight = 0;
    const queries = Array.from({ length: 12 }, (_, i) => `ok-${i}`);
    const { result, view } = await run('bj_order', queries, 3);
    expect(maxInFlight).toBe(3);
    expect(result).toEqual({ job_id: 'bj_order', status: 'completed', total_items: 12, completed_items: 12, failed_items: 0 });
    expect(view.items.map((i) => i.id)).toEqual(queries.map((_, i) => `bj_order-${i}`));
    expect(view.items.map((i) => (i.result as { query: string }).query)).toEqual(queries);
    expect(view).toMatchObject({ status: 'completed', progress_percent: 100, completed_at: '2026-01-01T00:00:00.000Z', workflow_id: 'batch-wf-bj_order' });
    for (let i = 0; i < 12; i++) expect(attempts.get(`bj_order/${i}`)).toBe(1);
    const stored = completions.find((c) => c.job_id === 'bj_order')!;
    expect(stored.outcomes.map((o) => o.index).sort((a, b) => a - b)).toEqual(queries.map((_, i) => i));
  });

  it('an item past its time-out is failed with its message and run time, never retried; the job goes on', async () => {
    const { result, view } = await run('bj_timeout', ['ok-a', 'timeout-b', 'ok-c'], 2);
    expect(result).toMatchObject({ total_items: 3, completed_items: 2, failed_items: 1 });
    expect(view.items[1]).toEqual({ id: 'bj_timeout-1', query: 'timeout-b', type: 'logic', status: 'failed', error: itemTimeoutText(3000), latency_ms: 3007 });
    expect(attempts.get('bj_timeout/1')).toBe(1);
    expect(view.items[0]!.status).toBe('completed');
    expect(view.items[2]!.status).toBe('completed');
  });

  it('retries an infrastructure failure; an item failing on every attempt is failed with its reason', async () => {
    const { result, view } = await run('bj_retry', ['flaky-a', 'broken-b', 'ok-c'], 3);
    expect(result).toMatchObject({ total_items: 3, completed_items: 2, failed_items: 1 });
    expect(attempts.get('bj_retry/0')).toBe(2);
    expect(view.items[0]).toMatchObject({ status: 'completed', result: { status: 'VERIFIED', query: 'flaky-a' } });
    // Four attempts (the item retry policy), then a failure in words, without a stack trace.
    expect(attempts.get('bj_retry/1')).toBe(4);
    expect(view.items[1]).toEqual({ id: 'bj_retry-1', query: 'broken-b', type: 'logic', status: 'failed', error: 'Item failed: store unavailable', latency_ms: 0 });
    expect(attempts.get('bj_retry/2')).toBe(1);
  });
});
