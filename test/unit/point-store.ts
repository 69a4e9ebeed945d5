// An in-memory stand-in for the store that answers only what FerretDB/SQLite answers by key
// (issue 22): every filter must be exactly `{_id: <scalar>}`; anything else throws, unless the
// test opens a scan window (`allowScans`, for the start-up migration). Inserts enforce unique
// `_id`s with the driver's duplicate-key error, and every operation yields to the event loop
// first, so concurrent callers interleave as they do against a real store.
import { MongoServerError } from 'mongodb';
import type { Store } from '../../core/store.js';

type Doc = Record<string, unknown> & { _id: string };

export class NotAPointLookup extends Error {}

const tick = () => new Promise<void>((r) => setImmediate(r));
const clone = <T>(v: T): T => structuredClone(v);

function dup(): MongoServerError {
  return new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 } as never);
}

export class PointStore {
  readonly data = new Map<string, Map<string, Doc>>();
  readonly ops: Array<{ coll: string; op: string }> = [];
  allowScans = false;

  private table(name: string): Map<string, Doc> {
    let t = this.data.get(name);
    if (!t) this.data.set(name, (t = new Map()));
    return t;
  }

  private idOf(coll: string, op: string, filter: Record<string, unknown>): string {
    const keys = Object.keys(filter);
    if (keys.length !== 1 || keys[0] !== '_id' || typeof filter._id !== 'string') {
      throw new NotAPointLookup(`${coll}.${op}(${JSON.stringify(filter)}) is not a point lookup by _id`);
    }
    return filter._id;
  }

  private applyUpdate(doc: Doc, update: Record<string, Record<string, unknown>>, inserting: boolean): void {
    for (const [op, fields] of Object.entries(update)) {
      for (const [k, v] of Object.entries(fields)) {
        if (op === '$set') doc[k] = clone(v);
        else if (op === '$setOnInsert') {
          if (inserting) doc[k] = clone(v);
        } else if (op === '$inc') doc[k] = ((doc[k] as number) ?? 0) + (v as number);
        else if (op === '$max') doc[k] = Math.max((doc[k] as number) ?? -Infinity, v as number);
        else if (op === '$addToSet') {
          const arr = (doc[k] as unknown[]) ?? [];
          if (!arr.includes(v)) arr.push(v);
          doc[k] = arr;
        } else throw new Error(`update operator ${op} not supported here`);
      }
    }
  }

  collection(name: string) {
    const t = () => this.table(name);
    const rec = (op: string) => this.ops.push({ coll: name, op });
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the returned collection object's methods need the store, not themselves
    const self = this;
    return {
      async findOne(filter: Record<string, unknown>) {
        rec('findOne');
        await tick();
        const d = t().get(self.idOf(name, 'findOne', filter));
        return d ? clone(d) : null;
      },
      async insertOne(doc: Doc) {
        rec('insertOne');
        await tick();
        if (t().has(doc._id)) throw dup();
        t().set(doc._id, clone(doc));
        return { acknowledged: true, insertedId: doc._id };
      },
      async updateOne(
        filter: Record<string, unknown>,
        update: Record<string, Record<string, unknown>>,
        opts: { upsert?: boolean } = {},
      ) {
        rec('updateOne');
        await tick();
        const id = self.idOf(name, 'updateOne', filter);
        const cur = t().get(id);
        if (!cur) {
          if (!opts.upsert) return { matchedCount: 0, modifiedCount: 0 };
          const doc: Doc = { _id: id };
          self.applyUpdate(doc, update, true);
          t().set(id, doc);
          return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
        }
        self.applyUpdate(cur, update, false);
        return { matchedCount: 1, modifiedCount: 1 };
      },
      async findOneAndUpdate(
        filter: Record<string, unknown>,
        update: Record<string, Record<string, unknown>>,
        opts: { upsert?: boolean } = {},
      ) {
        rec('findOneAndUpdate');
        await tick();
        const id = self.idOf(name, 'findOneAndUpdate', filter);
        let cur = t().get(id);
        if (!cur) {
          if (!opts.upsert) return null;
          cur = { _id: id };
          self.applyUpdate(cur, update, true);
          t().set(id, cur);
        } else self.applyUpdate(cur, update, false);
        return clone(cur);
      },
      async deleteOne(filter: Record<string, unknown>) {
        rec('deleteOne');
        await tick();
        return { deletedCount: t().delete(self.idOf(name, 'deleteOne', filter)) ? 1 : 0 };
      },
      async bulkWrite(ops: Array<{ deleteOne?: { filter: Record<string, unknown> } }>) {
        rec('bulkWrite');
        await tick();
        let deletedCount = 0;
        for (const o of ops) {
          if (!o.deleteOne) throw new Error('only deleteOne bulks here');
          if (t().delete(self.idOf(name, 'bulkWrite.deleteOne', o.deleteOne.filter))) deletedCount++;
        }
        return { deletedCount };
      },
      find(filter: Record<string, unknown>) {
        rec('find');
        if (!self.allowScans) throw new NotAPointLookup(`${name}.find(${JSON.stringify(filter)}) reads the collection`);
        if (Object.keys(filter).length) throw new Error('only find({}) in scans');
        return { toArray: async () => [...t().values()].map(clone) };
      },
      async deleteMany(filter: Record<string, unknown>) {
        rec('deleteMany');
        if (!self.allowScans)
          throw new NotAPointLookup(`${name}.deleteMany(${JSON.stringify(filter)}) reads the collection`);
        return { deletedCount: 0 };
      },
      async createIndex() {
        return 'ok';
      },
    };
  }

  get proofs() {
    return this.collection('proofs');
  }

  asStore(): Store {
    return this as unknown as Store;
  }

  docs(name: string): Doc[] {
    return [...this.table(name).values()];
  }
}
