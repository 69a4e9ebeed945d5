// The audit chain's verdict roll-up (core/audit-rollup.ts): a pure function of the entries, so
// adding entries in any grouping gives the same roll-up (incremental == rebuild), hours are kept
// relative to the newest entry, and the summaries match the reports' shapes.
import { describe, expect, it } from 'vitest';
import {
  addEntries,
  attestationsOf,
  emptyRollup,
  ROLLUP_HOURS,
  rowsSince,
  summarize,
} from '../../core/audit-rollup.js';

const H = 3600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');

function entry(
  seq: number,
  opts: { engine?: string; status?: string; admission?: string | null; att?: boolean; at?: number } = {},
) {
  const status = opts.status ?? 'VERIFIED';
  return {
    seq,
    domain: opts.engine ?? 'math',
    verified: status === 'VERIFIED',
    timestamp: new Date(opts.at ?? T0 + seq * 60_000).toISOString(),
    result: { status, admission: opts.admission ?? null, attestation_id: opts.att ? `att_${seq}` : null },
  };
}

describe('audit roll-up', () => {
  const entries = [
    entry(1, { att: true }),
    entry(2, { status: 'BLOCKED' }),
    entry(3, { engine: 'code', status: 'VERIFIED', admission: 'BLOCKED', att: true }),
    entry(4, { engine: 'sql', status: 'UNVERIFIABLE' }),
    entry(5, { att: true, at: T0 + 30 * H }),
  ];

  it('counts by engine, status, admission and verified, with attestations named', () => {
    const r = addEntries(emptyRollup(), entries);
    expect(r.seq).toBe(5);
    expect(summarize(r.all)).toEqual({
      total: 5,
      verified: 3,
      blocked: 2,
      unsafe_findings: 1,
      by_status: { VERIFIED: 3, BLOCKED: 1, UNVERIFIABLE: 1 },
      by_engine: {
        math: { total: 3, verified: 2, blocked: 1, unsafe_findings: 0, by_status: { VERIFIED: 2, BLOCKED: 1 } },
        code: { total: 1, verified: 1, blocked: 1, unsafe_findings: 1, by_status: { VERIFIED: 1 } },
        sql: { total: 1, verified: 0, blocked: 0, unsafe_findings: 0, by_status: { UNVERIFIABLE: 1 } },
      },
    });
    expect(attestationsOf(r.all)).toBe(3);
  });

  it('is the same however the entries are grouped (incremental group commits == one rebuild)', () => {
    const whole = addEntries(emptyRollup(), entries);
    let stepwise = emptyRollup();
    for (const e of entries) stepwise = addEntries(stepwise, [e]);
    const split = addEntries(addEntries(emptyRollup(), entries.slice(0, 2)), entries.slice(2));
    expect(stepwise).toEqual(whole);
    expect(split).toEqual(whole);
  });

  it('refuses entries that do not continue it (a count is never applied twice or skipped)', () => {
    const r = addEntries(emptyRollup(), entries.slice(0, 2));
    expect(() => addEntries(r, [entries[1]!])).toThrow(/cannot take the entry at 2/);
    expect(() => addEntries(r, [entries[3]!])).toThrow(/cannot take the entry at 4/);
  });

  it('windows by hour: the hours overlapping the window, kept for ROLLUP_HOURS before the newest entry', () => {
    const r = addEntries(emptyRollup(), entries);
    // Entry 5 is 30 h after the others: a 24 h window ending at it holds only entry 5.
    expect(summarize(rowsSince(r, T0 + 30 * H + 60_000 - 24 * H)).total).toBe(1);
    expect(summarize(rowsSince(r, T0 - H)).total).toBe(5);
    // An entry ROLLUP_HOURS later drops the first hours (not the totals).
    const later = addEntries(r, [entry(6, { at: T0 + (ROLLUP_HOURS + 1) * H })]);
    expect(later.hours.map((x) => x.h)).toEqual(['2026-11-21T06', '2026-11-27T02']);
    expect(summarize(later.all).total).toBe(6);
  });
});
