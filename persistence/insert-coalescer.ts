// Group commit for insert-once records (`_id` chosen by the caller: content-addressed proofs,
// attestation records under their jti) of one collection: the first write goes out at once; the
// ones that arrive while it is in flight are sent together as one unordered `insert` command when
// it returns. A duplicate key means the record is already stored (same id, same content), so it
// counts as written: no read before the write (FerretDB runs an upsert as a read plus an
// insert). Each caller still awaits its own document: it resolves when its insert (or the
// duplicate that proves the record exists) is acknowledged, and rejects with its own error.
//
// The batch goes out as the store's own `insert` command (`db.command`), not `insertMany`: the
// driver's insertMany builds a bulk operation, a BulkWriteResult and, on any duplicate, a thrown
// MongoBulkWriteError with its stack; the command's reply names each failed document by index
// all the same (issue 22, CPU per /verify/math: about 0.1 ms per insert and 0.25 ms per
// duplicate of the API's CPU). Nothing is retried here: a failed batch rejects its callers and
// the activity retries (insert-once makes that safe).
import { MongoServerError, type Db, type Document } from 'mongodb';
import type { Store } from '../core/store.js';

/** Most records sent in one insert command. */
const MAX_BATCH = 100;

interface Pending<T extends Document> {
  doc: T;
  /** true: this insert wrote the record; false: a record with its `_id` was already stored. */
  resolve: (inserted: boolean) => void;
  reject: (err: unknown) => void;
}

const DUPLICATE_KEY = 11000;

/** The reply of an `insert` command: documents that failed are named by index. */
export interface InsertReply {
  n?: number;
  writeErrors?: Array<{ index: number; code?: number; errmsg?: string }>;
  writeConcernError?: { code?: number; errmsg?: string };
}

/** Sends one unordered `insert` of `docs` and returns the store's reply (it throws only when the command fails as a whole). */
export type InsertSender<T> = (docs: T[]) => Promise<InsertReply>;

/**
 * The store's `insert` command on collection `name` of `db()`: unordered (every document is
 * tried) unless `ordered` (the store stops at the first failed document: the audit chain's
 * entries, persistence/audit.ts).
 */
export function insertCommand<T extends Document>(db: () => Db, name: string, ordered = false): InsertSender<T> {
  return (docs) => db().command({ insert: name, documents: docs, ordered }) as Promise<InsertReply>;
}

/** The error of a failed document of an `insert` reply, or of its write concern error (the documents not known durable). */
export function insertReplyError(e: { code?: number; errmsg?: string }, fallback: string): MongoServerError {
  return new MongoServerError({ message: e.errmsg ?? fallback, code: e.code });
}

export class InsertCoalescer<T extends Document & { _id: string }> {
  private queue: Pending<T>[] = [];
  private flushing = false;

  constructor(private readonly send: InsertSender<T>) {}

  /**
   * Inserts `doc` unless a document with its `_id` exists (idempotent: same id, same record).
   * Resolves true when this insert wrote it, false when the `_id` was already stored.
   */
  insert(doc: T): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ doc, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /**
   * Inserts several documents as one group (a batch chunk's proofs or attestation records): one
   * insert command for up to MAX_BATCH of them, instead of the first alone and the rest after it.
   * Resolves per document as insert() does.
   */
  insertAll(docs: T[]): Promise<boolean[]> {
    const all = docs.map((doc) => new Promise<boolean>((resolve, reject) => this.queue.push({ doc, resolve, reject })));
    if (!this.flushing && docs.length > 0) void this.flush();
    return Promise.all(all);
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Pending<T>[]): Promise<void> {
    let reply: InsertReply;
    try {
      // Unique inserts by `_id` (index-backed on every store).
      reply = await this.send(batch.map((p) => p.doc));
    } catch (err) {
      // A single duplicate can come back as a plain server error; anything else fails every caller.
      const dup = err instanceof MongoServerError && err.code === DUPLICATE_KEY && batch.length === 1;
      for (const p of batch) dup ? p.resolve(false) : p.reject(err);
      return;
    }
    // Not known to be durable: every caller fails (its activity retries; insert-once).
    if (reply.writeConcernError) {
      const err = insertReplyError(reply.writeConcernError, 'write concern error');
      for (const p of batch) p.reject(err);
      return;
    }
    // The others were applied; a duplicate key is an existing record (success).
    const errors = reply.writeErrors ?? [];
    const failed = new Map(errors.filter((e) => e.code !== DUPLICATE_KEY).map((e) => [e.index, e] as const));
    const existed = new Set(errors.filter((e) => e.code === DUPLICATE_KEY).map((e) => e.index));
    batch.forEach((p, i) => {
      const e = failed.get(i);
      if (e) p.reject(insertReplyError(e, 'insert failed'));
      else p.resolve(!existed.has(i));
    });
  }
}

type Keyed = Document & { _id: string };
const coalescers = new WeakMap<Store, Map<string, InsertCoalescer<Keyed>>>();

/**
 * The process's insert-once coalescer of a collection of `store`: proof and attestation records,
 * and (session 18) the requests and jobs of POST /verify/batch's admissions (persistence/batch.ts admit).
 */
export function insertCoalescerFor(
  store: Store,
  name: 'proofs' | 'attestations' | 'batch_requests' | 'batch_jobs',
): InsertCoalescer<Keyed> {
  let byName = coalescers.get(store);
  if (!byName) coalescers.set(store, (byName = new Map()));
  let c = byName.get(name);
  if (!c) byName.set(name, (c = new InsertCoalescer(insertCommand<Keyed>(() => store.db, name))));
  return c;
}
