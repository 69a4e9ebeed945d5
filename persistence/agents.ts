// Agents in the store (persistence/README.md): registration records (token kept only as an HMAC
// lookup digest), per-agent usage counters (requests per clock hour, cost per UTC day),
// tool-definition pins and the agent's activity records. Every read is by `_id`: the token
// digest and the organization's agent number are pointer documents (`agent_tokens`,
// `agent_nums`), and activity records sit at positions `{agent}#{seq}` counted per agent, so a
// page is a run of point lookups (docs/store-access.md §5).
import { createHash, randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { Store } from '../core/store.js';
import { generateAgentToken, lookupDigest, maskApiKey } from '../core/api-keys.js';
import { normalizeToolName } from '../contract/tool-names.js';
import type { A2aMessageRecord } from '../core/a2a-workflow.js';

export type AgentStatus = 'active' | 'revoked';

export interface AgentDoc {
  _id: string; // agent_id, `agt_<hex>`
  num: number; // the integer id used in paths
  org_id: string;
  created_by_user_id: string | null;
  created_by_key_id: string | null;
  name: string;
  agent_type: string;
  description: string | null;
  permissions: {
    allowed_tools: string[];
    denied_tools: string[];
    allowed_domains: string[];
    require_approval?: string[];
    approval_timeout_seconds?: number;
  };
  max_requests_per_hour: number;
  max_cost_per_day: number;
  status: AgentStatus;
  token_digest: string;
  token_preview: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface AgentUsageDoc {
  _id: string; // `<agent_id>:h:<hour start>` or `<agent_id>:d:<yyyy-mm-dd>`
  agent_id: string;
  requests: number;
  /** Cost in micro-dollars (integers: exact sums). */
  cost_micro_usd: number;
  expires_at: Date;
}

export interface ToolPinDoc {
  _id: string; // `<agent_id>:<normalised tool name>` (contract/agents.ts normalizeToolName)
  agent_id: string;
  org_id: string;
  tool: string; // normalised
  pinned_hash: string;
  /** Definitions seen after the pin that differ from it (awaiting approval). */
  pending_hashes: string[];
  pinned_at: Date;
  approved_by: string | null;
}

export interface AgentActivityDoc {
  _id: string; // activityId(agent_id, seq): `act_<20 hex of the agent><8 hex seq>`
  /** The position in the agent's activity (1, 2, …); absent on records written before positions. */
  seq?: number;
  /** A position given up by a duplicate record of one workflow (readers skip it). */
  void?: boolean;
  agent_id: string;
  org_id: string;
  kind: 'verify' | 'tool' | 'approval' | 'outcome' | 'outcome_overdue';
  status: string;
  summary: string;
  workflow_id: string;
  audit_log_id: string;
  conversation_id: string | null;
  step_number: number | null;
  tool: string | null;
  engine: string | null;
  findings: Array<Record<string, string>>;
  created_at: Date;
}

/** `{_id: token digest, agent_id}` and `{_id: org#num, agent_id}`: the two ways a request names an agent. */
export interface AgentPointerDoc {
  _id: string;
  agent_id: string;
}

/** `{_id: workflow id, activity_id}`: one activity record per agent workflow (the record's idempotence). */
export interface ActivityWorkflowDoc {
  _id: string;
  agent_id: string;
  activity_id: string;
}

// Declared indexes: the unique ones guard direct writes; no query uses them (every read is by `_id`).
Store.registerIndexes(async (store) => {
  await store.collection('agents').createIndex({ token_digest: 1 }, { unique: true });
  await store.collection('agents').createIndex({ num: 1 }, { unique: true });
  await store.ttlIndex('agent_usage', 'expires_at');
});

/** The public and stored id of an agent's `seq`-th activity record: computable, so pages are point lookups. */
export function activityId(agentId: string, seq: number): string {
  const agent = createHash('sha256').update(agentId).digest('hex').slice(0, 20);
  return `act_${agent}${seq.toString(16).padStart(8, '0')}`;
}

/** The position an activity id names for this agent, or null (another agent's id, or a record from before positions). */
export function activitySeq(agentId: string, id: string): number | null {
  const prefix = activityId(agentId, 0).slice(0, 24);
  if (!id.startsWith(prefix) || id.length !== 32) return null;
  const seq = Number.parseInt(id.slice(24), 16);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** Agent ids by token digest, for this process: the pointer never changes (the agent document is still read each time). */
const tokenPointers = new Map<string, string>();

/** Price of one agent request in micro-dollars (docs/agents.md): deterministic engines, no provider calls. */
export const PRICE_PER_REQUEST_MICRO_USD = 1000; // 0.001 USD

export function hourStart(now: number): number {
  return now - (now % 3_600_000);
}
export function dayKey(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/**
 * An upsert that concurrent first writers race: the store inserts the document for one of them
 * and answers the others E11000 (duplicate key). The document exists by then, so the loser's
 * retry is a plain update (six concurrent first requests of an agent in a new hour used to
 * answer one of them 500).
 */
export async function upsertRetryingDuplicate<T>(upsert: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await upsert();
    } catch (err) {
      if (attempt >= attempts || !(err instanceof MongoServerError && err.code === 11000)) throw err;
    }
  }
}

export interface UsageSnapshot {
  requestsThisHour: number;
  costTodayMicroUsd: number;
  hourResetAt: number; // unix seconds
  dayResetAt: number; // unix seconds
}

export class Agents {
  constructor(
    readonly store: Store,
    private readonly lookupSecret: string,
  ) {}

  get agents(): Collection<AgentDoc> {
    return this.store.collection<AgentDoc>('agents');
  }
  get usage(): Collection<AgentUsageDoc> {
    return this.store.collection<AgentUsageDoc>('agent_usage');
  }
  get pins(): Collection<ToolPinDoc> {
    return this.store.collection<ToolPinDoc>('agent_tool_pins');
  }
  get activity(): Collection<AgentActivityDoc> {
    return this.store.collection<AgentActivityDoc>('agent_activity');
  }
  get tokens(): Collection<AgentPointerDoc> {
    return this.store.collection<AgentPointerDoc>('agent_tokens');
  }
  get nums(): Collection<AgentPointerDoc> {
    return this.store.collection<AgentPointerDoc>('agent_nums');
  }

  /** `counters {_id: 'agents'}` `$inc` (bounded). FerretDB may hand two callers one number: the unique `num` index of the insert decides. */
  private async nextNum(): Promise<number> {
    const doc = await this.store
      .collection<{ _id: string; seq: number }>('counters')
      .findOneAndUpdate({ _id: 'agents' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (!doc) throw new Error('agent counter unavailable');
    return doc.seq;
  }

  /** Creates an agent; returns the record and the token (shown once, never stored). */
  async register(
    fields: Omit<AgentDoc, '_id' | 'num' | 'status' | 'token_digest' | 'token_preview' | 'created_at' | 'revoked_at'>,
  ): Promise<{ doc: AgentDoc; token: string }> {
    for (let attempt = 0; ; attempt++) {
      const token = generateAgentToken();
      const doc: AgentDoc = {
        ...fields,
        _id: `agt_${randomBytes(12).toString('hex')}`,
        num: await this.nextNum(),
        status: 'active',
        token_digest: lookupDigest(token, this.lookupSecret),
        token_preview: maskApiKey(token),
        created_at: new Date(),
        revoked_at: null,
      };
      // The agent first (its unique `num` index decides a number handed out twice), then its pointers.
      try {
        await this.agents.insertOne(doc);
      } catch (err) {
        if (attempt < 3 && isDuplicate(err)) continue;
        throw err;
      }
      try {
        await this.nums.insertOne({ _id: `${doc.org_id}#${doc.num}`, agent_id: doc._id });
        await this.tokens.insertOne({ _id: doc.token_digest, agent_id: doc._id });
      } catch (err) {
        await this.nums.deleteOne({ _id: `${doc.org_id}#${doc.num}` }).catch(() => undefined);
        await this.agents.deleteOne({ _id: doc._id }).catch(() => undefined);
        if (attempt < 3 && isDuplicate(err)) continue;
        throw err;
      }
      return { doc, token };
    }
  }

  /** `agent_tokens {_id: digest}` (cached in the process) then `agents {_id}`, the digest compared here. */
  async findByToken(token: string): Promise<AgentDoc | null> {
    const digest = lookupDigest(token, this.lookupSecret);
    let agentId = tokenPointers.get(digest);
    if (!agentId) {
      const pointer = await this.tokens.findOne({ _id: digest });
      if (!pointer) return null;
      agentId = pointer.agent_id;
      if (tokenPointers.size >= 10_000) tokenPointers.clear();
      tokenPointers.set(digest, agentId);
    }
    const doc = await this.agents.findOne({ _id: agentId });
    return doc && doc.token_digest === digest ? doc : null;
  }

  /** `agent_nums {_id: org#num}` then `agents {_id}`, organization and number compared here. */
  async findByNum(orgId: string, num: number): Promise<AgentDoc | null> {
    const pointer = await this.nums.findOne({ _id: `${orgId}#${num}` });
    if (!pointer) return null;
    const doc = await this.agents.findOne({ _id: pointer.agent_id });
    return doc && doc.org_id === orgId && doc.num === num ? doc : null;
  }

  /** findByNum, then `agents {_id}` `$set`: the revoked record, or null when there is no active agent of that number. */
  async revoke(orgId: string, num: number): Promise<AgentDoc | null> {
    const doc = await this.findByNum(orgId, num);
    if (!doc || doc.status !== 'active') return null;
    const revokedAt = new Date();
    // Two concurrent revocations both answer the revoked record: the end state is the same.
    await this.agents.updateOne({ _id: doc._id }, { $set: { status: 'revoked', revoked_at: revokedAt } });
    return { ...doc, status: 'revoked', revoked_at: revokedAt };
  }

  /** Counts one request (and its price) against the agent's current hour and day. */
  async charge(agentId: string, now = Date.now()): Promise<UsageSnapshot> {
    const h = hourStart(now);
    const d = dayKey(now);
    const dayEnd = Date.parse(`${d}T00:00:00.000Z`) + 86_400_000;
    const [hour, day] = await Promise.all([
      upsertRetryingDuplicate(() =>
        this.usage.findOneAndUpdate(
          { _id: `${agentId}:h:${h}` },
          {
            $inc: { requests: 1, cost_micro_usd: PRICE_PER_REQUEST_MICRO_USD },
            $setOnInsert: { agent_id: agentId, expires_at: new Date(h + 3_600_000 + 60_000) },
          },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
      upsertRetryingDuplicate(() =>
        this.usage.findOneAndUpdate(
          { _id: `${agentId}:d:${d}` },
          {
            $inc: { requests: 1, cost_micro_usd: PRICE_PER_REQUEST_MICRO_USD },
            $setOnInsert: { agent_id: agentId, expires_at: new Date(dayEnd + 60_000) },
          },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    ]);
    return {
      requestsThisHour: hour?.requests ?? 0,
      costTodayMicroUsd: day?.cost_micro_usd ?? 0,
      hourResetAt: Math.floor((h + 3_600_000) / 1000),
      dayResetAt: Math.floor(dayEnd / 1000),
    };
  }

  /** Undoes a charge that was refused (over a limit), so refused requests do not count. */
  async refund(agentId: string, now = Date.now()): Promise<void> {
    const dec = { $inc: { requests: -1, cost_micro_usd: -PRICE_PER_REQUEST_MICRO_USD } };
    await Promise.all([
      this.usage.updateOne({ _id: `${agentId}:h:${hourStart(now)}` }, dec),
      this.usage.updateOne({ _id: `${agentId}:d:${dayKey(now)}` }, dec),
    ]);
  }

  async usageOf(agentId: string, now = Date.now()): Promise<UsageSnapshot> {
    const h = hourStart(now);
    const d = dayKey(now);
    const dayEnd = Date.parse(`${d}T00:00:00.000Z`) + 86_400_000;
    const [hour, day] = await Promise.all([
      this.usage.findOne({ _id: `${agentId}:h:${h}` }),
      this.usage.findOne({ _id: `${agentId}:d:${d}` }),
    ]);
    return {
      requestsThisHour: hour?.requests ?? 0,
      costTodayMicroUsd: day?.cost_micro_usd ?? 0,
      hourResetAt: Math.floor((h + 3_600_000) / 1000),
      dayResetAt: Math.floor(dayEnd / 1000),
    };
  }

  /**
   * Most recent first; `cursor` is the id of the last item of the previous page. Positions
   * below the cursor (or from the top) read by `{_id}` in parallel runs of `limit`; positions
   * given up (`void`) or of another agent are skipped.
   */
  async listActivity(agentId: string, limit: number, cursor?: string): Promise<AgentActivityDoc[]> {
    let from: number;
    if (cursor) {
      const seq = activitySeq(agentId, cursor);
      if (seq === null) return [];
      from = seq - 1;
    } else {
      from = await activityTop(this.store, agentId);
    }
    const out: AgentActivityDoc[] = [];
    while (from >= 1 && out.length < limit) {
      const run = Array.from({ length: Math.min(limit - out.length, from) }, (_, i) => from - i);
      const docs = await Promise.all(run.map((seq) => this.activity.findOne({ _id: activityId(agentId, seq) })));
      for (const d of docs) if (d && !d.void && d.agent_id === agentId) out.push(d);
      from -= run.length;
    }
    return out.slice(0, limit);
  }

  /**
   * Re-approves a changed tool definition: the pending hash becomes the pin. Only a hash that
   * was presented (and refused) before can be approved.
   */
  async approvePin(
    agentId: string,
    tool: string,
    hash: string,
    approvedBy: string,
  ): Promise<{ previous: string; pinned: string } | 'no_pin' | 'not_pending'> {
    const pin = await findPin(this.store, agentId, tool);
    if (!pin) return 'no_pin';
    if (pin.pinned_hash === hash) return { previous: pin.pinned_hash, pinned: hash };
    if (!pin.pending_hashes.includes(hash)) return 'not_pending';
    // Read by `{_id}` above, checked here, written by `{_id}`: two approvals of one pin end in the last one's hash.
    const res = await this.pins.updateOne(
      { _id: pin._id },
      {
        $set: {
          pinned_hash: hash,
          pinned_at: new Date(),
          approved_by: approvedBy,
          pending_hashes: pin.pending_hashes.filter((h) => h !== hash),
        },
      },
    );
    if (res.matchedCount !== 1) return 'not_pending';
    return { previous: pin.pinned_hash, pinned: hash };
  }
}

/**
 * The pin of a tool, whatever the spelling of its name: `{_id: agent:normalised name}`. Pins an
 * older version stored under an exact spelling are copied under the normalised name at start-up
 * (persistence/migrations.ts: the earliest one stays the trusted one).
 */
export async function findPin(store: Store, agentId: string, tool: string): Promise<ToolPinDoc | null> {
  const pins = store.collection<ToolPinDoc>('agent_tool_pins');
  return pins.findOne({ _id: `${agentId}:${normalizeToolName(tool)}` });
}

/** Tool pins as the worker uses them: the first definition pins, a different one is refused. Keyed by the normalised tool name. */
export async function checkToolPin(
  store: Store,
  agentId: string,
  orgId: string,
  toolName: string,
  hash: string,
): Promise<{ state: 'pinned' | 'matched' } | { state: 'changed'; pinned_hash: string }> {
  const pins = store.collection<ToolPinDoc>('agent_tool_pins');
  const tool = normalizeToolName(toolName);
  const existing = await findPin(store, agentId, tool);
  const id = existing?._id ?? `${agentId}:${tool}`;
  if (!existing) {
    try {
      await pins.insertOne({
        _id: id,
        agent_id: agentId,
        org_id: orgId,
        tool,
        pinned_hash: hash,
        pending_hashes: [],
        pinned_at: new Date(),
        approved_by: null,
      });
      return { state: 'pinned' };
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      return checkToolPin(store, agentId, orgId, toolName, hash);
    }
  }
  if (existing.pinned_hash === hash) return { state: 'matched' };
  if (!existing.pending_hashes.includes(hash) && existing.pending_hashes.length < 50) {
    await pins.updateOne({ _id: id }, { $addToSet: { pending_hashes: hash } });
  }
  return { state: 'changed', pinned_hash: existing.pinned_hash };
}

/** `agent_activity_heads {_id: agent}` (a hint), then `agent_activity {_id}` forward to the first free position. */
async function activityTop(store: Store, agentId: string): Promise<number> {
  const head = await store.collection<{ _id: string; n: number }>('agent_activity_heads').findOne({ _id: agentId });
  let top = typeof head?.n === 'number' ? head.n : 0;
  const activity = store.collection<AgentActivityDoc>('agent_activity');
  while (await activity.findOne({ _id: activityId(agentId, top + 1) }, { projection: { _id: 1 } })) top++;
  return top;
}

/**
 * Records one activity of an agent workflow, once: `agent_activity_workflows {_id: workflow}`
 * answers a retry; otherwise the next free position is claimed by a unique insert, the head hint
 * moved, and the workflow pointer inserted (a concurrent duplicate gives its position up).
 */
export async function recordAgentActivity(
  store: Store,
  rec: Omit<AgentActivityDoc, '_id' | 'seq' | 'void' | 'created_at'>,
  // One record per key: the workflow id, or `<workflow>#<what>` when one workflow records several items (approvals).
  onceKey: string = rec.workflow_id,
  createdAt: Date = new Date(),
): Promise<{ id: string }> {
  const byWorkflow = store.collection<ActivityWorkflowDoc>('agent_activity_workflows');
  const activity = store.collection<AgentActivityDoc>('agent_activity');
  const existing = await byWorkflow.findOne({ _id: onceKey });
  if (existing && existing.agent_id === rec.agent_id) return { id: existing.activity_id };
  let seq = await activityTop(store, rec.agent_id);
  let id: string;
  for (;;) {
    seq++;
    id = activityId(rec.agent_id, seq);
    try {
      await activity.insertOne({ ...rec, _id: id, seq, created_at: createdAt });
      break;
    } catch (err) {
      if (!isDuplicate(err)) throw err;
    }
  }
  await store
    .collection<{ _id: string; n: number }>('agent_activity_heads')
    .updateOne({ _id: rec.agent_id }, { $max: { n: seq } }, { upsert: true })
    .catch((err) => {
      if (!isDuplicate(err)) throw err;
    });
  try {
    await byWorkflow.insertOne({ _id: onceKey, agent_id: rec.agent_id, activity_id: id });
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    const winner = await byWorkflow.findOne({ _id: onceKey });
    if (winner && winner.activity_id !== id) {
      await activity.updateOne({ _id: id }, { $set: { void: true } });
      return { id: winner.activity_id };
    }
  }
  return { id };
}

/** An A2A message record, keyed by its audit trace id. */
export type A2aMessageDoc = A2aMessageRecord & { _id: string; created_at: Date };

/** Insert once of `a2a_messages {_id: trace}` (a retried activity finds it stored: duplicate key = done). */
export async function recordA2aMessage(store: Store, r: A2aMessageRecord): Promise<void> {
  try {
    await store
      .collection<A2aMessageDoc>('a2a_messages')
      .insertOne({ ...r, _id: r.audit_trace_id, created_at: new Date() });
  } catch (err) {
    if (!isDuplicate(err)) throw err;
  }
}

/** `a2a_messages {_id: trace}`. */
export function findA2aMessage(store: Store, trace: string) {
  return store.collection<A2aMessageDoc>('a2a_messages').findOne({ _id: trace });
}
