// Session 24, review s24 finding B3 (docs/store-access.md §19, "Audit claims retired"): a writer's
// retirement of its indexed commits' claims (persistence/audit.ts retireClaims) takes the due
// prefix of its list, deletes it by `_id`, then drops as many from the list's front. Two runs that
// overlap (a delete slower than the minute between runs) took the same prefix and each dropped its
// count: claims not yet due were dropped from the list unsent, and stayed in the store for good.
// A run now starts only when none is in flight (the one in flight re-arms the timer if claims wait).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { AuditLog, CLAIM_RETIRE_AFTER_MS } from '../../persistence/audit.js';

describe('audit claims: overlapping retirement runs (session 24, B3)', () => {
  it('a run while one is in flight sends nothing; claims not yet due stay listed and go at a later run', async () => {
    const sent: string[][] = [];
    let release: () => void = () => undefined;
    let calls = 0;
    const claims = {
      bulkWrite: async (ops: Array<{ deleteOne: { filter: { _id: string } } }>) => {
        sent.push(ops.map((o) => o.deleteOne.filter._id));
        if (calls++ === 0) await new Promise<void>((r) => (release = r)); // the first delete is slow
        return { deletedCount: ops.length };
      },
    };
    const w = new AuditLog({ collection: () => claims } as unknown as Store);
    const indexed = (id: string, at: number) =>
      (w as unknown as { claimIndexed: (id: string, now: number) => void }).claimIndexed(id, at);
    const t0 = 1_000_000;
    for (const s of [1, 2, 3, 4]) indexed(`org#${s}`, t0);
    for (const s of [5, 6]) indexed(`org#${s}`, t0 + 50_000); // due only from t0 + 80 s
    const first = w.retireClaims(t0 + CLAIM_RETIRE_AFTER_MS + 30_000);
    await Promise.resolve();
    expect(sent).toEqual([['org#1', 'org#2', 'org#3', 'org#4']]);
    // A minute later the timer's next run, the first delete still in flight: nothing sent twice.
    expect(await w.retireClaims(t0 + CLAIM_RETIRE_AFTER_MS + 30_000)).toBe(0);
    release();
    expect(await first).toBe(4);
    // org#5 and org#6 are still listed: the next run deletes them (before the fix: dropped unsent, 0).
    expect(await w.retireClaims(t0 + 50_000 + CLAIM_RETIRE_AFTER_MS)).toBe(2);
    expect(sent).toEqual([
      ['org#1', 'org#2', 'org#3', 'org#4'],
      ['org#5', 'org#6'],
    ]);
  });
});
