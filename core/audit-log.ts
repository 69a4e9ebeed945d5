// The audit log in the store: one linear, hash-chained sequence of entries per organization
// (core/audit-chain.ts builds and verifies entries; this module orders and stores them).
//
// Appends come from many workflows in many worker processes at once, and the store offers
// no multi-document transactions (FerretDB), so the chain is kept linear with two
// single-document primitives:
//   - `audit_logs` has a unique index on (organization_id, seq): at most one entry per position;
//   - `audit_heads` holds one document per organization, `{_id: org, seq, head_hash}`, advanced
//     only by compare-and-swap on `seq` (the genesis head is an insert, guarded by `_id`).
// A writer reads the head (n, h), builds its entries with previous_hash h (then each
// other's hash), inserts them at seq n+1.. with one ordered insertMany, then moves the head
// from n to the last one. A racing writer's insert at n+1 fails on the unique index; it then
// helps move the head forward (so a writer that crashed between its two steps never wedges
// the chain) and retries with backoff. Inserts always start at the first free position, so the
// stored entries stay contiguous (1..M) and the head can always be moved over them. Entry ids
// are chosen by the caller and derived from the workflow id, so an activity retry finds its
// own entry instead of appending a second one.
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoBulkWriteError, MongoServerError, type Collection, type Filter } from 'mongodb';
import { Store } from './store.js';
import { buildEntry, verifyEntry, type AuditEntry, type AuditEntryFields, type AuditVerification } from './audit-chain.js';

export interface AuditLogDoc extends AuditEntry {
  _id: string;
  /** Position in the organization's chain, 1-based and gap-free. */
  seq: number;
}

/**
 * Position index: `{_id: "<org>#<seq>", log_id}`, written right after the entries it names.
 * FerretDB 1.x answers only `_id` equality without reading the whole collection (it pushes no
 * other filter and no sort down to SQLite), so reads by position go through this index; a
 * missing or inconsistent index document falls back to the `{organization_id, seq}` query
 * (slow, but the same answer), which keeps data written before the index readable.
 */
export interface AuditSeqDoc {
  _id: string;
  log_id: string;
  /** The entry's verdict flags, so a status-filtered page reads only index documents for entries it skips. */
  verified: boolean;
  blocked: boolean;
}

export const seqKey = (orgId: string, seq: number) => `${orgId}#${seq}`;

/** Most positions one status-filtered page looks at; the cursor continues from there. */
export const STATUS_SCAN_WINDOW = 500;
/** Point lookups in flight per request. */
const LOOKUP_PARALLELISM = 16;

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

const isBlocked = (doc: Pick<AuditLogDoc, 'result'>) => {
  const r = (doc.result ?? {}) as Record<string, unknown>;
  return r.status === 'BLOCKED' || r.admission === 'BLOCKED';
};

export interface AuditPage {
  docs: AuditLogDoc[];
  /** Seq to pass as `beforeSeq` for the next page; null when the page reached the first entry. */
  next: number | null;
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

/** Most entries written by one insertMany. */
const MAX_BATCH = 100;

interface Head {
  seq: number;
  hash: string | null;
}

interface Pending {
  fields: AuditEntryFields;
  logId: string;
  secret: string | undefined;
  deadline: number;
  attempts: number;
  resolve: (r: AppendResult) => void;
  reject: (err: unknown) => void;
}

export class AuditLog {
  constructor(private readonly store: Store) {}

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

  /** Last head this process wrote or read, per organization: saves a read per batch (a stale one only costs a retry). */
  private readonly knownHeads = new Map<string, Head>();
  /** Appends waiting for their organization's flusher. */
  private readonly pending = new Map<string, Pending[]>();
  private readonly flushing = new Set<string>();

  /**
   * Appends an entry to its organization's chain under the id `logId`. Rejects with
   * AuditChainError (from buildEntry) when the secret is missing or a field is malformed, and
   * with AuditAppendConflictError when contention from other processes outlasts `budgetMs`.
   *
   * Within the process, appends of one organization are group-committed: whatever queued up
   * while the previous batch was being written goes out as one ordered insertMany of linked
   * entries plus one head move, so a busy organization costs a few store round trips per
   * batch instead of per entry.
   */
  append(fields: AuditEntryFields, opts: { logId: string; secret: string | undefined; budgetMs?: number }): Promise<AppendResult> {
    const orgId = fields.organization_id;
    return new Promise<AppendResult>((resolve, reject) => {
      const queue = this.pending.get(orgId) ?? [];
      queue.push({ fields, logId: opts.logId, secret: opts.secret, deadline: Date.now() + (opts.budgetMs ?? 8000), attempts: 0, resolve, reject });
      this.pending.set(orgId, queue);
      if (!this.flushing.has(orgId)) void this.flush(orgId);
    });
  }

  private async flush(orgId: string): Promise<void> {
    this.flushing.add(orgId);
    try {
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

  private async readHead(orgId: string): Promise<Head> {
    const head = await this.heads.findOne({ _id: orgId });
    return { seq: head?.seq ?? 0, hash: head?.head_hash ?? null };
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
        item.attempts++;
        let entry;
        try {
          entry = buildEntry(item.fields, previous, item.secret);
        } catch (err) {
          item.reject(err); // AuditChainError: not retryable, and must not hold up the others
          continue;
        }
        docs.push({ _id: item.logId, seq: head.seq + docs.length + 1, ...entry });
        built.push(item);
        previous = entry.entry_hash;
      }
      if (docs.length === 0) return;
      let inserted = docs.length;
      try {
        await this.logs.insertMany(docs, { ordered: true });
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError) || err.code !== 11000) throw err;
        inserted = err.insertedCount;
      }
      if (inserted > 0) {
        await this.indexPositions(docs.slice(0, inserted));
        const last = docs[inserted - 1] as AuditLogDoc;
        await this.advanceHead(orgId, head.seq, last.seq, last.entry_hash);
        head = { seq: last.seq, hash: last.entry_hash };
        this.knownHeads.set(orgId, head);
        built.slice(0, inserted).forEach((item, i) => item.resolve({ doc: docs[i] as AuditLogDoc, attempts: item.attempts, existing: false }));
      }
      if (inserted === docs.length) return;
      // docs[inserted] hit a unique index: its own id (an activity retry whose first attempt got
      // this far), or its position (another process appended there).
      this.knownHeads.delete(orgId);
      remaining = built.slice(inserted);
      const conflicted = remaining[0] as Pending;
      const existing = await this.logs.findOne({ _id: conflicted.logId });
      if (existing) {
        await this.rollForward(orgId, existing.seq - 1);
        conflicted.resolve({ doc: existing, attempts: conflicted.attempts, existing: true });
        remaining = remaining.slice(1);
      } else {
        // Position taken by a writer that has not moved the head yet (or crashed before it
        // could): help the head past it, then back off briefly (real cross-process contention).
        const position = head.seq;
        if ((await this.readHead(orgId)).seq === position) await this.rollForward(orgId, position);
        await sleep(Math.min(100, 2 * 2 ** Math.min(conflicted.attempts, 6)) * (0.5 + Math.random()));
      }
      const now = Date.now();
      remaining = remaining.filter((item) => {
        if (now <= item.deadline) return true;
        item.reject(new AuditAppendConflictError(item.attempts));
        return false;
      });
      head = await this.readHead(orgId);
    }
  }

  /** Moves the head from seq `from` to `to` (CAS); stops when someone else already moved it that far. */
  private async advanceHead(orgId: string, from: number, to: number, hash: string): Promise<void> {
    let cur = from;
    for (;;) {
      if (cur === 0) {
        try {
          await this.heads.insertOne({ _id: orgId, seq: to, head_hash: hash, updated_at: new Date() });
          return;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      } else {
        const r = await this.heads.updateOne({ _id: orgId, seq: cur }, { $set: { seq: to, head_hash: hash, updated_at: new Date() } });
        if (r.modifiedCount === 1) return;
      }
      // A helper moved it part of the way (one entry at a time): continue from there.
      const now = (await this.readHead(orgId)).seq;
      if (now >= to) return;
      cur = now;
    }
  }

  /** If the entry at seq n+1 exists while the head is still at n, advances the head to it. */
  private async rollForward(orgId: string, n: number): Promise<void> {
    if (n < 0) return;
    const next = await this.entryAt(orgId, n + 1);
    if (next) await this.advanceHead(orgId, n, n + 1, next.entry_hash);
  }

  /** Index documents for freshly inserted entries (idempotent: a position is written once). */
  private async indexPositions(docs: AuditLogDoc[]): Promise<void> {
    const idx = docs.map((d) => ({ _id: seqKey(d.organization_id, d.seq), log_id: d._id, verified: d.verified === true, blocked: isBlocked(d) }));
    try {
      await this.seqIndex.insertMany(idx, { ordered: false });
    } catch (err) {
      // Already indexed (a helper or an earlier attempt): the position's entry is immutable.
      if (!(err instanceof MongoBulkWriteError) || err.code !== 11000) throw err;
    }
  }

  /** The entry at position `seq` via the index, or null when the index does not name a matching entry. */
  private async indexedEntry(orgId: string, seq: number, idx?: AuditSeqDoc | null): Promise<AuditLogDoc | null> {
    const pos = idx === undefined ? await this.seqIndex.findOne({ _id: seqKey(orgId, seq) }) : idx;
    if (!pos) return null;
    const doc = await this.logs.findOne({ _id: pos.log_id });
    return doc && doc.organization_id === orgId && doc.seq === seq ? doc : null;
  }

  /** The organization's entry stored at `seq` (point lookups; the query fallback covers unindexed or edited data). */
  async entryAt(orgId: string, seq: number, idx?: AuditSeqDoc | null): Promise<AuditLogDoc | null> {
    const hit = await this.indexedEntry(orgId, seq, idx);
    if (hit) return hit;
    const doc = await this.logs.findOne({ organization_id: orgId, seq });
    if (doc && idx === undefined) await this.indexPositions([doc]).catch(() => undefined); // heal the index
    return doc;
  }

  /** One entry of the organization (another organization's id: null). */
  find(orgId: string, logId: string): Promise<AuditLogDoc | null> {
    return this.logs.findOne({ _id: logId, organization_id: orgId });
  }

  /** The organization's entry immediately before `seq` in storage order (null for the first). */
  async predecessor(orgId: string, seq: number): Promise<AuditLogDoc | null> {
    // Entries are contiguous: the predecessor is at seq-1, unless entries were removed or edited.
    if (Number.isSafeInteger(seq) && seq > 1) {
      const prev = await this.indexedEntry(orgId, seq - 1);
      if (prev) return prev;
    }
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

  /** Most recent first (the first page of `page`). */
  async list(orgId: string, opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number }): Promise<AuditLogDoc[]> {
    return (await this.page(orgId, opts)).docs;
  }

  /**
   * A page of entries, most recent first, below `beforeSeq` (default: the newest). Reads by
   * position from the head down with point lookups, so its cost does not grow with the chain.
   * Unfiltered pages are full unless the chain ends; a status-filtered page looks at no more
   * than STATUS_SCAN_WINDOW positions, so it can hold fewer than `limit` entries with a
   * non-null `next` (continue from there). An organization without a head document (entries
   * written before heads existed) is read with the sorted query instead.
   */
  async page(orgId: string, opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number }): Promise<AuditPage> {
    const head = await this.heads.findOne({ _id: orgId });
    if (!head) return this.pageByQuery(orgId, opts);
    // Entries inserted but not yet under the head (a writer between its two steps) are part of the chain.
    let top = head.seq;
    while (await this.indexedEntry(orgId, top + 1)) top++;
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
      const idx = await mapLimit(seqs, LOOKUP_PARALLELISM, (seq) => this.seqIndex.findOne({ _id: seqKey(orgId, seq) }));
      const picked: Array<{ seq: number; idx: AuditSeqDoc | null }> = [];
      for (let i = 0; i < seqs.length; i++) {
        const pos = idx[i] ?? null;
        // No index document: the entry itself decides (fallback lookup).
        if (!pos || (opts.status === 'verified' ? pos.verified : pos.blocked)) picked.push({ seq: seqs[i] as number, idx: pos });
      }
      const found = await mapLimit(picked, LOOKUP_PARALLELISM, (p) => this.entryAt(orgId, p.seq, p.idx === null ? undefined : p.idx));
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

  /** The sorted query (reads the organization's entries): only for chains without a head document. */
  private async pageByQuery(orgId: string, opts: { limit: number; status?: AuditStatusFilter; beforeSeq?: number }): Promise<AuditPage> {
    const docs = await this.logs
      .find(this.filter(orgId, opts))
      .sort({ seq: -1 })
      .limit(opts.limit + 1)
      .toArray();
    const page = docs.slice(0, opts.limit);
    return { docs: page, next: docs.length > opts.limit ? ((page[page.length - 1] as AuditLogDoc).seq ?? null) : null };
  }

  /** Every entry in chain order (oldest first), by position: the auditor's full export. */
  async *inOrder(orgId: string, chunk = 200): AsyncGenerator<AuditLogDoc> {
    const head = await this.heads.findOne({ _id: orgId });
    if (!head) {
      yield* this.logs.find({ organization_id: orgId }).sort({ seq: 1 });
      return;
    }
    let seq = 1;
    for (;;) {
      const seqs = Array.from({ length: chunk }, (_, i) => seq + i);
      const found = await mapLimit(seqs, LOOKUP_PARALLELISM, (s) => (s <= head.seq ? this.entryAt(orgId, s) : this.indexedEntry(orgId, s)));
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
