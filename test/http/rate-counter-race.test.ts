// Racing first hits of a new rate-limit window (issue 22): two upserts of a new `_id` can both
// find no document and both insert; FerretDB answers the loser with E11000. The counter retries
// that as an update (persistence/limits.ts `upsertById`; test/unit/limits-upsert-retry.test.ts
// proves the retry itself), so no request gets a 5xx from it. Not asserted here: exact counts.
// FerretDB 1.x runs `$inc` as read-modify-write and loses concurrent increments (16 racing hits
// were counted 2–15 on this stack): docs/store-access.md, "Rate counters under concurrency".
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Store } from '../../core/store.js';
import { hitWindow, recordOrgEvent, orgEventCounts } from '../../persistence/limits.js';
import { newTenant, post, stackEnv } from './helpers.js';

const RACERS = 16;

describe('racing first hits of a new counter', () => {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  afterAll(async () => {
    await store.close();
  });

  it('hitWindow: 16 concurrent first hits of 10 new windows each answer with a count, and the window exists', async () => {
    for (let round = 0; round < 10; round++) {
      const id = `race:${randomUUID()}:60:0`;
      const expires = new Date(Date.now() + 120_000);
      const counts = await Promise.all(Array.from({ length: RACERS }, () => hitWindow(store, id, expires)));
      for (const c of counts) expect(c).toBeGreaterThanOrEqual(1);
      expect(Math.max(...counts)).toBeLessThanOrEqual(RACERS);
      const doc = await store.collection<{ _id: string; count: number }>('rate_counters').findOne({ _id: id });
      expect(doc?.count).toBeGreaterThanOrEqual(1);
    }
  });

  it('recordOrgEvent: 16 concurrent first events of a new organization and day all resolve and are counted', async () => {
    const org = `race-org-${randomUUID()}`;
    await Promise.all(Array.from({ length: RACERS }, () => recordOrgEvent(store, org, 'rate_limited')));
    const counts = await orgEventCounts(store, org, 1);
    expect(counts.forbidden).toBe(0);
    expect(counts.rate_limited).toBeGreaterThanOrEqual(1);
  });

  it("a new free tenant's first 12 requests sent at once: all 200 with rate-limit headers, none 5xx", async () => {
    const t = await newTenant('free');
    const res = await Promise.all(
      Array.from({ length: 12 }, () => post('/verify/math', { expression: '1 + 1' }, { 'x-api-key': t.key })),
    );
    expect(res.map((r) => r.status)).toEqual(Array(12).fill(200));
    for (const r of res) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('60');
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(48);
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(59);
    }
  });
});
