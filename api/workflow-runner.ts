// Starts a named workflow and waits for its result under a deadline, mapping every failure to
// a 503 (as TemporalGateway.runVerification does for engine workflows): used by the agent and
// gateway routes, whose workflows are not the single-engine verifyWorkflow.
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import type { TemporalGateway } from './temporal.js';
import { BACKEND_UNAVAILABLE, VERIFICATION_INCOMPLETE } from './temporal.js';
import { HttpError } from './errors.js';
import type { WorkflowArgs, WorkflowName, WorkflowResult } from './workflows.js';
import { logger } from '../core/logger.js';

const log = logger('temporal');

export interface RunWorkflowOptions {
  taskQueue: string;
  workflowId: string;
  /** Whole-run budget (queueing, guard, engine, audit) in ms. */
  timeoutMs: number;
  timeoutDetail: string;
}

export async function runWorkflow<N extends WorkflowName>(temporal: TemporalGateway, workflowType: N, args: WorkflowArgs<N>, opts: RunWorkflowOptions): Promise<WorkflowResult<N>> {
  const headers = { 'X-Workflow-Id': opts.workflowId };
  const handle = await temporal.startWorkflow(workflowType, { taskQueue: opts.taskQueue, workflowId: opts.workflowId, args, workflowExecutionTimeout: opts.timeoutMs }, { detail: BACKEND_UNAVAILABLE });
  try {
    return (await temporal.connection.withDeadline(Date.now() + opts.timeoutMs + 1000, () => handle.result())) as WorkflowResult<N>;
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
