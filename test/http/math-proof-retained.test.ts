// The same identity verified again (issue 22, CPU per /verify/math): the API process skips the
// insert of a proof it already saw stored (persistence/proofs.ts, retainedRefs; its unit rows:
// test/unit/proof-retained-cache.test.ts). Over HTTP every guarantee stays: each answer is
// VERIFIED with the same proof_ref, the proof is retained, each answer has its own attestation
// record and its own audit entry naming both; the same identity from another organization too.
// Since session 24 a math verification's proof rides in its entry (docs/store-access.md §18), so
// each of the three entries retains it and `proofs` holds none; the cache serves the other engines.
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Ref } from '../../core/canonical-json.js';
import { db, get, newTenant, post, retainedProof, type Member } from './helpers.js';

const IDENTITY = '(q+7)^2 = q^2 + 14*q + 49';

describe('POST /verify/math of an identity whose proof is already retained', () => {
  let a: Member;
  let b: Member;
  beforeAll(async () => {
    [a, b] = await Promise.all([newTenant(), newTenant()]);
  });

  it('three verifications (two organizations): one proof_ref retained by each entry, three attestations, three audit entries', async () => {
    const verify = (t: Member) => post('/verify/math', { expression: IDENTITY }, { 'x-api-key': t.key });
    const answers = [await verify(a), await verify(a), await verify(b)];
    for (const r of answers) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'VERIFIED', is_authoritative: true });
    }
    const refs = new Set(answers.map((r) => r.body.proof_ref as string));
    expect(refs.size).toBe(1);
    const [proofRef] = [...refs];
    const d = await db();
    // Session 24: each verification's entry retains the proof beside its attestation record
    // (docs/store-access.md §18, checked on the three entries below); `proofs` holds none.
    expect(await retainedProof(proofRef as string)).toMatchObject({ where: 'entry' });
    expect(await d.collection('proofs').countDocuments({ _id: proofRef as never })).toBe(0);
    const ids = answers.map((r) => r.body.attestation.id as string);
    expect(new Set(ids).size).toBe(3);
    for (const [i, r] of answers.entries()) {
      const t = i < 2 ? a : b;
      const att = await get(`/attestation/${r.body.attestation.id}`, { 'x-api-key': t.key });
      expect(att.status).toBe(200);
      expect(att.body).toMatchObject({ id: r.body.attestation.id, proof_ref: proofRef, engine: 'math' });
    }
    const entries = await d
      .collection<{
        organization_id: string;
        result: { proof_ref: string; attestation_id: string };
        attestation?: { artifact?: Record<string, unknown> };
      }>('audit_logs')
      .find({ 'result.attestation_id': { $in: ids } })
      .toArray();
    expect(entries.map((e) => e.result.proof_ref)).toEqual([proofRef, proofRef, proofRef]);
    expect(entries.map((e) => e.attestation?.artifact && sha256Ref(e.attestation.artifact))).toEqual([
      proofRef,
      proofRef,
      proofRef,
    ]);
    expect(entries.map((e) => e.organization_id).sort()).toEqual([a.orgId, a.orgId, b.orgId].sort());
  }, 60_000);
});
