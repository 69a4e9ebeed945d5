// One verification = one workflow: run the engine's activity under its deadline, append the
// organization's audit entry, return the result. Workflows stay tiny and deterministic; all
// I/O is in the activities.
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import type { VerifyWorkflowEngine, VerifyWorkflowInput } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import { engineActivities, runEngineActivity } from './engine-activities.js';
import {
  AUDIT_APPEND_ALLOWANCE_MS,
  engineActivityOptions,
  engineLocalActivityOptions,
  STORE_WRITE_OPTIONS,
} from './policies.js';

// The audit append is a short store write, not CPU-bound engine work: it runs as a local
// activity (same workflow task, no extra server round trip); the workflow's execution timeout
// still bounds it. Missing secret or a broken chain are not retried (workflows/policies.ts).
const { appendAuditActivity } = proxyLocalActivities<VerificationActivities>(STORE_WRITE_OPTIONS);

/**
 * Engines whose activity appends the audit entry itself, after sealing the verdict and before
 * returning it (activities/verify-math.ts): one local activity, one activation and four payload
 * encryptions fewer per verification (docs/performance.md, "CPU per /verify/math"). Its
 * attestation id and entry id are derived from the workflow id, so every attempt writes the same
 * records once. The others are audited by appendAuditActivity below.
 */
const AUDITED_IN_ENGINE_ACTIVITY: ReadonlySet<VerifyWorkflowEngine> = new Set(['math']);

export async function verifyWorkflow<E extends VerifyWorkflowEngine>(
  req: VerifyWorkflowInput<E>,
): Promise<EngineResult<E>> {
  // Asked for by the API in the (authenticated) input, so a run started without it, or replayed
  // from a history written before, keeps the separate append.
  const auditInActivity =
    req.org_id !== null && req.audit_in_engine_activity === true && AUDITED_IN_ENGINE_ACTIVITY.has(req.engine);
  // The append inside the engine's activity gets the time the separate one had.
  const timeoutMs = req.timeout_ms + (auditInActivity ? AUDIT_APPEND_ALLOWANCE_MS : 0);
  const engines = engineActivities(
    req.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>(engineLocalActivityOptions(timeoutMs))
      : proxyActivities<VerificationActivities>(engineActivityOptions(timeoutMs)),
  );
  const { workflowId, startTime } = workflowInfo();
  // Session 23: ids that start with the run's start time (`startTime`: the execution chain's start, in its history, the same on every replay;
  // identical to the run's own `runStartTime` here: no continue-as-new, no workflow retry).
  const idTime = req.time_ordered_ids === true ? { id_time_ms: startTime.getTime() } : {};
  const result = await runEngineActivity(engines, req.engine, {
    input: req.input as EngineInput<E>,
    org_id: req.org_id,
    workflow_id: workflowId,
    ...(auditInActivity
      ? {
          audit_entry: {
            audit: req.audit ?? null,
            ...(req.attestation_in_audit_entry === true ? { attestation_in_entry: true } : {}),
            ...idTime,
          },
        }
      : {}),
  });
  // Every organization's verification is audited before its result is returned; if the
  // append fails, the workflow fails (503), so no verdict exists without its audit record.
  if (req.org_id !== null && !auditInActivity) {
    await appendAuditActivity({
      org_id: req.org_id,
      workflow_id: workflowId,
      engine: req.engine,
      input: req.input,
      result,
      audit: req.audit ?? null,
      ...idTime,
    });
  }
  return result;
}

/** An empty round trip, used by the benchmark to measure the workflow engine's own overhead. */
export async function noopWorkflow(): Promise<string> {
  return 'ok';
}
