// Data exchanged between the API, the approval and action-outcome workflows and their activities
// (types and pure helpers only): the workflow bundle imports this file, so it stays deterministic.
// docs/approvals.md.

/** The states an approval can be in (`expired`: no decision within its time-out, so denied). */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired';
export const APPROVAL_STATES: readonly ApprovalState[] = ['pending', 'approved', 'denied', 'expired'];

/** What a person decides; `expire` is the workflow's own answer when the time-out passes. */
export type ApprovalDecisionKind = 'approve' | 'deny' | 'expire';

export type ActionOutcomeStatus = 'succeeded' | 'failed' | 'error';

/** The reason an expired approval carries. */
export const TIMEOUT_REASON = 'time-out';

export interface ApprovalWorkflowInput {
  org_id: string;
  agent_id: string;
  agent_num: number;
  /** Public id (`apr_<seq>`) and per-agent sequence number: the store key is `<agent_id>:<seq>`. */
  approval_id: string;
  seq: number;
  action_id: string;
  tool: string;
  /** From the start of the run: after this, the approval is denied with reason `time-out`. */
  timeout_ms: number;
  /** After an approval: how long the agent has to report the action's outcome before it is flagged. */
  outcome_timeout_ms: number;
}

/** The decision signal only wakes the workflow: the decision itself is read from the store (insert-once record). */
export interface DecisionSignal {
  nonce: string;
}
export const DECISION_SIGNAL = 'approvalDecision';

export interface SettledDecision {
  decision: ApprovalDecisionKind;
  reason: string;
  decided_by: string | null;
  decided_by_key_id: string | null;
  decided_at: string;
}

export interface FinalizedApproval {
  state: Exclude<ApprovalState, 'pending'>;
  decision: SettledDecision;
  attestation_id: string | null;
  /** What the audit entry records as the evaluated text (no tool arguments: they stay sealed). */
  claim: string;
  request_digest: string;
}

export interface SettleApprovalInput {
  input: ApprovalWorkflowInput;
  timed_out: boolean;
}

export interface RecordApprovalInput {
  input: ApprovalWorkflowInput;
  settled: FinalizedApproval;
  audit_log_id: string;
  workflow_id: string;
}

export interface FlagUnreportedInput {
  org_id: string;
  agent_id: string;
  action_id: string;
  tool: string;
  workflow_id: string;
  /** The timer's end (workflow time): the feed item's time, stable across retries. */
  flagged_at: string;
}

export interface ActionOutcomeWorkflowInput {
  org_id: string;
  agent_id: string;
  action_id: string;
  tool: string;
  outcome_timeout_ms: number;
}

export const stateOf = (d: ApprovalDecisionKind): Exclude<ApprovalState, 'pending'> =>
  d === 'approve' ? 'approved' : d === 'deny' ? 'denied' : 'expired';

/** The text an approval's attestation signs (its query_hash): recomputable by whoever checks the token. */
export function approvalClaim(
  a: { agent_id: string; approval_id: string; action_id: string; tool: string },
  state: string,
  decidedAt: string,
): string {
  return `agent ${a.agent_id} approval ${a.approval_id} action ${a.action_id} tool ${a.tool}: ${state} at ${decidedAt}`;
}
