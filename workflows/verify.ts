// One verification = one workflow: run the engine's activity under its deadline, append the
// organization's audit entry, return the result. Workflows stay tiny and deterministic; all
// I/O is in the activities.
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import type { VerifyWorkflowEngine, VerifyWorkflowInput } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import { engineActivities, runEngineActivity } from './engine-activities.js';
import { engineActivityOptions, engineLocalActivityOptions, STORE_WRITE_OPTIONS } from './policies.js';

// The audit append is a short store write, not CPU-bound engine work: it runs as a local
// activity (same workflow task, no extra server round trip); the workflow's execution timeout
// still bounds it. Missing secret or a broken chain are not retried (workflows/policies.ts).
const { appendAuditActivity } = proxyLocalActivities<VerificationActivities>(STORE_WRITE_OPTIONS);

export async function verifyWorkflow<E extends VerifyWorkflowEngine>(
  req: VerifyWorkflowInput<E>,
): Promise<EngineResult<E>> {
  const engines = engineActivities(
    req.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>(engineLocalActivityOptions(req.timeout_ms))
      : proxyActivities<VerificationActivities>(engineActivityOptions(req.timeout_ms)),
  );
  const workflowId = workflowInfo().workflowId;
  const result = await runEngineActivity(engines, req.engine, {
    input: req.input as EngineInput<E>,
    org_id: req.org_id,
    workflow_id: workflowId,
  });
  // Every organization's verification is audited before its result is returned; if the
  // append fails, the workflow fails (503), so no verdict exists without its audit record.
  if (req.org_id !== null) {
    await appendAuditActivity({
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

/** An empty round trip, used by the benchmark to measure the workflow engine's own overhead. */
export async function noopWorkflow(): Promise<string> {
  return 'ok';
}
