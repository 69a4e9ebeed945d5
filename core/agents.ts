// Agents in the store: registration records (token kept only as an HMAC lookup digest),
// per-agent usage counters (requests per clock hour, cost per UTC day), tool-definition pins
// and the agent's activity records. Every query is scoped by organization or agent.
import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { Store } from './store.js';
import { generateAgentToken, lookupDigest, maskApiKey } from './api-keys.js';
import { normalizeToolName } from '../contract/tool-names.js';

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
  permissions: { allowed_tools: string[]; denied_tools: string[]; allowed_domains: string[]; require_approval?: string[]; approval_timeout_seconds?: number };
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
  _id: string; // `act_<12 hex ms><16 hex random>`: sorts by time
  agent_id: string;
  org_id: string;
  kind: 'verify' | 'tool';
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

Store.registerIndexes(async (store) => {
  await store.collection('agents').createIndex({ token_digest: 1 }, { unique: true });
  await store.collection('agents').createIndex({ num: 1 }, { unique: true });
  await store.collection('agents').createIndex({ org_id: 1, created_at: -1 });
  await store.collection('agent_activity').createIndex({ agent_id: 1, _id: -1 });
  await store.collection('agent_tool_pins').createIndex({ agent_id: 1 });
  await store.ttlIndex('agent_usage', 'expires_at');
});

export const activityId = (now = Date.now()) => `act_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;

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

  private async nextNum(): Promise<number> {
    const doc = await this.store
      .collection<{ _id: string; seq: number }>('counters')
      .findOneAndUpdate({ _id: 'agents' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (!doc) throw new Error('agent counter unavailable');
    return doc.seq;
  }

  /** Creates an agent; returns the record and the token (shown once, never stored). */
  async register(fields: Omit<AgentDoc, '_id' | 'num' | 'status' | 'token_digest' | 'token_preview' | 'created_at' | 'revoked_at'>): Promise<{ doc: AgentDoc; token: string }> {
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
      try {
        await this.agents.insertOne(doc);
        return { doc, token };
      } catch (err) {
        if (attempt < 3 && err instanceof MongoServerError && err.code === 11000) continue;
        throw err;
      }
    }
  }

  async findByToken(token: string): Promise<AgentDoc | null> {
    return this.agents.findOne({ token_digest: lookupDigest(token, this.lookupSecret) });
  }

  async findByNum(orgId: string, num: number): Promise<AgentDoc | null> {
    return this.agents.findOne({ num, org_id: orgId });
  }

  async revoke(orgId: string, num: number): Promise<AgentDoc | null> {
    return this.agents.findOneAndUpdate({ num, org_id: orgId, status: 'active' }, { $set: { status: 'revoked', revoked_at: new Date() } }, { returnDocument: 'after' });
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
          { $inc: { requests: 1, cost_micro_usd: PRICE_PER_REQUEST_MICRO_USD }, $setOnInsert: { agent_id: agentId, expires_at: new Date(h + 3_600_000 + 60_000) } },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
      upsertRetryingDuplicate(() =>
        this.usage.findOneAndUpdate(
          { _id: `${agentId}:d:${d}` },
          { $inc: { requests: 1, cost_micro_usd: PRICE_PER_REQUEST_MICRO_USD }, $setOnInsert: { agent_id: agentId, expires_at: new Date(dayEnd + 60_000) } },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    ]);
    return { requestsThisHour: hour?.requests ?? 0, costTodayMicroUsd: day?.cost_micro_usd ?? 0, hourResetAt: Math.floor((h + 3_600_000) / 1000), dayResetAt: Math.floor(dayEnd / 1000) };
  }

  /** Undoes a charge that was refused (over a limit), so refused requests do not count. */
  async refund(agentId: string, now = Date.now()): Promise<void> {
    const dec = { $inc: { requests: -1, cost_micro_usd: -PRICE_PER_REQUEST_MICRO_USD } };
    await Promise.all([this.usage.updateOne({ _id: `${agentId}:h:${hourStart(now)}` }, dec), this.usage.updateOne({ _id: `${agentId}:d:${dayKey(now)}` }, dec)]);
  }

  async usageOf(agentId: string, now = Date.now()): Promise<UsageSnapshot> {
    const h = hourStart(now);
    const d = dayKey(now);
    const dayEnd = Date.parse(`${d}T00:00:00.000Z`) + 86_400_000;
    const [hour, day] = await Promise.all([this.usage.findOne({ _id: `${agentId}:h:${h}` }), this.usage.findOne({ _id: `${agentId}:d:${d}` })]);
    return { requestsThisHour: hour?.requests ?? 0, costTodayMicroUsd: day?.cost_micro_usd ?? 0, hourResetAt: Math.floor((h + 3_600_000) / 1000), dayResetAt: Math.floor(dayEnd / 1000) };
  }

  /** Most recent first; `cursor` is the id of the last item of the previous page. */
  async listActivity(agentId: string, limit: number, cursor?: string): Promise<AgentActivityDoc[]> {
    const filter: Record<string, unknown> = { agent_id: agentId };
    if (cursor) filter._id = { $lt: cursor };
    return this.activity.find(filter).sort({ _id: -1 }).limit(limit).toArray();
  }

  /**
   * Re-approves a changed tool definition: the pending hash becomes the pin. Only a hash that
   * was presented (and refused) before can be approved.
   */
  async approvePin(agentId: string, tool: string, hash: string, approvedBy: string): Promise<{ previous: string; pinned: string } | 'no_pin' | 'not_pending'> {
    const pin = await findPin(this.store, agentId, tool);
    if (!pin) return 'no_pin';
    if (pin.pinned_hash === hash) return { previous: pin.pinned_hash, pinned: hash };
    if (!pin.pending_hashes.includes(hash)) return 'not_pending';
    const res = await this.pins.findOneAndUpdate(
      { _id: pin._id, pinned_hash: pin.pinned_hash },
      { $set: { pinned_hash: hash, pinned_at: new Date(), approved_by: approvedBy, pending_hashes: pin.pending_hashes.filter((h) => h !== hash) } },
      { returnDocument: 'after' },
    );
    if (!res) return 'not_pending';
    return { previous: pin.pinned_hash, pinned: hash };
  }
}

/**
 * The pin of a tool, whatever the spelling of its name: the document under the normalised
 * name, or else the earliest pin an older version stored under an exact spelling that
 * normalises to the same name (the first definition seen stays the trusted one).
 */
export async function findPin(store: Store, agentId: string, tool: string): Promise<ToolPinDoc | null> {
  const pins = store.collection<ToolPinDoc>('agent_tool_pins');
  const name = normalizeToolName(tool);
  const pin = await pins.findOne({ _id: `${agentId}:${name}` });
  if (pin) return pin;
  const legacy = (await pins.find({ agent_id: agentId }).toArray()).filter((p) => normalizeToolName(p.tool) === name);
  legacy.sort((a, b) => a.pinned_at.getTime() - b.pinned_at.getTime());
  return legacy[0] ?? null;
}

/** Tool pins as the worker uses them: the first definition pins, a different one is refused. Keyed by the normalised tool name. */
export async function checkToolPin(store: Store, agentId: string, orgId: string, toolName: string, hash: string): Promise<{ state: 'pinned' | 'matched' } | { state: 'changed'; pinned_hash: string }> {
  const pins = store.collection<ToolPinDoc>('agent_tool_pins');
  const tool = normalizeToolName(toolName);
  const existing = await findPin(store, agentId, tool);
  const id = existing?._id ?? `${agentId}:${tool}`;
  if (!existing) {
    try {
      await pins.insertOne({ _id: id, agent_id: agentId, org_id: orgId, tool, pinned_hash: hash, pending_hashes: [], pinned_at: new Date(), approved_by: null });
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
