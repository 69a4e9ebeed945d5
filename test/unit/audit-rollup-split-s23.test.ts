// Session 23 (docs/store-access.md §16): the roll-up is stored as a complete document, written
// about once per RECENT_HOURS hours, and a small recent one written at the store cadence (its `all`
// and the hours changed since the complete one's seq). Pure rows: the hours changed between two
// roll-ups of one chain, and the recent part laid over any complete roll-up between its base and
// its seq gives exactly the roll-up of the whole chain (entries in many hours, late entries,
// hours pruned by the week's window), and nothing when the complete one is outside that span.
import { describe, expect, it } from 'vitest';
import { addEntries, emptyRollup, hoursSince, overlayRollup, ROLLUP_HOURS } from '../../core/audit-rollup.js';
import { recentRollupDoc, recentRollupId, rollupDoc, rollupOfDoc } from '../../persistence/audit.js';

const H = 3600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const STATUSES = ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'];

/** A chain of `n` entries over ~`hours` hours, in order but every `lateEvery`th one late by up to 5 hours. */
function chain(n: number, hours: number, seed = 1, lateEvery = 7) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) => {
    const seq = i + 1;
    const status = STATUSES[Math.floor(rnd() * 3)] as string;
    const late = seq % lateEvery === 0 ? Math.floor(rnd() * 5) * H : 0;
    return {
      seq,
      domain: rnd() < 0.5 ? 'math' : 'code',
      verified: status === 'VERIFIED',
      timestamp: new Date(T0 + (seq / n) * hours * H - late).toISOString(),
      result: { status, admission: null, attestation_id: status === 'VERIFIED' ? `att_${seq}` : null },
    };
  });
}

const upTo = (entries: ReturnType<typeof chain>, seq: number) => addEntries(emptyRollup(), entries.slice(0, seq));

describe('the roll-up split in a complete and a recent document (session 23)', () => {
  it('hoursSince names exactly the hours the entries after the earlier roll-up fell in', () => {
    const entries = chain(600, 40);
    const a = upTo(entries, 300);
    const s = upTo(entries, 420);
    const touched = new Set(entries.slice(300, 420).map((e) => e.timestamp.slice(0, 13)));
    expect(new Set(hoursSince(s, a).map((x) => x.h))).toEqual(touched);
    expect(hoursSince(a, a)).toEqual([]);
  });

  it('the recent part over any complete roll-up between its base and its seq is the roll-up of the chain', () => {
    // 400 hours: the week's window prunes hours on the way (ROLLUP_HOURS = 169).
    const entries = chain(1200, 400, 7);
    for (const [base, cold, seq] of [
      [100, 100, 160],
      [100, 130, 160],
      [100, 160, 160],
      [0, 0, 40],
      [0, 20, 40],
      [900, 950, 1200],
      [500, 500, 500],
    ] as const) {
      const s = upTo(entries, seq);
      const recent = { ...s, hours: hoursSince(s, upTo(entries, base)) };
      expect(overlayRollup(upTo(entries, cold), recent, base)).toEqual(s);
    }
    expect(upTo(entries, 1200).hours.length).toBeLessThanOrEqual(ROLLUP_HOURS);
  });

  it('answers null when the complete roll-up is outside [base, seq]', () => {
    const entries = chain(300, 30, 3);
    const s = upTo(entries, 200);
    const recent = { ...s, hours: hoursSince(s, upTo(entries, 150)) };
    expect(overlayRollup(upTo(entries, 149), recent, 150)).toBeNull();
    expect(overlayRollup(upTo(entries, 201), recent, 150)).toBeNull();
  });

  it('stores the recent part under org#recent with its base; the complete document stays as before', () => {
    // A tenant busy every hour for a week (no late entries), its last 8 entries after the complete roll-up.
    const entries = chain(5000, 200, 5, Infinity);
    const s = upTo(entries, 5000);
    const hours = hoursSince(s, upTo(entries, 4992));
    const doc = recentRollupDoc('org_a', s, 4992, hours);
    expect(doc._id).toBe(recentRollupId('org_a'));
    expect(recentRollupId('org_a')).toBe('org_a#recent');
    expect(doc.base).toBe(4992);
    expect(doc.seq).toBe(5000);
    expect(rollupOfDoc(doc)).toEqual({ ...s, hours });
    const complete = rollupDoc('org_a', s);
    expect(complete._id).toBe('org_a');
    expect('base' in complete).toBe(false);
    // The point of the split: what the store rewrites at the cadence is a few hundred bytes, not the week.
    expect(hours.length).toBeLessThanOrEqual(2);
    expect(Buffer.byteLength(doc.counts as string)).toBeLessThan(Buffer.byteLength(complete.counts as string) / 20);
  });
});
