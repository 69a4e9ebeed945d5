// The API's one runner: every workflow start and every wait for a result goes through
// TemporalGateway (verifications, agents, the A2A gateway, batches, leaked-key deliveries).
// Every way a run can fail (Temporal unreachable, no worker, deadline missed, activity failure)
// becomes a 503 with a clear detail, decided by one `isTimeout`: a request never gets a
// VERIFIED by default.
import { createHash, randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  WorkflowFailedError,
  type ConnectionLike,
  type Workflow,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { ENGINE_TIMEOUT_FAILURE } from '../core/failure-types.js';
import type { ServiceConfig } from '../core/config.js';
import { activityModeFor, EAGER_ENGINES, ENGINES, type AuditContext, type EngineName } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import type { ProviderWorkflowInput } from '../workflows/provider-verify.js';
import {
  verificationWorkflows,
  workflows,
  type StartableWorkflow,
  type VerificationWorkflow,
  type WorkflowResult,
} from './workflows.js';
import { HttpError } from './errors.js';
import { logger } from '../core/logger.js';
import { recordVerdict, recordWorkflowFailure } from './metrics.js';
import { temporalDataConverter } from '../core/payload-codec.js';
import { workflowInputAuthClientInterceptor, workflowInputKey } from '../core/workflow-input-auth.js';

const log = logger('temporal');

export const BACKEND_UNAVAILABLE = 'Verification backend unavailable — retry shortly.';
export const VERIFICATION_INCOMPLETE = 'Verification could not complete — retry shortly.';

/**
 * A run whose first workflow task no worker has taken after this long has no worker alive for
 * its task queue (issue 22): it is terminated and answered with its time-out 503 at once, not at
 * its whole deadline. A live worker takes a workflow task in milliseconds; even a worker whose
 * task slots are all busy (hundreds of concurrent verifications) frees one within a few seconds.
 * The activities' own schedule-to-start time-out is in workflows/policies.ts.
 */
export const NO_WORKER_AFTER_MS = 7_000;

/** How one run is waited for: its whole deadline, the 503 detail when it is missed, what to count. */
export interface WaitOptions {
  workflowId: string;
  /** The wait ends 1 s after this (the workflow's own execution time-out ends it first). */
  deadlineMs: number;
  timeoutDetail: string;
  /** The connection the run was started through (an eager start's). */
  connection?: EagerStart['connection'];
  /** The engine, for the metrics of verification runs. */
  engine?: EngineName;
}

export interface RunWorkflowOptions {
  workflowId: string;
  /** Whole-run budget (queueing, activities, audit) in ms: the execution time-out. */
  timeoutMs: number;
  timeoutDetail: string;
  taskQueue?: string;
}

export interface RunOptions<E extends EngineName = EngineName> {
  orgId: string | null;
  /** Overrides the engine's deadline from the registry (core/engines.ts), e.g. logic from natural language. */
  timeoutMs?: number;
  /** Overrides the registry's 503 detail when the deadline is missed. */
  timeoutDetail?: string;
  /** The authenticated caller (user and key), recorded in the organization's audit entry. */
  principal?: { userId: string | null; keyId: string | null };
  /** Another workflow than the engine's (api/workflows.ts), e.g. `workflows.providerVerifyWorkflow` for logic from natural language. */
  workflow?: VerificationWorkflow<E>;
}

/** `sha256:<hex>` of the validated request as JSON: binds the audit entry to the exact request. */
export function requestDigest(input: unknown): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(input ?? null), 'utf8')
    .digest('hex')}`;
}

type StartOptions<A extends unknown[]> = Omit<WorkflowStartOptions, 'args' | 'taskQueue' | 'workflowId'> & {
  workflowId: string;
  args: A;
  taskQueue?: string;
};

interface StartFailure {
  /** The 503 detail (default: the backend-unavailable detail). */
  detail?: string;
  headers?: Record<string, string>;
  /** Errors the caller handles itself (e.g. a redelivery's already-started workflow). */
  passThrough?: Array<new (...args: never[]) => Error>;
  /** How long the start may take (default 3 s). */
  startDeadlineMs?: number;
  via?: { client: Client; connection: EagerStart['connection'] };
}

export interface RunResult<T> {
  result: T;
  workflowId: string;
}

/**
 * The connection an in-process worker shares (workers/api-process.ts): a start through it can be
 * answered with the workflow's first task inline (eager start), saving the server's matching
 * round trip; with local activities the whole verification completes in that one task.
 */
export interface EagerStart {
  connection: ConnectionLike & { withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> };
  /** The task queue the in-process worker polls (the standalone workers poll it too). */
  taskQueue: string;
}

export class TemporalGateway {
  readonly client: Client;
  private eager: { client: Client; connection: EagerStart['connection']; taskQueue: string } | null = null;
  /** Signs every workflow input this gateway starts (core/workflow-input-auth.ts): the workers run nothing else. */
  private readonly inputAuth: ReturnType<typeof workflowInputAuthClientInterceptor>;

  constructor(
    readonly connection: Connection,
    private readonly cfg: ServiceConfig,
  ) {
    // Refuses to start without the workflow input key (ConfigError), as without a payload key.
    this.inputAuth = workflowInputAuthClientInterceptor(workflowInputKey(cfg));
    // Every payload is encrypted before it reaches Temporal (docs/payload-encryption.md).
    this.client = new Client({
      connection,
      namespace: cfg.TEMPORAL_NAMESPACE,
      dataConverter: temporalDataConverter(cfg),
      interceptors: { workflow: [this.inputAuth] },
    });
  }

  /** Routes the eager-capable engines (core/engines.ts EAGER_ENGINES) through an in-process worker; null stops it. */
  useEagerStart(e: EagerStart | null): void {
    this.eager = e && {
      client: new Client({
        connection: e.connection,
        namespace: this.cfg.TEMPORAL_NAMESPACE,
        dataConverter: temporalDataConverter(this.cfg),
        interceptors: { workflow: [this.inputAuth] },
      }),
      connection: e.connection,
      taskQueue: e.taskQueue,
    };
  }

  /**
   * The in-process worker's start route while it runs (null otherwise), for a start the caller
   * routes itself: a one-step batch job (api/batch-jobs.ts, session 14) starts eagerly through it.
   */
  eagerRoute(): { client: Client; connection: EagerStart['connection']; taskQueue: string } | null {
    return this.eager;
  }

  static create(cfg: ServiceConfig): TemporalGateway {
    // Lazy: the API starts (and answers 503 on verification routes) even while Temporal is down.
    const connection = Connection.lazy({ address: cfg.TEMPORAL_ADDRESS, connectTimeout: 2000 });
    return new TemporalGateway(connection, cfg);
  }

  workflowId(engine: string, orgId: string | null): string {
    return `verify-${engine}-${orgId ?? 'anonymous'}-${randomUUID()}`;
  }

  /**
   * Starts a workflow by reference (`workflows.approvalWorkflow`, api/workflows.ts: arguments and
   * handle typed by the workflow function) under a 3 s start deadline. Temporal unreachable or
   * refusing: a 503 with `detail` and X-Workflow-Id. Every start of the API goes through here.
   */
  async startWorkflow<W extends StartableWorkflow>(
    workflow: W,
    options: StartOptions<Parameters<W>>,
    failure: StartFailure = {},
  ): Promise<WorkflowHandle<W>> {
    return this.start(workflow, options, failure);
  }

  /** The start itself: the client takes the workflow type from the function's name, as in `client.workflow.start(order, …)`. */
  private async start<W extends Workflow>(
    workflow: W,
    options: StartOptions<Parameters<W>>,
    failure: StartFailure,
  ): Promise<WorkflowHandle<W>> {
    const client = failure.via?.client ?? this.client;
    const connection = failure.via?.connection ?? this.connection;
    const startOptions: WorkflowStartOptions = { taskQueue: this.cfg.SVC_TASK_QUEUE, ...options };
    try {
      // The arguments are typed by StartOptions<Parameters<W>>; the handle by W (the client's
      // conditional options type cannot be resolved for a generic W).
      const handle = await connection.withDeadline(Date.now() + (failure.startDeadlineMs ?? 3000), () =>
        client.workflow.start(workflow as Workflow, startOptions),
      );
      return handle as WorkflowHandle<W>;
    } catch (err) {
      if (failure.passThrough?.some((type) => err instanceof type)) throw err;
      log.warn('workflow start failed', {
        workflow_type: workflow.name,
        workflow_id: options.workflowId,
        error: errorName(err),
      });
      throw new HttpError(503, failure.detail ?? BACKEND_UNAVAILABLE, {
        'X-Workflow-Id': options.workflowId,
        ...failure.headers,
      });
    }
  }

  /**
   * One verification of an engine: its workflow (from the registry, core/engines.ts) started,
   * its result awaited under the engine's deadline plus grace, every failure a 503.
   */
  async runVerification<E extends EngineName>(
    engine: E,
    input: EngineInput<E>,
    opts: RunOptions<E>,
    workflowId = this.workflowId(engine, opts.orgId),
  ): Promise<RunResult<EngineResult<E>>> {
    const spec = ENGINES[engine];
    const timeoutMs = opts.timeoutMs ?? spec.deadlineMs(this.cfg, input);
    const timeoutDetail = opts.timeoutDetail ?? spec.timeoutDetail;
    // The engine's workflow by reference (api/workflows.ts), typed by the engine's input and result.
    const workflow = opts.workflow ?? verificationWorkflows[engine];
    const args: ProviderWorkflowInput<E> = {
      engine,
      input,
      org_id: opts.orgId,
      timeout_ms: timeoutMs,
      provider_timeout_ms: this.cfg.SVC_PROVIDER_TIMEOUT * 1000,
      activity_mode: activityModeFor(engine, this.cfg.SVC_ACTIVITY_MODE),
      audit: {
        user_id: opts.principal?.userId ?? null,
        key_id: opts.principal?.keyId ?? null,
        request_digest: requestDigest(input),
      } satisfies AuditContext,
      // The engines that can append their own audit entry do (workflows/verify.ts): one local activity fewer.
      audit_in_engine_activity: true,
      // ...and stores the attestation record in that entry: one insert fewer (persistence/proofs.ts).
      attestation_in_audit_entry: true,
      // verifyWorkflow runs in local mode have their input checked by their activities (workflows/input-auth.ts).
      input_auth_in_engine_activity: true,
      // ...and every run it starts is checked: no patch marker to tell it from an older run (workflows/input-auth.ts).
      input_auth_no_patch_marker: true,
      // Audit entry and attestation ids start with the run's start time (session 23, core/time-ordered-id.ts);
      // SVC_AUDIT_TIME_ORDERED_IDS=0 leaves them out during a rolling deploy (docs/store-access.md §17).
      ...(this.cfg.SVC_AUDIT_TIME_ORDERED_IDS ? { time_ordered_ids: true } : {}),
    };
    const graceMs = this.cfg.SVC_WORKFLOW_GRACE * 1000;
    // Eager start only for verifyWorkflow runs whose activities are all local: the in-process
    // worker then completes the verification in the first workflow task (docs/performance.md).
    const eager =
      this.eager && workflow === workflows.verifyWorkflow && args.activity_mode === 'local' && EAGER_ENGINES.has(engine)
        ? this.eager
        : null;
    const connection = eager?.connection ?? this.connection;
    let handle;
    try {
      handle = await this.start(
        workflow,
        {
          ...(eager ? { taskQueue: eager.taskQueue } : {}),
          workflowId,
          args: [args],
          // The whole run, queueing included, must finish within the engine budget plus grace.
          workflowExecutionTimeout: timeoutMs + graceMs,
          requestEagerStart: eager !== null,
        },
        { via: eager ?? undefined },
      );
    } catch (err) {
      recordWorkflowFailure(engine, 'unavailable');
      throw err;
    }
    const result = await this.waitForResult(handle, {
      workflowId,
      deadlineMs: timeoutMs + graceMs,
      timeoutDetail,
      connection,
      engine,
    });
    recordVerdict(engine, result);
    return { result, workflowId };
  }

  /**
   * Any other workflow the API waits for (agents, the A2A gateway): started by reference, its
   * result awaited under `timeoutMs`, every failure a 503 as for verifications.
   */
  async runWorkflow<W extends StartableWorkflow>(
    workflow: W,
    args: Parameters<W>,
    opts: RunWorkflowOptions,
  ): Promise<WorkflowResult<W>> {
    const handle = await this.startWorkflow(workflow, {
      ...(opts.taskQueue ? { taskQueue: opts.taskQueue } : {}),
      workflowId: opts.workflowId,
      args,
      workflowExecutionTimeout: opts.timeoutMs,
    });
    return this.waitForResult(handle, {
      workflowId: opts.workflowId,
      deadlineMs: opts.timeoutMs,
      timeoutDetail: opts.timeoutDetail,
    });
  }

  /**
   * Waits for a started run's result: a missed deadline (or no worker to take it) is a 503 with
   * `timeoutDetail`, a failed run a 503 that says to retry; X-Workflow-Id on both.
   */
  async waitForResult<R>(
    handle: {
      result(): Promise<R>;
      describe(): Promise<{ raw: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse }>;
      terminate(reason?: string): Promise<unknown>;
    },
    opts: WaitOptions,
  ): Promise<R> {
    const connection = opts.connection ?? this.connection;
    const headers = { 'X-Workflow-Id': opts.workflowId };
    const unclaimed = new NoWorkerWatch(handle, opts.deadlineMs);
    try {
      return await Promise.race([
        connection.withDeadline(Date.now() + opts.deadlineMs + 1000, () => handle.result()),
        unclaimed.fired,
      ]);
    } catch (err) {
      // The watch terminates the run it found unclaimed: the result's rejection may arrive first.
      if (unclaimed.tripped || err instanceof NoWorkerError || isTimeout(err)) {
        log.warn(unclaimed.tripped ? 'no worker took the workflow' : 'workflow deadline missed', {
          engine: opts.engine,
          workflow_id: opts.workflowId,
        });
        if (opts.engine) recordWorkflowFailure(opts.engine, 'timeout');
        throw new HttpError(503, opts.timeoutDetail, headers);
      }
      log.warn('workflow failed', { engine: opts.engine, workflow_id: opts.workflowId, error: errorName(err) });
      if (opts.engine)
        recordWorkflowFailure(opts.engine, err instanceof WorkflowFailedError ? 'failed' : 'unavailable');
      throw new HttpError(
        503,
        err instanceof WorkflowFailedError ? VERIFICATION_INCOMPLETE : BACKEND_UNAVAILABLE,
        headers,
      );
    } finally {
      unclaimed.stop();
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** Whether a run failed by a deadline: the one test of the API (workflow, activity, engine thread or the wait's own). */
export function isTimeout(err: unknown): boolean {
  // Walk the cause chain: WorkflowFailedError -> ActivityFailure -> TimeoutFailure, or a
  // workflow execution timeout reported directly.
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i++) {
    // Start-to-close, schedule-to-close, schedule-to-start (no worker) or the execution time-out.
    if (cur instanceof TimeoutFailure) return true;
    // The engine's thread was stopped at its deadline (docs/isolation.md).
    if (cur instanceof ApplicationFailure && cur.type === ENGINE_TIMEOUT_FAILURE) return true;
    if (cur instanceof WorkflowFailedError && /timed? ?out/i.test(cur.message)) return true;
    // The wait's own deadline (gRPC DEADLINE_EXCEEDED).
    if ((cur as { code?: unknown }).code === 4) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

class NoWorkerError extends Error {}

/** temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED (the proto package is CommonJS: no named import at run time). */
const PENDING_WORKFLOW_TASK_STATE_SCHEDULED = 1;

/**
 * Fires once if the run's first workflow task is still waiting for a worker NO_WORKER_AFTER_MS
 * after the start (and the deadline is further away than that), and terminates the run so a
 * worker that comes back later cannot produce a verdict nobody waits for. Cheap: a timer per
 * run, and one describe call only for a run still unanswered at that point.
 */
class NoWorkerWatch {
  readonly fired: Promise<never>;
  /** Set before the run is terminated. */
  tripped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    handle: {
      describe(): Promise<{ raw: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse }>;
      terminate(reason?: string): Promise<unknown>;
    },
    deadlineMs: number,
  ) {
    this.fired = new Promise<never>((_, reject) => {
      if (deadlineMs <= NO_WORKER_AFTER_MS) return;
      this.timer = setTimeout(() => {
        void unclaimed(handle).then(
          (yes) => {
            if (!yes) return;
            this.tripped = true;
            reject(new NoWorkerError('no worker took the workflow'));
            // A worker that comes back later must not produce a verdict nobody waits for.
            void handle.terminate('no worker took the workflow (fail closed)').catch(() => undefined);
          },
          () => undefined, // describe failed: the deadline decides, as before
        );
      }, NO_WORKER_AFTER_MS);
      this.timer.unref();
    });
    this.fired.catch(() => undefined);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

/** Whether the run's first workflow task is still waiting for a worker. */
async function unclaimed(handle: {
  describe(): Promise<{ raw: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse }>;
}): Promise<boolean> {
  const { raw } = await handle.describe();
  const task = raw.pendingWorkflowTask;
  const firstTaskWaiting =
    !!task &&
    task.state === PENDING_WORKFLOW_TASK_STATE_SCHEDULED &&
    Number(raw.workflowExecutionInfo?.historyLength ?? 0) <= 2;
  return firstTaskWaiting;
}

function errorName(err: unknown): string {
  const e = err as { name?: string; message?: string };
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err).slice(0, 200)}`;
}
