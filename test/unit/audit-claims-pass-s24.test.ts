// Session 24, review s24 finding B2 (docs/store-access.md §19): a writer retires only the claims of
// commits it indexed itself, so the claims written before session 24, of a writer that exited or
// died within its retirement window, of a commit another writer healed, a loser's and those past
// CLAIM_RETIRE_MAX stayed in `audit_claims` for good (2,058 on data-scale's seed). A paced pass
// (persistence/audit.ts sweepOldAuditClaims) deletes `org#s` by `_id` for every s at or below the
// organization's head document's seq − 128 (MAX_BATCH: a heal needs a claim only within that of a
// position past the head), remembering how far it got in `audit_claim_cursors {_id: org}`.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { sweepOldAuditClaims } from '../../persistence/audit.js';
import { memStore } from './batch-mem-store.js';

const claimIds = (m: ReturnType<typeof memStore>) =>
  [...m.coll('audit_claims').docs.values()].map((d) => d._id as string).sort((a, b) => a.localeCompare(b));

async function seed(m: ReturnType<typeof memStore>, heads: Record<string, number>, claims: string[]) {
  for (const [org, seq] of Object.entries(heads))
    await m.coll('audit_heads').insertOne({ _id: org, seq, head_hash: 'h', updated_at: new Date() });
  // As session 23 wrote them: one plain insert per group commit, never deleted.
  for (const id of claims) await m.coll('audit_claims').insertOne({ _id: id, log_ids: [`log_${id}`] });
}

describe('audit claims no writer retires: the pass by computed ids (session 24, B2)', () => {
  it('deletes claims at or below head − 128 by `_id`, keeps the last 128 positions’ claims, and resumes from its cursor', async () => {
    const m = memStore();
    const store = m.store as unknown as Store;
    await seed(m, { org_a: 300, org_b: 50 }, [
      'org_a#1',
      'org_a#5',
      'org_a#100',
      'org_a#171',
      'org_a#172',
      'org_a#173',
      'org_a#300',
      'org_b#1',
    ]);
    expect(await sweepOldAuditClaims(store, { pauseMaxMs: 0 })).toBe(5);
    // org_a: 173 … 300 may still be needed by a heal of a position past the head; org_b's head is within 128.
    expect(claimIds(m)).toEqual(['org_a#173', 'org_a#300', 'org_b#1']);
    expect([...m.coll('audit_claim_cursors').docs.values()]).toEqual([{ _id: 'org_a', swept: 172 }]);
    // The head moves on: the next run visits only the positions since its cursor.
    await m.coll('audit_heads').updateOne({ _id: 'org_a' }, { $set: { seq: 400 } });
    await m.coll('audit_claims').insertOne({ _id: 'org_a#250', log_ids: ['x'] });
    await m.coll('audit_claims').insertOne({ _id: 'org_a#273', log_ids: ['y'] });
    const from = m.log.length;
    expect(await sweepOldAuditClaims(store, { pauseMaxMs: 0 })).toBe(2);
    const deletes = m.log.slice(from).filter((r) => r.coll === 'audit_claims' && r.op === 'deleteOne');
    expect(deletes.length).toBe(100); // org_a#173 … org_a#272, each by `_id`
    expect(deletes[0]?.filter).toEqual({ _id: 'org_a#173' });
    expect(deletes.every((r) => Object.keys(r.filter).join() === '_id')).toBe(true);
    expect(claimIds(m)).toEqual(['org_a#273', 'org_a#300', 'org_b#1']);
  });

  it('visits at most `maxPositions` per run and goes on from there at the next', async () => {
    const m = memStore();
    const store = m.store as unknown as Store;
    await seed(m, { org_c: 1128 }, ['org_c#10', 'org_c#60', 'org_c#999', 'org_c#1001']);
    expect(await sweepOldAuditClaims(store, { maxPositions: 50, pauseMaxMs: 0 })).toBe(1);
    expect(claimIds(m)).toEqual(['org_c#1001', 'org_c#60', 'org_c#999']);
    expect(await sweepOldAuditClaims(store, { maxPositions: 2_000, pauseMaxMs: 0 })).toBe(2);
    expect(claimIds(m)).toEqual(['org_c#1001']);
    expect(m.coll('audit_claim_cursors').docs.get(JSON.stringify('org_c'))).toEqual({ _id: 'org_c', swept: 1000 });
  });
});
