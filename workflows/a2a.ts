// One gateway message = one workflow: evaluate (engine pool, proof, signed verdict), append the
// gateway's audit entry (organization a2a_gateway, key_id = the sending agent), record the
// message under its audit_trace_id.
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import { A2A_AUDIT_ORG, type A2aWorkflowInput, type A2aWorkflowResult } from '../core/a2a-workflow.js';
import { ACTIVITY_SCHEDULE_TO_START_MS, RETRY, STORE_WRITE_TIMEOUT } from './policies.js';

const local = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: STORE_WRITE_TIMEOUT,
  retry: RETRY.a2a,
});

export async function a2aWorkflow(req: A2aWorkflowInput): Promise<A2aWorkflowResult> {
  const workflowId = workflowInfo().workflowId;
  const acts = proxyActivities<VerificationActivities>({
    startToCloseTimeout: req.engine_timeout_ms + 10_000,
    scheduleToStartTimeout: ACTIVITY_SCHEDULE_TO_START_MS,
    retry: RETRY.a2aEvaluate,
  });
  const v = await acts.a2aEvaluateActivity({ ...req, workflow_id: workflowId });
  const audit = await local.appendAuditActivity({
    org_id: A2A_AUDIT_ORG,
    workflow_id: workflowId,
    engine: 'a2a',
    input: { query: v.summary },
    result: { status: v.status.toUpperCase(), proof_ref: v.proof_ref },
    audit: { user_id: null, key_id: req.agent_id, request_digest: v.request_digest },
  });
  await local.recordA2aMessageActivity({
    audit_trace_id: req.audit_trace_id,
    workflow_id: workflowId,
    audit_log_id: audit.log_id,
    sender_agent_id: req.agent_id,
    claimed_sender_agent_id: req.claimed_sender_agent_id,
    receiver_agent_id: req.receiver_agent_id,
    payload_type: req.payload_type,
    status: v.status,
    engine_used: v.engine_used,
    reason: v.reason,
  });
  return {
    status: v.status,
    audit_trace_id: req.audit_trace_id,
    engine_used: v.engine_used,
    attestation_jwt: v.attestation_jwt,
    reason: v.reason,
    admissible: v.status === 'verified',
    sender_agent_id: req.agent_id,
    receiver_agent_id: req.receiver_agent_id,
    payload_type: req.payload_type,
    audit_log_id: audit.log_id,
  };
}
