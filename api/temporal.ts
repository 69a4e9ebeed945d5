// Starts one workflow per verification and waits for its result under a deadline.
// Every way this can fail (Temporal unreachable, no worker, deadline missed, activity
// failure) becomes a 503 with a clear detail: a request never gets a VERIFIED by default.
import { createHash, randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError, type ConnectionLike } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { ENGINE_TIMEOUT_FAILURE } from '../core/engine-failures.js';
import type { ServiceConfig } from '../core/config.js';
import { activityModeFor, EAGER_ENGINES, type AuditContext, type EngineName, type VerifyWorkflowInput } from '../core/engines.js';
import { HttpError } from './errors.js';
import { logger } from '../core/logger.js';
import { recordVerdict, recordWorkflowFailure } from './metrics.js';
import { temporalDataConverter } from '../core/payload-codec.js';

const log = logger('temporal');

export const BACKEND_UNAVAILABLE = 'Verification backend unavailable — retry shortly.';
export const VERIFICATION_INCOMPLETE = 'Verification could not complete — retry shortly.';

export interface RunOptions {
  orgId: string | null;
  timeoutMs: number;
  /** The 503 detail when the engine's deadline is missed (e.g. 'Code verification timed out.'). */
  timeoutDetail: string;
  /** The authenticated caller (user and key), recorded in the organization's audit entry. */
  principal?: { userId: string | null; keyId: string | null };
  /** Another workflow than verifyWorkflow (e.g. providerVerifyWorkflow), with its extra arguments. */
  workflowType?: string;
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

  constructor(
    readonly connection: Connection,
    private readonly cfg: ServiceConfig,
  ) {
    // Every payload is encrypted before it reaches Temporal (docs/payload-encryption.md).
    this.client = new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(cfg) });
  }

  /** Routes the eager-capable engines (core/engines.ts EAGER_ENGINES) through an in-process worker; null stops it. */
  useEagerStart(e: EagerStart | null): void {
    this.eager = e && {
      client: new Client({ connection: e.connection, namespace: this.cfg.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(this.cfg) }),
      connection: e.connection,
      taskQueue: e.taskQueue,
    };
  }

  get eagerStart(): boolean {
    return this.eager !== null;
  }

  static create(cfg: ServiceConfig): TemporalGateway {
    // Lazy: the API starts (and answers 503 on verification routes) even while Temporal is down.
    const connection = Connection.lazy({ address: cfg.TEMPORAL_ADDRESS, connectTimeout: 2000 });
    return new TemporalGateway(connection, cfg);
  }

  workflowId(engine: string, orgId: string | null): string {
    return `verify-${engine}-${orgId ?? 'anonymous'}-${randomUUID()}`;
  }

  async runVerification<T>(engine: EngineName, input: unknown, opts: RunOptions, workflowId = this.workflowId(engine, opts.orgId)): Promise<RunResult<T>> {
    const args: VerifyWorkflowInput = {
      engine,
      input,
      org_id: opts.orgId,
      timeout_ms: opts.timeoutMs,
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
    const eager = this.eager && !opts.workflowType && args.activity_mode === 'local' && EAGER_ENGINES.has(engine) ? this.eager : null;
    const client = eager?.client ?? this.client;
    const connection = eager?.connection ?? this.connection;
    let handle;
    try {
      handle = await connection.withDeadline(Date.now() + 3000, () =>
        client.workflow.start(opts.workflowType ?? 'verifyWorkflow', {
          taskQueue: eager?.taskQueue ?? this.cfg.SVC_TASK_QUEUE,
          workflowId,
          args: [{ ...args, ...opts.workflowArgs }],
          // The whole run, queueing included, must finish within the engine budget plus grace.
          workflowExecutionTimeout: opts.timeoutMs + graceMs,
          requestEagerStart: eager !== null,
        }),
      );
    } catch (err) {
      log.warn('workflow start failed', { engine, workflow_id: workflowId, error: errorName(err) });
      recordWorkflowFailure(engine, 'unavailable');
      throw new HttpError(503, BACKEND_UNAVAILABLE, { 'X-Workflow-Id': workflowId });
    }
    try {
      const result = (await connection.withDeadline(Date.now() + opts.timeoutMs + graceMs + 1000, () => handle.result())) as T;
      recordVerdict(engine, result);
      return { result, workflowId };
    } catch (err) {
      const headers = { 'X-Workflow-Id': workflowId };
      if (isTimeout(err)) {
        log.warn('verification deadline missed', { engine, workflow_id: workflowId });
        recordWorkflowFailure(engine, 'timeout');
        throw new HttpError(503, opts.timeoutDetail, headers);
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
