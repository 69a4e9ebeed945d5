// Session 24 (issue 22; docs/store-access.md §19): the rate windows' sweep (every 5 minutes in every
// API process, for stores without TTL indexes) sent `rate_counters.deleteMany({expires_at: {$lt}})`,
// a whole read of the collection on FerretDB/SQLite, on every run. A process now deletes the windows
// it counted by `_id` once they expire; the filter runs only on its first sweep and every
// WINDOW_SCAN_MS (windows of processes that died, or of older code).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { hitWindow, sweepExpiredWindows, WINDOW_SCAN_MS } from '../../persistence/limits.js';

type Doc = { _id: string; count: number; expires_at: Date };

/** rate_counters in memory: the operations persistence/limits.ts sends, each recorded with its filter. */
function fakeStore() {
  const docs = new Map<string, Doc>();
  const sent: Array<{ op: string; filter: Record<string, unknown> }> = [];
  const coll = {
    async findOneAndUpdate(
      filter: { _id: string },
      update: { $inc: { count: number }; $setOnInsert: { expires_at: Date } },
    ): Promise<Doc> {
      sent.push({ op: 'findOneAndUpdate', filter });
      const d = docs.get(filter._id) ?? { _id: filter._id, count: 0, expires_at: update.$setOnInsert.expires_at };
      d.count += update.$inc.count;
      docs.set(d._id, d);
      return { ...d };
    },
    async deleteMany(filter: { expires_at: { $lt: Date } }) {
      sent.push({ op: 'deleteMany', filter });
      let deletedCount = 0;
      for (const [id, d] of docs)
        if (d.expires_at < filter.expires_at.$lt) {
          docs.delete(id);
          deletedCount++;
        }
      return { deletedCount };
    },
    async bulkWrite(ops: Array<{ deleteOne: { filter: { _id: string } } }>) {
      let deletedCount = 0;
      for (const o of ops) {
        sent.push({ op: 'deleteOne', filter: o.deleteOne.filter });
        if (docs.delete(o.deleteOne.filter._id)) deletedCount++;
      }
      return { deletedCount };
    },
  };
  const store = { collection: (name: string) => (name === 'rate_counters' ? coll : null) } as unknown as Store;
  return { store, docs, sent };
}

const T0 = new Date('2026-11-28T10:00:00Z').getTime();

describe('rate windows: the sweep deletes the windows this process counted by `_id` (session 24)', () => {
  it('after the first sweep, expired windows go by `_id` and live ones stay; the date filter again only after WINDOW_SCAN_MS', async () => {
    const f = fakeStore();
    // A window of another process (or older code): counted before this process ran.
    f.docs.set('other:60:0', { _id: 'other:60:0', count: 3, expires_at: new Date(T0 - 1000) });
    let sent = f.sent.length;
    expect(await sweepExpiredWindows(f.store, new Date(T0))).toBe(1); // the first sweep: the filter
    expect(f.sent.slice(sent).map((s) => s.op)).toEqual(['deleteMany']);
    // This process counts three windows: two minute windows and a day window.
    await hitWindow(f.store, 'k1:60:1', new Date(T0 + 120_000));
    await hitWindow(f.store, 'k1:60:1', new Date(T0 + 120_000));
    await hitWindow(f.store, 'k2:60:1', new Date(T0 + 120_000));
    await hitWindow(f.store, 'k1:86400:0', new Date(T0 + 86_460_000));
    sent = f.sent.length;
    // Base ee02593: a deleteMany on `expires_at` (a whole read on FerretDB/SQLite) on every run.
    expect(await sweepExpiredWindows(f.store, new Date(T0 + 300_000))).toBe(2);
    expect(f.sent.slice(sent)).toEqual([
      { op: 'deleteOne', filter: { _id: 'k1:60:1' } },
      { op: 'deleteOne', filter: { _id: 'k2:60:1' } },
    ]);
    expect([...f.docs.keys()]).toEqual(['k1:86400:0']);
    sent = f.sent.length;
    expect(await sweepExpiredWindows(f.store, new Date(T0 + 600_000))).toBe(0); // nothing expired: nothing sent
    expect(f.sent.slice(sent)).toEqual([]);
    // Another process's window left behind: found by the next whole read, WINDOW_SCAN_MS after the first.
    f.docs.set('other:60:9', { _id: 'other:60:9', count: 1, expires_at: new Date(T0 + 1000) });
    expect(await sweepExpiredWindows(f.store, new Date(T0 + WINDOW_SCAN_MS - 1))).toBe(0);
    expect(await sweepExpiredWindows(f.store, new Date(T0 + WINDOW_SCAN_MS))).toBe(1);
    expect([...f.docs.keys()]).toEqual(['k1:86400:0']);
  });
});
