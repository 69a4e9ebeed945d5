// Starts one workflow per verification and waits for its result under a deadline.
// Every way this can fail (Temporal unreachable, no worker, deadline missed, activity
// failure) becomes a 503 with a clear detail: a request never gets a VERIFIED by default.
import { createHash, randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError, type ConnectionLike, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { ENGINE_TIMEOUT_FAILURE } from '../core/engine-failures.js';
import type { ServiceConfig } from '../core/config.js';
import { activityModeFor, EAGER_ENGINES, ENGINES, type AuditContext, type EngineName, type VerificationWorkflowType, type VerifyWorkflowInput } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import type { WorkflowArgs, WorkflowName, Workflows } from './workflows.js';
import { HttpError } from './errors.js';
import { logger } from '../core/logger.js';
import { recordVerdict, recordWorkflowFailure } from './metrics.js';
import { temporalDataConverter } from '../core/payload-codec.js';
import { workflowInputAuthClientInterceptor, workflowInputKey } from '../core/workflow-input-auth.js';

const log = logger('temporal');

export const BACKEND_UNAVAILABLE = 'Verification backend unavailable — retry shortly.';
export const VERIFICATION_INCOMPLETE = 'Verification could not complete — retry shortly.';

export interface RunOptions {
  orgId: string | null;
  /** Overrides the engine's deadline from the registry (core/engines.ts), e.g. logic from natural language. */
  timeoutMs?: number;
  /** Overrides the registry's 503 detail when the deadline is missed. */
  timeoutDetail?: string;
  /** The authenticated caller (user and key), recorded in the organization's audit entry. */
  principal?: { userId: string | null; keyId: string | null };
  /** Another workflow than the registry's (e.g. providerVerifyWorkflow for logic from natural language), with its extra arguments. */
  workflowType?: VerificationWorkflowType;
  workflowArgs?: Record<string, unknown>;
}

/** `sha256:<hex>` of the validated request as JSON: binds the audit entry to the exact request. */
export function requestDigest(input: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(input ?? null), 'utf8').digest('hex')}`;
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
    this.client = new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(cfg), interceptors: { workflow: [this.inputAuth] } });
  }

  /** Routes the eager-capable engines (core/engines.ts EAGER_ENGINES) through an in-process worker; null stops it. */
  useEagerStart(e: EagerStart | null): void {
    this.eager = e && {
      client: new Client({ connection: e.connection, namespace: this.cfg.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(this.cfg), interceptors: { workflow: [this.inputAuth] } }),
      connection: e.connection,
      taskQueue: e.taskQueue,
    };
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
   * Starts a workflow by its type (checked against workflows/index.ts; arguments typed by its
   * signature) under a 3 s start deadline. Temporal unreachable or refusing: a 503 with
   * `detail` and X-Workflow-Id. Every start of the API goes through here.
   */
  async startWorkflow<N extends WorkflowName>(
    type: N,
    options: Omit<WorkflowStartOptions, 'args' | 'taskQueue' | 'workflowId'> & { workflowId: string; args: WorkflowArgs<N>; taskQueue?: string },
    failure: {
      /** The 503 detail (default: the backend-unavailable detail). */
      detail?: string;
      headers?: Record<string, string>;
      /** Errors the caller handles itself (e.g. a redelivery's already-started workflow). */
      passThrough?: Array<new (...args: never[]) => Error>;
      /** How long the start may take (default 3 s). */
      startDeadlineMs?: number;
      via?: { client: Client; connection: EagerStart['connection'] };
    } = {},
  ): Promise<WorkflowHandle<Workflows[N]>> {
    const client = failure.via?.client ?? this.client;
    const connection = failure.via?.connection ?? this.connection;
    try {
      return await connection.withDeadline(Date.now() + (failure.startDeadlineMs ?? 3000), () =>
        client.workflow.start(type as string, { taskQueue: this.cfg.SVC_TASK_QUEUE, ...options } as WorkflowStartOptions),
      ) as WorkflowHandle<Workflows[N]>;
    } catch (err) {
      if (failure.passThrough?.some((type) => err instanceof type)) throw err;
      log.warn('workflow start failed', { workflow_type: type, workflow_id: options.workflowId, error: errorName(err) });
      throw new HttpError(503, failure.detail ?? BACKEND_UNAVAILABLE, { 'X-Workflow-Id': options.workflowId, ...failure.headers });
    }
  }

  /**
   * One verification of an engine: its workflow (from the registry, core/engines.ts) started,
   * its result awaited under the engine's deadline plus grace, every failure a 503.
   */
  async runVerification<E extends EngineName>(
    engine: E,
    input: EngineInput<E>,
    opts: RunOptions,
    workflowId = this.workflowId(engine, opts.orgId),
  ): Promise<RunResult<EngineResult<E>>> {
    const spec = ENGINES[engine];
    const timeoutMs = opts.timeoutMs ?? spec.deadlineMs(this.cfg, input);
    const timeoutDetail = opts.timeoutDetail ?? spec.timeoutDetail;
    const workflowType = opts.workflowType ?? spec.workflow;
    const args: VerifyWorkflowInput = {
      engine,
      input,
      org_id: opts.orgId,
      timeout_ms: timeoutMs,
      activity_mode: activityModeFor(engine, this.cfg.SVC_ACTIVITY_MODE),
      audit: {
        user_id: opts.principal?.userId ?? null,
        key_id: opts.principal?.keyId ?? null,
        request_digest: requestDigest(input),
      } satisfies AuditContext,
    };
    const graceMs = this.cfg.SVC_WORKFLOW_GRACE * 1000;
    // Eager start only for verifyWorkflow runs whose activities are all local: the in-process
    // worker then completes the verification in the first workflow task (docs/performance.md).
    const eager = this.eager && workflowType === 'verifyWorkflow' && args.activity_mode === 'local' && EAGER_ENGINES.has(engine) ? this.eager : null;
    const connection = eager?.connection ?? this.connection;
    let handle;
    try {
      handle = await this.startWorkflow(
        workflowType,
        {
          ...(eager ? { taskQueue: eager.taskQueue } : {}),
          workflowId,
          args: [{ ...args, ...opts.workflowArgs } as VerifyWorkflowInput & { provider_timeout_ms: number }],
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
    try {
      // The registry's EngineIO types what the engine's activity returns through the workflow.
      const result = (await connection.withDeadline(Date.now() + timeoutMs + graceMs + 1000, () => handle.result())) as EngineResult<E>;
      recordVerdict(engine, result);
      return { result, workflowId };
    } catch (err) {
      const headers = { 'X-Workflow-Id': workflowId };
      if (isTimeout(err)) {
        log.warn('verification deadline missed', { engine, workflow_id: workflowId });
        recordWorkflowFailure(engine, 'timeout');
        throw new HttpError(503, timeoutDetail, headers);
      }
      log.warn('verification workflow failed', { engine, workflow_id: workflowId, error: errorName(err) });
      recordWorkflowFailure(engine, err instanceof WorkflowFailedError ? 'failed' : 'unavailable');
      throw new HttpError(503, err instanceof WorkflowFailedError ? VERIFICATION_INCOMPLETE : BACKEND_UNAVAILABLE, headers);
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

function isTimeout(err: unknown): boolean {
  // Walk the cause chain: WorkflowFailedError -> ActivityFailure -> TimeoutFailure, or a
  // workflow execution timeout reported directly.
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof TimeoutFailure) return true;
    // The engine's thread was stopped at its deadline (docs/isolation.md).
    if (cur instanceof ApplicationFailure && cur.type === ENGINE_TIMEOUT_FAILURE) return true;
    if (cur instanceof WorkflowFailedError && /timed? ?out/i.test(cur.message)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

function errorName(err: unknown): string {
  const e = err as { name?: string; message?: string };
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err).slice(0, 200)}`;
}
