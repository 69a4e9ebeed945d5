// A collection whose natural key is a number, stored under the number's decimal string (session 17).
//
// FerretDB 1.24's SQLite backend answers `{_id: x}` by key only when x is a string or an ObjectId
// (internal/backends/sqlite/collection.go: the WHERE clause on `_id` is built for those two types
// alone); for a number it reads and decodes the whole table in Go. Measured (bench/store-growth.ts
// --keys, session 16): 1.3 ms of store CPU per `findOne` at 50 documents and 6.3 ms at 1,100 for a
// numeric key, 0.3 ms at either size for a string. MongoDB answers both from the `_id` index, so
// the string costs nothing there. The slot directory's `batch_slots` (slot numbers) and
// `batch_slot_queue` (positions) are such collections: the code reads and writes numbers, this
// class alone knows the stored form, and every method is a point operation by `_id` except
// `all()` (the callers' bounded reads).
import type { AnyBulkWriteOperation, Collection, Document, UpdateFilter } from 'mongodb';
import type { UpdateCoalescer } from './update-coalescer.js';

/** The stored `_id` of number `n`. Plain decimal: nothing reads these keys as a range or in order. */
export const numberKey = (n: number): string => String(n);

/** A document as stored: its `_id` the decimal string (a store written before session 17 may still hold numbers until migrated). */
export type StoredNumberKeyed<T extends { _id: number }> = Omit<T, '_id'> & { _id: string | number };

export class NumberKeyed<T extends { _id: number } & Document> {
  /**
   * `ready`: awaited before every operation (a resolved promise after the first call): the
   * start-up rewrite of numeric keys (persistence/migrations.ts migrateNumberKeys), so that no
   * point read by string misses a document still stored under its number.
   */
  constructor(
    readonly stored: Collection<StoredNumberKeyed<T>>,
    private readonly ready: () => Promise<void>,
  ) {}

  private decode(doc: StoredNumberKeyed<T> | null): T | null {
    return doc ? ({ ...doc, _id: Number(doc._id) } as unknown as T) : null;
  }

  private encode(doc: T): StoredNumberKeyed<T> {
    return { ...doc, _id: numberKey(doc._id) };
  }

  /** The document with key `n`. Key: `_id`. */
  async get(n: number, projection?: Record<string, 0 | 1>): Promise<T | null> {
    await this.ready();
    const doc = await this.stored.findOne({ _id: numberKey(n) } as never, projection ? { projection } : {});
    return this.decode(doc as StoredNumberKeyed<T> | null);
  }

  /** Every document. A scan: only for collections the caller knows to be bounded. */
  async all(): Promise<T[]> {
    await this.ready();
    return ((await this.stored.find({}).toArray()) as StoredNumberKeyed<T>[]).map((d) => this.decode(d) as T);
  }

  /** A unique insert by `_id` (a duplicate throws E11000, as insertOne does). */
  async insert(doc: T): Promise<void> {
    await this.ready();
    await this.stored.insertOne(this.encode(doc) as never);
  }

  /** Unique inserts in one command (`ordered`: stops at the first duplicate). */
  async insertMany(docs: readonly T[], ordered: boolean): Promise<void> {
    await this.ready();
    await this.stored.insertMany(
      docs.map((d) => this.encode(d) as never),
      { ordered },
    );
  }

  /** An update of the document with key `n`. Key: `_id`. */
  async update(n: number, update: UpdateFilter<T>): Promise<void> {
    await this.ready();
    await this.stored.updateOne({ _id: numberKey(n) } as never, update as never);
  }

  /**
   * The same update sent through `via` (session 20): grouped with the other point updates of this
   * process that arrive while one is in flight, one `update` command for them all. Key: `_id`.
   */
  async updateGrouped(n: number, update: UpdateFilter<T>, via: UpdateCoalescer): Promise<void> {
    await this.ready();
    await via.update(numberKey(n), update as Document);
  }

  /** Deletes the documents with keys `ns`: point deletes in one unordered bulk write. */
  async deleteMany(ns: readonly number[]): Promise<void> {
    if (ns.length === 0) return;
    await this.ready();
    const ops = ns.map((n): AnyBulkWriteOperation<StoredNumberKeyed<T>> => ({
      deleteOne: { filter: { _id: numberKey(n) } as never },
    }));
    await this.stored.bulkWrite(ops, { ordered: false });
  }
}
