// Session 23 (issue 22, bytes written per item): audit entry and attestation ids derived from
// (organization, workflow id) start with the workflow's start time when its run asks for it
// (core/time-ordered-id.ts). Pure rows: the same inputs give the same id (a retried activity
// writes the same entry), ids sort by time, the length and alphabet are those of the old ids,
// the old ids are unchanged without a time, the attestation id still maps to its entry's id, and
// a time a retry could compute differently is refused.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derivedIdHex, idTimeMs, ID_TIME_DIGITS } from '../../core/time-ordered-id.js';
import { auditLogId } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { batchItemAuditLogId, batchItemEntryId } from '../../activities/verify-batch.js';
import { attestationEntryId } from '../../persistence/proofs.js';

const T = Date.UTC(2026, 10, 28, 7, 0, 0, 123);
const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('derivedIdHex', () => {
  it('with a time: 12 hex digits of its milliseconds, then the digest’s first 20', () => {
    const d = sha('x');
    const id = derivedIdHex(d, T);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id.slice(0, ID_TIME_DIGITS)).toBe(T.toString(16).padStart(12, '0'));
    expect(id.slice(ID_TIME_DIGITS)).toBe(d.slice(0, 20));
    expect(idTimeMs(id)).toBe(T);
  });

  it('without a time: the digest’s first 32 digits (the ids written before session 23)', () => {
    const d = sha('x');
    expect(derivedIdHex(d)).toBe(d.slice(0, 32));
  });

  it('ids sort by their time, whatever their digests', () => {
    const times = [0, 1, 15, 16, 255, 256, T - 1000, T, T + 1, 16 ** 12 - 1];
    const ids = times.map((t, i) => derivedIdHex(sha(`w${times.length - i}`), t));
    expect([...ids].sort()).toEqual(ids);
  });

  it('refuses a time a retry could compute differently, and a digest that is not one', () => {
    for (const bad of [Number.NaN, -1, 1.5, 16 ** 12, Number.POSITIVE_INFINITY])
      expect(() => derivedIdHex(sha('x'), bad)).toThrow(RangeError);
    expect(() => derivedIdHex('ABC', T)).toThrow(TypeError);
    expect(() => derivedIdHex(sha('x').toUpperCase())).toThrow(TypeError);
  });
});

describe('the derived ids of an audited run', () => {
  const org = 'org_s23';
  const wf = `verify-math-${org}-0b0e5e0c-2f6a-4c8a-9d1e-000000000023`;

  it('a retried activity (same organization, workflow id and start time) derives the same ids', () => {
    expect(auditLogId(org, wf, T)).toBe(auditLogId(org, wf, T));
    expect(attestationIdFor(org, wf, T)).toBe(attestationIdFor(org, wf, T));
    expect(batchItemEntryId(org, wf, 7, true, T)).toBe(batchItemEntryId(org, wf, 7, true, T));
    // Another run, another item or another time: another id.
    expect(auditLogId(org, `${wf}x`, T)).not.toBe(auditLogId(org, wf, T));
    expect(batchItemAuditLogId(org, wf, 1, T)).not.toBe(batchItemAuditLogId(org, wf, 2, T));
    expect(auditLogId(org, wf, T + 1)).not.toBe(auditLogId(org, wf, T));
  });

  it('keep the old shape (prefix + 32 hex) and start with the time; without a time they are the old ids', () => {
    const log = auditLogId(org, wf, T);
    const att = attestationIdFor(org, wf, T);
    expect(log).toMatch(/^log_[0-9a-f]{32}$/);
    expect(att).toMatch(/^att_[0-9a-f]{32}$/);
    expect(idTimeMs(log.slice(4))).toBe(T);
    expect(idTimeMs(att.slice(4))).toBe(T);
    expect(log.slice(4 + ID_TIME_DIGITS)).toBe(sha(`${org}\u0000${wf}`).slice(0, 20));
    // The ids of runs started without `time_ordered_ids` (and of every entry written before).
    expect(auditLogId(org, wf)).toBe(`log_${sha(`${org}\u0000${wf}`).slice(0, 32)}`);
    expect(attestationIdFor(org, wf)).toBe(`att_${sha(`attestation\u0000${org}\u0000${wf}`).slice(0, 32)}`);
  });

  it('the attestation id still names the entry that carries it (attestationEntryId keeps the hex)', () => {
    const att = attestationIdFor(org, wf, T);
    expect(attestationEntryId(att)).toBe(`log_${att.slice(4)}`);
    expect(batchItemEntryId(org, wf, 3, true, T)).toBe(attestationEntryId(attestationIdFor(org, `${wf}#item-3`, T)));
    expect(batchItemEntryId(org, wf, 3, false, T)).toBe(batchItemAuditLogId(org, wf, 3, T));
    expect(batchItemEntryId(org, wf, 3, false, T)).toBe(auditLogId(org, `${wf}#item-3`, T));
  });

  it('entries of later runs sort after those of earlier ones (the index’s right edge)', () => {
    const ids = Array.from({ length: 50 }, (_, i) => auditLogId(org, `${wf}-${i}`, T + i * 7));
    expect([...ids].sort()).toEqual(ids);
    const items = Array.from({ length: 20 }, (_, i) => batchItemEntryId(org, `batch-${i}`, i, true, T + i));
    expect([...items].sort()).toEqual(items);
  });
});
