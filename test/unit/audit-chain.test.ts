import { describe, it, expect } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import {
  buildEntry,
  canonicalAuditPayload,
  entryHash,
  signEntryHash,
  verifyEntry,
  verifyChain,
  AuditChainError,
  SECRET_MISSING_ERROR,
  type AuditEntry,
  type AuditEntryFields,
} from '../../core/audit-chain.js';

const SECRET = 'test-audit-secret-0123456789';

function fields(n: number, org = 'org_a', extra: Partial<AuditEntryFields> = {}): AuditEntryFields {
  return {
    organization_id: org,
    user_id: 'user_1',
    query: `2 + ${n} = ${2 + n}`,
    result: { status: 'VERIFIED', proof_ref: `sha256:${String(n).repeat(64).slice(0, 64)}`, details: { n } },
    verified: true,
    domain: 'math',
    timestamp: `2025-01-0${n}T00:00:00.000Z`,
    raw_llm_output: n % 2 === 0 ? `llm says ${n}` : null,
    ...extra,
  };
}

function chain(count: number, org = 'org_a'): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (let i = 1; i <= count; i++)
    out.push(buildEntry(fields(i, org), out.length ? out[out.length - 1].entry_hash : null, SECRET));
  return out;
}

const ALL_VALID = { hash_valid: true, signature_valid: true, chain_valid: true };

describe('canonical payload and hashing', () => {
  it('uses the documented keys, RFC 8785 encoding, SHA-256 and HMAC of the hex hash', () => {
    const f = fields(2);
    const payload = canonicalAuditPayload({ ...f, previous_hash: null });
    expect(payload).toEqual({
      organization_id: 'org_a',
      user_id: 'user_1',
      query: '2 + 2 = 4',
      result: f.result,
      verified: true,
      domain: 'math',
      timestamp: '2025-01-02T00:00:00.000Z',
      previous_hash: null,
      raw_llm_output: 'llm says 2',
    });
    const expectedText =
      '{"domain":"math","organization_id":"org_a","previous_hash":null,"query":"2 + 2 = 4","raw_llm_output":"llm says 2",' +
      `"result":{"details":{"n":2},"proof_ref":"sha256:${'2'.repeat(64)}","status":"VERIFIED"},` +
      '"timestamp":"2025-01-02T00:00:00.000Z","user_id":"user_1","verified":true}';
    const hash = createHash('sha256').update(expectedText, 'utf8').digest('hex');
    expect(entryHash(payload)).toBe(hash);
    expect(signEntryHash(hash, SECRET)).toBe(createHmac('sha256', SECRET).update(hash).digest('hex'));

    const legacy = canonicalAuditPayload({ ...f, previous_hash: null }, { legacy: true });
    expect('raw_llm_output' in legacy).toBe(false);
    expect(entryHash(legacy)).toBe(
      createHash('sha256').update(expectedText.replace(',"raw_llm_output":"llm says 2"', '')).digest('hex'),
    );

    const entry = buildEntry(f, null, SECRET);
    expect(entry.entry_hash).toBe(hash);
    expect(entry.signature).toBe(signEntryHash(hash, SECRET));
    expect(entry.previous_hash).toBeNull();
  });

  it('hashes a Date timestamp as its ISO text and absent raw_llm_output as null', () => {
    const f = fields(1, 'org_a', { timestamp: new Date('2025-01-01T00:00:00Z') });
    delete f.raw_llm_output;
    const e = buildEntry(f, null, SECRET);
    expect(e.timestamp).toBe('2025-01-01T00:00:00.000Z');
    expect(e.raw_llm_output).toBeNull();
    expect(e.entry_hash).toBe(buildEntry(fields(1), null, SECRET).entry_hash);
  });

  it('refuses to build entries without a secret, with a malformed result or link', () => {
    expect(() => buildEntry(fields(1), null, undefined)).toThrow(new AuditChainError(SECRET_MISSING_ERROR));
    expect(() => buildEntry(fields(1), null, '')).toThrow(AuditChainError);
    expect(() => buildEntry(fields(1, 'org_a', { result: 'x' as never }), null, SECRET)).toThrow(
      'malformed stored result: not a JSON object',
    );
    expect(() => buildEntry(fields(1, 'org_a', { result: { x: Number.NaN } }), null, SECRET)).toThrow(
      'malformed stored result: non-finite number at $.result.x',
    );
    expect(() => buildEntry(fields(2), 'abc', SECRET)).toThrow(AuditChainError);
    expect(() => buildEntry(fields(1, ''), null, SECRET)).toThrow('organization_id is empty');
  });
});

describe('verifyEntry', () => {
  it('accepts an intact chain', () => {
    const c = chain(4);
    c.forEach((e, i) => {
      expect(verifyEntry(e, i === 0 ? null : c[i - 1], SECRET)).toEqual({
        valid: true,
        checks: ALL_VALID,
        errors: [],
        payload_version: 'current',
      });
    });
    expect(verifyChain(c, SECRET).valid).toBe(true);
    expect(verifyChain([], SECRET)).toEqual({ valid: true, entries: [] });
  });

  it('detects a tampered field (hash fails, signature over the stored hash still matches)', () => {
    const c = chain(3);
    const tampers: Array<(e: any) => void> = [
      (e) => (e.query = '2 + 2 = 5'),
      (e) => (e.result.status = 'BLOCKED'),
      (e) => (e.result.details.n = 99),
      (e) => (e.verified = false),
      (e) => (e.domain = 'sql'),
      (e) => (e.timestamp = '2030-01-01T00:00:00.000Z'),
      (e) => (e.user_id = 'user_2'),
      (e) => (e.user_id = null),
      (e) => (e.raw_llm_output = 'rewritten'),
    ];
    for (const t of tampers) {
      const e = structuredClone(c[1]);
      t(e);
      expect(verifyEntry(e, c[0], SECRET)).toEqual({
        valid: false,
        checks: { hash_valid: false, signature_valid: true, chain_valid: true },
        errors: ['entry_hash does not match the recomputed payload hash'],
        payload_version: null,
      });
    }
    // Re-hashing after tampering without the secret leaves the signature wrong.
    const forged = structuredClone(c[1]);
    forged.query = 'forged';
    forged.entry_hash = entryHash(canonicalAuditPayload(forged));
    const r = verifyEntry(forged, c[0], SECRET);
    expect(r.checks).toEqual({ hash_valid: true, signature_valid: false, chain_valid: true });
    expect(r.errors).toEqual(['signature does not match (HMAC-SHA256 of entry_hash)']);
    // And the successor's link no longer matches the forged hash.
    expect(verifyEntry(c[2], forged, SECRET).checks.chain_valid).toBe(false);
  });

  it('detects a deleted entry (link broken)', () => {
    const c = chain(3);
    const r = verifyEntry(c[2], c[0], SECRET);
    expect(r).toEqual({
      valid: false,
      checks: { hash_valid: true, signature_valid: true, chain_valid: false },
      errors: ["previous_hash does not match the predecessor's entry_hash"],
      payload_version: 'current',
    });
    expect(verifyEntry(c[2], null, SECRET).errors).toEqual(['predecessor entry not found (chain broken)']);
    // Deleting the genesis: the next entry now appears first without a null link.
    const v = verifyChain([c[1], c[2]], SECRET);
    expect(v.valid).toBe(false);
    expect(v.entries[0].checks.chain_valid).toBe(false);
    expect(v.entries[1].valid).toBe(true);
  });

  it('detects two reordered entries', () => {
    const c = chain(4);
    const v = verifyChain([c[0], c[2], c[1], c[3]], SECRET);
    expect(v.valid).toBe(false);
    expect(v.entries.map((e) => e.checks.chain_valid)).toEqual([true, false, false, false]);
    expect(v.entries.map((e) => e.checks.hash_valid)).toEqual([true, true, true, true]);
    // A genesis moved after another entry is rejected too.
    expect(verifyEntry(c[0], c[1], SECRET).errors).toEqual([
      'genesis entry (previous_hash null) has a predecessor in the organization',
    ]);
  });

  it('detects an entry replayed into another organization', () => {
    const a = chain(2, 'org_a');
    const b = chain(2, 'org_b');
    // Re-labelled to org_b and relinked onto org_b's chain: the hash no longer matches.
    const relabelled = { ...structuredClone(a[1]), organization_id: 'org_b', previous_hash: b[1].entry_hash };
    const r1 = verifyEntry(relabelled, b[1], SECRET);
    expect(r1.valid).toBe(false);
    expect(r1.checks).toEqual({ hash_valid: false, signature_valid: true, chain_valid: true });
    // Copied verbatim into org_b's log: the link and the organization do not match.
    const r2 = verifyEntry(structuredClone(a[1]), b[1], SECRET);
    expect(r2).toEqual({
      valid: false,
      checks: { hash_valid: true, signature_valid: true, chain_valid: false },
      errors: [
        'predecessor belongs to another organization',
        "previous_hash does not match the predecessor's entry_hash",
      ],
      payload_version: 'current',
    });
    // Even with a predecessor whose hash matches, the organization must match.
    const foreignPred = { ...structuredClone(a[0]), organization_id: 'org_b' };
    expect(verifyEntry(a[1], foreignPred, SECRET).errors).toEqual(['predecessor belongs to another organization']);
  });

  it('accepts the legacy payload (no raw_llm_output) only for entries without raw_llm_output', () => {
    const f = fields(1, 'org_a', { raw_llm_output: null });
    const payload = canonicalAuditPayload({ ...f, previous_hash: null }, { legacy: true });
    const hash = entryHash(payload);
    const legacyEntry: AuditEntry = {
      ...f,
      previous_hash: null,
      entry_hash: hash,
      signature: signEntryHash(hash, SECRET),
    };
    expect(verifyEntry(legacyEntry, null, SECRET)).toEqual({
      valid: true,
      checks: ALL_VALID,
      errors: [],
      payload_version: 'legacy',
    });
    const noField = structuredClone(legacyEntry);
    delete noField.raw_llm_output;
    expect(verifyEntry(noField, null, SECRET).payload_version).toBe('legacy');
    // A legacy hash does not vouch for a raw_llm_output added later.
    const withRaw = { ...legacyEntry, raw_llm_output: 'injected' };
    expect(verifyEntry(withRaw, null, SECRET).checks.hash_valid).toBe(false);
    // A legacy successor links to it normally.
    const next = buildEntry(fields(2), hash, SECRET);
    expect(verifyEntry(next, legacyEntry, SECRET).valid).toBe(true);
    // And legacy entries still detect tampering.
    expect(verifyEntry({ ...legacyEntry, query: 'x' }, null, SECRET).checks.hash_valid).toBe(false);
  });

  it('fails closed without a secret and with a wrong secret', () => {
    const c = chain(2);
    for (const secret of [undefined, '']) {
      expect(verifyEntry(c[1], c[0], secret)).toEqual({
        valid: false,
        checks: { hash_valid: false, signature_valid: false, chain_valid: false },
        errors: [SECRET_MISSING_ERROR],
        payload_version: null,
      });
    }
    expect(SECRET_MISSING_ERROR).toContain('SVC_AUDIT_SECRET_KEY');
    expect(verifyEntry(c[1], c[0], 'another-secret')).toEqual({
      valid: false,
      checks: { hash_valid: true, signature_valid: false, chain_valid: true },
      errors: ['signature does not match (HMAC-SHA256 of entry_hash)'],
      payload_version: 'current',
    });
  });

  it('fails closed on malformed stored data without throwing', () => {
    const c = chain(2);
    const cases: Array<
      [(e: any) => void, Partial<Record<'hash_valid' | 'signature_valid' | 'chain_valid', boolean>>, string]
    > = [
      [(e) => (e.signature = 'zz'), { signature_valid: false }, 'malformed stored signature'],
      [(e) => (e.signature = e.signature.slice(0, 62)), { signature_valid: false }, 'malformed stored signature'],
      [(e) => (e.signature = e.signature + '00'), { signature_valid: false }, 'malformed stored signature'],
      [(e) => (e.signature = null), { signature_valid: false }, 'malformed stored signature'],
      [(e) => (e.result = '{"status":"VERIFIED"'), { hash_valid: false }, 'malformed stored result: not a JSON object'],
      [(e) => (e.result = null), { hash_valid: false }, 'malformed stored result: not a JSON object'],
      [
        (e) => (e.result = { n: Number.POSITIVE_INFINITY }),
        { hash_valid: false },
        'malformed stored result: non-finite number at $.result.n',
      ],
      [(e) => (e.verified = 'true'), { hash_valid: false }, 'malformed stored entry: verified must be a boolean'],
      [(e) => (e.timestamp = 12), { hash_valid: false }, 'malformed stored entry: timestamp must be a string'],
      [(e) => (e.entry_hash = 'nothex'), { hash_valid: false, signature_valid: false }, 'malformed stored entry_hash'],
      [
        (e) => (e.previous_hash = ''),
        { chain_valid: false, hash_valid: false },
        'previous_hash must be null (genesis) or a non-empty link',
      ],
    ];
    for (const [fn, failing, error] of cases) {
      const e = structuredClone(c[1]);
      fn(e);
      let r;
      expect(() => (r = verifyEntry(e, c[0], SECRET))).not.toThrow();
      expect(r!.valid).toBe(false);
      expect(r!.errors).toContain(error);
      for (const [check, value] of Object.entries(failing))
        expect(r!.checks[check as keyof typeof failing]).toBe(value);
    }
    expect(verifyEntry(null as never, null, SECRET)).toEqual({
      valid: false,
      checks: { hash_valid: false, signature_valid: false, chain_valid: false },
      errors: ['malformed stored entry: not an object'],
      payload_version: null,
    });
  });
});
