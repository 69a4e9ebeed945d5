// Activities of the approval and action-outcome workflows (workflows/approval.ts,
// docs/approvals.md): settle an approval from its insert-once decision record (a person's, or
// the time-out's), sign its attestation, record it in the agent's feed, and flag an admitted
// action whose outcome was never reported. Idempotent: each may be retried after a crash.
import { createHash } from 'node:crypto';
import type { Store } from '../core/store.js';
import { AttestationError, type AttestationSigner } from '../core/attestation.js';
import { recordAttestation } from '../persistence/proofs.js';
import {
  TIMEOUT_REASON,
  approvalClaim,
  stateOf,
  type FinalizedApproval,
  type FlagUnreportedInput,
  type RecordApprovalInput,
  type SettleApprovalInput,
} from '../core/approval-workflow.js';
import {
  countOverdue,
  getAction,
  getApproval,
  getDecision,
  getOutcome,
  insertDecision,
  recordFeedItem,
  updateAction,
  updateApproval,
} from '../persistence/approvals.js';
import { logger } from '../core/logger.js';

const log = logger('approvals');

export interface ApprovalActivityDeps {
  store: Store;
  signer: AttestationSigner;
}

const sha256 = (s: string) => `sha256:${createHash('sha256').update(s, 'utf8').digest('hex')}`;

export function makeApprovalActivities(deps: ApprovalActivityDeps) {
  /** The decision that stands (null: woken without one), attested and written to the approval and its action. */
  async function settleApprovalActivity(req: SettleApprovalInput): Promise<FinalizedApproval | null> {
    const a = req.input;
    const stored = req.timed_out
      ? (
          await insertDecision(deps.store, {
            _id: `${a.agent_id}:${a.seq}`,
            decision: 'expire',
            reason: TIMEOUT_REASON,
            decided_by: null,
            decided_by_key_id: null,
            decided_at: new Date(),
          })
        ).doc
      : await getDecision(deps.store, a.agent_id, a.seq);
    if (!stored) return null;
    const state = stateOf(stored.decision);
    const decidedAt = stored.decided_at.toISOString();
    const claim = approvalClaim(a, state, decidedAt);
    const current = await getApproval(deps.store, a.agent_id, a.seq);
    // A retry after the write below keeps the attestation already issued.
    let attestation = current?.state === state ? current.attestation : null;
    if (!attestation) {
      try {
        const issued = await deps.signer.sign({
          evaluatedExpression: claim,
          status: state.toUpperCase(),
          // A person's decision is not a proof: never VERIFIED, whatever it says.
          verified: false,
          engine: 'agent-approval',
          confidence: 1,
          proofRef: null,
          admission: state === 'approved' ? 'ADMIT' : 'BLOCKED',
        });
        await recordAttestation(deps.store, issued, { orgId: a.org_id, engine: 'agent-approval', proofRef: null });
        attestation = { id: issued.jti, token: issued.token };
      } catch (err) {
        if (!(err instanceof AttestationError)) throw err;
        // The decision stands without a token (the agent then has nothing to present).
        log.warn('approval attestation not signed', { code: err.code });
      }
    }
    await updateApproval(deps.store, a.agent_id, a.seq, {
      state,
      decided_at: stored.decided_at,
      decided_by: stored.decided_by,
      reason: stored.reason,
      attestation,
    });
    await updateAction(deps.store, a.agent_id, a.action_id, { state });
    return {
      state,
      decision: {
        decision: stored.decision,
        reason: stored.reason,
        decided_by: stored.decided_by,
        decided_by_key_id: stored.decided_by_key_id,
        decided_at: decidedAt,
      },
      attestation_id: attestation?.id ?? null,
      claim,
      request_digest: sha256(claim),
    };
  }

  /** The decision's audit entry joined to the approval, and the decision in the agent's activity feed. */
  async function recordApprovalActivity(req: RecordApprovalInput): Promise<void> {
    const a = req.input;
    const s = req.settled;
    await updateApproval(deps.store, a.agent_id, a.seq, { decision_audit_log_id: req.audit_log_id });
    const who = s.decision.decided_by ? `by ${s.decision.decided_by}` : 'by the time-out';
    await recordFeedItem(deps.store, {
      key: `approval:${a.agent_id}:${a.seq}`,
      at: new Date(s.decision.decided_at),
      agent_id: a.agent_id,
      org_id: a.org_id,
      kind: 'approval',
      status: s.state.toUpperCase(),
      summary: `${a.approval_id} ${s.state} ${who} (tool ${a.tool}, action ${a.action_id}): ${s.decision.reason}`.slice(
        0,
        300,
      ),
      workflow_id: req.workflow_id,
      audit_log_id: req.audit_log_id,
      tool: a.tool,
    });
  }

  /** At the end of an action's outcome timer: flags it (feed item, counters) unless its outcome was reported. */
  async function flagUnreportedActionActivity(req: FlagUnreportedInput): Promise<{ flagged: boolean }> {
    if (await getOutcome(deps.store, req.agent_id, req.action_id)) return { flagged: false };
    const action = await getAction(deps.store, req.agent_id, req.action_id);
    if (!action) return { flagged: false };
    if (!action.overdue_flagged_at) {
      // Flag first, then count: a retry after a crash between the two under-counts by one, never twice.
      await updateAction(deps.store, req.agent_id, req.action_id, { overdue_flagged_at: new Date(req.flagged_at) });
      await countOverdue(deps.store, req.org_id);
    }
    await recordFeedItem(deps.store, {
      key: `outcome_overdue:${req.agent_id}:${req.action_id}`,
      at: new Date(req.flagged_at),
      agent_id: req.agent_id,
      org_id: req.org_id,
      kind: 'outcome_overdue',
      status: 'UNREPORTED',
      summary: `action ${req.action_id} (tool ${req.tool}) was ${action.state} but no outcome was reported in time`,
      workflow_id: req.workflow_id,
      audit_log_id: '',
      tool: req.tool,
    });
    return { flagged: true };
  }

  return { settleApprovalActivity, recordApprovalActivity, flagUnreportedActionActivity };
}
