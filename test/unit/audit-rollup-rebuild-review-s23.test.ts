// Review of s23-a (helper E, session 23): the roll-up split into a complete document `{_id: org}`
// and a recent one `{_id: org#recent}`. `AuditLog.rebuildRollup` (infra/audit-rollups.ts, "a
// roll-up differing from the chain is rebuilt") replaces only the complete document. When no entry
// was appended since the recent document was written (recent.seq == the rebuilt complete's seq ==
// the head), the reader still lays the recent document over the rebuilt one and answers the recent
// document's counts: a wrong recent roll-up survives the rebuild that is there to mend it.
// Session 23 review (A1): fixed by an overlay only strictly past the complete seq, and by the rebuild deleting the recent document.
import { describe, expect, it } from 'vitest';
import { addEntries, emptyRollup } from '../../core/audit-rollup.js';
import { AuditLog, recentRollupDoc, rollupDoc } from '../../persistence/audit.js';
import type { Store } from '../../core/store.js';

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const entry = (seq: number, status: string) => ({
  seq,
  domain: 'math',
  verified: status === 'VERIFIED',
  timestamp: new Date(T0 + seq * 60_000).toISOString(),
  result: { status, admission: null, attestation_id: null },
});

describe('review s23-a: a rebuild of the roll-up leaves a wrong recent document in force', () => {
  it('the reader answers the recent document over a rebuilt complete one of the same seq', async () => {
    const chain = Array.from({ length: 20 }, (_, i) => entry(i + 1, i % 2 ? 'VERIFIED' : 'UNVERIFIABLE'));
    const truth = addEntries(emptyRollup(), chain);
    // A recent document at seq 20 whose counts are wrong (what the rebuild tool is for: a roll-up
    // that differs from the chain), based on a complete roll-up at 12.
    const wrong = addEntries(
      emptyRollup(),
      chain.map((e) => ({ ...e, result: { ...e.result, status: 'BLOCKED' }, verified: false })),
    );
    const recentDoc = recentRollupDoc('org_r', wrong, 12, wrong.hours);
    // rebuildRollup wrote the complete document from the chain, at the head (20).
    const completeDoc = rollupDoc('org_r', truth);
    const log = new AuditLog({} as Store); // rollupFromDocs touches no store when both are at the head's seq
    const read = await (
      log as unknown as {
        rollupFromDocs(o: string, seq: number, c: unknown, r: unknown): Promise<typeof truth | null>;
      }
    ).rollupFromDocs('org_r', 20, completeDoc, recentDoc);
    // What a reader (/metrics, SOC 2, threats, infra/audit-rollups.ts --check) should get: the chain's counts.
    expect(read).toEqual(truth);
  });
});
