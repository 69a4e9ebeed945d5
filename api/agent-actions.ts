// What follows an agent's tool decision (docs/approvals.md): an allowed call becomes an action
// whose outcome the agent reports (an actionOutcomeWorkflow flags it when it does not); a call
// the policy marks as needing approval becomes an approval whose decision is an approvalWorkflow.
// Shared by the agent routes (api/routes/agents.ts) and the approval routes
// (api/routes/agent-approvals.ts).
import type { Context } from 'koa';
import { Gauge } from 'prom-client';
import type { AgentDoc } from '../core/agents.js';
import { DECISION_SIGNAL, type ApprovalWorkflowInput } from '../core/approval-workflow.js';
import type { Store } from '../core/store.js';
import { logger } from '../core/logger.js';
import {
  getApproval,
  insertAction,
  insertNextApproval,
  insertDecision,
  newActionId,
  overdueCount,
  updateAction,
  updateApproval,
  type ActionDoc,
  type ApprovalDoc,
} from '../core/approvals-store.js';
import type { AppDeps } from './deps.js';
import { registry } from './metrics.js';
import { workflows } from './workflows.js';

const log = logger('approvals');

export const approvalWorkflowId = (a: AgentDoc, seq: number) => `approval-${a.org_id}-${a._id}-${seq}`;
export const actionOutcomeWorkflowId = (a: AgentDoc, actionId: string) =>
  `action-outcome-${a.org_id}-${a._id}-${actionId}`;
export const APPROVAL_START_FAILED = 'the approval workflow could not start';

/**
 * After POST /agents/{id}/tools/{tool} answered (ctx.body is the decision): an `allow` gets its
 * action record and outcome timer, a `pending_approval` its approval record and workflow (202).
 * Either start failing answers 503 (no allow without its watch: fail closed).
 */
export async function trackToolDecision(deps: AppDeps, ctx: Context, agent: AgentDoc): Promise<void> {
  const body = ctx.body as Record<string, unknown> | undefined;
  if (ctx.status !== 200 || !body) return;
  const tool = String(body.tool);
  const workflowId = String(body.workflow_id);
  const now = new Date();
  const action = (state: ActionDoc['state'], actionId: string, approvalId: string | null): ActionDoc => ({
    _id: `${agent._id}:${actionId}`,
    action_id: actionId,
    agent_id: agent._id,
    org_id: agent.org_id,
    tool,
    state,
    approval_id: approvalId,
    workflow_id: workflowId,
    created_at: now,
    outcome: null,
    overdue_flagged_at: null,
  });
  if (body.decision === 'allow') {
    const actionId = newActionId();
    // Side by side (one round trip less): the timer's activity reads the action only at its end.
    await Promise.all([
      insertAction(deps.store, action('admitted', actionId, null)),
      deps.temporal.startWorkflow(workflows.actionOutcomeWorkflow, {
        workflowId: actionOutcomeWorkflowId(agent, actionId),
        args: [
          {
            org_id: agent.org_id,
            agent_id: agent._id,
            action_id: actionId,
            tool,
            outcome_timeout_ms: deps.cfg.SVC_ACTION_OUTCOME_TIMEOUT * 1000,
          },
        ],
      }),
    ]);
    ctx.body = { ...body, action_id: actionId };
    return;
  }
  if (body.decision !== 'pending_approval') return;
  const actionId = newActionId();
  const timeoutSeconds = agent.permissions.approval_timeout_seconds ?? deps.cfg.SVC_APPROVAL_TIMEOUT;
  const expiresAt = new Date(now.getTime() + timeoutSeconds * 1000);
  // The approval first (its number is won by its insert: persistence/approvals.ts), then the action naming it.
  const doc = await insertNextApproval(deps.store, agent._id, (seq): ApprovalDoc => ({
    _id: `${agent._id}:${seq}`,
    approval_id: `apr_${seq}`,
    seq,
    agent_id: agent._id,
    agent_num: agent.num,
    org_id: agent.org_id,
    tool,
    action_id: actionId,
    workflow_id: approvalWorkflowId(agent, seq),
    request_workflow_id: workflowId,
    request_audit_log_id: String(body.audit_log_id),
    risk_score: typeof body.risk_score === 'number' ? body.risk_score : null,
    reasons: Array.isArray(body.reasons) ? body.reasons.map(String) : [],
    state: 'pending',
    timeout_seconds: timeoutSeconds,
    requested_at: now,
    expires_at: expiresAt,
    decided_at: null,
    decided_by: null,
    reason: null,
    attestation: null,
    decision_audit_log_id: null,
  }));
  const { seq, approval_id: approvalId } = doc;
  await insertAction(deps.store, action('pending_approval', actionId, approvalId));
  const input: ApprovalWorkflowInput = {
    org_id: agent.org_id,
    agent_id: agent._id,
    agent_num: agent.num,
    approval_id: approvalId,
    seq,
    action_id: actionId,
    tool,
    timeout_ms: timeoutSeconds * 1000,
    outcome_timeout_ms: deps.cfg.SVC_ACTION_OUTCOME_TIMEOUT * 1000,
  };
  try {
    await deps.temporal.startWorkflow(workflows.approvalWorkflow, { workflowId: doc.workflow_id, args: [input] });
  } catch (err) {
    // No workflow, no way to approve: the approval is denied at once (fail closed).
    const decidedAt = new Date();
    await insertDecision(deps.store, {
      _id: doc._id,
      decision: 'deny',
      reason: APPROVAL_START_FAILED,
      decided_by: null,
      decided_by_key_id: null,
      decided_at: decidedAt,
    }).catch(() => undefined);
    await updateApproval(deps.store, agent._id, seq, {
      state: 'denied',
      reason: APPROVAL_START_FAILED,
      decided_at: decidedAt,
    }).catch(() => undefined);
    await updateAction(deps.store, agent._id, actionId, { state: 'denied' }).catch(() => undefined);
    throw err;
  }
  ctx.status = 202;
  ctx.body = { ...body, approval_id: approvalId, action_id: actionId, expires_at: expiresAt.toISOString() };
}

/** Wakes the approval's workflow (the decision itself is the insert-once record already written). */
export async function signalDecision(deps: AppDeps, workflowId: string, nonce: string): Promise<boolean> {
  try {
    await deps.temporal.connection.withDeadline(Date.now() + 3000, () =>
      deps.temporal.client.workflow.getHandle(workflowId).signal(DECISION_SIGNAL, { nonce }),
    );
    return true;
  } catch (err) {
    // The decision stands; the workflow reads it at its time-out at the latest (docs/approvals.md).
    log.warn('approval signal not delivered', { workflow_id: workflowId, error: (err as Error)?.name });
    return false;
  }
}

/** Decided (what the agent waits for). */
export const isDecided = (d: ApprovalDoc) => d.state !== 'pending';
/** Decided and its audit entry written (what the decider's answer shows). */
export const isRecorded = (d: ApprovalDoc) => d.state !== 'pending' && d.decision_audit_log_id !== null;

/** The approval, re-read every 250 ms until `done` holds, `ms` have passed or the client left. */
export async function waitSettled(
  store: Store,
  agentId: string,
  seq: number,
  ms: number,
  ctx: Context,
  done: (d: ApprovalDoc) => boolean = isDecided,
): Promise<ApprovalDoc | null> {
  const until = Date.now() + ms;
  let doc = await getApproval(store, agentId, seq);
  let gone = false;
  const onClose = () => (gone = true);
  ctx.req.once('close', onClose);
  try {
    while (doc && !done(doc) && Date.now() < until && !gone) {
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, until - Date.now()))));
      doc = await getApproval(store, agentId, seq);
    }
  } finally {
    ctx.req.off('close', onClose);
  }
  return doc;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function approvalView(d: ApprovalDoc) {
  return {
    approval_id: d.approval_id,
    agent_id: d.agent_id,
    tool: d.tool,
    action_id: d.action_id,
    state: d.state,
    reason: d.reason,
    decided_by: d.decided_by,
    decided_at: iso(d.decided_at),
    requested_at: d.requested_at.toISOString(),
    expires_at: d.expires_at.toISOString(),
    timeout_seconds: d.timeout_seconds,
    risk_score: d.risk_score,
    reasons: d.reasons,
    attestation: d.attestation,
    workflow_id: d.workflow_id,
    request_workflow_id: d.request_workflow_id,
    request_audit_log_id: d.request_audit_log_id,
    decision_audit_log_id: d.decision_audit_log_id,
  };
}

export function actionView(d: ActionDoc) {
  return {
    action_id: d.action_id,
    agent_id: d.agent_id,
    tool: d.tool,
    state: d.state,
    approval_id: d.approval_id,
    workflow_id: d.workflow_id,
    created_at: d.created_at.toISOString(),
    outcome: d.outcome
      ? { status: d.outcome.status, detail: d.outcome.detail, reported_at: d.outcome.reported_at.toISOString() }
      : null,
    overdue_flagged_at: iso(d.overdue_flagged_at),
  };
}

/** svc_agent_actions_unreported_total: admitted or approved actions flagged for an outcome never reported (all organizations; one point lookup per scrape). */
export function registerUnreportedActionsMetric(store: Store): void {
  if (registry.getSingleMetric('svc_agent_actions_unreported_total')) return;
  new Gauge({
    name: 'svc_agent_actions_unreported_total',
    help: 'Admitted or approved agent actions whose outcome was not reported within SVC_ACTION_OUTCOME_TIMEOUT (counted by the workers in the store).',
    registers: [registry],
    async collect() {
      try {
        this.set(await overdueCount(store));
      } catch {
        // Store down: the scrape shows the last value rather than failing.
      }
    },
  });
}
