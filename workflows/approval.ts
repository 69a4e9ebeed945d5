// Durable approval of a tool call (docs/approvals.md): the run waits for a person's decision
// (a signal that only wakes it; the decision itself is the insert-once record the API wrote,
// read back by an activity, so a signal alone decides nothing) until the approval's time-out,
// then denies it (fail closed). The settled decision is attested, audited and shown in the
// agent's activity feed; an approved action then has SVC_ACTION_OUTCOME_TIMEOUT to report its
// outcome before it is flagged. actionOutcomeWorkflow is that last wait for admitted actions.
// Deterministic: timers and signals only, every I/O in activities.
import {
  condition,
  defineSignal,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import {
  DECISION_SIGNAL,
  type ActionOutcomeWorkflowInput,
  type ApprovalState,
  type ApprovalWorkflowInput,
  type DecisionSignal,
  type FinalizedApproval,
} from '../core/approval-workflow.js';
import { APPROVAL_SIGNAL_BEFORE_FIRST_WAIT } from './early-patches.js';

export const approvalDecisionSignal = defineSignal<[DecisionSignal]>(DECISION_SIGNAL);

// Store writes retry without a cap: a decision made must not be lost to a store outage.
const acts = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '30 s',
  retry: {
    initialInterval: '1 s',
    backoffCoefficient: 2,
    maximumInterval: '30 s',
    nonRetryableErrorTypes: ['AuditConfigError', 'AuditChainError'],
  },
});
const local = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: '10 s',
  retry: {
    initialInterval: '1 s',
    backoffCoefficient: 2,
    maximumInterval: '30 s',
    nonRetryableErrorTypes: ['AuditConfigError', 'AuditChainError'],
  },
});

export interface ApprovalWorkflowResult {
  approval_id: string;
  state: Exclude<ApprovalState, 'pending'>;
  audit_log_id: string;
  outcome: 'reported' | 'unreported' | 'not_applicable';
}

export async function approvalWorkflow(input: ApprovalWorkflowInput): Promise<ApprovalWorkflowResult> {
  let wakeUps = 0;
  setHandler(approvalDecisionSignal, () => {
    wakeUps++;
  });
  const deadline = Date.now() + input.timeout_ms;
  let settled: FinalizedApproval | null = null;
  // A decision signal delivered with the run's first task (the decider was faster than the
  // worker's first poll) reaches the handler before this loop: counted from 0, it wakes the first
  // wait at once. Runs started before this change wait as they did (their histories replay).
  let seen = patched(APPROVAL_SIGNAL_BEFORE_FIRST_WAIT) ? 0 : wakeUps;
  while (!settled) {
    const remaining = deadline - Date.now();
    const woken = remaining > 0 ? await condition(() => wakeUps > seen, remaining) : false;
    seen = wakeUps;
    // Woken: the API recorded a decision (or someone signalled without one: then wait on).
    // Not woken: the time-out records `expire` unless a person's decision got in first.
    settled = await acts.settleApprovalActivity({ input, timed_out: !woken });
  }
  const workflowId = workflowInfo().workflowId;
  const audit = await local.appendAuditActivity({
    org_id: input.org_id,
    workflow_id: workflowId,
    engine: 'agent-approval',
    input: { query: settled.claim },
    result: {
      status: settled.state.toUpperCase(),
      admission: settled.state === 'approved' ? 'ADMIT' : 'BLOCKED',
      proof_ref: null,
      attestation: settled.attestation_id ? { id: settled.attestation_id } : null,
    },
    audit: {
      user_id: settled.decision.decided_by,
      key_id: settled.decision.decided_by_key_id,
      request_digest: settled.request_digest,
    },
  });
  await acts.recordApprovalActivity({ input, settled, audit_log_id: audit.log_id, workflow_id: workflowId });
  let outcome: ApprovalWorkflowResult['outcome'] = 'not_applicable';
  if (settled.state === 'approved')
    outcome = await watchOutcome(input.org_id, input.agent_id, input.action_id, input.tool, input.outcome_timeout_ms);
  return { approval_id: input.approval_id, state: settled.state, audit_log_id: audit.log_id, outcome };
}

/** A durable timer per admitted action: at its end, an action without a reported outcome is flagged. */
async function watchOutcome(
  orgId: string,
  agentId: string,
  actionId: string,
  tool: string,
  timeoutMs: number,
): Promise<'reported' | 'unreported'> {
  await sleep(timeoutMs);
  const r = await acts.flagUnreportedActionActivity({
    org_id: orgId,
    agent_id: agentId,
    action_id: actionId,
    tool,
    workflow_id: workflowInfo().workflowId,
    flagged_at: new Date(Date.now()).toISOString(),
  });
  return r.flagged ? 'unreported' : 'reported';
}

export async function actionOutcomeWorkflow(
  input: ActionOutcomeWorkflowInput,
): Promise<{ action_id: string; outcome: 'reported' | 'unreported' }> {
  const outcome = await watchOutcome(
    input.org_id,
    input.agent_id,
    input.action_id,
    input.tool,
    input.outcome_timeout_ms,
  );
  return { action_id: input.action_id, outcome };
}
