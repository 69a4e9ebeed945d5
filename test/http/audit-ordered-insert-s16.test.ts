// Session 16 (issue 22): found by test/http/batch-audit-delay-s16.test.ts. FerretDB 1.x (SQLite)
// inserts in batches of 100 documents and, for an ordered insert, goes on with the next batch after
// a failed document: of 101 entries whose first lost its position (a duplicate of the unique
// (organization_id, seq) index), the 101st was stored, linked to an entry never stored (a broken
// hash link in an organization's chain). persistence/audit.ts insertReportingDuplicates now sends
// an ordered insert 100 documents at a time, the next only when the one before had no failure.
// Against the stack's real store (the behaviour is the store's).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { insertReportingDuplicates } from '../../persistence/audit.js';
import { stackEnv } from './helpers.js';

const store = Store.lazy(stackEnv().MONGODB_URI as string);
afterAll(async () => {
  await store.close().catch(() => undefined);
});

type Doc = { _id: string; org: string; seq: number };

describe('ordered inserts of more than 100 documents (session 16)', () => {
  it('a duplicate at index 0 of 101 documents: nothing stored, the failure at 0; a duplicate at 100: the first 100 stored', async () => {
    const name = `s16_ordered_${randomBytes(4).toString('hex')}`;
    const coll = store.db.collection<Doc>(name);
    await coll.createIndex({ org: 1, seq: 1 }, { unique: true });
    try {
      const org = 'o';
      await coll.insertOne({ _id: 'other-1', org, seq: 1 }); // another writer's entry at position 1
      const docs = Array.from({ length: 101 }, (_, i): Doc => ({ _id: `mine-${i}`, org, seq: 1 + i }));
      expect(await insertReportingDuplicates(store, name, docs, true)).toEqual([0]);
      const stored = await Promise.all(docs.map((d) => coll.findOne({ _id: d._id })));
      // Before the fix FerretDB stored mine-100 (its second batch) after the failure at 0.
      expect(stored.filter(Boolean).map((d) => d!._id)).toEqual([]);

      // A duplicate at 100 (position 102 taken): exactly the first 100 stored, the failure at 100.
      await coll.insertOne({ _id: 'other-102', org, seq: 102 });
      const next = Array.from({ length: 101 }, (_, i): Doc => ({ _id: `next-${i}`, org, seq: 2 + i }));
      expect(await insertReportingDuplicates(store, name, next, true)).toEqual([100]);
      const got = await Promise.all(next.map((d) => coll.findOne({ _id: d._id })));
      expect(got.map(Boolean)).toEqual([...Array.from({ length: 100 }, () => true), false]);
    } finally {
      await coll.drop().catch(() => undefined);
    }
  }, 60_000);
});
