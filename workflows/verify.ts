// One verification = one workflow: run the engine's activity under its deadline and return
// its result. Workflows stay tiny and deterministic; all I/O is in the activities.
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import { engineActivity, type VerifyWorkflowInput } from '../core/engines.js';
import { ENGINE_TIMEOUT_FAILURE } from '../core/engine-failures.js';

// Engine outcomes are returned as values, never thrown, so any activity failure is
// infrastructure (store down, worker crash) or a bug: retry those briefly within the deadline,
// but never retry what the engine itself rejected as deterministic.
const retry = {
  initialInterval: '100 ms',
  backoffCoefficient: 2,
  maximumInterval: '1 s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: ['DeterministicEngineError', 'ValidationError', ENGINE_TIMEOUT_FAILURE],
};

export async function verifyWorkflow(req: VerifyWorkflowInput): Promise<unknown> {
  const options = {
    startToCloseTimeout: req.timeout_ms,
    scheduleToCloseTimeout: req.timeout_ms,
    retry,
  };
  const acts =
    req.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>(options)
      : proxyActivities<VerificationActivities>(options);
  const activity = acts[engineActivity(req.engine)] as (input: unknown) => Promise<unknown>;
  const workflowId = workflowInfo().workflowId;
  const result = await activity({ input: req.input, org_id: req.org_id, workflow_id: workflowId });
  // Every organization's verification is audited before its result is returned; if the
  // append fails, the workflow fails (503), so no verdict exists without its audit record.
  if (req.org_id !== null) {
    await auditActivities.appendAuditActivity({
      org_id: req.org_id,
      workflow_id: workflowId,
      engine: req.engine,
      input: req.input,
      result,
      audit: req.audit ?? null,
    });
  }
  return result;
}

// The audit append is a short store write, not CPU-bound engine work: it runs as a local
// activity (same workflow task, no extra server round trip); the workflow's execution timeout
// still bounds it. Missing secret or malformed fields are not retried.
const auditActivities = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: '10 s',
  retry: { ...retry, nonRetryableErrorTypes: [...retry.nonRetryableErrorTypes, 'AuditConfigError', 'AuditChainError'] },
});

/** An empty round trip, used by the benchmark to measure the workflow engine's own overhead. */
export async function noopWorkflow(): Promise<string> {
  return 'ok';
}
