// The attestation record stored in an audit entry (session 16, persistence/proofs.ts): the entry id
// derived from the attestation id, and the record read back only from the entry that names it.
import { describe, expect, it } from 'vitest';
import { attestationEntryId, attestationOfEntry } from '../../persistence/proofs.js';
import type { AuditLogDoc } from '../../core/audit-log.js';

const ID = `att_${'ab12'.repeat(8)}`;
const entry = (over: Partial<AuditLogDoc> = {}, result: Record<string, unknown> = {}): AuditLogDoc => ({
  _id: `log_${'ab12'.repeat(8)}`,
  seq: 7,
  organization_id: 'org_1',
  user_id: null,
  query: 'x = x',
  result: { status: 'VERIFIED', proof_ref: `sha256:${'c'.repeat(64)}`, attestation_id: ID, ...result },
  verified: true,
  domain: 'math',
  timestamp: new Date('2026-11-27T10:00:00.000Z'),
  raw_llm_output: null,
  previous_hash: null,
  entry_hash: 'e'.repeat(64),
  signature: 'f'.repeat(64),
  attestation: { token: 'a.b.c', status: 'ISSUED', claims: { jti: ID } as never },
  ...over,
});

describe('attestationEntryId', () => {
  it('is log_ with the attestation id’s hex; null for any other shape', () => {
    expect(attestationEntryId(ID)).toBe(`log_${'ab12'.repeat(8)}`);
    for (const bad of [
      'att_' + 'g'.repeat(32),
      'att_' + 'a'.repeat(31),
      'log_' + 'a'.repeat(32),
      '',
      'att_' + 'A'.repeat(32),
    ])
      expect(attestationEntryId(bad)).toBeNull();
  });
});

describe('attestationOfEntry', () => {
  it('the record an entry carries: its jti, the entry’s organization, engine, proof_ref and time', () => {
    expect(attestationOfEntry(entry(), ID)).toEqual({
      _id: ID,
      org_id: 'org_1',
      token: 'a.b.c',
      claims: { jti: ID },
      status: 'ISSUED',
      engine: 'math',
      proof_ref: `sha256:${'c'.repeat(64)}`,
      created_at: new Date('2026-11-27T10:00:00.000Z'),
    });
  });

  it('null unless the entry names that id in its hashed result and its record is that jti', () => {
    expect(attestationOfEntry(null, ID)).toBeNull();
    expect(attestationOfEntry(entry({ attestation: undefined }), ID)).toBeNull();
    expect(attestationOfEntry(entry({}, { attestation_id: `att_${'0'.repeat(32)}` }), ID)).toBeNull();
    expect(
      attestationOfEntry(
        entry({ attestation: { token: 'a.b.c', status: 'ISSUED', claims: { jti: `att_${'0'.repeat(32)}` } as never } }),
        ID,
      ),
    ).toBeNull();
  });
});
