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
  type BatchItemSummary,
  type BatchMathJobInput,
  type BatchMathJobResult,
  type BatchMathUnitInput,
  type BatchWorkflowInput,
  type FinishBatchJobInput,
} from '../../core/batch.js';
import { batchWorkflow, progressQuery } from '../../workflows/batch.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { Client, QueryNotRegisteredError, WorkflowFailedError } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import {
  WORKFLOW_INPUT_REFUSED,
  signWorkflowInput,
  workflowInputAuthClientInterceptor,
  INPUT_AUTH_HEADER,
} from '../../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../../activities/input-auth.js';
import { defaultPayloadConverter } from '@temporalio/common';

const TASK_QUEUE = 'workflow-tier-batch';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// What the scripted item activity saw: attempts per item, items in flight at once.
const attempts = new Map<string, number>();
let inFlight = 0;
let maxInFlight = 0;
const completions: Array<{ job_id: string; outcomes: BatchItemOutcome[]; finish: FinishBatchJobInput }> = [];
/** Math units the scripted unit activity "stored" (job/unit → its indices), and its attempts. */
const storedUnits = new Map<string, number[]>();
const unitAttempts = new Map<string, number>();
/** The input each unit's last attempt received (job/unit → input). */
const unitInputs = new Map<string, BatchMathUnitInput>();

/** The per-item activity (logic items; math items go in chunks, proven black-box in test/http/batch*.test.ts), scripted by the query: ok-*, slow-* (3 s), timeout-*, flaky-* (fails once), broken-*. */
async function verifyLogicBatchItemActivity(req: BatchItemActivityInput) {
  const key = `${req.job_id}/${req.index}`;
  attempts.set(key, (attempts.get(key) ?? 0) + 1);
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  try {
    await sleep(req.query.startsWith('slow-') ? 3000 : 40);
    if (req.query.startsWith('timeout-'))
      throw ApplicationFailure.nonRetryable(itemTimeoutText(req.timeout_ms), ITEM_TIMEOUT_FAILURE, req.timeout_ms + 7);
    if (req.query.startsWith('flaky-') && Context.current().info.attempt === 1) throw new Error('store unavailable');
    if (req.query.startsWith('broken-')) throw new Error('store unavailable');
    return { result: { status: 'VERIFIED', query: req.query }, latency_ms: 5 };
  } finally {
    inFlight--;
  }
}

/**
 * The math unit activity, scripted: stores its unit (here: remembers it) and answers a summary,
 * never a result. Queries: math-ok-* (completed), math-bare-* (completed), math-broken-* (the
 * whole unit fails on every attempt), math-flaky-* (the unit fails once).
 */
async function mathBatchUnitActivity(req: BatchMathUnitInput): Promise<BatchItemSummary[]> {
  const key = `${req.job_id}#${req.unit}`;
  unitAttempts.set(key, (unitAttempts.get(key) ?? 0) + 1);
  unitInputs.set(key, req);
  await sleep(20);
  if (req.items.some((it) => it.query.startsWith('math-broken-'))) throw new Error('store unavailable');
  if (req.items.some((it) => it.query.startsWith('math-flaky-')) && Context.current().info.attempt === 1)
    throw new Error('store unavailable');
  storedUnits.set(
    key,
    req.items.map((it) => it.index),
  );
  return req.items.map((it) => ({ index: it.index, status: 'completed' as const }));
}

/** What the scripted one-step job activity saw (session 13): its inputs by job, and its attempts. */
const jobRuns = new Map<string, BatchMathJobInput[]>();

/**
 * The one-step job activity (`one_step_job`), scripted: math-ok-* complete the job here (a
 * completion like the finish step's), math-nocomplete-* store the unit but leave the completion
 * to the finish step (finished: null), math-broken-* fail on every attempt.
 */
async function mathBatchJobActivity(req: BatchMathJobInput): Promise<BatchMathJobResult> {
  jobRuns.set(req.job_id, [...(jobRuns.get(req.job_id) ?? []), req]);
  await sleep(20);
  if (req.items.some((it) => it.query.startsWith('math-broken-'))) throw new Error('store unavailable');
  const summaries = req.items.map((it) => ({ index: it.index, status: 'completed' as const }));
  if (req.items.some((it) => it.query.startsWith('math-nocomplete-'))) return { summaries, finished: null };
  return {
    summaries,
    finished: {
      stored: true,
      audited: true,
      completed_at: '2026-02-02T00:00:00.000Z',
      completed_items: summaries.length,
      failed_items: 0,
    },
  };
}

async function finishBatchJobActivity(req: FinishBatchJobInput) {
  completions.push({
    job_id: req.job_id,
    outcomes: req.held.flatMap((u) => u.items.map((it) => it.outcome)),
    finish: req,
  });
  return {
    stored: true,
    audited: true,
    completed_at: '2026-01-01T00:00:00.000Z',
    completed_items: req.completed_items,
    failed_items: req.failed_items,
  };
}

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
/** The workflow input key of this tier's worker, and a client that signs with it (as the API's does). */
const INPUT_KEY = randomBytes(32).toString('hex');
let client: Client;

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
    // The bundle checks every workflow's input first (core/workflow-input-auth.ts).
    activities: {
      ...makeAuthenticateInputActivity(INPUT_KEY),
      verifyLogicBatchItemActivity,
      mathBatchUnitActivity,
      mathBatchJobActivity,
      finishBatchJobActivity,
    },
    interceptors: { activity: [activityGrantInterceptor(INPUT_KEY)] },
  });
  running = worker.run();
  client = new Client({
    connection: env.connection,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(INPUT_KEY)] },
  });
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
});

function input(
  jobId: string,
  queries: string[],
  concurrency: number,
  unitMode: 'normal' | 'local' = 'normal',
): BatchWorkflowInput {
  return {
    job_id: jobId,
    org_id: 'org_workflow_tier',
    created_at: '2026-01-01T00:00:00.000Z',
    items: queries.map((query) => ({
      query,
      type: query.startsWith('math-') ? ('math' as const) : ('logic' as const),
      params: {},
    })),
    item_timeout_ms: 3000,
    concurrency,
    activity_mode: 'normal',
    unit_mode: unitMode,
    audit: null,
  };
}

async function run(jobId: string, queries: string[], concurrency: number, unitMode: 'normal' | 'local' = 'normal') {
  const handle = await client.workflow.start(batchWorkflow, {
    args: [input(jobId, queries, concurrency, unitMode)],
    taskQueue: TASK_QUEUE,
    workflowId: `batch-wf-${jobId}`,
  });
  const result = await handle.result();
  const view = await handle.query(progressQuery);
  return { result, view };
}

describe('batchWorkflow (workflow tier)', () => {
  it("a running job's snapshot counts a held verdict but shows it only after the finish step audited it", async () => {
    const handle = await client.workflow.start(batchWorkflow, {
      args: [input('bj_held_view', ['ok-0', 'slow-1'], 2)],
      taskQueue: TASK_QUEUE,
      workflowId: 'batch-wf-bj_held_view',
    });
    // A query before the workflow's first task has run finds no handler yet (a loaded machine: the
    // clean clone's run 2 of session 17): asked again until the workflow answers.
    let view = await (async () => {
      for (let i = 0; ; i++) {
        try {
          return await handle.query(progressQuery);
        } catch (err) {
          if (!(err instanceof QueryNotRegisteredError) || i >= 100) throw err;
          await sleep(50);
        }
      }
    })();
    // ok-0 is done (40 ms) while slow-1 runs (3 s): counted, its verdict not shown yet.
    for (let i = 0; i < 100 && view.completed_items < 1; i++) {
      await sleep(50);
      view = await handle.query(progressQuery);
    }
    expect(view).toMatchObject({ status: 'running', completed_items: 1, failed_items: 0 });
    expect(view.items).toEqual([]);
    expect(completions.some((c) => c.job_id === 'bj_held_view')).toBe(false);
    await handle.result();
    view = await handle.query(progressQuery);
    expect(view.status).toBe('completed');
    expect(view.items.map((i) => (i.result as { query: string }).query)).toEqual(['ok-0', 'slow-1']);
  });

  it('runs at most `concurrency` items at once and records every item exactly once, in index order', async () => {
    maxInFlight = 0;
    const queries = Array.from({ length: 12 }, (_, i) => `ok-${i}`);
    const { result, view } = await run('bj_order', queries, 3);
    expect(maxInFlight).toBe(3);
    expect(result).toEqual({
      job_id: 'bj_order',
      status: 'completed',
      total_items: 12,
      completed_items: 12,
      failed_items: 0,
      completed_at: '2026-01-01T00:00:00.000Z',
    });
    expect(view.items.map((i) => i.id)).toEqual(queries.map((_, i) => `bj_order-${i}`));
    expect(view.items.map((i) => (i.result as { query: string }).query)).toEqual(queries);
    expect(view).toMatchObject({
      status: 'completed',
      progress_percent: 100,
      completed_at: '2026-01-01T00:00:00.000Z',
      workflow_id: 'batch-wf-bj_order',
    });
    for (let i = 0; i < 12; i++) expect(attempts.get(`bj_order/${i}`)).toBe(1);
    const stored = completions.find((c) => c.job_id === 'bj_order')!;
    expect(stored.outcomes.map((o) => o.index).sort((a, b) => a - b)).toEqual(queries.map((_, i) => i));
  });

  it('an item past its time-out is failed with its message and run time, never retried; the job goes on', async () => {
    const { result, view } = await run('bj_timeout', ['ok-a', 'timeout-b', 'ok-c'], 2);
    expect(result).toMatchObject({ total_items: 3, completed_items: 2, failed_items: 1 });
    expect(view.items[1]).toEqual({
      id: 'bj_timeout-1',
      query: 'timeout-b',
      type: 'logic',
      status: 'failed',
      error: itemTimeoutText(3000),
      latency_ms: 3007,
    });
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
    expect(view.items[1]).toEqual({
      id: 'bj_retry-1',
      query: 'broken-b',
      type: 'logic',
      status: 'failed',
      error: 'Item failed: store unavailable',
      latency_ms: 0,
    });
    expect(attempts.get('bj_retry/2')).toBe(1);
  });
});

describe('math units store their own results (issue 22)', () => {
  it('math items run in units; only summaries come back, the finish step gets the units count and the held items only', async () => {
    const queries = [...Array.from({ length: 60 }, (_, i) => `math-ok-${i}`), 'ok-logic-a', 'ok-logic-b'];
    const handle = await client.workflow.start(batchWorkflow, {
      args: [input('bj_units', queries, 4)],
      taskQueue: TASK_QUEUE,
      workflowId: 'batch-wf-bj_units',
    });
    const result = await handle.result();
    expect(result).toEqual({
      job_id: 'bj_units',
      status: 'completed',
      total_items: 62,
      completed_items: 62,
      failed_items: 0,
      completed_at: '2026-01-01T00:00:00.000Z',
    });
    // 60 math items in 3 units of 20 (core/batch.ts batchUnits: at most 25 each), then the two logic items: 5 units.
    const mine = [...storedUnits.entries()].filter(([k]) => k.startsWith('bj_units#'));
    expect(mine.map(([k]) => k).sort()).toEqual(['bj_units#0', 'bj_units#1', 'bj_units#2']);
    expect(mine.map(([, v]) => v.length)).toEqual([20, 20, 20]);
    expect(mine.flatMap(([, v]) => v).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const [k] of mine) expect(unitAttempts.get(k)).toBe(1);
    const fin = completions.find((c) => c.job_id === 'bj_units')!.finish;
    expect(fin).toMatchObject({ units: 5, total_items: 62, completed_items: 62, failed_items: 0 });
    expect(fin.held.map((u) => u.unit).sort()).toEqual([3, 4]);
    expect(fin.held.flatMap((u) => u.items.map((it) => it.outcome.index)).sort()).toEqual([60, 61]);
    // The snapshot: the held items with their results, the stored units by number.
    const view = await handle.query(progressQuery);
    expect(view.stored_units!.slice().sort()).toEqual([0, 1, 2]);
    expect(view.items.map((i) => i.id)).toEqual(['bj_units-60', 'bj_units-61']);
    expect(view).toMatchObject({ status: 'completed', total_items: 62, completed_items: 62, progress_percent: 100 });
    // No math result crossed the history: the units' completed results are summaries (index, status) only,
    // while the held logic items' results (the decoding works) do carry their verdicts.
    const history = await handle.fetchHistory();
    const results = (history.events ?? [])
      .map((e) => e.activityTaskCompletedEventAttributes?.result?.payloads?.[0])
      .filter((p): p is NonNullable<typeof p> => Boolean(p))
      .map((p) => defaultPayloadConverter.fromPayload(p as any) as unknown);
    const unitResults = results.filter((r): r is BatchItemSummary[] => Array.isArray(r));
    expect(unitResults).toHaveLength(3);
    for (const r of unitResults) for (const s of r) expect(Object.keys(s).sort()).toEqual(['index', 'status']);
    expect(results.filter((r) => JSON.stringify(r).includes('VERIFIED'))).toHaveLength(2);
  });

  it('as local activities (the default): a unit that fails for good is held, its items failed with the reason; a flaky unit is retried and stored once', async () => {
    const queries = Array.from({ length: 30 }, (_, i) =>
      i === 0 ? 'math-broken-0' : i === 15 ? 'math-flaky-15' : `math-ok-${i}`,
    );
    const { result, view } = await run('bj_unitfail', queries, 2, 'local');
    expect(result).toMatchObject({ total_items: 30, completed_items: 15, failed_items: 15 });
    expect(unitAttempts.get('bj_unitfail#0')).toBe(4);
    expect(unitAttempts.get('bj_unitfail#1')).toBe(2);
    expect(storedUnits.get('bj_unitfail#1')).toEqual(Array.from({ length: 15 }, (_, i) => 15 + i));
    expect(view.items).toEqual(
      Array.from({ length: 15 }, (_, i) => ({
        id: `bj_unitfail-${i}`,
        query: queries[i],
        type: 'math',
        status: 'failed',
        error: 'Item failed: store unavailable',
        latency_ms: 0,
      })),
    );
    expect(view.stored_units).toEqual([1]);
    const fin = completions.find((c) => c.job_id === 'bj_unitfail')!.finish;
    expect(fin.held).toHaveLength(1);
    expect(fin.held[0]!.unit).toBe(0);
    expect(fin.held[0]!.items.map((it) => it.outcome.index)).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });
});

describe('workflow input authentication (workflow tier; core/workflow-input-auth.ts)', () => {
  /** A client whose starts carry the header this interceptor writes (or none). */
  const clientWith = (header: ((type: string, id: string, args: unknown[]) => unknown) | null) =>
    new Client({
      connection: env.connection,
      interceptors: {
        workflow: [
          {
            async startWithDetails(input, next) {
              if (!header) return next(input);
              const value = header(input.workflowType, input.options.workflowId, input.options.args);
              return next({
                ...input,
                headers: { ...input.headers, [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(value) },
              });
            },
          },
        ],
      },
    });

  async function refused(c: Client, jobId: string, args = [input(jobId, ['ok-x'], 1)]) {
    const before = attempts.size;
    const handle = await c.workflow.start(batchWorkflow, {
      args: args as [BatchWorkflowInput],
      taskQueue: TASK_QUEUE,
      workflowId: `batch-wf-${jobId}`,
    });
    const err = await handle.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string; nonRetryable?: boolean };
    expect(cause.type).toBe(WORKFLOW_INPUT_REFUSED);
    expect(cause.nonRetryable).toBe(true);
    // Nothing ran: no item activity, no completion (the store write and the audit entries).
    expect(attempts.size).toBe(before);
    expect(completions.find((x) => x.job_id === jobId)).toBeUndefined();
    const desc = await handle.describe();
    expect(desc.status.name).toBe('FAILED');
    return cause.message as string;
  }

  it('a start without the header (an anonymous client) fails at once, before any activity', async () => {
    expect(await refused(clientWith(null), 'bj_anon')).toMatch(/no svc-input-auth header/);
  });

  it('a header under another key, for another workflow id, or over other arguments fails the same way', async () => {
    const otherKey = randomBytes(32).toString('hex');
    expect(
      await refused(
        clientWith((t, id, a) => signWorkflowInput(otherKey, t, id, a)),
        'bj_otherkey',
      ),
    ).toMatch(/does not authenticate/);
    expect(
      await refused(
        clientWith((t, _id, a) => signWorkflowInput(INPUT_KEY, t, 'batch-wf-someone-else', a)),
        'bj_otherid',
      ),
    ).toMatch(/does not authenticate/);
    const genuine = input('bj_swapped', ['ok-x'], 1);
    const forged = { ...genuine, org_id: 'org_victim' };
    expect(
      await refused(
        clientWith((t, id) => signWorkflowInput(INPUT_KEY, t, id, [genuine])),
        'bj_swapped',
        [forged],
      ),
    ).toMatch(/does not authenticate/);
    expect(
      await refused(
        clientWith((t, id, a) => signWorkflowInput(INPUT_KEY, t, id, a, Date.now() - 3_600_000)),
        'bj_stale',
      ),
    ).toMatch(/stale/);
    expect(
      await refused(
        clientWith(() => ({ v: 1, issued_at: 'soon', mac: 'zz' })),
        'bj_malformed',
      ),
    ).toMatch(/malformed/);
  });
});

describe('a job that is one local math unit runs as one activity (session 13, one_step_job)', () => {
  const oneStep = (jobId: string, queries: string[], over: Partial<BatchWorkflowInput> = {}): BatchWorkflowInput => ({
    ...input(jobId, queries, 8, 'local'),
    math_unit_max: 100,
    one_step_job: true,
    ...over,
  });
  /** The run's history in short: marker count, search attribute upserts, activity tasks. */
  const shape = async (workflowId: string) => {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    return {
      markers: events.filter((e) => e.markerRecordedEventAttributes).length,
      upserts: events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
      activityTasks: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    };
  };
  const start = (args: BatchWorkflowInput, c = client) =>
    c.workflow.start(batchWorkflow, { args: [args], taskQueue: TASK_QUEUE, workflowId: `batch-wf-${args.job_id}` });

  it('one local activity: no separate input check, no finish step, no patch marker; its completion is the result', async () => {
    const queries = Array.from({ length: 100 }, (_, i) => `math-ok-${i}`);
    const handle = await start(oneStep('bj_onestep', queries));
    expect(await handle.result()).toEqual({
      job_id: 'bj_onestep',
      status: 'completed',
      total_items: 100,
      completed_items: 100,
      failed_items: 0,
      completed_at: '2026-02-02T00:00:00.000Z',
    });
    const runs = jobRuns.get('bj_onestep')!;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ unit: 0, units: 1, job_entry: { total_items: 100 }, org_id: 'org_workflow_tier' });
    expect(runs[0]!.items.map((it) => it.index)).toEqual(queries.map((_, i) => i));
    expect(completions.find((c) => c.job_id === 'bj_onestep')).toBeUndefined();
    expect(storedUnits.has('bj_onestep#0')).toBe(false);
    // One marker (the job activity), one upsert (the status): before, two patch markers with their
    // upserts, the input check's marker, the unit's and the finish step's.
    expect(await shape('batch-wf-bj_onestep')).toEqual({ markers: 1, upserts: 1, activityTasks: 0 });
    const view = await handle.query(progressQuery);
    expect(view).toMatchObject({ status: 'completed', completed_items: 100, stored_units: [0] });
  });

  it('a unit that could not complete the job leaves it to the finish step (job entry already written); one that fails for good is held', async () => {
    const handle = await start(oneStep('bj_onestep_nc', ['math-nocomplete-0', 'math-ok-1']));
    expect(await handle.result()).toMatchObject({ completed_items: 2, completed_at: '2026-01-01T00:00:00.000Z' });
    expect(completions.find((c) => c.job_id === 'bj_onestep_nc')!.finish).toMatchObject({
      job_audited: true,
      held: [],
      completed_items: 2,
    });
    const broken = await start(oneStep('bj_onestep_broken', ['math-broken-0', 'math-ok-1']));
    expect(await broken.result()).toMatchObject({ completed_items: 0, failed_items: 2 });
    expect(jobRuns.get('bj_onestep_broken')).toHaveLength(4);
    const fin = completions.find((c) => c.job_id === 'bj_onestep_broken')!.finish;
    expect(fin.job_audited).toBeUndefined(); // the finish step writes the job entry
    expect(fin.held[0]!.items.map((it) => it.outcome.error)).toEqual([
      'Item failed: store unavailable',
      'Item failed: store unavailable',
    ]);
  });

  it('the flag on another shape (a logic item, normal units) keeps the separate check, the units and the finish step', async () => {
    for (const [jobId, args] of [
      ['bj_flag_logic', oneStep('bj_flag_logic', ['math-ok-0', 'ok-logic-1'])],
      ['bj_flag_normal', oneStep('bj_flag_normal', ['math-ok-0', 'math-ok-1'], { unit_mode: 'normal' })],
    ] as const) {
      const handle = await start(args);
      expect(await handle.result()).toMatchObject({ completed_items: 2, failed_items: 0 });
      expect(jobRuns.has(jobId)).toBe(false);
      expect(storedUnits.has(`${jobId}#0`)).toBe(true);
      expect(completions.find((c) => c.job_id === jobId)).toBeDefined();
      // The input check's marker is there (and the patch markers).
      expect((await shape(`batch-wf-${jobId}`)).markers).toBeGreaterThanOrEqual(2);
    }
  });

  it('a forged flag (added after signing) or another organization is refused by the activity itself: nothing runs', async () => {
    const signedWithout = (jobId: string, over: Partial<BatchWorkflowInput> = {}) =>
      new Client({
        connection: env.connection,
        interceptors: {
          workflow: [
            {
              async startWithDetails(i, next) {
                const { one_step_job: _f, ...genuine } = i.options.args[0] as BatchWorkflowInput;
                const value = signWorkflowInput(INPUT_KEY, i.workflowType, i.options.workflowId, [
                  { ...genuine, ...over },
                ]);
                return next({
                  ...i,
                  headers: { ...i.headers, [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(value) },
                });
              },
            },
          ],
        },
      });
    for (const [jobId, c] of [
      ['bj_forged_flag', signedWithout('bj_forged_flag')],
      ['bj_forged_org', signedWithout('bj_forged_org', { org_id: 'org_other' })],
    ] as const) {
      const handle = await start(oneStep(jobId, ['math-ok-0', 'math-ok-1']), c);
      const err = await handle.result().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string; nonRetryable?: boolean };
      expect(cause.type).toBe(WORKFLOW_INPUT_REFUSED);
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(/does not authenticate/);
      expect(jobRuns.has(jobId)).toBe(false);
      expect(completions.find((x) => x.job_id === jobId)).toBeUndefined();
    }
  });
});

describe('attestation records in the items’ audit entries (session 17, attestation_in_audit_entry)', () => {
  const start = (args: BatchWorkflowInput) =>
    client.workflow.start(batchWorkflow, {
      args: [args],
      taskQueue: TASK_QUEUE,
      workflowId: `batch-wf-${args.job_id}`,
    });
  const withFlag = (jobId: string, queries: string[], over: Partial<BatchWorkflowInput> = {}): BatchWorkflowInput => ({
    ...input(jobId, queries, 4),
    attestation_in_audit_entry: true,
    ...over,
  });

  it('the flag in the input reaches every math unit and the one-step job; a run without it passes none', async () => {
    const queries = Array.from({ length: 30 }, (_, i) => `math-ok-${i}`);
    expect(await (await start(withFlag('bj_s17_units', queries))).result()).toMatchObject({ completed_items: 30 });
    const units = [...unitInputs.entries()].filter(([k]) => k.startsWith('bj_s17_units#'));
    expect(units).toHaveLength(2);
    for (const [, req] of units) expect(req.attestation_in_entry).toBe(true);

    const oneStep = withFlag('bj_s17_onestep', queries, { unit_mode: 'local', math_unit_max: 100, one_step_job: true });
    expect(await (await start(oneStep)).result()).toMatchObject({ completed_items: 30 });
    expect(jobRuns.get('bj_s17_onestep')!.map((r) => r.attestation_in_entry)).toEqual([true]);

    // Without the flag (a run started before session 17, or replayed from its history): the old layout.
    expect(await (await start(input('bj_s17_none', queries, 4))).result()).toMatchObject({ completed_items: 30 });
    const none = [...unitInputs.entries()].filter(([k]) => k.startsWith('bj_s17_none#'));
    expect(none).toHaveLength(2);
    for (const [, req] of none) expect(req).not.toHaveProperty('attestation_in_entry');
  });
});

describe('time-ordered audit ids (session 23, time_ordered_ids)', () => {
  const run23 = async (args: BatchWorkflowInput) => {
    const id = `batch-wf-${args.job_id}`;
    await client.workflow.execute(batchWorkflow, { args: [args], taskQueue: TASK_QUEUE, workflowId: id });
    return id;
  };
  /** The run's start time as its history records it (what workflowInfo().startTime reads). */
  const startMs = async (id: string) => {
    const t = (await client.workflow.getHandle(id).fetchHistory()).events![0]!.eventTime!;
    return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
  };
  const replays = async (id: string) => {
    const history = await client.workflow.getHandle(id).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, id),
    ).resolves.toBeUndefined();
  };
  const flagged = (jobId: string, queries: string[], over: Partial<BatchWorkflowInput> = {}): BatchWorkflowInput => ({
    ...input(jobId, queries, 4),
    attestation_in_audit_entry: true,
    time_ordered_ids: true,
    ...over,
  });
  const math = (n: number) => Array.from({ length: n }, (_, i) => `math-ok-${i}`);

  it('math units (a retried one too) and the finish step get id_time_ms = the run’s start time; the history replays', async () => {
    const id = await run23(
      flagged('bj_s23_units', [...math(59), 'math-flaky-59', ...math(60), 'ok-0'], { math_unit_max: 60 }),
    );
    const start = await startMs(id);
    const units = [...unitInputs.entries()].filter(([k]) => k.startsWith('bj_s23_units#'));
    expect(units).toHaveLength(2);
    // One unit ran twice (its first attempt failed): its last attempt got the same time as the other unit.
    expect(units.reduce((sum, [k]) => sum + (unitAttempts.get(k) ?? 0), 0)).toBe(3);
    for (const [, req] of units) expect(req.id_time_ms).toBe(start);
    const finish = completions.filter((c) => c.job_id === 'bj_s23_units');
    expect(finish).toHaveLength(1);
    expect(finish[0]!.finish.id_time_ms).toBe(start);
    await replays(id);
  });

  it('a one-step job’s activity gets it too', async () => {
    const id = await run23(
      flagged('bj_s23_one', math(30), { unit_mode: 'local', math_unit_max: 100, one_step_job: true }),
    );
    expect(jobRuns.get('bj_s23_one')!.map((r) => r.id_time_ms)).toEqual([await startMs(id)]);
    await replays(id);
  });

  it('without the flag (an older API, a history written before): no input carries a time', async () => {
    const id = await run23(flagged('bj_s23_none', [...math(30), 'ok-1'], { time_ordered_ids: undefined }));
    const units = [...unitInputs.entries()].filter(([k]) => k.startsWith('bj_s23_none#'));
    expect(units.length).toBeGreaterThanOrEqual(1);
    for (const [, req] of units) expect(req).not.toHaveProperty('id_time_ms');
    expect(completions.find((c) => c.job_id === 'bj_s23_none')!.finish).not.toHaveProperty('id_time_ms');
    await replays(id);
  });
});
