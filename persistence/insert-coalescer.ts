// Group commit for insert-once records (`_id` chosen by the caller: content-addressed proofs,
// attestation records under their jti) of one collection: the first write goes out at once; the
// ones that arrive while it is in flight are sent together as one unordered insertMany when it
// returns. A duplicate key means the record is already stored (same id, same content), so it
// counts as written: no read before the write (FerretDB runs an upsert as a read plus an
// insert). Each caller still awaits its own document: it resolves when its insert (or the
// duplicate that proves the record exists) is acknowledged, and rejects with its own error.
import { MongoServerError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';
import type { Store } from '../core/store.js';

/** Most records sent in one insertMany. */
const MAX_BATCH = 100;

interface Pending<T extends Document> {
  doc: T;
  /** true: this insert wrote the record; false: a record with its `_id` was already stored. */
  resolve: (inserted: boolean) => void;
  reject: (err: unknown) => void;
}

const DUPLICATE_KEY = 11000;

/** The write errors of a failed insertMany, by index (a bulk write error names each failed insert). */
function writeErrorsOf(err: unknown): Array<{ index: number; code?: number }> | null {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  if (Array.isArray(list)) return list as Array<{ index: number; code?: number }>;
  if (list && typeof list === 'object') return [list as { index: number; code?: number }];
  return null;
}

export class InsertCoalescer<T extends Document & { _id: string }> {
  private queue: Pending<T>[] = [];
  private flushing = false;

  constructor(private readonly collection: () => Collection<T>) {}

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
   * insertMany for up to MAX_BATCH of them, instead of the first alone and the rest after it.
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
    try {
      // Unique inserts by `_id` (index-backed on every store).
      await this.collection().insertMany(
        batch.map((p) => p.doc as OptionalUnlessRequiredId<T>),
        { ordered: false },
      );
      for (const p of batch) p.resolve(true);
    } catch (err) {
      const errors = writeErrorsOf(err);
      if (!errors) {
        // A single duplicate can come back as a plain server error; anything else fails every caller.
        const dup = err instanceof MongoServerError && err.code === DUPLICATE_KEY && batch.length === 1;
        for (const p of batch) dup ? p.resolve(false) : p.reject(err);
        return;
      }
      // The others were applied; a duplicate key is an existing record (success).
      const failed = new Map(errors.filter((e) => e.code !== DUPLICATE_KEY).map((e) => [e.index, e] as const));
      const existed = new Set(errors.filter((e) => e.code === DUPLICATE_KEY).map((e) => e.index));
      batch.forEach((p, i) => (failed.has(i) ? p.reject(err) : p.resolve(!existed.has(i))));
    }
  }
}

type Keyed = Document & { _id: string };
const coalescers = new WeakMap<Store, Map<string, InsertCoalescer<Keyed>>>();

/** The process's insert-once coalescer of a collection of `store` (proof and attestation records). */
export function insertCoalescerFor(store: Store, name: 'proofs' | 'attestations'): InsertCoalescer<Keyed> {
  let byName = coalescers.get(store);
  if (!byName) coalescers.set(store, (byName = new Map()));
  let c = byName.get(name);
  if (!c) byName.set(name, (c = new InsertCoalescer(() => store.collection<Keyed>(name))));
  return c;
}
