// Durable approvals of tool calls and action outcomes (docs/approvals.md). Owners and admins of
// the agent's organization list and decide approvals with an API key; the agent reads (or long-
// polls) its own approvals and reports its actions' outcomes with its agent token. A decision is
// an insert-once record (decided once, whoever races), then a signal wakes the approval workflow.
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { actionIdSchema } from '../../contract/agent-approvals.js';
import { Agents, type AgentDoc } from '../../core/agents.js';
import {
  getAction,
  getApproval,
  approvalSeq,
  insertDecision,
  listApprovals,
  recordFeedItem,
  reportOutcome,
} from '../../core/approvals-store.js';
import { HttpError } from '../errors.js';
import { principalOf, requireAdminKey } from '../middleware/auth.js';
import { planLimit } from '../middleware/rate-limit.js';
import { agentOf, agentTokenGuard } from '../agent-auth.js';
import {
  actionView,
  approvalView,
  isRecorded,
  registerUnreportedActionsMetric,
  signalDecision,
  waitSettled,
} from '../agent-actions.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

export const AGENT_NOT_FOUND = 'Agent not found.';
export const APPROVAL_NOT_FOUND = 'Approval not found.';
export const ACTION_NOT_FOUND = 'Action not found.';
export const alreadyDecided = (state: string) =>
  `Approval already decided: ${state}. A decided approval cannot be decided again.`;
export const OUTCOME_ALREADY_REPORTED = 'The outcome of this action was already reported.';
export const notAdmitted = (state: string) =>
  `Only an admitted or approved action has an outcome; this action is ${state.replace('_', ' ')}.`;
/** How long POST …/approvals/{id} waits for the workflow to settle the decision it recorded. */
const DECIDE_SETTLE_MS = 10_000;

export function agentApprovalHandlers(deps: AppDeps) {
  const agents = new Agents(deps.store, deps.cfg.SVC_API_KEY_LOOKUP_SECRET as string);
  const requireAgent = agentTokenGuard(deps, agents);
  const deciders = requireAdminKey(deps, ['owner', 'admin']);
  registerUnreportedActionsMetric(deps.store);

  /** The agent of the path (`{id}`) in the caller's organization (another organization's: 404). */
  async function orgAgent(ctx: Context, id: string): Promise<AgentDoc> {
    const num = Number(id);
    const agent = Number.isSafeInteger(num) && num >= 1 ? await agents.findByNum(principalOf(ctx).orgId, num) : null;
    if (!agent) throw new HttpError(404, AGENT_NOT_FOUND);
    return agent;
  }
  /** The approval's sequence number from its path id (`{approval_id}`); a malformed one: 404. */
  const seqOf = (approvalId: string): number => {
    const seq = approvalSeq(approvalId);
    if (seq === null) throw new HttpError(404, APPROVAL_NOT_FOUND);
    return seq;
  };

  // GET /agents/{id}/approvals?state=&limit=&cursor=: owners and admins.
  const listAgentApprovals = endpoint(
    'listAgentApprovals',
    [deciders, planLimit(deps.counter, 'account')],
    async (ctx, req) => {
      const q = req.query(); // approvalListQuerySchema: a bad parameter is a 400 naming it
      const agent = await orgAgent(ctx, req.params.id);
      const page = await listApprovals(deps.store, agent._id, {
        state: q.state ?? null,
        limit: q.limit,
        before: q.cursor ? Number(q.cursor) : null,
      });
      ctx.body = {
        agent_id: agent._id,
        items: page.items.map(approvalView),
        next_cursor: page.next_before === null ? null : String(page.next_before),
      };
    },
  );

  // GET /agents/{id}/approvals/{approval_id}?wait=: the agent (X-Agent-Token), or an owner or admin (X-API-Key).
  const agentOrDecider = async (ctx: Context, next: () => Promise<unknown>) =>
    ctx.get('X-Agent-Token') ? requireAgent(ctx, next) : deciders(ctx, next);
  const getAgentApproval = endpoint(
    'getAgentApproval',
    [agentOrDecider, planLimit(deps.counter, 'account')],
    async (ctx, req) => {
      const { wait } = req.query(); // approvalWaitQuerySchema: ?wait=<0-60>, else a 400 naming it
      const agent = ctx.state.agent ? agentOf(ctx) : await orgAgent(ctx, req.params.id);
      const seq = seqOf(req.params.approval_id);
      const doc = await waitSettled(deps.store, agent._id, seq, wait * 1000, ctx);
      if (!doc) throw new HttpError(404, APPROVAL_NOT_FOUND);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = approvalView(doc);
    },
  );

  // POST /agents/{id}/approvals/{approval_id} {decision, reason}: owners and admins, once.
  const decideAgentApproval = endpoint(
    'decideAgentApproval',
    [deciders, planLimit(deps.counter, 'account')],
    async (ctx, req) => {
      const agent = await orgAgent(ctx, req.params.id);
      const seq = seqOf(req.params.approval_id);
      const decision = req.body(); // a body that fails decideApprovalRequestSchema: 422 (the row's invalidStatus)
      const doc = await getApproval(deps.store, agent._id, seq);
      if (!doc) throw new HttpError(404, APPROVAL_NOT_FOUND);
      if (doc.state !== 'pending')
        throw new HttpError(
          409,
          alreadyDecided(doc.state),
          {},
          { detail: alreadyDecided(doc.state), state: doc.state },
        );
      const now = new Date();
      // Past the time-out the workflow denies it (it may not have run yet): too late to decide.
      if (now.getTime() >= doc.expires_at.getTime())
        throw new HttpError(
          409,
          alreadyDecided('expired'),
          {},
          { detail: alreadyDecided('expired'), state: 'expired' },
        );
      const p = principalOf(ctx);
      const r = await insertDecision(deps.store, {
        _id: doc._id,
        decision: decision.decision,
        reason: decision.reason,
        decided_by: p.userId,
        decided_by_key_id: p.keyId,
        decided_at: now,
      });
      if (!r.inserted) {
        const state = r.doc.decision === 'approve' ? 'approved' : r.doc.decision === 'deny' ? 'denied' : 'expired';
        throw new HttpError(409, alreadyDecided(state), {}, { detail: alreadyDecided(state), state });
      }
      await signalDecision(deps, doc.workflow_id, randomUUID());
      const settled = (await waitSettled(deps.store, agent._id, seq, DECIDE_SETTLE_MS, ctx, isRecorded)) ?? doc;
      ctx.set('Cache-Control', 'no-store');
      // 202: the decision is recorded (a second one is 409) but the workflow has not applied it yet
      // (no worker running): the agent's wait returns it once a worker is back.
      ctx.status = settled.state === 'pending' ? 202 : 200;
      ctx.body = approvalView(settled);
    },
  );

  // POST /agents/{id}/actions/{action_id}/outcome {status, detail?}: the agent, once per admitted or approved action.
  const reportActionOutcome = endpoint(
    'reportActionOutcome',
    [requireAgent, planLimit(deps.counter, 'account')],
    async (ctx, req) => {
      const agent = agentOf(ctx);
      if (!actionIdSchema.safeParse(req.params.action_id).success) throw new HttpError(404, ACTION_NOT_FOUND);
      const outcome = req.body(); // a body that fails reportOutcomeRequestSchema: 422 (the row's invalidStatus)
      const actionId = req.params.action_id;
      const action = await getAction(deps.store, agent._id, actionId);
      if (!action) throw new HttpError(404, ACTION_NOT_FOUND);
      if (action.state !== 'admitted' && action.state !== 'approved')
        throw new HttpError(
          409,
          notAdmitted(action.state),
          {},
          { detail: notAdmitted(action.state), state: action.state },
        );
      const detail = outcome.detail ?? null;
      const now = new Date();
      if ((await reportOutcome(deps.store, agent._id, actionId, outcome.status, detail, now)) === 'already_reported')
        throw new HttpError(409, OUTCOME_ALREADY_REPORTED);
      await recordFeedItem(deps.store, {
        key: `outcome:${agent._id}:${actionId}`,
        at: now,
        agent_id: agent._id,
        org_id: agent.org_id,
        kind: 'outcome',
        status: outcome.status.toUpperCase(),
        summary:
          `action ${actionId} (tool ${action.tool}) ${outcome.status}${action.overdue_flagged_at ? ' (reported after it was flagged as unreported)' : ''}`.slice(
            0,
            300,
          ),
        workflow_id: action.workflow_id,
        audit_log_id: '',
        tool: action.tool,
      });
      const joined = await getAction(deps.store, agent._id, actionId);
      ctx.body = actionView(joined ?? action);
    },
  );
  return { listAgentApprovals, getAgentApproval, decideAgentApproval, reportActionOutcome };
}
