// Approvals of tool calls and the outcomes of agents' actions in the store (docs/approvals.md).
// Every query is a point lookup by `_id` (keys computable from the agent and a per-agent
// sequence number or the action id): on FerretDB any other filter reads the whole collection
// (docs/store-access.md §1). Decisions and outcomes are insert-once documents: the unique `_id`
// is what makes "decided once" and "reported once" hold under concurrent requests.
import { randomBytes } from 'node:crypto';
import { MongoServerError, type Collection } from 'mongodb';
import type { Store } from '../core/store.js';
import type { ActionOutcomeStatus, ApprovalDecisionKind, ApprovalState } from '../core/approval-workflow.js';
import { recordAgentActivity } from './agents.js';

export interface ApprovalDoc {
  _id: string; // `<agent_id>:<seq>`
  approval_id: string; // `apr_<seq>`
  seq: number;
  agent_id: string;
  agent_num: number;
  org_id: string;
  tool: string;
  action_id: string;
  /** The approval workflow's id. */
  workflow_id: string;
  /** The tool call's workflow and audit entry (the guard's checks). */
  request_workflow_id: string;
  request_audit_log_id: string;
  risk_score: number | null;
  reasons: string[];
  state: ApprovalState;
  timeout_seconds: number;
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  reason: string | null;
  attestation: { id: string; token: string } | null;
  decision_audit_log_id: string | null;
}

/** Insert-once: the first decision (a person's, or the time-out's) is the only one. */
export interface ApprovalDecisionDoc {
  _id: string; // `<agent_id>:<seq>`, as the approval
  decision: ApprovalDecisionKind;
  reason: string;
  decided_by: string | null;
  decided_by_key_id: string | null;
  decided_at: Date;
}

export type ActionState = 'admitted' | 'pending_approval' | 'approved' | 'denied' | 'expired';

export interface ActionDoc {
  _id: string; // `<agent_id>:<action_id>`
  action_id: string;
  agent_id: string;
  org_id: string;
  tool: string;
  state: ActionState;
  approval_id: string | null;
  /** The tool call's workflow. */
  workflow_id: string;
  created_at: Date;
  outcome: { status: ActionOutcomeStatus; detail: string | null; reported_at: Date } | null;
  /** Set when no outcome was reported within SVC_ACTION_OUTCOME_TIMEOUT of admission/approval. */
  overdue_flagged_at: Date | null;
}

/** Insert-once: an action's outcome is reported once. */
export interface ActionOutcomeDoc {
  _id: string; // `<agent_id>:<action_id>`
  status: ActionOutcomeStatus;
  detail: string | null;
  reported_at: Date;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

const approvals = (s: Store): Collection<ApprovalDoc> => s.collection<ApprovalDoc>('agent_approvals');
const decisions = (s: Store): Collection<ApprovalDecisionDoc> =>
  s.collection<ApprovalDecisionDoc>('agent_approval_decisions');
const actions = (s: Store): Collection<ActionDoc> => s.collection<ActionDoc>('agent_actions');
const outcomes = (s: Store): Collection<ActionOutcomeDoc> => s.collection<ActionOutcomeDoc>('agent_action_outcomes');
const counters = (s: Store): Collection<CounterDoc> => s.collection<CounterDoc>('counters');

export const approvalKey = (agentId: string, seq: number) => `${agentId}:${seq}`;
export const actionKey = (agentId: string, actionId: string) => `${agentId}:${actionId}`;
export const APPROVAL_ID_RE = /^apr_([1-9][0-9]{0,14})$/;
export const ACTION_ID_RE = /^acn_[0-9a-f]{32}$/;
export const newActionId = () => `acn_${randomBytes(16).toString('hex')}`;
/** `apr_<seq>` → seq, or null for anything else. */
export function approvalSeq(approvalId: string): number | null {
  const m = APPROVAL_ID_RE.exec(approvalId);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** Next approval number of an agent. Key: counters `approvals:<agent_id>` ($inc upsert). */
export async function nextApprovalSeq(store: Store, agentId: string): Promise<number> {
  const doc = await counters(store).findOneAndUpdate(
    { _id: `approvals:${agentId}` },
    { $inc: { seq: 1 } },
    { upsert: true, returnDocument: 'after' },
  );
  if (!doc) throw new Error('approval counter unavailable');
  return doc.seq;
}

/** Highest approval number of an agent (0: none). Key: counters `approvals:<agent_id>`. */
export async function approvalHead(store: Store, agentId: string): Promise<number> {
  return (await counters(store).findOne({ _id: `approvals:${agentId}` }))?.seq ?? 0;
}

/** Key: agent_approvals `_id` (insert). */
export async function insertApproval(store: Store, doc: ApprovalDoc): Promise<void> {
  await approvals(store).insertOne(doc);
}

/** How many numbers one request tries before it fails (each loser of a race takes the next one). */
const APPROVAL_SEQ_ATTEMPTS = 16;

/**
 * Inserts the agent's next approval, built by `build` for its number. FerretDB runs the counter's
 * `$inc` as read-modify-write and handed two concurrent callers one number (32 of 50 pairs,
 * session 13): the unique `_id` (`<agent_id>:<seq>`) of the insert decides, and a loser takes the
 * next number. Keys: counters `approvals:<agent_id>`, agent_approvals `_id` (insert).
 */
export async function insertNextApproval(
  store: Store,
  agentId: string,
  build: (seq: number) => ApprovalDoc,
): Promise<ApprovalDoc> {
  for (let attempt = 1; ; attempt++) {
    const doc = build(await nextApprovalSeq(store, agentId));
    try {
      await insertApproval(store, doc);
      return doc;
    } catch (err) {
      if (!isDuplicate(err) || attempt >= APPROVAL_SEQ_ATTEMPTS) throw err;
    }
  }
}

/** Key: agent_approvals `_id`. */
export async function getApproval(store: Store, agentId: string, seq: number): Promise<ApprovalDoc | null> {
  return approvals(store).findOne({ _id: approvalKey(agentId, seq) });
}

/** Key: agent_approvals `_id` (the approval workflow is its only writer after the insert). */
export async function updateApproval(
  store: Store,
  agentId: string,
  seq: number,
  set: Partial<Omit<ApprovalDoc, '_id'>>,
): Promise<void> {
  await approvals(store).updateOne({ _id: approvalKey(agentId, seq) }, { $set: set });
}

/** At most this many approvals are looked at by one list request (point lookups, newest first). */
export const LIST_SCAN_MAX = 500;
const LIST_BATCH = 25;

/**
 * An agent's approvals, newest first, from the number below `before` (or the head) down,
 * keeping those in `state`: bounded to LIST_SCAN_MAX point lookups of computable keys
 * (`<agent_id>:<seq>`). `next_before` is where the next page starts (null: nothing older).
 */
export async function listApprovals(
  store: Store,
  agentId: string,
  opts: { state: ApprovalState | null; limit: number; before: number | null },
): Promise<{ items: ApprovalDoc[]; next_before: number | null }> {
  const head = await approvalHead(store, agentId);
  let seq = Math.min(head, (opts.before ?? head + 1) - 1);
  const items: ApprovalDoc[] = [];
  let looked = 0;
  while (seq >= 1 && items.length < opts.limit && looked < LIST_SCAN_MAX) {
    const batch: number[] = [];
    for (let s = seq; s >= 1 && batch.length < LIST_BATCH && looked + batch.length < LIST_SCAN_MAX; s--) batch.push(s);
    const docs = await Promise.all(batch.map((s) => getApproval(store, agentId, s)));
    for (let i = 0; i < batch.length; i++) {
      looked++;
      seq = (batch[i] as number) - 1;
      const d = docs[i];
      if (d && (opts.state === null || d.state === opts.state)) items.push(d);
      if (items.length >= opts.limit) break;
    }
  }
  return { items, next_before: seq >= 1 ? seq + 1 : null };
}

/** Insert-once decision. Key: agent_approval_decisions `_id`. Returns the decision that stands. */
export async function insertDecision(
  store: Store,
  doc: ApprovalDecisionDoc,
): Promise<{ inserted: boolean; doc: ApprovalDecisionDoc }> {
  try {
    await decisions(store).insertOne(doc);
    return { inserted: true, doc };
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    const existing = await decisions(store).findOne({ _id: doc._id });
    if (!existing) throw err;
    return { inserted: false, doc: existing };
  }
}

/** Key: agent_approval_decisions `_id`. */
export async function getDecision(store: Store, agentId: string, seq: number): Promise<ApprovalDecisionDoc | null> {
  return decisions(store).findOne({ _id: approvalKey(agentId, seq) });
}

/** Key: agent_actions `_id` (insert; idempotent for the same action). */
export async function insertAction(store: Store, doc: ActionDoc): Promise<void> {
  try {
    await actions(store).insertOne(doc);
  } catch (err) {
    if (!isDuplicate(err)) throw err;
  }
}

/** Key: agent_actions `_id`. */
export async function getAction(store: Store, agentId: string, actionId: string): Promise<ActionDoc | null> {
  return actions(store).findOne({ _id: actionKey(agentId, actionId) });
}

/** Key: agent_actions `_id`. */
export async function updateAction(
  store: Store,
  agentId: string,
  actionId: string,
  set: Partial<Omit<ActionDoc, '_id'>>,
): Promise<void> {
  await actions(store).updateOne({ _id: actionKey(agentId, actionId) }, { $set: set });
}

/** Insert-once outcome, then joined onto the action. Keys: agent_action_outcomes and agent_actions `_id`. */
export async function reportOutcome(
  store: Store,
  agentId: string,
  actionId: string,
  status: ActionOutcomeStatus,
  detail: string | null,
  now = new Date(),
): Promise<'reported' | 'already_reported'> {
  const _id = actionKey(agentId, actionId);
  try {
    await outcomes(store).insertOne({ _id, status, detail, reported_at: now });
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    // A report whose join did not land (a crash between the writes) is joined now.
    const existing = await outcomes(store).findOne({ _id });
    if (existing)
      await updateAction(store, agentId, actionId, {
        outcome: { status: existing.status, detail: existing.detail, reported_at: existing.reported_at },
      });
    return 'already_reported';
  }
  await updateAction(store, agentId, actionId, { outcome: { status, detail, reported_at: now } });
  return 'reported';
}

/** Key: agent_action_outcomes `_id`. */
export async function getOutcome(store: Store, agentId: string, actionId: string): Promise<ActionOutcomeDoc | null> {
  return outcomes(store).findOne({ _id: actionKey(agentId, actionId) });
}

/** Counters of actions that ran unreported. Keys: `agent_action_counters` `outcome_overdue` and `outcome_overdue:<org_id>` ($inc upsert). */
export async function countOverdue(store: Store, orgId: string): Promise<void> {
  const c = store.collection<{ _id: string; count: number }>('agent_action_counters');
  await Promise.all([
    c.updateOne({ _id: 'outcome_overdue' }, { $inc: { count: 1 } }, { upsert: true }),
    c.updateOne({ _id: `outcome_overdue:${orgId}` }, { $inc: { count: 1 } }, { upsert: true }),
  ]);
}

/** Key: agent_action_counters `outcome_overdue` or `outcome_overdue:<org_id>`. */
export async function overdueCount(store: Store, orgId: string | null = null): Promise<number> {
  const c = store.collection<{ _id: string; count: number }>('agent_action_counters');
  return (await c.findOne({ _id: orgId ? `outcome_overdue:${orgId}` : 'outcome_overdue' }))?.count ?? 0;
}

/**
 * One item of the agent's activity feed (GET /agents/{id}/activity), written through the feed's
 * own append (persistence/agents.ts recordAgentActivity: the next position of the agent, once per
 * `key`, so a retried write finds its record). Key: agent_activity `act_<agent><position>`.
 */
export async function recordFeedItem(
  store: Store,
  item: {
    key: string;
    at: Date;
    agent_id: string;
    org_id: string;
    kind: 'approval' | 'outcome' | 'outcome_overdue';
    status: string;
    summary: string;
    workflow_id: string;
    audit_log_id: string;
    tool: string | null;
  },
): Promise<string> {
  const { id } = await recordAgentActivity(
    store,
    {
      agent_id: item.agent_id,
      org_id: item.org_id,
      kind: item.kind,
      status: item.status,
      summary: item.summary,
      workflow_id: item.workflow_id,
      audit_log_id: item.audit_log_id,
      conversation_id: null,
      step_number: null,
      tool: item.tool,
      engine: null,
      findings: [],
    },
    `${item.workflow_id}#${item.key}`,
    item.at,
  );
  return id;
}
