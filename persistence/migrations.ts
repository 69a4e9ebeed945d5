// Start-up migration (issue 22): the pointers that make every request-path read a point lookup
// did not exist for records written before them. Once per store (`migrations {_id}` marks it
// done), in the background of the API's start (never on a request path), this reads the
// affected collections in full and writes what the current code writes at creation:
//   - `user_emails {_id: email_lower}` and the organization's user directory for every user;
//   - `api_key_digests` / `api_key_legacy_digests {_id: digest}` and the key directory for every key;
//   - `agent_tokens {_id: digest}` and `agent_nums {_id: org#num}` for every agent;
//   - tool pins stored under an exact spelling, copied under the normalised name (the earliest wins);
//   - activity records from before positions, renumbered into positions (oldest first).
// Until it has run, such older records are unknown to the request paths (fail closed: an old
// key answers 401 "invalid" for the seconds it takes). Every write is an insert by `_id` that a
// duplicate makes a no-op, so a crash mid-way or two API processes running it are harmless.
// These full reads are the registry's OFF_PATH_SITES (persistence/registry.ts).
import { MongoServerError, type Collection } from 'mongodb';
import type { Store } from '../core/store.js';
import { logger } from '../core/logger.js';
import { normalizeToolName } from '../contract/tool-names.js';
import { Accounts, type ApiKeyDoc, type UserDoc } from './accounts.js';
import { activityId, type AgentActivityDoc, type AgentDoc, type ToolPinDoc } from './agents.js';

const log = logger('migrations');

export const POINTERS_MIGRATION = 'pointers-v1';

interface MigrationDoc {
  _id: string;
  done_at: Date;
  counts: Record<string, number>;
}

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

async function insertIfAbsent<T extends { _id: string }>(col: Collection<T>, doc: T): Promise<boolean> {
  try {
    await col.insertOne(doc as never);
    return true;
  } catch (err) {
    if (isDuplicate(err)) return false;
    throw err;
  }
}

/** Runs the pointer backfill unless the store says it is done; returns what it wrote. */
export async function runStartupMigrations(store: Store): Promise<Record<string, number> | null> {
  const marks = store.collection<MigrationDoc>('migrations');
  if (await marks.findOne({ _id: POINTERS_MIGRATION })) return null;
  const counts = await backfillPointers(store);
  await insertIfAbsent(marks, { _id: POINTERS_MIGRATION, done_at: new Date(), counts });
  log.info('pointer backfill done', counts);
  return counts;
}

/** The backfill itself (idempotent; also what a test runs after writing older-shaped records). */
export async function backfillPointers(store: Store): Promise<Record<string, number>> {
  const accounts = new Accounts(store, '');
  const counts: Record<string, number> = {
    user_emails: 0,
    key_digests: 0,
    legacy_digests: 0,
    directory: 0,
    agent_pointers: 0,
    pins: 0,
    activity: 0,
  };

  const users = await accounts.users.find({}).toArray();
  for (const u of users as UserDoc[])
    if (await insertIfAbsent(accounts.emails, { _id: u.email_lower, user_id: u._id })) counts.user_emails++;
  const keys = (await accounts.keys.find({}).toArray()) as ApiKeyDoc[];
  for (const k of keys) {
    const col = k.hash_scheme === 'sha256-legacy' ? accounts.legacyDigests : accounts.digests;
    if (await insertIfAbsent(col, { _id: k.lookup_digest, key_id: k._id }))
      counts[k.hash_scheme === 'sha256-legacy' ? 'legacy_digests' : 'key_digests']++;
  }
  // Directories: each organization's listed ids, then the missing ones added in creation order.
  const byOrg = new Map<string, { users: UserDoc[]; keys: ApiKeyDoc[] }>();
  const entry = (org: string) =>
    byOrg.get(org) ?? (byOrg.set(org, { users: [], keys: [] }).get(org) as { users: UserDoc[]; keys: ApiKeyDoc[] });
  for (const u of users) entry(u.org_id).users.push(u);
  for (const k of keys) entry(k.org_id).keys.push(k);
  for (const [org, { users: us, keys: ks }] of byOrg) {
    for (const [dir, docs] of [
      [accounts.userDirectory, us],
      [accounts.keyDirectory, ks],
    ] as const) {
      const listed = new Set(await dir.refs(org));
      const missing = [...docs]
        .filter((d) => !listed.has(d._id))
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
      for (const d of missing) {
        await dir.add(org, d._id);
        counts.directory++;
      }
    }
  }

  const agents = (await store.collection<AgentDoc>('agents').find({}).toArray()) as AgentDoc[];
  for (const a of agents) {
    const t = await insertIfAbsent(store.collection<{ _id: string; agent_id: string }>('agent_tokens'), {
      _id: a.token_digest,
      agent_id: a._id,
    });
    const n = await insertIfAbsent(store.collection<{ _id: string; agent_id: string }>('agent_nums'), {
      _id: `${a.org_id}#${a.num}`,
      agent_id: a._id,
    });
    if (t || n) counts.agent_pointers++;
  }

  const pins = store.collection<ToolPinDoc>('agent_tool_pins');
  const legacyPins = ((await pins.find({}).toArray()) as ToolPinDoc[])
    .filter((p) => p._id !== `${p.agent_id}:${normalizeToolName(p.tool)}`)
    .sort((a, b) => a.pinned_at.getTime() - b.pinned_at.getTime());
  for (const p of legacyPins) {
    const name = normalizeToolName(p.tool);
    if (await insertIfAbsent(pins, { ...p, _id: `${p.agent_id}:${name}`, tool: name })) counts.pins++;
  }

  // Activity records without a position: per agent, oldest first, into positions 1…n, when the
  // agent has no positioned record yet (a newer record already at position 1 leaves them alone).
  const activity = store.collection<AgentActivityDoc>('agent_activity');
  const legacy = ((await activity.find({}).toArray()) as AgentActivityDoc[]).filter((d) => typeof d.seq !== 'number');
  const perAgent = new Map<string, AgentActivityDoc[]>();
  for (const d of legacy) (perAgent.get(d.agent_id) ?? perAgent.set(d.agent_id, []).get(d.agent_id))!.push(d);
  for (const [agentId, docs] of perAgent) {
    if (await activity.findOne({ _id: activityId(agentId, 1) })) {
      log.warn('legacy activity left unnumbered: the agent already has positioned records', {
        agent_id: agentId,
        records: docs.length,
      });
      continue;
    }
    docs.sort((a, b) => (a._id < b._id ? -1 : 1));
    let seq = 0;
    for (const d of docs) {
      seq++;
      const id = activityId(agentId, seq);
      if (!(await insertIfAbsent(activity, { ...d, _id: id, seq }))) {
        // A new record took this position meanwhile: keep the rest where they are (nothing is deleted).
        log.warn('legacy activity renumbering stopped: position taken', { agent_id: agentId, seq });
        seq--;
        break;
      }
      await insertIfAbsent(
        store.collection<{ _id: string; agent_id: string; activity_id: string }>('agent_activity_workflows'),
        { _id: d.workflow_id, agent_id: agentId, activity_id: id },
      );
      await activity.deleteOne({ _id: d._id });
      counts.activity++;
    }
    await store
      .collection<{ _id: string; n: number }>('agent_activity_heads')
      .updateOne({ _id: agentId }, { $max: { n: seq } }, { upsert: true });
  }
  return counts;
}

export const NUMBER_KEYS_MIGRATION = 'number-keys-v1';
/** Collections whose numeric keys are stored as decimal strings since session 17 (persistence/number-keyed.ts). */
export const NUMBER_KEYED_COLLECTIONS = ['batch_slots', 'batch_slot_queue'] as const;

/**
 * Rewrites the documents of NUMBER_KEYED_COLLECTIONS stored under a numeric `_id` (a store written
 * before session 17) under the number's decimal string: the string copy inserted if absent (a
 * copy already there is newer), then the number deleted. Once per store (`migrations` marker);
 * two processes running it together are harmless (inserts by `_id`, idempotent deletes). Unlike
 * the pointer backfill it is awaited before the slot directory's first operation in every process
 * (persistence/batch.ts): a slot read by its string while its number still held it would look
 * absent, and a second document for the same slot could be inserted. Returns how many it rewrote
 * (null: already done). Both collections are small (slots ≤ SVC_BATCH_MAX_JOBS; the queue is
 * swept below its head), and this read runs once per store.
 */
export async function migrateNumberKeys(store: Store): Promise<number | null> {
  const marks = store.collection<MigrationDoc>('migrations');
  if (await marks.findOne({ _id: NUMBER_KEYS_MIGRATION })) return null;
  const counts: Record<string, number> = {};
  for (const name of NUMBER_KEYED_COLLECTIONS) {
    const col = store.collection<{ _id: string | number }>(name);
    const numeric = (await col.find({}).toArray()).filter((d) => typeof d._id === 'number');
    for (const d of numeric) {
      await insertIfAbsent(col as Collection<{ _id: string }>, { ...d, _id: String(d._id) });
      await col.deleteOne({ _id: d._id });
    }
    counts[name] = numeric.length;
  }
  await insertIfAbsent(marks, { _id: NUMBER_KEYS_MIGRATION, done_at: new Date(), counts });
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (total > 0) log.info('numeric keys rewritten as strings', counts);
  return total;
}
