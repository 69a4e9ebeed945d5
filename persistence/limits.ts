// Limits in the store (persistence/README.md): the shared rate-limit window counters
// (`rate_counters`, bounded by live windows) and the per-organization event counters
// (`org_events`). Every request-path query is by `_id`.
//
// Per-organization security counters (rate-limit rejections, authorization denials after
// authentication), one document per organization, kind and UTC day, updated with an atomic
// $inc so every API process contributes. They feed the threat summary; they hold counts only
// (no paths, keys or request data).
import { MongoServerError, type Collection } from 'mongodb';
import { Store } from '../core/store.js';

/**
 * Runs an `$inc` upsert by `_id`, again when it answers E11000. Two upserts of a new `_id` racing
 * each other can both find no document and both insert; the loser's insert fails on the `_id`
 * index (FerretDB always; MongoDB retries some such upserts itself, not all). By then the document
 * exists, so the retry is an update of it: the request gets its count, never a 5xx from the race.
 */
export async function upsertById<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000) || attempt >= 3) throw err;
    }
  }
}

/**
 * One `$inc` in flight per counter `_id` in this process: hits that arrive while it is out are
 * summed into the next one, and each waiter gets its own position in the sum. FerretDB 1.x runs
 * `$inc` as a read-modify-write, so two increments of one document in flight at once can count
 * once (16 racing hits were counted 2–15 before this); one writer per counter makes the count
 * exact for everything one API process admits, and saves the round trips of a burst. Across API
 * processes on FerretDB a race can still lose a hit (a real MongoDB's `$inc` is atomic):
 * docs/store-access.md, "Rate counters under concurrency".
 */
class CounterGate {
  private readonly queues = new Map<string, Array<{ resolve: (n: number) => void; reject: (e: unknown) => void }>>();

  /** `inc(n)` adds n and answers the count after it; this caller's own count is returned. */
  add(id: string, inc: (n: number) => Promise<number>): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const queue = this.queues.get(id);
      if (queue) {
        queue.push({ resolve, reject });
        return;
      }
      this.queues.set(id, [{ resolve, reject }]);
      void this.drain(id, inc);
    });
  }

  private async drain(id: string, inc: (n: number) => Promise<number>): Promise<void> {
    const queue = this.queues.get(id)!;
    while (queue.length > 0) {
      const batch = queue.splice(0);
      try {
        const after = await inc(batch.length);
        batch.forEach((w, i) => w.resolve(after - batch.length + 1 + i));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.queues.delete(id);
  }
}

const gates = new WeakMap<Store, CounterGate>();
function gateOf(store: Store): CounterGate {
  let gate = gates.get(store);
  if (!gate) gates.set(store, (gate = new CounterGate()));
  return gate;
}

export type OrgEventKind = 'rate_limited' | 'forbidden';
export const ORG_EVENT_KINDS: readonly OrgEventKind[] = ['rate_limited', 'forbidden'];

interface OrgEventDoc {
  _id: string;
  org_id: string;
  kind: OrgEventKind;
  day: string; // YYYY-MM-DD (UTC)
  count: number;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function events(store: Store): Collection<OrgEventDoc> {
  return store.collection<OrgEventDoc>('org_events');
}

/** `org_events {_id: org:kind:day}` `$inc` upsert. */
export async function recordOrgEvent(store: Store, orgId: string, kind: OrgEventKind, now = new Date()): Promise<void> {
  const day = dayOf(now);
  const _id = `${orgId}:${kind}:${day}`;
  await gateOf(store).add(_id, async (n) => {
    await upsertById(() =>
      events(store).updateOne(
        { _id },
        { $inc: { count: n }, $setOnInsert: { org_id: orgId, kind, day } },
        { upsert: true },
      ),
    );
    return 0; // the count is not read back
  });
}

/** `org_events {_id: org:kind:day}` per kind and day. Counts per kind over the last `days` UTC days (today included). */
export async function orgEventCounts(
  store: Store,
  orgId: string,
  days: number,
  now = new Date(),
): Promise<Record<OrgEventKind, number>> {
  const since = dayOf(new Date(now.getTime() - (days - 1) * 86_400_000));
  // One point lookup per (kind, day): a filter on other fields would read the whole collection on FerretDB.
  const ids: string[] = [];
  for (let i = 0; i < days; i++) {
    const day = dayOf(new Date(now.getTime() - i * 86_400_000));
    if (day < since) break;
    for (const kind of ORG_EVENT_KINDS) ids.push(`${orgId}:${kind}:${day}`);
  }
  const docs = await Promise.all(ids.map((_id) => events(store).findOne({ _id })));
  const out = Object.fromEntries(ORG_EVENT_KINDS.map((k) => [k, 0])) as Record<OrgEventKind, number>;
  for (const d of docs) if (d && d.kind in out) out[d.kind] += d.count;
  return out;
}

// ---------------------------------------------------------------------------------------
// Shared rate-limit window counters (api/middleware/rate-limit.ts WindowCounter)
// ---------------------------------------------------------------------------------------

export interface RateCounterDoc {
  _id: string; // <subject>:<window seconds>:<window start>
  count: number;
  expires_at: Date;
}

Store.registerIndexes(async (store) => {
  await store.ttlIndex('rate_counters', 'expires_at');
});

const counters = (store: Store) => store.collection<RateCounterDoc>('rate_counters');

/**
 * `rate_counters {_id}` `$inc` upsert: the window's count after this hit (a racing first hit
 * retried as an update; concurrent hits of one window summed into one `$inc`, CounterGate).
 */
export async function hitWindow(store: Store, id: string, expiresAt: Date): Promise<number> {
  windowLedger(store).remember(id, expiresAt.getTime());
  return gateOf(store).add(id, async (n) => {
    const doc = await upsertById(() =>
      counters(store).findOneAndUpdate(
        { _id: id },
        { $inc: { count: n }, $setOnInsert: { expires_at: expiresAt } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    if (!doc) throw new Error('no counter document');
    return doc.count;
  });
}

/**
 * Session 24 (docs/store-access.md §19): the windows this process counted, with their expiry, so
 * that its sweep deletes them by `_id` instead of filtering the whole collection on a date. The
 * whole read stays for a process's first sweep, every WINDOW_SCAN_MS after, and after the ledger
 * overflowed: windows of processes that died, of older code, or counted elsewhere.
 */
export const WINDOW_SCAN_MS = 6 * 3_600_000;
const WINDOW_LEDGER_MAX = 100_000;
const WINDOW_DELETE_BATCH = 1000;

class WindowLedger {
  readonly expires = new Map<string, number>();
  scanAt = Number.NEGATIVE_INFINITY;
  lost = false;
  remember(id: string, expiresAt: number): void {
    if (this.expires.has(id)) return;
    if (this.expires.size >= WINDOW_LEDGER_MAX) {
      this.lost = true; // the next sweep reads the collection whole, as before session 24
      return;
    }
    this.expires.set(id, expiresAt);
  }
}
const windowLedgers = new WeakMap<Store, WindowLedger>();
function windowLedger(store: Store): WindowLedger {
  let l = windowLedgers.get(store);
  if (!l) windowLedgers.set(store, (l = new WindowLedger()));
  return l;
}

/**
 * Sweep of expired windows, for stores without TTL indexes (FerretDB). Session 24: the windows this
 * process counted go by `_id` (point deletes, WINDOW_DELETE_BATCH per command); the filter
 * `expires_at < now` (a whole read on FerretDB/SQLite, bounded by live windows) runs only on the
 * first sweep, every WINDOW_SCAN_MS, and after the ledger overflowed. Returns how many it deleted.
 */
export async function sweepExpiredWindows(store: Store, now = new Date()): Promise<number> {
  const ledger = windowLedger(store);
  const t = now.getTime();
  const expired = [...ledger.expires].filter(([, at]) => at < t).map(([id]) => id);
  if (ledger.lost || t - ledger.scanAt >= WINDOW_SCAN_MS) {
    ledger.scanAt = t;
    ledger.lost = false;
    const r = await counters(store).deleteMany({ expires_at: { $lt: now } });
    for (const id of expired) ledger.expires.delete(id);
    return r.deletedCount;
  }
  let deleted = 0;
  for (let i = 0; i < expired.length; i += WINDOW_DELETE_BATCH) {
    const batch = expired.slice(i, i + WINDOW_DELETE_BATCH);
    const r = await counters(store).bulkWrite(
      batch.map((_id) => ({ deleteOne: { filter: { _id } } })),
      { ordered: false },
    );
    deleted += r.deletedCount ?? 0;
    for (const id of batch) ledger.expires.delete(id);
  }
  return deleted;
}
