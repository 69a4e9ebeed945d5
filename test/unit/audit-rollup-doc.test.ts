// The stored form of the audit roll-up (persistence/audit.ts rollupDoc / rollupOfDoc, issue 22):
// its counts packed into one string, so that the store's cost per write does not grow with the
// hours filled; what is read back is exactly what was written, documents of the older nested
// form still read, and an unreadable one is a missing cache (null: rebuilt from the chain).
import { describe, expect, it } from 'vitest';
import { addEntries, emptyRollup, ROLLUP_HOURS } from '../../core/audit-rollup.js';
import { rollupDoc, rollupOfDoc, type AuditRollupDoc } from '../../persistence/audit.js';

const H = 3600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');

function entry(seq: number, status: string, at: number, engine = 'math', admission: string | null = null) {
  return {
    seq,
    domain: engine,
    verified: status === 'VERIFIED',
    timestamp: new Date(at).toISOString(),
    result: { status, admission, attestation_id: status === 'VERIFIED' ? `att_${seq}` : null },
  };
}

// A full week of hours, several rows an hour (engines, statuses, an admission, a null one).
const week = Array.from({ length: ROLLUP_HOURS * 3 }, (_, i) =>
  entry(
    i + 1,
    ['VERIFIED', 'BLOCKED', 'UNVERIFIABLE'][i % 3] as string,
    T0 + Math.floor(i / 3) * H,
    i % 2 ? 'code' : 'math',
    i % 5 === 0 ? 'BLOCKED' : null,
  ),
);

describe('audit roll-up as stored', () => {
  it('reads back exactly the roll-up written, a full week of hours in one string field', () => {
    const rollup = addEntries(emptyRollup(), week);
    expect(rollup.hours).toHaveLength(ROLLUP_HOURS);
    const doc = rollupDoc('org_a', rollup);
    expect(doc._id).toBe('org_a');
    expect(doc.seq).toBe(week.length);
    expect(typeof doc.counts).toBe('string');
    // No nested counts left for the store to walk: the document is _id, seq, counts, updated_at.
    expect(Object.keys(doc).sort()).toEqual(['_id', 'counts', 'seq', 'updated_at']);
    expect(rollupOfDoc(doc)).toEqual(rollup);
    // Through the wire's own encoding (a round trip through JSON keeps nulls and numbers).
    expect(rollupOfDoc(JSON.parse(JSON.stringify(doc)) as AuditRollupDoc)).toEqual(rollup);
  });

  it('the empty roll-up of a new chain', () => {
    expect(rollupOfDoc(rollupDoc('org_b', emptyRollup()))).toEqual(emptyRollup());
  });

  it('reads a document of the older nested form', () => {
    const rollup = addEntries(emptyRollup(), week.slice(0, 10));
    const legacy: AuditRollupDoc = { _id: 'org_c', ...rollup, updated_at: new Date() };
    expect(rollupOfDoc(legacy)).toEqual(rollup);
  });

  it('an unreadable document is a missing roll-up (null), never a wrong count', () => {
    const base = { _id: 'org_d', seq: 4, updated_at: new Date() };
    expect(rollupOfDoc({ ...base, counts: '{"all": [' })).toBeNull();
    expect(rollupOfDoc({ ...base, counts: '{"all": 3, "hours": []}' })).toBeNull();
    expect(rollupOfDoc({ ...base, counts: '[]' })).toBeNull();
    expect(rollupOfDoc({ ...base, counts: '{"all": [["math", "VERIFIED", null, 1, 2]], "hours": []}' })).toBeNull();
    expect(
      rollupOfDoc({ ...base, counts: '{"all": [], "hours": [["2026-11-20T00", [["math", 1, null, 1, 2, 0]]]]}' }),
    ).toBeNull();
    expect(rollupOfDoc({ ...base, counts: '{"all": [], "hours": [[7, []]]}' })).toBeNull();
    expect(rollupOfDoc(base)).toBeNull();
  });
});
