// An in-memory store for persistence/batch.ts's unit tests (test/unit/batch-persistence.test.ts,
// batch-never-started-s16.test.ts): unique `_id`, the filters the module uses and nothing else
// (an unknown filter throws), and a record of every filter sent.
import { Binary, MongoServerError } from 'mongodb';
import type { Store } from '../../core/store.js';
import type { ServiceConfig } from '../../core/config.js';
import type { NewBatchJob } from '../../persistence/batch.js';
import { batchWorkflowId } from '../../api/batch-jobs.js';

/** A copy as the store keeps it: structuredClone, except that a Binary stays a Binary (result documents since session 19). */
export function clone<T>(x: T): T {
  if (x instanceof Binary) return new Binary(Buffer.from(x.buffer.subarray(0, x.position)), x.sub_type) as T;
  if (Array.isArray(x)) return x.map(clone) as T;
  if (x !== null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype)
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, clone(v)])) as T;
  return x !== null && typeof x === 'object' ? structuredClone(x) : x;
}

export type Doc = Record<string, any> & { _id: unknown };
export interface Recorded {
  coll: string;
  op: string;
  filter: Record<string, unknown>;
}

/** A collection in memory: unique `_id`, the filters the module uses, and nothing else (an unknown filter throws). */
export class MemCollection {
  readonly docs = new Map<string, Doc>();
  constructor(
    readonly name: string,
    private readonly log: Recorded[],
  ) {}
  private key(id: unknown) {
    return JSON.stringify(id);
  }
  private match(filter: Record<string, any>): Doc[] {
    const keys = Object.keys(filter);
    if (keys.length === 0) return [...this.docs.values()];
    if (keys.length === 1 && keys[0] === '_id' && (typeof filter._id !== 'object' || filter._id === null)) {
      const d = this.docs.get(this.key(filter._id));
      return d ? [d] : [];
    }
    // Session 24: batch_evictors' conditional delete (`_id` and the `seen` read).
    if (keys.length === 2 && keys[0] === '_id' && keys[1] === 'seen' && filter.seen instanceof Date) {
      const d = this.docs.get(this.key(filter._id));
      return d && d.seen instanceof Date && d.seen.getTime() === filter.seen.getTime() ? [d] : [];
    }
    // Review s24 B1: the claim sweep's delete of a claim its slot never reached (`_id` and the age).
    if (keys.length === 2 && keys[0] === '_id' && keys[1] === 'created_at' && filter.created_at.$lt instanceof Date) {
      const d = this.docs.get(this.key(filter._id));
      return d && d.created_at < filter.created_at.$lt ? [d] : [];
    }
    if (keys.length === 1 && keys[0] === 'created_at' && filter.created_at.$lt instanceof Date)
      return [...this.docs.values()].filter((d) => d.created_at < filter.created_at.$lt);
    throw new Error(`unsupported filter on ${this.name}: ${JSON.stringify(filter)}`);
  }
  private record(op: string, filter: Record<string, unknown>) {
    this.log.push({ coll: this.name, op, filter });
  }
  private dup() {
    return new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 } as any);
  }
  async findOne(filter: Record<string, any>) {
    this.record('findOne', filter);
    const d = this.match(filter)[0];
    return d ? clone(d) : null;
  }
  find(filter: Record<string, any>) {
    this.record('find', filter);
    const docs = this.match(filter).map((d) => clone(d));
    return { toArray: async () => docs };
  }
  async insertOne(doc: Doc) {
    this.record('insertOne', {});
    if (this.docs.has(this.key(doc._id))) throw this.dup();
    this.docs.set(this.key(doc._id), clone(doc));
    return { acknowledged: true };
  }
  async insertMany(docs: Doc[], opts: { ordered?: boolean } = {}) {
    this.record('insertMany', {});
    let dups = 0;
    for (const d of docs) {
      if (this.docs.has(this.key(d._id))) {
        dups++;
        if (opts.ordered) break;
      } else this.docs.set(this.key(d._id), clone(d));
    }
    if (dups) throw this.dup();
    return { acknowledged: true };
  }
  async updateOne(
    filter: Record<string, any>,
    update: { $set?: Record<string, unknown>; $max?: Record<string, number> },
    opts: { upsert?: boolean } = {},
  ) {
    this.record('updateOne', filter);
    let d = this.match(filter)[0];
    if (!d && opts.upsert) {
      d = { _id: filter._id };
      this.docs.set(this.key(filter._id), d);
    }
    if (d && update.$set) Object.assign(d, clone(update.$set));
    if (d && update.$max)
      for (const [k, v] of Object.entries(update.$max)) d[k] = d[k] === undefined ? v : Math.max(d[k], v);
    return { matchedCount: d ? 1 : 0 };
  }
  async deleteOne(filter: Record<string, any>) {
    this.record('deleteOne', filter);
    const d = this.match(filter)[0];
    if (d) this.docs.delete(this.key(d._id));
    return { deletedCount: d ? 1 : 0 };
  }
  async deleteMany(filter: Record<string, any>) {
    this.record('deleteMany', filter);
    const ds = this.match(filter);
    for (const d of ds) this.docs.delete(this.key(d._id));
    return { deletedCount: ds.length };
  }
  async bulkWrite(ops: Array<{ deleteOne: { filter: Record<string, any> } }>) {
    let deletedCount = 0;
    for (const o of ops) deletedCount += (await this.deleteOne(o.deleteOne.filter)).deletedCount;
    return { acknowledged: true, deletedCount };
  }
}

export function memStore() {
  const log: Recorded[] = [];
  const colls = new Map<string, MemCollection>();
  const collection = (name: string) => {
    if (!colls.has(name)) colls.set(name, new MemCollection(name, log));
    return colls.get(name)!;
  };
  const store = {
    collection,
    // The store's `insert` command (persistence/insert-coalescer.ts; session 18: the admissions'
    // requests and jobs): each document through its collection's insertOne (recorded as such),
    // a duplicate named by index in `writeErrors`, as the store answers.
    db: {
      command: async (cmd: {
        insert?: string;
        documents?: Doc[];
        update?: string;
        updates?: Array<{ q: Record<string, any>; u: { $set?: Record<string, unknown> } }>;
      }) => {
        // Session 20: the `update` command (persistence/update-coalescer.ts, the claim winners' slot
        // writes): each statement through its collection's updateOne (recorded as such), in order.
        if (cmd.update && cmd.updates) {
          let n = 0;
          for (const st of cmd.updates) n += (await collection(cmd.update).updateOne(st.q, st.u)).matchedCount;
          return { n, nModified: n };
        }
        if (!cmd.insert || !cmd.documents) throw new Error(`unsupported command: ${Object.keys(cmd)[0]}`);
        const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
        for (const [index, doc] of cmd.documents.entries()) {
          try {
            await collection(cmd.insert).insertOne(doc);
          } catch (err) {
            if ((err as { code?: number }).code !== 11000) throw err;
            writeErrors.push({ index, code: 11000, errmsg: (err as Error).message });
          }
        }
        return { n: cmd.documents.length - writeErrors.length, ...(writeErrors.length ? { writeErrors } : {}) };
      },
    },
  } as unknown as Store;
  return { store, log, coll: (name: string) => (store as any).collection(name) as MemCollection };
}

/**
 * The configuration a BatchJobs under test takes (the sweeps' files: batch-never-started-s16,
 * batch-orphan-sweep-s23, background-timers-s24), with a job limit of `maxJobs`.
 */
export function batchJobsCfg(maxJobs: number): ServiceConfig {
  return {
    SVC_BATCH_MAX_JOBS: maxJobs,
    SVC_BATCH_ORPHAN_SECONDS: 60,
    SVC_BATCH_WAIT_SECONDS: 0,
    SVC_BATCH_ITEM_TIMEOUT: 60,
    SVC_PROVIDER_TIMEOUT: 30,
    SVC_ACTIVITY_MODE: 'auto',
  } as unknown as ServiceConfig;
}

/** A one-item running job of `orgId`, not yet started: the fixture of the sweep and evictor rows (sessions 16, 23, 24). */
export function runningJob(orgId: string, id: string): NewBatchJob {
  return {
    _id: id,
    org_id: orgId,
    status: 'running',
    workflow_id: batchWorkflowId(orgId, id),
    total_items: 1,
    completed_items: 0,
    failed_items: 0,
    progress_percent: 0,
    units: 1,
    created_at: new Date(),
    completed_at: null,
    started: false,
    submitted_by: { user_id: null, key_id: 'k1' },
  };
}
