// Session 24 (issue 22, the last random-key insert; docs/store-access.md §18): where a
// verification's attestation record rides in its audit entry (math, batch math units), so does
// the proof artifact it attests. finalizeOutcomes and sealProof then send no `proofs` insert (the
// entry's insert retains the proof before any verdict is released); a record that falls back to
// `attestations` takes its proof to `proofs` first; and from-diagnostic's issuance check finds the
// proof in the entry, or by `_id` in `proofs` (other engines, entries written before), with point
// reads only. Store commands counted on a fake store that answers like the real one, by key only.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AttestationSigner, loadSigningKey, type IssuedAttestation } from '../../core/attestation.js';
import { sha256Ref } from '../../core/canonical-json.js';
import type { Store } from '../../core/store.js';
import type { EngineOutcome } from '../../core/diagnostic.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { attestationIdFor, finalizeOutcomes, recordIssuedAttestation, sealProof } from '../../activities/proofs.js';
import { attestationEntryId, findAttestationWithProof } from '../../persistence/proofs.js';
import { recordIssuance } from '../../core/verification-context-issuance.js';

type Doc = Record<string, unknown> & { _id: string };

/** A store answering `insert` commands and `{_id}` point reads only; every command recorded in order. */
function fakeStore() {
  const tables = new Map<string, Map<string, Doc>>();
  const table = (n: string) => {
    let t = tables.get(n);
    if (!t) tables.set(n, (t = new Map()));
    return t;
  };
  const ops: string[] = [];
  const tick = () => new Promise((r) => setImmediate(r));
  const collection = (name: string) => ({
    findOne: async (filter: Record<string, unknown>) => {
      const keys = Object.keys(filter);
      if (keys.length !== 1 || keys[0] !== '_id' || typeof filter._id !== 'string')
        throw new Error(`${name}.findOne(${JSON.stringify(filter)}) is not a point read by _id`);
      ops.push(`find ${name}`);
      await tick();
      return structuredClone(table(name).get(filter._id) ?? null);
    },
    insertOne: async (doc: Doc) => {
      ops.push(`insert ${name}`);
      await tick();
      table(name).set(doc._id, structuredClone(doc));
      return { acknowledged: true, insertedId: doc._id };
    },
  });
  const store = {
    db: {
      command: async (cmd: { insert: string; documents: Doc[] }) => {
        ops.push(`insert ${cmd.insert} ×${cmd.documents.length}`);
        await tick();
        const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
        cmd.documents.forEach((d, index) => {
          if (table(cmd.insert).has(d._id)) writeErrors.push({ index, code: 11000, errmsg: 'E11000 duplicate key' });
          else table(cmd.insert).set(d._id, structuredClone(d));
        });
        return { n: cmd.documents.length - writeErrors.length, ok: 1, ...(writeErrors.length ? { writeErrors } : {}) };
      },
    },
    collection,
    get proofs() {
      return collection('proofs');
    },
  } as unknown as Store;
  return { store, ops, table };
}

async function signer() {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  return new AttestationSigner(await loadSigningKey(pem), 'svc-test');
}

const ORG = 'org_s24';
const artifactOf = (n: number) => ({
  method: 'canonical_form',
  expression: `(x+${n})^2 = x^2 + ${2 * n}*x + ${n * n}`,
  n,
});
const proven = (n: number): EngineOutcome => ({
  kind: 'proven',
  agentMessage: 'proven',
  developerFields: {},
  proof: artifactOf(n),
});

/** The audit entry a math verification writes with its record and proof in it (activities/verify-math.ts), as stored. */
function entryCarrying(issued: IssuedAttestation, proofRef: string, artifact?: Record<string, unknown>): AuditLogDoc {
  return {
    _id: attestationEntryId(issued.jti) as string,
    seq: 1,
    organization_id: ORG,
    user_id: null,
    query: 'q',
    result: { status: 'VERIFIED', proof_ref: proofRef, attestation_id: issued.jti },
    verified: true,
    domain: 'math',
    timestamp: new Date('2026-11-28T10:00:00Z'),
    raw_llm_output: null,
    previous_hash: null,
    entry_hash: 'h',
    signature: 's',
    attestation: {
      token: issued.token,
      claims: issued.claims,
      status: issued.status,
      ...(artifact ? { artifact } : {}),
    },
  } as unknown as AuditLogDoc;
}

async function issue(n: number) {
  const s = await signer();
  const artifact = artifactOf(n);
  const proofRef = sha256Ref(artifact);
  const jti = attestationIdFor(ORG, `verify-math-${n}-${Date.now()}`, Date.now());
  const issued = await s.sign(
    { evaluatedExpression: 'q', status: 'VERIFIED', verified: true, engine: 'math', confidence: 1, proofRef },
    { jti },
  );
  return { issued, artifact, proofRef };
}

const issuance = (i: { issued: IssuedAttestation; proofRef: string }) => ({
  orgId: ORG,
  commitment: `sha256:${'c'.repeat(64)}`,
  attestationId: i.issued.jti,
  proofRef: i.proofRef,
  admission: 'ADMIT' as const,
  verifier: 'math',
});

describe('writes: the proof rides where the attestation record rides', () => {
  it('finalizeOutcomes with recordInAuditEntry sends no store command at all (session 17 sent a `proofs` insert)', async () => {
    const { store, ops } = fakeStore();
    const out = await finalizeOutcomes(
      { store, signer: await signer() },
      [proven(1), proven(2)].map((outcome, i) => ({
        outcome,
        opts: {
          engine: 'math',
          orgId: ORG,
          evaluatedExpression: `e${i}`,
          attestationId: attestationIdFor(ORG, `b#item-${i}`),
        },
      })),
      { recordInAuditEntry: true },
    );
    expect(ops).toEqual([]);
    expect(out.map((f) => f.diagnostic.status)).toEqual(['VERIFIED', 'VERIFIED']);
    expect(out.map((f) => f.diagnostic.proof_ref)).toEqual([sha256Ref(artifactOf(1)), sha256Ref(artifactOf(2))]);
    expect(out.map((f) => f.attestation!.claims.svc.proof_hash)).toEqual(out.map((f) => f.diagnostic.proof_ref));
  });

  it('sealProof with recordInAuditEntry sends none either; without it, the proof and the record go out as before', async () => {
    const inEntry = fakeStore();
    const s = await signer();
    const a = await sealProof({ store: inEntry.store, signer: s }, artifactOf(3), {
      engine: 'math',
      orgId: ORG,
      evaluatedExpression: 'e',
      attestationId: attestationIdFor(ORG, 'verify-math-3'),
      recordInAuditEntry: true,
    });
    expect(a).toMatchObject({ ok: true, proofRef: sha256Ref(artifactOf(3)) });
    expect(inEntry.ops).toEqual([]);
    const apart = fakeStore();
    const b = await sealProof({ store: apart.store, signer: s }, artifactOf(4), {
      engine: 'logic',
      orgId: ORG,
      evaluatedExpression: 'e',
    });
    expect(b).toMatchObject({ ok: true, proofRef: sha256Ref(artifactOf(4)) });
    expect(apart.ops).toEqual(['insert proofs ×1', 'insert attestations ×1']);
    expect(apart.table('proofs').get(sha256Ref(artifactOf(4)))?.artifact).toEqual(artifactOf(4));
  });

  it('a record that falls back to `attestations` (its entry carries none) takes its proof to `proofs` first', async () => {
    const { store, ops, table } = fakeStore();
    const { issued, artifact, proofRef } = await issue(5);
    await recordIssuedAttestation({ store, signer: await signer() }, issued, {
      orgId: ORG,
      engine: 'math',
      proofRef,
      derived: true,
      artifact,
    });
    expect(ops).toEqual(['insert proofs ×1', 'insert attestations ×1']);
    expect(table('proofs').get(proofRef)).toMatchObject({ _id: proofRef, artifact, engine: 'math', org_id: ORG });
  });
});

describe('reads: from-diagnostic finds the proof in the entry, else in `proofs`, by `_id` only', () => {
  it('an entry carrying record and proof: issued here with no `proofs` read (the base answered proof_not_retained_here)', async () => {
    const { store, ops, table } = fakeStore();
    const i = await issue(6);
    const entry = entryCarrying(i.issued, i.proofRef, i.artifact);
    table('audit_logs').set(entry._id, entry as unknown as Doc);
    expect(await recordIssuance(store, issuance(i))).toEqual({ issued: true, reason: 'issued_by_this_service' });
    expect(ops.filter((o) => o.startsWith('find')).sort()).toEqual(['find attestations', 'find audit_logs']);
    const found = await findAttestationWithProof(store, i.issued.jti);
    expect(found?.proof).toEqual({
      _id: i.proofRef,
      artifact: i.artifact,
      engine: 'math',
      org_id: ORG,
      created_at: entry.timestamp,
    });
  });

  it('an entry written before (record, no proof): the proof is read from `proofs` by `_id`', async () => {
    const { store, ops, table } = fakeStore();
    const i = await issue(7);
    const entry = entryCarrying(i.issued, i.proofRef);
    table('audit_logs').set(entry._id, entry as unknown as Doc);
    expect(await recordIssuance(store, issuance(i))).toEqual({ issued: false, reason: 'proof_not_retained_here' });
    table('proofs').set(i.proofRef, { _id: i.proofRef, artifact: i.artifact, engine: 'math', org_id: ORG });
    ops.length = 0;
    expect(await recordIssuance(store, issuance(i))).toEqual({ issued: true, reason: 'issued_by_this_service' });
    expect(ops.filter((o) => o.startsWith('find')).sort()).toEqual([
      'find attestations',
      'find audit_logs',
      'find proofs',
    ]);
  });

  it('a record in `attestations` (other engines, a fallback): the proof from `proofs`, never from an entry', async () => {
    const { store, table } = fakeStore();
    const i = await issue(8);
    table('attestations').set(i.issued.jti, {
      _id: i.issued.jti,
      org_id: ORG,
      token: i.issued.token,
      claims: i.issued.claims,
      status: 'ISSUED',
      engine: 'math',
      proof_ref: i.proofRef,
      created_at: new Date(),
    } as unknown as Doc);
    expect((await findAttestationWithProof(store, i.issued.jti))?.proof).toBeNull();
    table('proofs').set(i.proofRef, { _id: i.proofRef, artifact: i.artifact, engine: 'math', org_id: ORG });
    expect((await findAttestationWithProof(store, i.issued.jti))?.proof?.artifact).toEqual(i.artifact);
  });

  it("an entry whose record attests another proof: its artifact is not taken for the entry's proof_ref", async () => {
    const { store, table } = fakeStore();
    const i = await issue(9);
    const other = await issue(10);
    // The hashed result names proof 9, the record carried beside it attests proof 10.
    const entry = entryCarrying({ ...other.issued, jti: i.issued.jti }, i.proofRef, other.artifact);
    (entry.attestation!.claims as { jti: string }).jti = i.issued.jti;
    table('audit_logs').set(entry._id, entry as unknown as Doc);
    const found = await findAttestationWithProof(store, i.issued.jti);
    expect(found?.attestation.proof_ref).toBe(i.proofRef);
    expect(found?.proof).toBeNull();
    expect(await recordIssuance(store, issuance(i))).toEqual({ issued: false, reason: 'proof_not_retained_here' });
  });

  it('an unknown attestation: null, after the two point reads', async () => {
    const { store, ops } = fakeStore();
    expect(await findAttestationWithProof(store, attestationIdFor(ORG, 'nothing'))).toBeNull();
    expect(ops.sort()).toEqual(['find attestations', 'find audit_logs']);
  });
});
