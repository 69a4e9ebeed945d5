// Starts one workflow per verification and waits for its result under a deadline.
// Every way this can fail (Temporal unreachable, no worker, deadline missed, activity
// failure) becomes a 503 with a clear detail: a request never gets a VERIFIED by default.
import { createHash, randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import type { ServiceConfig } from '../core/config.js';
import { activityModeFor, type AuditContext, type EngineName, type VerifyWorkflowInput } from '../core/engines.js';
import { HttpError } from './errors.js';
import { logger } from '../core/logger.js';
import { recordVerdict, recordWorkflowFailure } from './metrics.js';

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

export class TemporalGateway {
  readonly client: Client;

  constructor(
    readonly connection: Connection,
    private readonly cfg: ServiceConfig,
  ) {
    this.client = new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE });
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
    let handle;
    try {
      handle = await this.connection.withDeadline(Date.now() + 3000, () =>
        this.client.workflow.start(opts.workflowType ?? 'verifyWorkflow', {
          taskQueue: this.cfg.SVC_TASK_QUEUE,
          workflowId,
          args: [{ ...args, ...opts.workflowArgs }],
          // The whole run, queueing included, must finish within the engine budget plus grace.
          workflowExecutionTimeout: opts.timeoutMs + graceMs,
        }),
      );
    } catch (err) {
      log.warn('workflow start failed', { engine, workflow_id: workflowId, error: errorName(err) });
      recordWorkflowFailure(engine, 'unavailable');
      throw new HttpError(503, BACKEND_UNAVAILABLE, { 'X-Workflow-Id': workflowId });
    }
    try {
      const result = (await this.connection.withDeadline(Date.now() + opts.timeoutMs + graceMs + 1000, () => handle.result())) as T;
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
    if (cur instanceof WorkflowFailedError && /timed? ?out/i.test(cur.message)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

function errorName(err: unknown): string {
  const e = err as { name?: string; message?: string };
  return `${e?.name ?? 'Error'}: ${String(e?.message ?? err).slice(0, 200)}`;
}
