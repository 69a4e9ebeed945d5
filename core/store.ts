// The document store (MongoDB wire protocol: FerretDB locally, MongoDB in production).
// Only features both support are used: single-document atomic updates, upserts and unique
// indexes; no multi-document transactions, no change streams.
import { MongoClient, type Db, type Collection, type Document } from 'mongodb';

export interface ProofRecord {
  _id: string; // the proof_ref itself: sha256:<hex> of the artifact's canonical JSON
  artifact: Record<string, unknown>;
  engine: string;
  org_id: string | null;
  created_at: Date;
}

/**
 * Driver time-outs, chosen so that a store that stops answering (a hung process keeps its
 * sockets open, so nothing fails by itself) costs the first request at most ~7 s, measured
 * 6.8 s against a SIGSTOPped FerretDB (with the driver defaults: 15.8 s). An operation on a
 * hung socket waits until the server monitor's heartbeat (every `heartbeatFrequencyMS`) times
 * out after `connectTimeoutMS` and clears the pool; the retried read then fails server selection
 * after `serverSelectionTimeoutMS`. `socketTimeoutMS` is only a backstop for a single stuck
 * connection the monitor does not see; it is far above any legitimate query here.
 * Session 18: the heartbeat every 1 s, not 2 (FerretDB's hello has no `topologyVersion`, so the
 * monitor polls; one hello a second per client). A loaded CI run answered a hung store's logic
 * request at 9.89 s of the 10 s bound: its audit append waited 6.8 s for the monitor's time-out
 * (timers slip on a busy worker) and then 3 s of selection. A second less of heartbeat is the
 * part of that wait that costs nothing on the request path.
 */
export const STORE_CLIENT_OPTIONS = {
  serverSelectionTimeoutMS: 3000,
  connectTimeoutMS: 2000,
  heartbeatFrequencyMS: 1000,
  socketTimeoutMS: 30_000,
  maxPoolSize: 20,
} as const;

export class StoreUnavailableError extends Error {
  constructor(message = 'store unavailable') {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Proofs are read by `_id` only (persistence/proofs.ts): the `{created_at}` index earlier versions
 * created served no query and cost a write per insert. Dropped where it exists; a store without it
 * answers IndexNotFound (27), which is the state wanted.
 */
async function dropUnusedProofIndex(store: Store): Promise<void> {
  try {
    await store.proofs.dropIndex('created_at_1');
  } catch (err) {
    const e = err as { code?: unknown; codeName?: unknown; message?: unknown };
    if (
      e.code === 27 ||
      e.codeName === 'IndexNotFound' ||
      /index not found|ns (does not exist|not found)/i.test(String(e.message))
    )
      return;
    throw err;
  }
}

export class Store {
  private current: MongoClient;
  private closing = false;
  private stale = false;
  /**
   * The current client's database handle and collection handles, made once per client: the
   * driver builds a `Db` (options resolved, a namespace) on every `client.db()` and a `Collection`
   * on every `db.collection()`, which was ~0.3 ms of the API's CPU per verification (a dozen
   * look-ups). Dropped with the client it belongs to.
   */
  private handles: { client: MongoClient; db: Db; collections: Map<string, Collection<Document>> } | null = null;

  private constructor(private readonly uri: string) {
    this.current = this.newClient();
  }

  private newClient(): MongoClient {
    const client = new MongoClient(this.uri, STORE_CLIENT_OPTIONS);
    // A failed (auto-)connect closes the client's topology for good ("Topology is closed"):
    // mark it stale so the next operation gets a fresh client once the store is back.
    client.on('topologyClosed', () => {
      if (!this.closing) this.stale = true;
    });
    return client;
  }

  get client(): MongoClient {
    if (this.stale) {
      this.stale = false;
      const old = this.current;
      this.current = this.newClient();
      void old.close().catch(() => undefined);
    }
    return this.current;
  }

  get db(): Db {
    return this.handlesOf(this.client).db;
  }

  private handlesOf(client: MongoClient): { db: Db; collections: Map<string, Collection<Document>> } {
    if (this.handles?.client !== client) this.handles = { client, db: client.db(), collections: new Map() };
    return this.handles;
  }

  /** Connects and creates indexes; throws when the store is unreachable. */
  static async connect(uri: string): Promise<Store> {
    const store = Store.lazy(uri);
    await store.client.connect();
    await store.ensureIndexes();
    return store;
  }

  /** A client that connects on first use: operations fail fast (3 s) while the store is down. */
  static lazy(uri: string): Store {
    return new Store(uri);
  }

  collection<T extends Document>(name: string): Collection<T> {
    const h = this.handlesOf(this.client);
    let c = h.collections.get(name);
    if (!c) h.collections.set(name, (c = h.db.collection(name)));
    return c as unknown as Collection<T>;
  }

  get proofs(): Collection<ProofRecord> {
    return this.collection<ProofRecord>('proofs');
  }

  /** Indexes are declared where collections are used; each module registers its own here. */
  private static indexHooks: Array<(store: Store) => Promise<void>> = [];

  static registerIndexes(hook: (store: Store) => Promise<void>): void {
    Store.indexHooks.push(hook);
  }

  /**
   * Runs every registered index hook; one hook's failure does not skip the others. Throws
   * (after trying all) when any failed, so callers can log and retry.
   */
  async ensureIndexes(): Promise<void> {
    const errors: string[] = [];
    for (const hook of [dropUnusedProofIndex, ...Store.indexHooks]) {
      try {
        await hook(this);
      } catch (err) {
        errors.push(String((err as Error)?.message ?? err));
      }
    }
    if (errors.length) throw new Error(errors.join('; '));
  }

  /**
   * A TTL index where the store supports it (MongoDB); FerretDB 1.x does not implement
   * expireAfterSeconds, so there the owner of the collection sweeps expired documents itself.
   * Returns whether the TTL index exists.
   */
  async ttlIndex(collection: string, field: string): Promise<boolean> {
    try {
      await this.collection(collection).createIndex({ [field]: 1 }, { expireAfterSeconds: 0 });
      return true;
    } catch (err) {
      if (/expireAfterSeconds.*not implemented/i.test(String((err as Error)?.message))) {
        await this.collection(collection).createIndex({ [field]: 1 });
        return false;
      }
      throw err;
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.command({ ping: 1 });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.current.close();
  }
}
