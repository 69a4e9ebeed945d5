// Starts a named workflow and waits for its result under a deadline, mapping every failure to
// a 503 (as TemporalGateway.runVerification does for engine workflows): used by the agent and
// gateway routes, whose workflows are not the single-engine verifyWorkflow.
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import type { TemporalGateway } from './temporal.js';
import { BACKEND_UNAVAILABLE, VERIFICATION_INCOMPLETE } from './temporal.js';
import { HttpError } from './errors.js';
import { logger } from '../core/logger.js';

const log = logger('temporal');

export interface RunWorkflowOptions {
  taskQueue: string;
  workflowId: string;
  /** Whole-run budget (queueing, guard, engine, audit) in ms. */
  timeoutMs: number;
  timeoutDetail: string;
}

export async function runWorkflow<T>(temporal: TemporalGateway, workflowType: string, args: unknown[], opts: RunWorkflowOptions): Promise<T> {
  const headers = { 'X-Workflow-Id': opts.workflowId };
  let handle;
  try {
    handle = await temporal.connection.withDeadline(Date.now() + 3000, () =>
      temporal.client.workflow.start(workflowType, { taskQueue: opts.taskQueue, workflowId: opts.workflowId, args, workflowExecutionTimeout: opts.timeoutMs }),
    );
  } catch (err) {
    log.warn('workflow start failed', { workflow_type: workflowType, workflow_id: opts.workflowId, error: String((err as Error)?.name) });
    throw new HttpError(503, BACKEND_UNAVAILABLE, headers);
  }
  try {
    return (await temporal.connection.withDeadline(Date.now() + opts.timeoutMs + 1000, () => handle.result())) as T;
  } catch (err) {
    if (isTimeout(err)) {
      log.warn('workflow deadline missed', { workflow_type: workflowType, workflow_id: opts.workflowId });
      throw new HttpError(503, opts.timeoutDetail, headers);
    }
    log.warn('workflow failed', { workflow_type: workflowType, workflow_id: opts.workflowId, error: String((err as Error)?.name) });
    throw new HttpError(503, err instanceof WorkflowFailedError ? VERIFICATION_INCOMPLETE : BACKEND_UNAVAILABLE, headers);
  }
}

function isTimeout(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof TimeoutFailure) return true;
    if (cur instanceof WorkflowFailedError && /timed? ?out/i.test(cur.message)) return true;
    const code = (cur as { code?: unknown }).code;
    if (code === 4 /* gRPC DEADLINE_EXCEEDED */) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
