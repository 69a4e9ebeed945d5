// Workflow tier harness for session 21's replay race (docs/workflows.md, "Session 21: a patch
// decided after the input check"): a query that rides a run's first workflow task and is answered
// while the input check's local activity resolves makes the Temporal core complete that task with
// the local activity's marker but without what the workflow did with its result (it has not seen it
// yet). The workflow's next commands land in the next task; a replay then resolves the local
// activity one task earlier than the original run saw it.
//
// Deterministic here: the run starts on a task queue no worker polls yet, so the query waits on the
// server and is handed to the worker with the first task; the worker's payload codec holds that
// query's activation (its argument is a marker string) until the check has returned and a margin
// has passed, so the check's result reaches the core while the query is out. Nothing is timed:
// the margin only lets the core take in a result it already has.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { ROOT } from '../../infra/stack.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { workflowInputAuthClientInterceptor } from '../../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../../activities/input-auth.js';
import { AUTHENTICATE_INPUT_ACTIVITY, type AuthenticateInputRequest } from '../../core/workflow-input-auth-types.js';
import { SA_BATCH_STATUS, SA_ENGINE, SA_ITEM_COUNT, SA_ORG_ID, type BatchWorkflowInput } from '../../core/batch.js';
import type { ApprovalWorkflowInput, FinalizedApproval } from '../../core/approval-workflow.js';

const EventType = proto.temporal.api.enums.v1.EventType;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The query argument that makes the codec hold the query's activation. */
const HOLD = 'svc-hold-query-until-check-returned';
/** After the check returned: time for the core to take its result in (it has it already). */
const MARGIN_MS = 750;

/** Per workflow id: resolved once its input check has returned. */
const checked = new Map<string, { promise: Promise<void>; resolve: () => void }>();
function checkedOf(workflowId: string) {
  let e = checked.get(workflowId);
  if (!e) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    e = { promise, resolve };
    checked.set(workflowId, e);
  }
  return e;
}

/** Holds a query activation whose argument is HOLD_<workflowId> until that run's check returned. */
const holdingCodec: PayloadCodec = {
  async encode(p: Payload[]) {
    return p;
  },
  async decode(p: Payload[]) {
    for (const x of p) {
      const text = x.data ? Buffer.from(x.data).toString('utf8') : '';
      const m = /^"svc-hold-query-until-check-returned:(.+)"$/.exec(text);
      if (m) {
        await checkedOf(m[1]!).promise;
        await sleep(MARGIN_MS);
      }
    }
    return p;
  },
};

export interface RaceTier {
  env: TestWorkflowEnvironment;
  client: Client;
  /** Starts a worker on `taskQueue`; runs started there before it waited on the server. */
  startWorker(taskQueue: string): Promise<{ stop(): Promise<void> }>;
  stop(): Promise<void>;
}

/** Scripted activities of batchWorkflow's item path and approvalWorkflow (no store, no engine). */
const scripted = {
  async verifyLogicBatchItemActivity(req: { query: string }) {
    return { result: { status: 'VERIFIED', query: req.query }, latency_ms: 5 };
  },
  async mathBatchUnitActivity(req: { items: Array<{ index: number }> }) {
    return req.items.map((it) => ({ index: it.index, status: 'completed' as const }));
  },
  async finishBatchJobActivity(req: { completed_items: number; failed_items: number }) {
    return {
      stored: true,
      audited: true,
      completed_at: '2026-01-01T00:00:00.000Z',
      completed_items: req.completed_items,
      failed_items: req.failed_items,
    };
  },
  /** The legacy path's last step (jobs started before result documents; fixture `legacy-*`). */
  async completeBatchJobActivity() {
    return { stored: true, audited: true, completed_at: '2026-01-01T00:00:00.000Z' };
  },
  async settleApprovalActivity(): Promise<FinalizedApproval> {
    return {
      state: 'expired',
      decision: {
        decision: 'deny',
        reason: 'time-out',
        decided_by: null,
        decided_by_key_id: null,
      } as FinalizedApproval['decision'],
      attestation_id: null,
      claim: 'tool call',
      request_digest: `sha256:${'0'.repeat(64)}`,
    };
  },
  async appendAuditActivity() {
    return { log_id: 'log_1' };
  },
  async recordApprovalActivity() {
    return undefined;
  },
};

/** `bundle`: another workflow bundle than this checkout's (recording histories of older code). */
export async function startRaceTier(bundle?: { codePath: string }): Promise<RaceTier> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: path.join(ROOT, '.tools', 'bin', 'temporal') },
      searchAttributes: [SA_ORG_ID, SA_ENGINE, SA_ITEM_COUNT, SA_BATCH_STATUS],
    },
  });
  const key = randomBytes(32).toString('hex');
  const auth = makeAuthenticateInputActivity(key)[AUTHENTICATE_INPUT_ACTIVITY];
  const client = new Client({
    connection: env.connection,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(key)] },
  });
  const workers: Array<{ stop(): Promise<void> }> = [];
  return {
    env,
    client,
    async startWorker(taskQueue: string) {
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle ?? (await workflowBundle()),
        dataConverter: { payloadCodecs: [holdingCodec] },
        activities: {
          ...scripted,
          async [AUTHENTICATE_INPUT_ACTIVITY](req: AuthenticateInputRequest) {
            const r = await auth(req);
            const id = Context.current().info.workflowExecution?.workflowId ?? '';
            // Released after this attempt's result is on its way to the core.
            setImmediate(() => checkedOf(id).resolve());
            return r;
          },
        },
        interceptors: { activity: [activityGrantInterceptor(key)] },
      });
      const running = worker.run();
      let stopped: Promise<void> | null = null;
      const handle = {
        stop() {
          if (!stopped) {
            worker.shutdown();
            stopped = running.catch(() => undefined);
          }
          return stopped;
        },
      };
      workers.push(handle);
      return handle;
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await env.teardown();
    },
  };
}

/** A batch job on the item path (no `one_step_job`: as the workflow tier's rows and APIs before session 13 start it). */
export function batchInput(jobId: string): BatchWorkflowInput {
  return {
    job_id: jobId,
    org_id: 'org_replay',
    created_at: '2026-01-01T00:00:00.000Z',
    items: [
      { query: 'ok-0', type: 'logic', params: {} },
      { query: 'ok-1', type: 'logic', params: {} },
    ],
    item_timeout_ms: 3000,
    concurrency: 2,
    activity_mode: 'normal',
    unit_mode: 'normal',
    audit: null,
  } as BatchWorkflowInput;
}

export function approvalInput(n: number): ApprovalWorkflowInput {
  return {
    org_id: 'org_replay',
    agent_id: 'agt_replay',
    agent_num: 1,
    approval_id: `apr_${n}`,
    seq: n,
    action_id: `act_${n}`,
    tool: 'send_email',
    timeout_ms: 300,
    outcome_timeout_ms: 300,
  };
}

/**
 * Starts `workflowType` with `input` and, before any worker polls, a query that rides its first
 * task (held until the input check returned); then starts the worker and waits for the result.
 * Returns the query's outcome (a first task's query finds no handler yet) and the history.
 */
export async function raceRun(
  tier: RaceTier,
  workflowType: 'batchWorkflow' | 'approvalWorkflow',
  workflowId: string,
  input: unknown,
  queryType: string,
) {
  // A task queue of its own: no worker polls it until the query is with the server.
  const taskQueue = `race-${workflowId}`;
  const handle = await tier.client.workflow.start(workflowType, { args: [input], taskQueue, workflowId });
  const query = handle.query<unknown, [string]>(queryType, `${HOLD}:${workflowId}`).then(
    () => 'answered',
    (e: Error) => `failed: ${e.message}`,
  );
  // The query reaches the server before any worker polls (it then rides the first task).
  await sleep(1500);
  const worker = await tier.startWorker(taskQueue);
  try {
    const queried = await query;
    const result = await handle.result();
    return { queried, result, history: await handle.fetchHistory() };
  } finally {
    await worker.stop();
  }
}

/** Runs `workflowType` with `input` on a worker of its own, no query: its history. */
export async function plainRun(
  tier: RaceTier,
  workflowType: 'batchWorkflow' | 'approvalWorkflow',
  workflowId: string,
  input: unknown,
) {
  const taskQueue = `plain-${workflowId}`;
  const worker = await tier.startWorker(taskQueue);
  try {
    const handle = await tier.client.workflow.start(workflowType, { args: [input], taskQueue, workflowId });
    await handle.result();
    return await handle.fetchHistory();
  } finally {
    await worker.stop();
  }
}

/** The events each completed workflow task's commands wrote, in order (patch markers by id). */
export function commandsByTask(history: temporal.api.history.v1.IHistory): string[][] {
  const commandEvents = new Set([
    'MARKER_RECORDED',
    'ACTIVITY_TASK_SCHEDULED',
    'TIMER_STARTED',
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    'WORKFLOW_EXECUTION_COMPLETED',
    'WORKFLOW_EXECUTION_FAILED',
  ]);
  const tasks: string[][] = [];
  let current: string[] | null = null;
  for (const e of history.events ?? []) {
    const type = (EventType[e.eventType as number] as string).replace('EVENT_TYPE_', '');
    if (type === 'WORKFLOW_TASK_COMPLETED') tasks.push((current = []));
    else if (!current || !commandEvents.has(type)) current = null;
    else {
      const a = e.markerRecordedEventAttributes;
      current.push(
        a ? (a.markerName === 'core_patch' ? `patch:${patchId(a.details?.['patch-data'])}` : a.markerName!) : type,
      );
    }
  }
  return tasks;
}

function patchId(p: temporal.api.common.v1.IPayloads | null | undefined): string {
  const data = p?.payloads?.[0]?.data;
  if (!data) return '?';
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string }).id ?? '?';
  } catch {
    return '?';
  }
}

/** A history as a fixture's JSON (protobuf object form, bytes in base64). */
export function historyToFixture(history: temporal.api.history.v1.IHistory): string {
  const History = proto.temporal.api.history.v1.History;
  return `${JSON.stringify(History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String }))}\n`;
}

/** The history a fixture holds. */
export function historyFromFixture(text: string): temporal.api.history.v1.History {
  return proto.temporal.api.history.v1.History.fromObject(JSON.parse(text));
}
