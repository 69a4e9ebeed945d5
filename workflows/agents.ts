// Agent endpoints as workflows: guard activity (sealed input in, masked findings out), then the
// matching engine's existing activity when the request is clean (for a verify request, one per
// part of the query), then the organization's
// audit entry (domain agent-verify / agent-tool, key_id = the agent id) and the agent's
// activity record. The HTTP response is the workflow's result.
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import type { AgentWorkflowInput, AgentWorkflowResult, EngineCall, RoutedEngine } from '../core/agent-workflow.js';
import type { EngineInput } from '../core/verification-io.js';
import { decideTool, decideVerify } from '../engines/agents/decide.js';
import { needsApproval } from '../engines/agents/tool-policy.js';
import { engineActivities, runEngineActivity } from './engine-activities.js';
import { ACTIVITY_SCHEDULE_TO_START_MS, engineActivityOptions, RETRY, STORE_WRITE_TIMEOUT } from './policies.js';

const { appendAuditActivity, recordAgentActivityActivity } = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: STORE_WRITE_TIMEOUT,
  retry: RETRY.agent,
});

export async function agentWorkflow(req: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const workflowId = workflowInfo().workflowId;
  const { agentGuardActivity } = proxyActivities<VerificationActivities>({
    startToCloseTimeout: req.guard_timeout_ms + 2000,
    scheduleToStartTimeout: ACTIVITY_SCHEDULE_TO_START_MS,
    retry: RETRY.agent,
  });
  const guard = await agentGuardActivity(req);
  // The engine activities of the registry's map (workflows/engine-activities.ts), each under its engine's deadline.
  const runEngine = (call: EngineCall): Promise<unknown> => {
    const engines = engineActivities(
      proxyActivities<VerificationActivities>(engineActivityOptions(req.engine_timeouts_ms[call.engine], RETRY.agent)),
    );
    return runEngineActivity(engines, call.engine, {
      input: call.input as EngineInput<RoutedEngine>,
      org_id: req.agent.org_id,
      workflow_id: workflowId,
    });
  };
  let decision;
  if (guard.kind === 'verify') {
    // Every routed part of the query runs its engine (side by side, in part order).
    const results = await Promise.all(guard.parts.map((p) => (p.route ? runEngine(p.route) : Promise.resolve(null))));
    decision = decideVerify(guard, results, {
      agent_id: req.agent.id,
      conversation_id: req.context?.conversation_id ?? '',
      step_number: req.context?.step_number ?? 0,
    });
  } else {
    // A tool call's argument checks run side by side; every one must pass (decideTool).
    decision = decideTool(guard, await Promise.all(guard.checks.map(runEngine)));
    // A call the checks allow, of a tool the policy marks, waits for a person (docs/approvals.md):
    // the API starts its approval workflow. A denied call stays denied.
    if (decision.body.allowed === true && needsApproval(guard.tool, req.agent.require_approval ?? [])) {
      decision = {
        ...decision,
        status: 'PENDING_APPROVAL',
        body: { ...decision.body, decision: 'pending_approval', allowed: false },
        summary: `pending approval ${guard.tool}: ${decision.summary}`.slice(0, 300),
      };
    }
  }
  const audit = await appendAuditActivity({
    org_id: req.agent.org_id,
    workflow_id: workflowId,
    engine: req.kind === 'verify' ? 'agent-verify' : 'agent-tool',
    input: { query: guard.claim },
    result: {
      status: decision.status,
      admission: decision.admission,
      proof_ref: decision.proof_ref,
      attestation: decision.attestation_id ? { id: decision.attestation_id } : null,
    },
    audit: { user_id: null, key_id: req.agent.id, request_digest: guard.request_digest },
  });
  await recordAgentActivityActivity({
    agent_id: req.agent.id,
    org_id: req.agent.org_id,
    kind: req.kind,
    status: decision.status,
    summary: decision.summary,
    workflow_id: workflowId,
    audit_log_id: audit.log_id,
    conversation_id: req.context?.conversation_id ?? null,
    step_number: req.context?.step_number ?? null,
    tool: guard.kind === 'tool' ? guard.tool : guard.tool_name,
    engine: decision.engine,
    findings: guard.findings,
  });
  return { refused: decision.refused, body: decision.body, audit_log_id: audit.log_id };
}
