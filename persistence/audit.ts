// Audit chain family: `audit_logs` (growing: one entry per verdict), `audit_seq` (growing: one
// position document per entry), `audit_heads` (bounded: one per organization, the chain's head)
// and `audit_rollups` (bounded: one per organization, its verdict roll-up). Every query of these
// collections is in this module; each says the key or bound that serves it (docs/store-access.md).
//
// Appends come from many workflows in many worker processes at once, and the store offers
// no multi-document transactions (FerretDB), so the chain is kept linear with single-document
// inserts:
//   - `audit_logs` has a unique index on (organization_id, seq): at most one entry per position
//     (the chain's compare-and-swap: whoever inserts the entry at n+1 owns that position);
//   - `audit_seq {_id: org#seq, log_id, entry_hash}` is the position index, inserted right after
//     the entries it names, and it is also how the head moves (session 14): the head is the last
//     of the contiguous positions. Before, a third insert per group commit moved it
//     (`audit_head_moves {_id: org@n@h}`, insert-once); the entries' unique index already makes
//     their writer the only one that can index those positions, so that insert said nothing
//     the positions do not. Moves of older chains are neither read nor needed: their positions
//     exist (always written before the move); a position without `entry_hash` (written before
//     session 14) costs a reader one point lookup of its entry for the hash.
//   - `audit_heads {_id: org, seq, head_hash}` (one per organization; the genesis head is an
//     insert, guarded by `_id`) is a copy of the head, `$set` by `_id` not at every append but as
//     the roll-up is (every 8 entries or second, and once appends pause): it may lag (also after
//     a crash, or a slower writer's `$set` landing late), so the head is that document plus the
//     positions that follow it (readHead, `head()`: one point lookup more when it is current),
//     and a writer that finds a position past the head it wrote writes it again (publishHead):
//     once appends stop, the document is the head.
// A writer reads the head (n, h), builds its entries with previous_hash h (then each other's
// hash), inserts them at seq n+1.. with one ordered insert command, then their positions with one
// more. A racing writer's insert at n+1 fails on the unique index; it then reads the head again
// (the positions) and retries with backoff. An entry whose writer died between its two inserts
// (no position, and none coming) is indexed by the next writer that finds its position taken
// for more than STALL_HEAL_MS (healStalledPosition: the one read of `audit_logs` by
// (organization_id, seq), served by the unique index on MongoDB, a scan on FerretDB/SQLite, and
// only after such a crash), so a crashed writer never wedges the chain. Since session 15 each
// group commit also sends, beside its entries, a claim `audit_claims {_id: org#firstSeq,
// log_ids}`: a stalled position is healed by point lookups through it after CLAIM_HEAL_MS
// (healByClaim), and the scan is left for a position without a usable claim. Entry ids are chosen by
// the caller and derived from the workflow id, so an activity retry finds its own entry.
//
// The verdict roll-up follows the positions: the writer of entries n+1..m (their owner, by the
// unique index) stores the roll-up of 1..m = the roll-up of n
// (cached, or read and caught up by position) plus the entries n+1..m, with a plain replacement
// by `_id`, its counts packed into one string (rollupDoc). Nothing is `$inc`ed (FerretDB runs
// `$inc` as read-modify-write and loses concurrent increments): a stored roll-up is always
// exactly the counts of 1..its seq. At worst it is behind the head (a slower writer's
// replacement landing after a faster one's), and a reader catches up from the positions in between.
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoServerError, type Collection, type Document } from 'mongodb';
import { Store } from '../core/store.js';
import { buildEntry, verifyEntry, type AuditEntryFields, type AuditVerification } from '../core/audit-chain.js';
import {
  isBlocked,
  seqKey,
  type AuditHeadDoc,
  type AuditRollupDoc,
  type AttestationInEntry,
  type AuditLogDoc,
  type AuditPage,
  type AuditSeqDoc,
  type AuditStatusFilter,
  type ChainIntegrity,
} from '../core/audit-log.js';
import {
  addEntries,
  emptyRollup,
  hoursSince,
  overlayRollup,
  type AuditRollup,
  type RollupHour,
  type RollupRow,
} from '../core/audit-rollup.js';
import { upsertById } from './limits.js';
import { logger } from '../core/logger.js';
import { insertCommand, insertReplyError } from './insert-coalescer.js';

export {
  seqKey,
  auditLogView,
  type AuditRollupDoc,
  type AuditLogDoc,
  type AuditSeqDoc,
  type AuditHeadDoc,
  type AuditPage,
  type AuditStatusFilter,
  type ChainIntegrity,
  type AuditLogView,
} from '../core/audit-log.js';

const log = logger('audit-log');

/** Most positions one status-filtered page looks at; the cursor continues from there. */
export const STATUS_SCAN_WINDOW = 500;
/** Point lookups in flight per request. */
const LOOKUP_PARALLELISM = 16;
/** Positions a verification walks down to find the nearest stored predecessor (deleted entries). */
const PREDECESSOR_WALK = 32;
/** Most positions a reader or writer counts to bring a roll-up that is behind up to the head; beyond: rebuilt in the background. */
const ROLLUP_CATCH_UP = 200;
/**
 * A writer stores the roll-up when it is this many entries past the one it stored last, or that
 * one is older than ROLLUP_STORE_MS: a busy organization pays one roll-up write per 8 entries
 * (or per second), not per group commit, and a reader catches up at most a few positions.
 */
const ROLLUP_STORE_EVERY = 8;
const ROLLUP_STORE_MS = 1000;
/**
 * Session 23 (docs/store-access.md §16): the roll-up is stored in two documents. The complete one,
 * `{_id: org}`, holds a week of hour buckets (~10 KB for a tenant busy every hour with one
 * engine, three pages of which two overflow) and is written only when the hours changed since it
 * are more than RECENT_HOURS (about once per RECENT_HOURS hours for a steady tenant); every other
 * store at the cadence above writes the recent one, `{_id: org#recent}`: `all` and those hours only
 * (a few hundred bytes). Before, every store rewrote the whole week: the seeded store's extra page
 * reads and `MsgUpdate` time per /verify/math (§15, the lead's follow-up).
 */
const RECENT_HOURS = 2;
/** The recent roll-up's `_id` (audit_rollups; bounded: one per organization beside the complete one). */
export const recentRollupId = (orgId: string) => `${orgId}#recent`;
/**
 * A head moved but not yet written to its document is written this long after appends pause, and
 * the positions past it are looked at (publishHead). Longer than the gap between one client's
 * sequential verifications (~250 ms), so their appends are not each followed by a write and a read.
 */
const HEAD_PUBLISH_IDLE_MS = 600;
/** Positions a reader probes at once past a head document that lags (8: the head document's cadence). */
const HEAD_PROBE = 8;
/**
 * How long a position may stay taken but unindexed before a writer waiting on it indexes it
 * itself (healStalledPosition): a live writer indexes its entries one round trip after inserting
 * them, so this passes only when it died in between. Not shorter: a live writer's round trip
 * outlasted 1 s while 10 batch jobs ran on a store of 100,000 verifications (bench/data-scale.ts,
 * session 14), and the API and the worker each healed the same position: two reads of
 * `audit_logs` by (organization_id, seq), each a scan of ~16 s of the store's CPU on
 * FerretDB/SQLite, and that burst took 30.9 s instead of 1.5. Until then the organization's
 * appends fail closed (AuditAppendConflictError after their budget: a 503).
 */
export const STALL_HEAL_MS = 15_000;
/**
 * How long a position may stay taken but unindexed before a waiting writer heals it by point
 * lookup through the commit's claim (session 15, `audit_claims`). A heal of a live writer's
 * entries is harmless (it inserts the same positions, insert-once), so this only needs to be
 * longer than a live writer's usual gap between its two inserts, to spare the reads.
 */
export const CLAIM_HEAL_MS = 2_000;

/**
 * Session 24 (docs/store-access.md §19): a claim serves only a heal of its commit's positions, so
 * once its writer has indexed them no heal can need it (claimCovering passes over a commit that is
 * not the stalled one's). Its writer deletes it by `_id` at least this long after (far past
 * CLAIM_HEAL_MS, and past any loser's claim insert still in flight for the same `_id`), in one
 * background delete command per CLAIM_RETIRE_EVERY_MS, so `audit_claims` holds only the last
 * minutes' commits instead of every commit ever made.
 */
export const CLAIM_RETIRE_AFTER_MS = 30_000;
const CLAIM_RETIRE_EVERY_MS = 60_000;
/** Claims a writer remembers to delete (more: the oldest are left in the store, as before session 24). */
const CLAIM_RETIRE_MAX = 100_000;
/** Deletes by `_id` per command of the retirement. */
const CLAIM_RETIRE_BATCH = 1000;

/**
 * Review s24 B2 (docs/store-access.md §19): the claims no writer retires (written before session
 * 24, by a writer that exited or died within its retirement window, a commit another writer
 * healed, a loser's, those past CLAIM_RETIRE_MAX) are deleted by a background pass over computed
 * ids: per organization, `org#s` for every s ≤ its head document's seq − MAX_BATCH not yet visited
 * (`audit_claim_cursors {_id: org, swept}`), by `_id`. A heal needs a claim only at or within
 * MAX_BATCH − 1 below a position past the contiguous head (claimCovering looks no further), and the
 * head document never leads the positions, so no claim a heal may need is touched. Paced: at most
 * AUDIT_CLAIM_SWEEP_MAX positions per run, AUDIT_CLAIM_PASS_BATCH per command, a pause after each.
 */
export const AUDIT_CLAIM_SWEEP_MS = 30 * 60_000;
/** Positions visited per run of the pass (each a delete by `_id`; the first runs on a filled store catch up over hours). */
export const AUDIT_CLAIM_SWEEP_MAX = 20_000;
/**
 * Positions per command of the pass. At the merge (session 24): helper G measured 3.3 ms of store
 * CPU per claim actually deleted (load 15-17; FerretDB decodes each document it deletes), so a
 * command of CLAIM_RETIRE_BATCH (1,000) positions that all hold claims held SQLite's one writer
 * for seconds on a store upgraded from session 23. 100 bounds one command at ~0.1-0.3 s; absent
 * positions cost ~9 µs each, so a pass over a retired range is still cheap.
 */
const AUDIT_CLAIM_PASS_BATCH = 100;

/** How far the claims' pass has visited an organization's positions (BOUNDED: one per organization). */
export interface AuditClaimCursorDoc {
  _id: string;
  swept: number;
}

/**
 * One run of the claims' pass (AUDIT_CLAIM_SWEEP_MS, API process; background only). Reads
 * audit_heads and audit_claim_cursors whole (both bounded: one document per organization), deletes
 * audit_claims by `_id`, moves each cursor with `$max` by `_id` after each command. Idempotent:
 * processes that run it at once delete the same ids twice at worst. Returns how many it deleted.
 */
export async function sweepOldAuditClaims(
  store: Store,
  opts: { maxPositions?: number; pauseMaxMs?: number } = {},
): Promise<number> {
  let budget = opts.maxPositions ?? AUDIT_CLAIM_SWEEP_MAX;
  const pauseMaxMs = opts.pauseMaxMs ?? 1_000;
  const claims = store.collection<AuditClaimDoc>('audit_claims');
  const cursors = store.collection<AuditClaimCursorDoc>('audit_claim_cursors');
  // audit_heads and audit_claim_cursors, all documents: bounded (one per organization).
  const [heads, swept] = await Promise.all([
    store
      .collection<AuditHeadDoc>('audit_heads')
      .find({}, { projection: { seq: 1 } })
      .toArray(),
    cursors.find({}).toArray(),
  ]);
  const from = new Map(swept.map((c) => [c._id, c.swept] as const));
  let deleted = 0;
  for (const head of heads) {
    const to = head.seq - MAX_BATCH;
    let s = (from.get(head._id) ?? 0) + 1;
    while (s <= to && budget > 0) {
      const end = Math.min(to, s + AUDIT_CLAIM_PASS_BATCH - 1, s + budget - 1);
      const ops = Array.from({ length: end - s + 1 }, (_, i) => ({
        deleteOne: { filter: { _id: seqKey(head._id, s + i) } },
      }));
      const t0 = performance.now();
      deleted += (await claims.bulkWrite(ops, { ordered: false })).deletedCount ?? 0;
      // audit_claim_cursors by `_id` (bounded).
      await cursors.updateOne({ _id: head._id }, { $max: { swept: end } }, { upsert: true });
      budget -= ops.length;
      s = end + 1;
      if (pauseMaxMs > 0) await sleep(Math.min(pauseMaxMs, Math.ceil(performance.now() - t0)));
    }
    if (budget <= 0) break;
  }
  return deleted;
}

/** A group commit's claim: the `_id` of its first position (`org#seq`), naming its entries in order. */
export interface AuditClaimDoc {
  _id: string;
  log_ids: string[];
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

Store.registerIndexes(async (store) => {
  // Enforces one entry per position (the chain's serialisation point); never used to read.
  await store.collection('audit_logs').createIndex({ organization_id: 1, seq: 1 }, { unique: true });
});

/** An append's budget when its caller names none: a single verification's, inside its 10 s workflow deadline. */
export const DEFAULT_APPEND_BUDGET_MS = 8_000;

export class AuditAppendConflictError extends Error {
  constructor(attempts: number) {
    super(`audit append did not win a chain position after ${attempts} attempts`);
    this.name = 'AuditAppendConflictError';
  }
}

export interface AppendResult {
  doc: AuditLogDoc;
  attempts: number;
  /** True when the entry already existed (an activity retry). */
  existing: boolean;
}

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** Most entries written by one insert command. */
const MAX_BATCH = 128; // a 100-item batch job: its items' entries and its own in one commit (session 12)
/** Documents per ordered insert command (FerretDB 1.x keeps order only within 100: insertReportingDuplicates). */
const ORDERED_INSERT_MAX = 100;

/**
 * Sends `docs` to `name` as one `insert` command (ordered: the store stops at the first failed
 * document) and returns the indexes that hit a duplicate key; any other failure throws. The
 * store's own command, as proofs and attestation records (persistence/insert-coalescer.ts): the
 * driver's insertMany/insertOne build a bulk operation and its result and, per duplicate, a
 * thrown error with its stack (issue 22, CPU per /verify/math).
 */
export async function insertReportingDuplicates<T extends Document>(
  store: Store,
  name: string,
  docs: T[],
  ordered: boolean,
): Promise<number[]> {
  // FerretDB 1.x (SQLite) inserts in batches of 100 documents and, ordered, goes on with the next
  // batch after a failed one (session 16, docs/batch.md: a 101-entry commit whose first entry lost
  // its position stored its 101st, linked to an entry never stored). So an ordered insert goes
  // out 100 documents at a time, the next only when the one before had no failure.
  if (ordered && docs.length > ORDERED_INSERT_MAX) {
    for (let from = 0; from < docs.length; from += ORDERED_INSERT_MAX) {
      const failed = await insertReportingDuplicates(store, name, docs.slice(from, from + ORDERED_INSERT_MAX), true);
      if (failed.length > 0) return failed.map((i) => i + from);
    }
    return [];
  }
  let reply;
  try {
    reply = await insertCommand<T>(() => store.db, name, ordered)(docs);
  } catch (err) {
    // A single duplicate can come back as a plain server error.
    if (isDuplicateKey(err) && docs.length === 1) return [0];
    throw err;
  }
  // Not known to be durable: the caller fails (its activity retries; every write is insert-once).
  if (reply.writeConcernError) throw insertReplyError(reply.writeConcernError, 'write concern error');
  const errors = reply.writeErrors ?? [];
  const other = errors.find((e) => e.code !== 11000);
  if (other) throw insertReplyError(other, 'insert failed');
  return errors.map((e) => e.index).sort((a, b) => a - b);
}

interface Head {
  seq: number;
  hash: string | null;
  /** The roll-up of 1..seq when this process knows it (it stored it), else null (read when needed). */
  rollup: AuditRollup | null;
  /** False when no head document exists yet (the first append inserts it). */
  exists: boolean;
}

/** One count as stored: [engine, status, admission, verified, entries, attestations]. */
type PackedRow = [string, string, string | null, 0 | 1, number, number];
const packRows = (rows: RollupRow[]): PackedRow[] => rows.map((r) => [r.e, r.s, r.a, r.v, r.n, r.t]);
const isPackedRow = (r: unknown): r is PackedRow =>
  Array.isArray(r) &&
  r.length === 6 &&
  typeof r[0] === 'string' &&
  typeof r[1] === 'string' &&
  (r[2] === null || typeof r[2] === 'string') &&
  (r[3] === 0 || r[3] === 1) &&
  Number.isInteger(r[4]) &&
  Number.isInteger(r[5]);
/** Throws on anything but a list of packed rows (the caller treats it as an unreadable roll-up). */
const unpackRows = (rows: unknown): RollupRow[] => {
  if (!Array.isArray(rows) || !rows.every(isPackedRow)) throw new Error('not a packed roll-up');
  return rows.map(([e, s, a, v, n, t]) => ({ e, s, a, v, n, t }));
};

/**
 * The stored form of a roll-up: its counts packed into one JSON string (`counts`). The same
 * counts as nested objects made FerretDB's cost per write and read grow with the hours filled
 * (a full week: ~17 ms of store CPU per write, ~12 ms per read, against ~1.4 / 0.9 ms packed,
 * measured on a seeded store; issue 22, docs/store-access.md §8).
 */
export function rollupDoc(orgId: string, rollup: AuditRollup): AuditRollupDoc {
  const counts = JSON.stringify({
    all: packRows(rollup.all),
    hours: rollup.hours.map((h) => [h.h, packRows(h.rows)]),
  });
  return { _id: orgId, seq: rollup.seq, counts, updated_at: new Date() };
}

/**
 * The recent roll-up document (session 23): `rollup`'s `all` and `hours` (the hours the entries
 * after position `base` fell in, with their counts of 1..rollup.seq); the complete roll-up
 * `{_id: org}` at a seq in [base, rollup.seq] holds the other hours (core/audit-rollup.ts overlayRollup).
 */
export function recentRollupDoc(orgId: string, rollup: AuditRollup, base: number, hours: RollupHour[]): AuditRollupDoc {
  return { ...rollupDoc(orgId, { ...rollup, hours }), _id: recentRollupId(orgId), base };
}

/** The roll-up a stored document holds (packed, or as nested objects when written before session 11); null when unreadable. */
export function rollupOfDoc(doc: AuditRollupDoc): AuditRollup | null {
  if (typeof doc.counts !== 'string')
    return doc.all && doc.hours ? { seq: doc.seq, all: doc.all, hours: doc.hours } : null;
  try {
    const c = JSON.parse(doc.counts) as { all?: unknown; hours?: unknown };
    if (!Array.isArray(c.hours)) return null;
    const hours = (c.hours as unknown[]).map((x) => {
      if (!Array.isArray(x) || typeof x[0] !== 'string') throw new Error('not a packed roll-up hour');
      return { h: x[0], rows: unpackRows(x[1]) };
    });
    return { seq: doc.seq, all: unpackRows(c.all), hours };
  } catch {
    return null; // a cache: an unreadable one is rebuilt from the chain
  }
}

interface Pending {
  fields: AuditEntryFields;
  logId: string;
  /** The verification's attestation record, stored in its entry (outside the hashed payload). */
  attestation: AttestationInEntry | undefined;
  secret: string | undefined;
  /** How long the append may keep trying, counted from its first attempt (not from queueing). */
  budgetMs: number;
  /** The caller's own deadline (epoch ms): the budget never runs past it. */
  notAfter: number;
  /** Set at the first attempt: min(first attempt + budgetMs, notAfter). */
  deadline: number;
  attempts: number;
  resolve: (r: AppendResult) => void;
  reject: (err: unknown) => void;
}

/**
 * A new organization's empty chain: its head at position 0 and its empty roll-up, inserted at
 * sign-up (persistence/accounts.ts), so that its first append finds a head and never takes the
 * legacy heal's read of `audit_logs` by organization. Keys: audit_heads / audit_rollups `{_id: org}`
 * (insert once; a duplicate means the chain exists already).
 */
export async function openChain(store: Store, orgId: string): Promise<void> {
  const now = new Date();
  for (const write of [
    () =>
      store.collection<AuditHeadDoc>('audit_heads').insertOne({ _id: orgId, seq: 0, head_hash: null, updated_at: now }),
    () =>
      store
        .collection<AuditRollupDoc>('audit_rollups')
        .insertOne({ ...rollupDoc(orgId, emptyRollup()), updated_at: now }),
  ]) {
    try {
      await write();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
}

/** An entry by its id, any organization (audit_logs by `_id`): the caller checks what it needs (persistence/proofs.ts). */
export function findEntryById(store: Store, logId: string): Promise<AuditLogDoc | null> {
  return store.collection<AuditLogDoc>('audit_logs').findOne({ _id: logId });
}

export class AuditLog {
  constructor(
    private readonly store: Store,
    /** STALL_HEAL_MS unless given (the heal rows of test/http/audit-chain-heal.test.ts use a short one). */
    private readonly stallHealMs: number = STALL_HEAL_MS,
  ) {}

  // Looked up per use, never cached: the store replaces its client after an outage.
  get logs(): Collection<AuditLogDoc> {
    return this.store.collection<AuditLogDoc>('audit_logs');
  }

  get heads(): Collection<AuditHeadDoc> {
    return this.store.collection<AuditHeadDoc>('audit_heads');
  }

  get seqIndex(): Collection<AuditSeqDoc> {
    return this.store.collection<AuditSeqDoc>('audit_seq');
  }

  get claims(): Collection<AuditClaimDoc> {
    return this.store.collection<AuditClaimDoc>('audit_claims');
  }

  get rollups(): Collection<AuditRollupDoc> {
    return this.store.collection<AuditRollupDoc>('audit_rollups');
  }

  /** Last head this process wrote or read, per organization: saves a read per batch (a stale one only costs a retry). */
  private readonly knownHeads = new Map<string, Head>();
  /** Appends waiting for their organization's flusher. */
  private readonly pending = new Map<string, Pending[]>();
  private readonly flushing = new Set<string>();
  /** The roll-up this process stored last, per organization. */
  private readonly storedRollups = new Map<string, { seq: number; at: number }>();
  /** The complete roll-up document `{_id: org}` as this process last wrote or read it (session 23). */
  private readonly knownComplete = new Map<string, AuditRollup>();
  /** Roll-up rebuilds running in the background (one per organization and process). */
  private readonly rebuilding = new Set<string>();
  /** The head this process last wrote to the organization's head document. */
  private readonly publishedHeads = new Map<string, { seq: number; at: number }>();
  /** Heads moved by this process and not yet written to their document, with the timer that writes them. */
  private readonly unpublished = new Map<string, { head: Head; timer: NodeJS.Timeout }>();
  /** A position found taken but not indexed, per organization, since when: healed after STALL_HEAL_MS. */
  private readonly stalls = new Map<string, { seq: number; since: number; claimTried: boolean }>();
  /** Session 24: claims of commits this writer indexed, oldest first, and when; deleted by retireClaims. */
  private readonly indexedClaims: Array<{ id: string; at: number }> = [];
  private retireTimer: NodeJS.Timeout | null = null;
  /** A retirement run is in flight (review s24 B3: two runs took the same prefix and each dropped its count). */
  private retiring = false;

  /**
   * Appends an entry to its organization's chain under the id `logId`. Rejects with
   * AuditChainError (from buildEntry) when the secret is missing or a field is malformed, and
   * with AuditAppendConflictError when contention from other processes outlasts its budget:
   * `budgetMs` (default 8 s) from queueing, or, when the caller gives its own deadline
   * `notAfter` (epoch ms), `budgetMs` from the first attempt and never past `notAfter`. A
   * rejected append wrote nothing: the chain stays as the others left it.
   *
   * Within the process, appends of one organization are group-committed: whatever queued up
   * while the previous batch was being written goes out as one ordered insert of linked
   * entries and one insert of their positions, which moves the head (then, at its cadence, the roll-up).
   */
  append(
    fields: AuditEntryFields,
    opts: {
      logId: string;
      secret: string | undefined;
      budgetMs?: number;
      notAfter?: number;
      /** Stored in the entry beside the hashed fields (AttestationInEntry); an existing entry keeps what it has. */
      attestation?: AttestationInEntry;
    },
  ): Promise<AppendResult> {
    const orgId = fields.organization_id;
    const budgetMs = opts.budgetMs ?? DEFAULT_APPEND_BUDGET_MS;
    return new Promise<AppendResult>((resolve, reject) => {
      const queue = this.pending.get(orgId) ?? [];
      queue.push({
        fields,
        logId: opts.logId,
        attestation: opts.attestation,
        secret: opts.secret,
        budgetMs,
        // Without a caller deadline the budget ends budgetMs after queueing, as before (a single
        // verification's 8 s inside its 10 s workflow deadline); with one, the budget counts from
        // the first attempt and the caller's deadline bounds it (issue 22, session 15: batch units
        // whose appends waited 8 s in this process's own queue failed after 1 attempt).
        notAfter: opts.notAfter ?? Date.now() + budgetMs,
        deadline: Number.POSITIVE_INFINITY,
        attempts: 0,
        resolve,
        reject,
      });
      this.pending.set(orgId, queue);
      if (!this.flushing.has(orgId)) void this.flush(orgId);
    });
  }

  private async flush(orgId: string): Promise<void> {
    this.flushing.add(orgId);
    try {
      // Appends made in the same tick (a batch chunk's entries) go out as one batch, not the first alone.
      await Promise.resolve();
      for (;;) {
        const queue = this.pending.get(orgId);
        if (!queue || queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          await this.appendBatch(orgId, batch);
        } catch (err) {
          // Store errors: every item of the batch fails and its activity retries (an entry that
          // did get written is then found by its id). The cached head may be stale now.
          this.knownHeads.delete(orgId);
          for (const item of batch) item.reject(err);
        }
      }
    } finally {
      // No await between the empty check above and here: an append queued meanwhile is impossible.
      this.flushing.delete(orgId);
      this.pending.delete(orgId);
    }
  }

  // audit_heads by `_id` (bounded: one per organization), then the positions after it.
  private async readHead(orgId: string): Promise<Head> {
    const head = await this.heads.findOne({ _id: orgId });
    if (!head) return { seq: 0, hash: null, rollup: emptyRollup(), exists: false };
    return this.followPositions(orgId, { seq: head.seq, hash: head.head_hash ?? null, rollup: null, exists: true });
  }

  /**
   * The head after every position indexed past `head` (positions are contiguous: the head is the
   * last of them). One point lookup when `head` is current; else the next HEAD_PROBE positions at
   * once; when they are all there, a gallop (session 17): positions 2, 4, 8 … 2^HEAD_PROBE past the
   * last one found, at once, then the gap between the last present and the first absent probe cut
   * in HEAD_PROBE + 1 parts per round until it closes. Positions are a prefix (a writer appends
   * only past the last position and indexes its own in order, 100 at a time), so "present" is
   * monotone and a probe past an absent one is absent too. After a conflict with another
   * process's 101-entry group commit this reads ~30 positions in 4-5 round trips, where walking 8
   * at a time read 105 in 14 (data-scale, session 17: ~305 audit_seq reads per burst of 10 jobs).
   * A position written before session 14 has no `entry_hash`: its entry is read for it (only for
   * the last position passed).
   * `until` (the pause write's): checked before each further probe; true ends the walk where it is
   * (a valid head, not necessarily the last).
   */
  private async followPositions(orgId: string, head: Head, until?: () => boolean): Promise<Head> {
    // audit_seq by `_id` (org#seq).
    const position = (seq: number) => this.seqIndex.findOne({ _id: seqKey(orgId, seq) });
    let cur = head;
    /** The first seq known absent (null: none yet). */
    let absent: number | null = null;
    let round = 0;
    for (;;) {
      const from = cur.seq;
      let seqs: number[];
      if (round === 0) seqs = [from + 1];
      else if (round === 1) seqs = Array.from({ length: HEAD_PROBE }, (_, i) => from + 1 + i);
      else if (absent === null) seqs = Array.from({ length: HEAD_PROBE }, (_, i) => from + 2 ** (i + 1));
      else {
        const gap = absent - from - 1;
        if (gap <= 0) return cur;
        seqs =
          gap <= HEAD_PROBE
            ? Array.from({ length: gap }, (_, i) => from + 1 + i)
            : [
                ...new Set(
                  Array.from({ length: HEAD_PROBE }, (_, i) =>
                    Math.min(
                      absent as number,
                      from + Math.ceil(((i + 1) * ((absent as number) - from)) / (HEAD_PROBE + 1)),
                    ),
                  ),
                ),
              ].filter((x) => x > from && x < (absent as number));
      }
      round++;
      const found = await Promise.all(seqs.map(position));
      let last: { seq: number; pos: AuditSeqDoc } | null = null;
      for (let i = 0; i < found.length; i++) {
        const pos = found[i];
        if (!pos) {
          absent = Math.min(absent ?? Infinity, seqs[i] as number);
          break;
        }
        last = { seq: seqs[i] as number, pos };
      }
      if (last) {
        const hash = last.pos.entry_hash ?? (await this.entryAt(orgId, last.seq, last.pos))?.entry_hash;
        // A legacy position whose entry is gone (deleted): the head cannot name its hash; stop before it.
        if (!hash) return cur;
        cur = { seq: last.seq, hash, rollup: null, exists: true };
      }
      if (absent === cur.seq + 1 || until?.()) return cur;
    }
  }

  /** The organization's head document brought up to the positions that follow it (null: no head yet). */
  async currentHead(orgId: string): Promise<AuditHeadDoc | null> {
    // audit_heads by `_id` (bounded: one per organization).
    const doc = await this.heads.findOne({ _id: orgId });
    if (!doc) return null;
    const head = await this.followPositions(orgId, {
      seq: doc.seq,
      hash: doc.head_hash ?? null,
      rollup: null,
      exists: true,
    });
    return head.seq === doc.seq ? doc : { ...doc, seq: head.seq, head_hash: head.hash };
  }

  /**
   * After this process moved the head: writes the head document when it is 8 entries or a second
   * behind what this process wrote last (a plain `$set`), and once appends pause (a timer) writes
   * it again and looks past it (publishHead): a reader follows the few positions in between.
   * Only the pause's write looks for positions past it: under load a head write is one command,
   * not a write and a read.
   */
  private async maybePublishHead(orgId: string, head: Head): Promise<void> {
    const last = this.publishedHeads.get(orgId);
    const now = Date.now();
    if (!last || head.seq - last.seq >= ROLLUP_STORE_EVERY || now - last.at >= ROLLUP_STORE_MS) {
      this.publishedHeads.set(orgId, { seq: head.seq, at: now });
      await this.writeHeadDoc(orgId, head).catch((err: Error) =>
        log.warn('audit head document not written', { org_id: orgId, error: err.message }),
      );
    }
    const pending = this.unpublished.get(orgId);
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      const p = this.unpublished.get(orgId);
      if (p?.timer !== timer) return;
      this.unpublished.delete(orgId);
      // A cache write after the appends paused: a failure only leaves readers a few more positions to follow.
      this.publishHead(orgId, p.head).catch((err: Error) =>
        log.warn('audit head document not written', { org_id: orgId, error: err.message }),
      );
    }, HEAD_PUBLISH_IDLE_MS);
    timer.unref();
    this.unpublished.set(orgId, { head, timer });
  }

  // audit_heads `$set` by `_id` (bounded: one per organization).
  private async writeHeadDoc(orgId: string, head: Pick<Head, 'seq' | 'hash'>): Promise<void> {
    await this.heads.updateOne(
      { _id: orgId },
      { $set: { seq: head.seq, head_hash: head.hash, updated_at: new Date() } },
    );
  }

  /**
   * Once this process's appends paused: writes the head document, and again while a position
   * past the one it wrote exists (another writer moved on, and this write may have landed after
   * that writer's): the last write to land is then one that saw no further position, so once
   * appends stop the document is the head.
   */
  private async publishHead(orgId: string, head: Head): Promise<void> {
    this.publishedHeads.set(orgId, { seq: head.seq, at: Date.now() });
    let cur = head;
    for (;;) {
      // Session 16: the document past this head means another process appended after it, and
      // that process's own pause write (which follows every position past it) comes, or came,
      // after: writing here would only set the document back, and following would chase that
      // process's appends for as long as they go on (data-scale: a paused process walked every
      // position of the other's commits, 100-1,300 audit_seq reads per burst). All of this
      // process's earlier writes have landed (maybePublishHead awaits its write before it arms
      // this timer). audit_heads by `_id` (bounded: one per organization).
      const doc = await this.heads.findOne({ _id: orgId });
      if (doc && doc.seq > cur.seq) return;
      await this.writeHeadDoc(orgId, cur);
      // This process appended past it meanwhile: that group commit's own pause write follows.
      const own = this.knownHeads.get(orgId);
      if (own && own.seq > cur.seq) return;
      // Session 16: the walk ends once this process appends past `cur` (that commit's own pause
      // write follows): before, a pause write whose process resumed appending walked every position
      // of its own new commits, 8 at a time, for as long as they went on (data-scale: ~2,000
      // audit_seq reads in one burst).
      const from = cur.seq;
      const next = await this.followPositions(orgId, cur, () => (this.knownHeads.get(orgId)?.seq ?? 0) > from);
      if (next.seq === cur.seq) return;
      cur = next;
    }
  }

  /** Writes `items` as consecutive entries; settles every item (resolve or reject). Throws only on store errors. */
  private async appendBatch(orgId: string, items: Pending[]): Promise<void> {
    let remaining = items;
    let head = this.knownHeads.get(orgId) ?? (await this.readHead(orgId));
    while (remaining.length > 0) {
      const docs: AuditLogDoc[] = [];
      const built: Pending[] = [];
      let previous = head.hash;
      for (const item of remaining) {
        if (item.attempts++ === 0) item.deadline = Math.min(Date.now() + item.budgetMs, item.notAfter);
        let entry;
        try {
          entry = buildEntry(item.fields, previous, item.secret);
        } catch (err) {
          item.reject(err); // AuditChainError: not retryable, and must not hold up the others
          continue;
        }
        docs.push({
          _id: item.logId,
          seq: head.seq + docs.length + 1,
          ...entry,
          ...(item.attestation ? { attestation: item.attestation } : {}),
        });
        built.push(item);
        previous = entry.entry_hash;
      }
      if (docs.length === 0) return;
      let inserted = docs.length;
      // audit_logs: unique inserts (by `_id` and by (organization_id, seq)), ordered: the store
      // stops at the first duplicate, so the entries before it are the ones written. Beside it,
      // at the same time (no extra wait), the commit's claim: what a waiting writer heals by.
      const first = docs[0] as AuditLogDoc;
      const [duplicates, claimed] = await Promise.all([
        insertReportingDuplicates(this.store, 'audit_logs', docs, true),
        this.insertClaim(orgId, first.seq, docs),
      ]);
      if (duplicates.length > 0) inserted = duplicates[0] as number;
      // Lost the position but won its claim: the claim names entries that are not there. It is
      // left for the position's winner to overwrite (session 16: a delete from here could land
      // after that overwrite and leave the winner's entries without a claim); a healer checks
      // every entry a claim names, so a loser's claim heals nothing.
      if (inserted > 0) {
        const mine = docs.slice(0, inserted);
        // Won the entries but not the claim (a loser's claim landed first, or the store refused
        // it): the claim is overwritten with ours, beside the positions (no extra wait). Before
        // session 16 such a commit had no claim, so a stall of its positions was healed only by
        // the scan of audit_logs after STALL_HEAL_MS (12.5 s of store time on a 10,000-entry
        // data-scale seed, against milliseconds on an empty store).
        // The positions move the head over the entries (their owner is this writer, by the entries' unique index).
        await Promise.all([this.indexPositions(mine), claimed ? undefined : this.replaceClaim(orgId, first.seq, mine)]);
        // Its positions are indexed: no heal needs the claim any more (session 24: deleted later, in the background).
        this.claimIndexed(seqKey(orgId, first.seq));
        const from = head;
        const last = mine[mine.length - 1] as AuditLogDoc;
        head = { seq: last.seq, hash: last.entry_hash, rollup: null, exists: true };
        // audit_heads: insert by `_id` (the genesis head of an organization no sign-up opened; a duplicate: it exists).
        if (!from.exists) await this.insertHead(orgId, head);
        this.knownHeads.set(orgId, head);
        this.stalls.delete(orgId);
        built
          .slice(0, inserted)
          .forEach((item, i) =>
            item.resolve({ doc: docs[i] as AuditLogDoc, attempts: item.attempts, existing: false }),
          );
        // The verdicts are out; the head document and the roll-up (caches) follow before this organization's next batch.
        if (from.exists) await this.maybePublishHead(orgId, head);
        head.rollup = await this.storeRollupAfter(orgId, from, mine);
      }
      if (inserted === docs.length) return;
      // docs[inserted] hit a unique index: its own id (an activity retry whose first attempt got
      // this far), or its position (another process appended there).
      this.knownHeads.delete(orgId);
      remaining = built.slice(inserted);
      const conflicted = remaining[0] as Pending;
      // audit_logs by `_id`. (Session 15 tried reading the head at the same time and retrying at
      // once when it moved: interleaved against this, 2 processes × 35 appends made 147-197
      // attempts instead of 79-99, no faster; the back-off stays.)
      const existing = await this.logs.findOne({ _id: conflicted.logId });
      /** The head as just read, when it moved (session 17: read once, not again below). */
      let moved: Head | null = null;
      if (existing) {
        // An earlier attempt wrote this entry, and usually the ones after it (a re-run of a batch
        // job's entries in another process): every remaining item is looked up at once (point
        // lookups by `_id`), not one per pass. An earlier attempt may have failed before the
        // positions (a store error between the two inserts): they are written (insert-once), or
        // the head could never pass those entries and every later append of the organization
        // would conflict at their seq for good.
        const rest = remaining.slice(1);
        // audit_logs by `_id`, LOOKUP_PARALLELISM in flight.
        const found = await mapLimit(rest, LOOKUP_PARALLELISM, (item) => this.logs.findOne({ _id: item.logId }));
        const stored = [existing, ...found.filter((d): d is AuditLogDoc => d !== null && d.organization_id === orgId)];
        await this.indexPositions(stored);
        conflicted.resolve({ doc: existing, attempts: conflicted.attempts, existing: true });
        rest.forEach((item, i) => {
          const doc = found[i];
          if (doc && doc.organization_id === orgId) item.resolve({ doc, attempts: item.attempts, existing: true });
        });
        remaining = rest.filter((_, i) => !(found[i] && found[i]?.organization_id === orgId));
      } else {
        // Position taken by a writer that has not indexed it yet (or crashed before it could):
        // read the head again (its positions); if it did not move, back off briefly (real
        // cross-process contention), and heal the position once it has been stalled too long.
        const now = await this.readHead(orgId);
        if (!now.exists)
          await this.healLegacyChain(orgId); // entries written before heads existed
        else if (now.seq === head.seq) {
          await this.healIfStalled(orgId, head.seq + 1);
          await sleep(Math.min(100, 2 * 2 ** Math.min(conflicted.attempts, 6)) * (0.5 + Math.random()));
        } else moved = now;
      }
      const t = Date.now();
      remaining = remaining.filter((item) => {
        if (t <= item.deadline) return true;
        item.reject(new AuditAppendConflictError(item.attempts));
        return false;
      });
      head = moved ?? (await this.readHead(orgId));
    }
  }

  /** The genesis head document (insert by `_id`); a duplicate means it exists already. */
  private async insertHead(orgId: string, head: Head): Promise<void> {
    try {
      await this.heads.insertOne({ _id: orgId, seq: head.seq, head_hash: head.hash, updated_at: new Date() });
      this.publishedHeads.set(orgId, { seq: head.seq, at: Date.now() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /**
   * Position `seq` is taken (its entry exists) but not indexed while the head waits before it:
   * its writer is between its two inserts, or died there. Once that has lasted STALL_HEAL_MS
   * (a live writer indexes within one round trip), the entry is found by (organization_id, seq)
   * and indexed, so the head moves over it and the chain goes on.
   */
  private async healIfStalled(orgId: string, seq: number): Promise<void> {
    const stall = this.stalls.get(orgId);
    if (!stall || stall.seq !== seq) {
      this.stalls.set(orgId, { seq, since: Date.now(), claimTried: false });
      return;
    }
    const waited = Date.now() - stall.since;
    // First by the commit's claim (point lookups), once; the scan only after STALL_HEAL_MS.
    if (!stall.claimTried && waited >= Math.min(CLAIM_HEAL_MS, this.stallHealMs)) {
      stall.claimTried = true;
      if (await this.healByClaim(orgId, seq)) return void this.stalls.delete(orgId);
    }
    if (waited < this.stallHealMs) return;
    this.stalls.delete(orgId);
    await this.healStalledPosition(orgId, seq);
  }

  /**
   * The claim of a group commit starting at `seq` (audit_claims, insert-once by `_id` org#seq),
   * sent beside its entries. False when it was not written (another writer's claim is there, or
   * the store refused it: a claim only spares a heal its scan, so it never fails an append).
   */
  private async insertClaim(orgId: string, seq: number, docs: AuditLogDoc[]): Promise<boolean> {
    try {
      const dup = await insertReportingDuplicates<AuditClaimDoc>(
        this.store,
        'audit_claims',
        [{ _id: seqKey(orgId, seq), log_ids: docs.map((d) => d._id) }],
        true,
      );
      return dup.length === 0;
    } catch (err) {
      log.debug('audit claim not written', { org_id: orgId, seq, error: (err as Error).message });
      return false;
    }
  }

  /**
   * The claim of a commit whose entries this writer won while its claim insert did not land (a
   * loser's claim of the same first seq got there first): replaced by `_id` (audit_claims, upsert
   * by `_id` alone: a filter on more is a scan on FerretDB/SQLite). Only the owner of the
   * entries writes this; losers never delete or write a claim after their insert, so the last
   * write is the owner's. A failure is logged: a claim only spares a heal its scan.
   */
  private async replaceClaim(orgId: string, seq: number, docs: AuditLogDoc[]): Promise<void> {
    await this.claims
      .replaceOne({ _id: seqKey(orgId, seq) }, { log_ids: docs.map((d) => d._id) }, { upsert: true })
      .catch((err: Error) => log.debug('audit claim not replaced', { org_id: orgId, seq, error: err.message }));
  }

  /** Session 24: the claim `id`'s commit is indexed; its deletion is queued (retireClaims), the timer armed. */
  private claimIndexed(id: string, now = Date.now()): void {
    if (this.indexedClaims.length >= CLAIM_RETIRE_MAX) return; // left in the store, as every claim was before
    this.indexedClaims.push({ id, at: now });
    this.armRetire();
  }

  /**
   * Deletes the claims of commits this writer indexed at least CLAIM_RETIRE_AFTER_MS ago: by
   * `_id` (audit_claims, point deletes, CLAIM_RETIRE_BATCH per command). Background (its timer,
   * re-armed while claims wait). A failure leaves them to the next run. Returns how many it sent.
   * One run at a time: a run while one is in flight sends nothing (that one re-arms the timer).
   */
  async retireClaims(now = Date.now()): Promise<number> {
    if (this.retiring) return 0;
    this.retiring = true;
    try {
      return await this.retireDueClaims(now);
    } finally {
      this.retiring = false;
    }
  }

  private async retireDueClaims(now: number): Promise<number> {
    let n = 0;
    while (n < this.indexedClaims.length && (this.indexedClaims[n] as { at: number }).at <= now - CLAIM_RETIRE_AFTER_MS)
      n++;
    const due = this.indexedClaims.slice(0, n);
    let sent = 0;
    try {
      for (let i = 0; i < due.length; i += CLAIM_RETIRE_BATCH) {
        const ops = due.slice(i, i + CLAIM_RETIRE_BATCH).map(({ id }) => ({ deleteOne: { filter: { _id: id } } }));
        await this.claims.bulkWrite(ops, { ordered: false });
        sent += ops.length;
      }
    } catch (err) {
      log.debug('audit claims not retired (next run)', { error: (err as Error).message });
    }
    this.indexedClaims.splice(0, sent);
    if (this.indexedClaims.length > 0) this.armRetire();
    return sent;
  }

  /** The retirement's timer, unless one is armed (one per writer; never keeps the process alive). */
  private armRetire(): void {
    if (this.retireTimer) return;
    this.retireTimer = setTimeout(() => {
      this.retireTimer = null;
      void this.retireClaims();
    }, CLAIM_RETIRE_EVERY_MS);
    this.retireTimer.unref();
  }

  /**
   * Heals a stalled position by point lookups: the claim of the commit that starts there
   * (audit_claims by `_id`), then its entries (audit_logs by `_id`), each checked to be this
   * organization's entry at the seq the claim gives it; the run that checks out is indexed.
   * The claim may start before `seq` (claimCovering: a positions insert that stopped part-way).
   * False when no claim covers `seq` or its entry there is not at `seq` (then the scan, later).
   */
  async healByClaim(orgId: string, seq: number): Promise<boolean> {
    const covering = await this.claimCovering(orgId, seq);
    if (!covering) return false;
    // audit_logs by `_id`, LOOKUP_PARALLELISM in flight (at most MAX_BATCH: one commit), from `seq` on.
    const found = await mapLimit(covering.log_ids.slice(seq - covering.first, MAX_BATCH), LOOKUP_PARALLELISM, (id) =>
      this.logs.findOne({ _id: id }),
    );
    const run: AuditLogDoc[] = [];
    for (const d of found) {
      if (!d || d.organization_id !== orgId || d.seq !== seq + run.length) break;
      run.push(d);
    }
    if (run.length === 0) return false;
    await this.indexPositions(run);
    log.warn('audit position healed by its claim (its writer stopped between its two inserts, or is slow)', {
      org_id: orgId,
      seq,
      entries: run.length,
    });
    return true;
  }

  /**
   * The claim of the commit that holds position `seq`: the one starting there, else (a writer
   * whose positions insert stopped part-way: its first positions are indexed, the rest not) the
   * nearest claim before it whose entries reach `seq`. audit_claims by `_id` (org#seq), then
   * org#(seq-1) … org#(seq-MAX_BATCH+1) LOOKUP_PARALLELISM at a time, nearest first: bounded by
   * MAX_BATCH (a commit's size), and only on a stall.
   */
  private async claimCovering(orgId: string, seq: number): Promise<{ first: number; log_ids: string[] } | null> {
    const at = async (first: number) => {
      const claim = await this.claims.findOne({ _id: seqKey(orgId, first) });
      return claim && Array.isArray(claim.log_ids) ? { first, log_ids: claim.log_ids } : null;
    };
    // Session 16: a loser's claim stays where it landed (appendBatch), so a claim counts only when
    // its first entry is this organization's entry at the claim's seq (audit_logs by `_id`; one
    // lookup per claim found, on a stall only); a loser's is passed over, as if absent.
    const owners = async (c: { first: number; log_ids: string[] } | null) => {
      const id = c?.log_ids[0];
      if (!c || typeof id !== 'string') return false;
      const d = await this.logs.findOne({ _id: id });
      return d !== null && d.organization_id === orgId && d.seq === c.first;
    };
    const own = await at(seq);
    if (own && (await owners(own))) return own;
    for (let hi = seq - 1; hi >= Math.max(1, seq - MAX_BATCH + 1); hi -= LOOKUP_PARALLELISM) {
      const firsts = Array.from({ length: LOOKUP_PARALLELISM }, (_, i) => hi - i).filter(
        (f) => f >= Math.max(1, seq - MAX_BATCH + 1),
      );
      const claims = await Promise.all(firsts.map(at));
      // The nearest owner's claim before `seq` is its commit's (commits do not overlap): it covers `seq` or nothing does.
      for (const c of claims) {
        if (c && (await owners(c))) return c.first + c.log_ids.length > seq ? c : null;
      }
    }
    return null;
  }

  /**
   * Indexes the entry stored at `seq` without a position (its writer died between its two
   * inserts). Returns it, or null when no entry is there. The one read of `audit_logs` by
   * (organization_id, seq): served by the unique index on MongoDB, a scan on FerretDB/SQLite, so
   * only after a position has stalled (healIfStalled), never on a request's ordinary path.
   */
  async healStalledPosition(orgId: string, seq: number): Promise<AuditLogDoc | null> {
    // audit_logs by (organization_id, seq): the unique index (a scan on FerretDB/SQLite; after a crash only).
    const doc = await this.logs.findOne({ organization_id: orgId, seq });
    if (!doc) return null;
    await this.indexPositions([doc]);
    log.warn('audit position healed (its writer stopped between its two inserts)', { org_id: orgId, seq });
    return doc;
  }

  /**
   * After this writer indexed `entries` (the positions after `from`): stores the roll-up of the
   * new head (the roll-up of `from` plus the entries). A cache: a failure is logged, never the
   * append's failure (readers catch up or rebuild). Returns it, or null when it is not known.
   */
  private async storeRollupAfter(orgId: string, from: Head, entries: AuditLogDoc[]): Promise<AuditRollup | null> {
    try {
      const base = from.rollup?.seq === from.seq ? from.rollup : await this.rollupAt(orgId, from.seq);
      if (!base) return null;
      const rollup = addEntries(base, entries);
      const stored = this.storedRollups.get(orgId);
      const now = Date.now();
      if (stored && rollup.seq - stored.seq < ROLLUP_STORE_EVERY && now - stored.at < ROLLUP_STORE_MS) return rollup;
      const complete = this.knownComplete.get(orgId);
      // Another process stored a complete roll-up past this one: writing would set it back.
      if (complete && complete.seq > rollup.seq) return rollup;
      const recent = complete ? hoursSince(rollup, complete) : null;
      if (complete && recent && recent.length <= RECENT_HOURS) {
        // audit_rollups by `_id` (bounded: the recent roll-up, one per organization); created by
        // this upsert, so a racing first one is retried as the replacement it then is.
        await upsertById(() =>
          this.rollups.replaceOne(
            { _id: recentRollupId(orgId) },
            recentRollupDoc(orgId, rollup, complete.seq, recent),
            { upsert: true },
          ),
        );
      } else {
        // audit_rollups by `_id` (bounded: one per organization): the complete roll-up. The recent
        // one stays as it is: its seq is below this one's now, so readers take this (rollupFromDocs).
        await this.rollups.replaceOne({ _id: orgId }, rollupDoc(orgId, rollup), { upsert: true });
        this.knownComplete.set(orgId, rollup);
      }
      this.storedRollups.set(orgId, { seq: rollup.seq, at: now });
      return rollup;
    } catch (err) {
      log.warn('audit roll-up not stored', { org_id: orgId, error: (err as Error).message });
      return null;
    }
  }

  /**
   * The roll-up of entries 1..seq from the stored one (one point lookup) and, when it is behind,
   * the positions in between (≤ ROLLUP_CATCH_UP point lookups). Null when it cannot be known that
   * way (missing: written before roll-ups existed; too far behind; ahead of `seq`): then a
   * rebuild is started in the background.
   */
  private async rollupAt(orgId: string, seq: number): Promise<AuditRollup | null> {
    if (seq === 0) return emptyRollup();
    // audit_rollups by `_id`, the complete roll-up and the recent one at once (session 23).
    const [complete, recent] = await Promise.all([
      this.rollups.findOne({ _id: orgId }),
      this.rollups.findOne({ _id: recentRollupId(orgId) }),
    ]);
    return this.rollupFromDocs(orgId, seq, complete, recent);
  }

  /**
   * The roll-up of 1..seq from the two stored documents (session 23): the recent one over the
   * complete one when it extends it (overlayRollup: its base at or below the complete one's seq),
   * else the complete one alone; either caught up by position when a few entries behind. A
   * complete roll-up below the recent one's base (an older fold of another process landed last)
   * is first caught up to that base by position. A recent document alone counts nothing (its
   * hours are partial). Null, with a rebuild in the background, when neither gets there.
   */
  private async rollupFromDocs(
    orgId: string,
    seq: number,
    completeDoc: AuditRollupDoc | null,
    recentDoc: AuditRollupDoc | null,
  ): Promise<AuditRollup | null> {
    const complete = completeDoc && rollupOfDoc(completeDoc);
    if (complete) this.knownComplete.set(orgId, complete);
    const base = recentDoc?.base;
    const recent = recentDoc && typeof base === 'number' ? rollupOfDoc(recentDoc) : null;
    let doc = complete;
    if (complete && recent && typeof base === 'number' && complete.seq <= recent.seq && recent.seq > seq) {
      // Another process stored past `seq` (it appended meanwhile): the complete roll-up when a few
      // entries behind, else nothing and no rebuild, as for a roll-up stored past `seq` before
      // session 23 (the complete one may be hours behind; a rebuild reads the whole chain).
      if (complete.seq <= seq && seq - complete.seq <= ROLLUP_CATCH_UP) return this.computeRollup(orgId, complete, seq);
      return complete.seq === seq ? complete : null;
    }
    // Strictly past it: at an equal seq both are exact when right, and the complete one is what a
    // rebuild (rebuildRollup) has just mended, so a wrong recent one must not be laid over it.
    if (complete && recent && typeof base === 'number' && complete.seq < recent.seq) {
      const at =
        complete.seq >= base
          ? complete
          : base - complete.seq <= ROLLUP_CATCH_UP
            ? await this.computeRollup(orgId, complete, base)
            : null;
      doc = (at && overlayRollup(at, recent, base)) ?? complete;
    }
    if (doc && doc.seq === seq) return doc;
    if (doc && doc.seq < seq && seq - doc.seq <= ROLLUP_CATCH_UP) return this.computeRollup(orgId, doc, seq);
    if (!doc || doc.seq < seq) this.rebuildInBackground(orgId);
    return null;
  }

  /** Index documents for freshly inserted entries (idempotent: a position is written once). */
  private async indexPositions(docs: AuditLogDoc[]): Promise<void> {
    const idx = docs.map((d) => ({
      _id: seqKey(d.organization_id, d.seq),
      log_id: d._id,
      entry_hash: d.entry_hash,
      verified: d.verified === true,
      blocked: isBlocked(d),
    }));
    // audit_seq: unique inserts by `_id` (org#seq). A duplicate is a position already indexed (a
    // helper or an earlier attempt): the position's entry is immutable.
    await insertReportingDuplicates(this.store, 'audit_seq', idx, false);
  }

  /**
   * The organization's entry stored at position `seq` (two point lookups: position, then entry),
   * or null when the position is free or names an entry that is not there any more (deleted or
   * moved: verification reports that as a broken chain).
   */
  async entryAt(orgId: string, seq: number, idx?: AuditSeqDoc | null): Promise<AuditLogDoc | null> {
    // audit_seq by `_id` (org#seq).
    const pos = idx === undefined ? await this.seqIndex.findOne({ _id: seqKey(orgId, seq) }) : idx;
    if (!pos) return null;
    // audit_logs by `_id`.
    const doc = await this.logs.findOne({ _id: pos.log_id });
    return doc && doc.organization_id === orgId && doc.seq === seq ? doc : null;
  }

  /** One entry of the organization (another organization's id: null, as an unknown id). */
  async find(orgId: string, logId: string): Promise<AuditLogDoc | null> {
    // audit_logs by `_id`; the organization is checked here, not in the filter (a scan on FerretDB/SQLite).
    const doc = await this.logs.findOne({ _id: logId });
    return doc && doc.organization_id === orgId ? doc : null;
  }

  /**
   * The organization's nearest stored entry before `seq` (null for the first): position seq-1,
   * or, when entries were deleted, the nearest stored one within PREDECESSOR_WALK positions.
   */
  async predecessor(orgId: string, seq: number): Promise<AuditLogDoc | null> {
    if (!Number.isSafeInteger(seq)) return null;
    for (let s = seq - 1; s >= 1 && s >= seq - PREDECESSOR_WALK; s--) {
      const prev = await this.entryAt(orgId, s);
      if (prev) return prev;
    }
    return null;
  }

  /**
   * Verifies one entry against its predecessor by position. An entry whose position document
   * names another entry is not where its seq says (entries moved or swapped): the chain is broken.
   */
  async verify(orgId: string, doc: AuditLogDoc, secret: string | undefined): Promise<AuditVerification> {
    const isSeq = typeof doc.seq === 'number' && Number.isSafeInteger(doc.seq);
    const [prev, own] = await Promise.all([
      isSeq ? this.predecessor(orgId, doc.seq) : Promise.resolve(null),
      // audit_seq by `_id` (org#seq).
      isSeq ? this.seqIndex.findOne({ _id: seqKey(orgId, doc.seq) }) : Promise.resolve(null),
    ]);
    const v = verifyEntry(doc, prev, secret);
    if (secret && own && own.log_id !== doc._id) {
      v.checks.chain_valid = false;
      v.valid = false;
      v.errors.push('another entry is stored at this position (entries moved or swapped)');
    }
    return v;
  }

  /**
   * The organization's head (bounded collection, by `_id`). An organization without one has no
   * entries, or entries written before heads existed: those are indexed once (healLegacyChain).
   */
  private async headOf(orgId: string): Promise<AuditHeadDoc> {
    const head = await this.currentHead(orgId);
    if (head) return head;
    await this.healLegacyChain(orgId);
    return (await this.currentHead(orgId)) ?? { _id: orgId, seq: 0, head_hash: null, updated_at: new Date() };
  }

  /**
   * The one place that reads `audit_logs` by organization (a scan on FerretDB/SQLite): for an
   * organization without a head document, i.e. at most once per organization, and only for
   * chains written before positions and heads existed (or with no entries yet). Indexes every
   * position, then inserts the head at the last contiguous entry with its roll-up; afterwards
   * every read is by key.
   */
  async healLegacyChain(orgId: string): Promise<void> {
    const entries = (await this.logs.find({ organization_id: orgId }).toArray()).sort((a, b) => a.seq - b.seq);
    if (entries.length) await this.indexPositions(entries);
    const contiguous: AuditLogDoc[] = [];
    for (const e of entries) {
      if (e.seq !== contiguous.length + 1) break;
      contiguous.push(e);
    }
    const last = contiguous[contiguous.length - 1];
    try {
      await this.heads.insertOne({
        _id: orgId,
        seq: last?.seq ?? 0,
        head_hash: last?.entry_hash ?? null,
        updated_at: new Date(),
      });
      if (entries.length) log.info('legacy audit chain indexed', { org_id: orgId, entries: entries.length });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err; // another process did it (or the first append won)
      return;
    }
    // audit_rollups by `_id`: only the writer of the head writes its roll-up.
    await this.rollups.replaceOne({ _id: orgId }, rollupDoc(orgId, addEntries(emptyRollup(), contiguous)), {
      upsert: true,
    });
  }

  /** Most recent first (the first page of `page`). */
  async list(
    orgId: string,
    opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number },
  ): Promise<AuditLogDoc[]> {
    return (await this.page(orgId, opts)).docs;
  }

  /**
   * A page of entries, most recent first, below `beforeSeq` (default: the newest). Reads by
   * position from the head down with point lookups, so its cost does not grow with the chain.
   * Unfiltered pages are full unless the chain ends; a status-filtered page looks at no more
   * than STATUS_SCAN_WINDOW positions, so it can hold fewer than `limit` entries with a
   * non-null `next` (continue from there).
   */
  async page(
    orgId: string,
    opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number },
  ): Promise<AuditPage> {
    // The head follows the positions (an entry not yet indexed is not readable by position anyway).
    const top = (await this.headOf(orgId)).seq;
    let from = Math.min(top, opts.beforeSeq !== undefined ? opts.beforeSeq - 1 : top);
    const docs: AuditLogDoc[] = [];
    if (!opts.status) {
      while (docs.length < opts.limit && from >= 1) {
        const seqs = Array.from({ length: Math.min(opts.limit - docs.length, from) }, (_, i) => from - i);
        const found = await mapLimit(seqs, LOOKUP_PARALLELISM, (seq) => this.entryAt(orgId, seq));
        for (const d of found) if (d) docs.push(d);
        from -= seqs.length;
      }
      return { docs, next: from >= 1 && docs.length > 0 ? (docs[docs.length - 1] as AuditLogDoc).seq : null };
    }
    const lowest = Math.max(1, from - STATUS_SCAN_WINDOW + 1);
    while (docs.length < opts.limit && from >= lowest) {
      const seqs = Array.from({ length: Math.min(64, from - lowest + 1) }, (_, i) => from - i);
      // audit_seq by `_id` (org#seq), bounded by STATUS_SCAN_WINDOW per page.
      const idx = await mapLimit(seqs, LOOKUP_PARALLELISM, (seq) => this.seqIndex.findOne({ _id: seqKey(orgId, seq) }));
      const picked: Array<{ seq: number; idx: AuditSeqDoc }> = [];
      for (let i = 0; i < seqs.length; i++) {
        const pos = idx[i] ?? null;
        if (pos && (opts.status === 'verified' ? pos.verified : pos.blocked))
          picked.push({ seq: seqs[i] as number, idx: pos });
      }
      const found = await mapLimit(picked, LOOKUP_PARALLELISM, (p) => this.entryAt(orgId, p.seq, p.idx));
      for (let i = 0; i < found.length; i++) {
        const d = found[i];
        if (!d || !(opts.status === 'verified' ? d.verified === true : isBlocked(d))) continue;
        docs.push(d);
        if (docs.length === opts.limit) return { docs, next: d.seq > 1 ? d.seq : null };
      }
      from -= seqs.length;
    }
    return { docs, next: from >= 1 ? from + 1 : null };
  }

  /** Every entry in chain order (oldest first), by position: the auditor's full export. */
  async *inOrder(orgId: string, chunk = 200): AsyncGenerator<AuditLogDoc> {
    const head = await this.headOf(orgId);
    let seq = 1;
    for (;;) {
      const seqs = Array.from({ length: chunk }, (_, i) => seq + i);
      const found = await mapLimit(seqs, LOOKUP_PARALLELISM, (s) => this.entryAt(orgId, s));
      for (const d of found) if (d) yield d;
      seq += chunk;
      // Past the head, stop at the first free position.
      if (seq > head.seq && found.some((d, i) => !d && (seqs[i] as number) > head.seq)) return;
    }
  }

  /** The last `limit` entries in chain order (oldest first). */
  async lastInOrder(orgId: string, limit: number): Promise<AuditLogDoc[]> {
    return (await this.list(orgId, { limit })).reverse();
  }

  /**
   * Integrity of the last `window` entries: each verified against its predecessor, plus the
   * head document (a deleted newest entry leaves the head pointing past the stored chain).
   */
  async integrity(orgId: string, window: number, secret: string | undefined): Promise<ChainIntegrity> {
    const docs = await this.list(orgId, { limit: window + 1 });
    docs.reverse();
    const head = await this.currentHead(orgId);
    // The oldest loaded entry only serves as the predecessor of the next one (unless it is the genesis).
    const first = docs.length > window ? 1 : 0;
    let invalid = 0;
    let firstInvalid: ChainIntegrity['first_invalid'] = null;
    for (let i = first; i < docs.length; i++) {
      const doc = docs[i] as AuditLogDoc;
      // i === 0 only when everything was loaded: then the first stored entry has no predecessor.
      const prev = i === 0 ? null : (docs[i - 1] as AuditLogDoc);
      const v = verifyEntry(doc, prev, secret);
      if (!v.valid) {
        invalid++;
        firstInvalid ??= { log_id: doc._id, seq: doc.seq, errors: v.errors };
      }
    }
    const last = docs[docs.length - 1];
    const headSeq = head?.seq ?? 0;
    const headMatches = last
      ? head !== null && head.seq === last.seq && head.head_hash === last.entry_hash
      : headSeq === 0;
    const checked = docs.length - first;
    return {
      checked,
      invalid,
      head_seq: headSeq,
      head_matches_last_entry: headMatches,
      valid: invalid === 0 && headMatches && secret !== undefined && secret !== '',
      first_invalid: firstInvalid,
    };
  }

  /**
   * The organization's entry count and verdict roll-up: two point lookups (head, roll-up), plus
   * the positions a roll-up that is a few entries behind the head lacks. A roll-up that is missing
   * (a chain written before roll-ups existed) or far behind is rebuilt in the background from the
   * chain, and null is returned meanwhile: the roll-up is a cache, the chain is the truth.
   */
  async rollup(orgId: string): Promise<{ seq: number; rollup: AuditRollup | null }> {
    const head = await this.headOf(orgId);
    return { seq: head.seq, rollup: await this.rollupAt(orgId, head.seq) };
  }

  /**
   * Every organization's roll-up (GET /metrics): both collections are bounded (one document per
   * organization); a roll-up a few entries behind its head is caught up by position.
   */
  async allRollups(): Promise<Array<{ orgId: string; seq: number; rollup: AuditRollup | null }>> {
    // audit_heads and audit_rollups, all documents: bounded (one per organization, two roll-ups).
    const [docs, rollups] = await Promise.all([this.heads.find({}).toArray(), this.rollups.find({}).toArray()]);
    const byId = new Map(rollups.map((r) => [r._id, r] as const));
    return mapLimit(docs, LOOKUP_PARALLELISM, async (doc) => {
      const moved = await this.followPositions(doc._id, {
        seq: doc.seq,
        hash: doc.head_hash ?? null,
        rollup: null,
        exists: true,
      });
      const complete = byId.get(doc._id) ?? null;
      const rollup =
        moved.seq === 0 && !complete
          ? emptyRollup()
          : await this.rollupFromDocs(doc._id, moved.seq, complete, byId.get(recentRollupId(doc._id)) ?? null);
      return { orgId: doc._id, seq: moved.seq, rollup };
    });
  }

  private rebuildInBackground(orgId: string): void {
    if (this.rebuilding.has(orgId)) return;
    this.rebuilding.add(orgId);
    this.rebuildRollup(orgId)
      .catch((err: Error) => log.warn('audit roll-up rebuild failed', { org_id: orgId, error: err.message }))
      .finally(() => this.rebuilding.delete(orgId));
  }

  /** The roll-up of the organization's chain as stored now (positions 1..head, point lookups), without storing it. */
  async computeRollup(orgId: string, from: AuditRollup = emptyRollup(), upTo?: number): Promise<AuditRollup> {
    let rollup = from;
    const last = upTo ?? (await this.headOf(orgId)).seq;
    for (let seq = rollup.seq + 1; seq <= last; seq += 200) {
      const seqs = Array.from({ length: Math.min(200, last - seq + 1) }, (_, i) => seq + i);
      const found = await mapLimit(seqs, LOOKUP_PARALLELISM, (s) => this.entryAt(orgId, s));
      // A position whose entry is gone (a deleted entry) still counts as a position, with no verdict.
      let run: AuditLogDoc[] = [];
      found.forEach((d, i) => {
        if (d) return void run.push(d);
        rollup = { ...addEntries(rollup, run), seq: seqs[i] as number };
        run = [];
      });
      rollup = addEntries(rollup, run);
    }
    return rollup;
  }

  /**
   * Recomputes the organization's roll-up from its chain (positions 1..head) and stores it; when
   * appends moved the head meanwhile, counts their entries too. Returns the roll-up stored.
   */
  async rebuildRollup(orgId: string): Promise<AuditRollup> {
    const head = await this.headOf(orgId);
    let rollup = await this.computeRollup(orgId, emptyRollup(), head.seq);
    const now = await this.headOf(orgId);
    if (now.seq > rollup.seq) rollup = await this.computeRollup(orgId, rollup, now.seq);
    // audit_rollups by `_id` (a plain replacement: a roll-up is exact for its seq whoever writes it last).
    await this.rollups.replaceOne({ _id: orgId }, rollupDoc(orgId, rollup), { upsert: true });
    // audit_rollups by `_id`: the recent roll-up goes with the mended complete one (it may carry the
    // wrong counts the rebuild is for); the next cadence store writes a fresh one.
    await this.rollups.deleteOne({ _id: recentRollupId(orgId) });
    this.knownComplete.set(orgId, rollup);
    return rollup;
  }
}
