// The audit log in the store: one linear, hash-chained sequence of entries per organization
// (core/audit-chain.ts builds and verifies entries; this module orders and stores them).
//
// Appends come from many workflows in many worker processes at once, and the store offers
// no multi-document transactions (FerretDB), so the chain is kept linear with two
// single-document primitives:
//   - `audit_logs` has a unique index on (organization_id, seq): at most one entry per position;
//   - `audit_heads` holds one document per organization, `{_id: org, seq, head_hash}`, advanced
//     only by compare-and-swap on `seq` (the genesis head is an insert, guarded by `_id`).
// A writer reads the head (n, h), builds its entry with previous_hash h, inserts it at seq
// n+1, then moves the head from n to n+1. A racing writer's insert at n+1 fails on the unique
// index; it then helps move the head forward (so a writer that crashed between its two steps
// never wedges the chain) and retries with backoff. Entry ids are chosen by the caller and
// derived from the workflow id, so an activity retry finds its own entry instead of appending
// a second one.
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoServerError, type Collection, type Filter } from 'mongodb';
import { Store } from './store.js';
import { buildEntry, verifyEntry, type AuditEntry, type AuditEntryFields, type AuditVerification } from './audit-chain.js';

export interface AuditLogDoc extends AuditEntry {
  _id: string;
  /** Position in the organization's chain, 1-based and gap-free. */
  seq: number;
}

export interface AuditHeadDoc {
  _id: string; // organization id
  seq: number;
  head_hash: string;
  updated_at: Date;
}

Store.registerIndexes(async (store) => {
  await store.collection('audit_logs').createIndex({ organization_id: 1, seq: 1 }, { unique: true });
});

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

export type AuditStatusFilter = 'verified' | 'blocked';

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

export class AuditLog {
  constructor(private readonly store: Store) {}

  // Looked up per use, never cached: the store replaces its client after an outage.
  get logs(): Collection<AuditLogDoc> {
    return this.store.collection<AuditLogDoc>('audit_logs');
  }

  get heads(): Collection<AuditHeadDoc> {
    return this.store.collection<AuditHeadDoc>('audit_heads');
  }

  /** Last head this process wrote or read, per organization: saves a read per append (a stale one only costs a retry). */
  private readonly knownHeads = new Map<string, { seq: number; hash: string | null }>();
  /** Appends of one organization are serialized within the process; the CAS handles other processes. */
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * Appends an entry to its organization's chain under the id `logId`. Throws AuditChainError
   * (from buildEntry) when the secret is missing or a field is malformed, and
   * AuditAppendConflictError when contention from other processes outlasts `budgetMs`.
   */
  append(fields: AuditEntryFields, opts: { logId: string; secret: string | undefined; budgetMs?: number }): Promise<AppendResult> {
    const orgId = fields.organization_id;
    const prev = this.queues.get(orgId) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(() => this.appendNow(fields, opts));
    this.queues.set(orgId, run);
    // Drop the queue entry once idle so the map does not grow with every organization seen.
    void run.catch(() => undefined).then(() => {
      if (this.queues.get(orgId) === run) this.queues.delete(orgId);
    });
    return run;
  }

  private async readHead(orgId: string): Promise<{ seq: number; hash: string | null }> {
    const head = await this.heads.findOne({ _id: orgId });
    return { seq: head?.seq ?? 0, hash: head?.head_hash ?? null };
  }

  private async appendNow(fields: AuditEntryFields, opts: { logId: string; secret: string | undefined; budgetMs?: number }): Promise<AppendResult> {
    const orgId = fields.organization_id;
    const deadline = Date.now() + (opts.budgetMs ?? 8000);
    let head = this.knownHeads.get(orgId) ?? (await this.readHead(orgId));
    for (let attempt = 1; ; attempt++) {
      const entry = buildEntry(fields, head.hash, opts.secret);
      const doc: AuditLogDoc = { _id: opts.logId, seq: head.seq + 1, ...entry };
      try {
        await this.logs.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        this.knownHeads.delete(orgId);
        // Our own id (an activity retry whose first attempt got this far): done already.
        const existing = await this.logs.findOne({ _id: opts.logId });
        if (existing) {
          await this.rollForward(orgId, existing.seq - 1);
          return { doc: existing, attempts: attempt, existing: true };
        }
        // Position taken: by a writer that has not moved the head yet (or crashed before it
        // could), so help the head past it; then retry from the current head.
        let fresh = await this.readHead(orgId);
        if (fresh.seq === head.seq) {
          await this.rollForward(orgId, head.seq);
          fresh = await this.readHead(orgId);
        }
        if (Date.now() > deadline) throw new AuditAppendConflictError(attempt);
        // Only a stale cached head costs nothing; real contention from another process backs off.
        if (attempt > 1) await sleep(Math.min(100, 2 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
        head = fresh;
        continue;
      }
      await this.advanceHead(orgId, head.seq, entry.entry_hash);
      this.knownHeads.set(orgId, { seq: head.seq + 1, hash: entry.entry_hash });
      return { doc, attempts: attempt, existing: false };
    }
  }

  /** Moves the head from seq n to n+1 (CAS); a no-op when someone already did. */
  private async advanceHead(orgId: string, n: number, hash: string): Promise<void> {
    if (n === 0) {
      try {
        await this.heads.insertOne({ _id: orgId, seq: 1, head_hash: hash, updated_at: new Date() });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      return;
    }
    await this.heads.updateOne({ _id: orgId, seq: n }, { $set: { seq: n + 1, head_hash: hash, updated_at: new Date() } });
  }

  /** If the entry at seq n+1 exists while the head is still at n, advances the head to it. */
  private async rollForward(orgId: string, n: number): Promise<void> {
    if (n < 0) return;
    const next = await this.logs.findOne({ organization_id: orgId, seq: n + 1 });
    if (next) await this.advanceHead(orgId, n, next.entry_hash);
  }

  /** One entry of the organization (another organization's id: null). */
  find(orgId: string, logId: string): Promise<AuditLogDoc | null> {
    return this.logs.findOne({ _id: logId, organization_id: orgId });
  }

  /** The organization's entry immediately before `seq` in storage order (null for the first). */
  async predecessor(orgId: string, seq: number): Promise<AuditLogDoc | null> {
    const [prev] = await this.logs.find({ organization_id: orgId, seq: { $lt: seq } }).sort({ seq: -1 }).limit(1).toArray();
    return prev ?? null;
  }

  /** Verifies one entry against its immediate predecessor by seq. */
  async verify(orgId: string, doc: AuditLogDoc, secret: string | undefined): Promise<AuditVerification> {
    const prev = typeof doc.seq === 'number' ? await this.predecessor(orgId, doc.seq) : null;
    return verifyEntry(doc, prev, secret);
  }

  filter(orgId: string, opts: { status?: AuditStatusFilter; beforeSeq?: number } = {}): Filter<AuditLogDoc> {
    const filter: Filter<AuditLogDoc> = { organization_id: orgId };
    if (opts.beforeSeq !== undefined) filter.seq = { $lt: opts.beforeSeq };
    if (opts.status === 'verified') filter.verified = true;
    if (opts.status === 'blocked') filter.$or = [{ 'result.status': 'BLOCKED' }, { 'result.admission': 'BLOCKED' }];
    return filter;
  }

  /** Most recent first. */
  list(orgId: string, opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number; skip?: number }): Promise<AuditLogDoc[]> {
    return this.logs
      .find(this.filter(orgId, opts))
      .sort({ seq: -1 })
      .skip(opts.skip ?? 0)
      .limit(opts.limit)
      .toArray();
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
    const head = await this.heads.findOne({ _id: orgId });
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
    const headMatches = last ? head !== null && head.seq === last.seq && head.head_hash === last.entry_hash : head === null;
    const checked = docs.length - first;
    return {
      checked,
      invalid,
      head_seq: head?.seq ?? 0,
      head_matches_last_entry: headMatches,
      valid: invalid === 0 && headMatches && secret !== undefined && secret !== '',
      first_invalid: firstInvalid,
    };
  }
}

export interface ChainIntegrity {
  checked: number;
  invalid: number;
  head_seq: number;
  head_matches_last_entry: boolean;
  valid: boolean;
  first_invalid: { log_id: string; seq: number; errors: string[] } | null;
}

/** The public view of an entry (API responses, CSV rows): every field shown is covered by entry_hash, except id and seq. */
export function auditLogView(doc: AuditLogDoc) {
  const r = (doc.result ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: doc._id,
    seq: doc.seq,
    organization_id: doc.organization_id,
    user_id: doc.user_id,
    key_id: str(r.key_id),
    engine: doc.domain,
    query: doc.query,
    status: str(r.status),
    verified: doc.verified,
    admission: str(r.admission),
    proof_ref: str(r.proof_ref),
    attestation_id: str(r.attestation_id),
    workflow_id: str(r.workflow_id),
    request_digest: str(r.request_digest),
    raw_llm_output: doc.raw_llm_output ?? null,
    timestamp: typeof doc.timestamp === 'string' ? doc.timestamp : new Date(doc.timestamp).toISOString(),
    previous_hash: doc.previous_hash,
    entry_hash: doc.entry_hash,
    signature: doc.signature,
  };
}

export type AuditLogView = ReturnType<typeof auditLogView>;
