// Group commit for insert-once upserts (`{_id}` + `$setOnInsert`) of one collection: the first
// write goes out at once; the ones that arrive while it is in flight are sent together as one
// unordered bulk write when it returns. Each caller still awaits its own document: it resolves
// when its upsert is acknowledged and rejects with its own error. Used for the proof and
// attestation records of concurrent verifications in one worker process (a 100-item batch
// writes 200 of them), where FerretDB pays a command's overhead per round trip.
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import type { Store } from './store.js';

/** Most upserts sent in one bulk write. */
const MAX_BATCH = 100;

interface Pending<T extends Document> {
  id: string;
  doc: Omit<T, '_id'>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class UpsertCoalescer<T extends Document & { _id: string }> {
  private queue: Pending<T>[] = [];
  private flushing = false;

  constructor(private readonly collection: () => Collection<T>) {}

  /** Inserts `doc` under `_id` unless a document with that id exists (idempotent). */
  upsert(id: string, doc: Omit<T, '_id'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ id, doc, resolve, reject });
      if (!this.flushing) void this.flush();
    });
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
    const col = this.collection();
    try {
      if (batch.length === 1) {
        const p = batch[0] as Pending<T>;
        await col.updateOne({ _id: p.id } as never, { $setOnInsert: p.doc } as never, { upsert: true });
      } else {
        const ops = batch.map((p) => ({ updateOne: { filter: { _id: p.id }, update: { $setOnInsert: p.doc }, upsert: true } })) as unknown as AnyBulkWriteOperation<T>[];
        await col.bulkWrite(ops, { ordered: false });
      }
      for (const p of batch) p.resolve();
    } catch (err) {
      // A bulk write error names the operations that failed; the others were applied.
      const failed = new Map<number, unknown>();
      const writeErrors = (err as { writeErrors?: Array<{ index: number }> | { index: number } }).writeErrors;
      const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : null;
      if (list && batch.length > 1) {
        for (const e of list) failed.set(e.index, err);
        batch.forEach((p, i) => (failed.has(i) ? p.reject(err) : p.resolve()));
      } else {
        for (const p of batch) p.reject(err);
      }
    }
  }
}

type Keyed = Document & { _id: string };
const coalescers = new WeakMap<Store, Map<string, UpsertCoalescer<Keyed>>>();

/** The process's insert-once coalescer of a collection of `store` (proof and attestation records). */
export function coalescerFor(store: Store, name: 'proofs' | 'attestations'): UpsertCoalescer<Keyed> {
  let byName = coalescers.get(store);
  if (!byName) coalescers.set(store, (byName = new Map()));
  let c = byName.get(name);
  if (!c) byName.set(name, (c = new UpsertCoalescer(() => store.collection<Keyed>(name))));
  return c;
}
