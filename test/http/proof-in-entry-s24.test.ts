// Session 24 (issue 22, the last random-key insert; docs/store-access.md §18): a math
// verification's and a batch math item's proof artifact rides in its audit entry beside the
// attestation record (AttestationInEntry.artifact), written by the entry's insert before the
// verdict leaves, instead of a `proofs` insert under its content hash (a random leaf of a growing
// table). Against the stack's real Temporal and store: `proofs` holds nothing for them, the entry
// carries the artifact whose sha256 is the public proof_ref, and /verification-context/* answers
// as before, finding the proof from the attestation by `_id`. Proofs stored by older code (in
// `proofs`, the entry without an artifact) are still found; a second attempt writes nothing twice;
// an entry an earlier attempt wrote without a record sends record and proof to their collections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { sha256Ref } from '../../core/canonical-json.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { appendVerificationAudit } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { makeVerifyMathActivity } from '../../activities/verify-math.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { attestationEntryId, findAttestationWithProof } from '../../persistence/proofs.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { apiUrl, db, get, newTenant, post, stackEnv, type Member } from './helpers.js';

let t: Member;
let other: Member;
const stores: Store[] = [];
let pool: EnginePool | null = null;

beforeAll(async () => {
  [t, other] = await Promise.all([newTenant(), newTenant()]);
});
afterAll(async () => {
  await pool?.shutdown();
  for (const s of stores) await s.close().catch(() => undefined);
});

const key = (m: Member) => ({ 'x-api-key': m.key });
const entries = async () => (await db()).collection<AuditLogDoc>('audit_logs');
const proofDocs = async () =>
  (await db()).collection<{ _id: string; artifact: Record<string, unknown>; engine: string; org_id: string | null }>(
    'proofs',
  );
const entryOf = async (attestationId: string) =>
  (await entries()).findOne({ _id: attestationEntryId(attestationId) as string });

/** from-diagnostic for a VERIFIED math verdict (its proof_ref and token), by `m`. */
const fromDiagnostic = (m: Member, expression: string, proofRef: string, token: string) =>
  post(
    '/verification-context/from-diagnostic',
    {
      query: expression,
      verifier: 'math',
      diagnostic: {
        status: 'VERIFIED',
        agent_message: 'Identity proven.',
        developer_fields: { evaluated_expression: expression, is_valid: true },
        proof_ref: proofRef,
        is_authoritative: true,
      },
      attestation_token: token,
    },
    key(m),
  );

async function mathActivity() {
  const env = stackEnv();
  const store = Store.lazy(env.MONGODB_URI as string);
  stores.push(store);
  const signingKey = await loadSigningKey(env.SVC_ATTESTATION_SIGNING_KEY_PEM as string);
  const signer = new AttestationSigner(signingKey, (env.SVC_DEPLOYMENT_ID as string | undefined) ?? 'svc-local');
  if (!pool) {
    pool = new EnginePool({ size: 1, preload: ['math'] });
    await pool.warmUp(); // a cold thread loads mathjs first: not what these rows prove
  }
  const deps = {
    store,
    signer,
    enginePool: pool,
    mathTimeoutMs: 30_000,
    auditSecret: env.SVC_AUDIT_SECRET_KEY as string,
  };
  return { activity: makeVerifyMathActivity(deps), deps };
}

describe('/verify/math: the proof rides in the audit entry', () => {
  it('no `proofs` document; the entry carries the artifact whose sha256 is proof_ref; from-diagnostic and resolve answer as before', async () => {
    const expression = '(g+3)^2 = g^2 + 6*g + 9';
    const res = await post('/verify/math', { expression }, key(t));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'VERIFIED', is_authoritative: true });
    const proofRef = res.body.proof_ref as string;
    expect(proofRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await (await proofDocs()).countDocuments({ _id: proofRef })).toBe(0);
    const entry = await entryOf(res.body.attestation.id);
    expect(entry?.result).toMatchObject({ proof_ref: proofRef, attestation_id: res.body.attestation.id });
    const artifact = entry?.attestation?.artifact as Record<string, unknown>;
    expect(artifact).toMatchObject({ method: 'canonical_form', expression });
    expect(sha256Ref(artifact)).toBe(proofRef);
    expect(entry?.attestation?.claims.svc.proof_hash).toBe(proofRef);
    // The public views of the entry and of the attestation show no artifact (as before: named fields only).
    const view = await get(`/audit/logs/${entry!._id}`, { authorization: `Bearer ${t.token}` });
    expect(view.status).toBe(200);
    expect(view.body.proof_ref).toBe(proofRef);
    expect(JSON.stringify(view.body)).not.toContain('canonical_form');
    const att = await get(`/attestation/${res.body.attestation.id}`, key(t));
    expect(att.status).toBe(200);
    expect(att.body).toMatchObject({ id: res.body.attestation.id, proof_ref: proofRef, engine: 'math' });
    expect(JSON.stringify(att.body)).not.toContain('canonical_form');
    // from-diagnostic finds the proof in the entry: issued here; resolve says so to anyone holding it.
    const doc = await fromDiagnostic(t, expression, proofRef, res.body.attestation.token);
    expect(doc.status).toBe(200);
    expect(doc.body.verdict).toBe('VERIFIED');
    expect(doc.headers.get('x-issued-here')).toBe('true');
    expect(doc.headers.get('x-issued-here-reason')).toBe('issued_by_this_service');
    const resolved = await post('/verification-context/resolve', doc.body, key(other));
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual({
      resolved: true,
      issued_here: true,
      issued_here_reason: 'issued_by_this_service',
      expected_proof_ref: doc.body.context.evidence.proof_ref,
    });
    // Another organization presenting the token is not the one it was issued to (as before).
    const theirs = await fromDiagnostic(other, expression, proofRef, res.body.attestation.token);
    expect(theirs.headers.get('x-issued-here')).toBe('false');
  }, 60_000);

  it('a proof stored by older code (in `proofs`, the entry without an artifact) is still found; with neither, not retained', async () => {
    const expression = '(h-5)*(h+5) = h^2 - 25';
    const res = await post('/verify/math', { expression }, key(t));
    expect(res.body.status).toBe('VERIFIED');
    const proofRef = res.body.proof_ref as string;
    const entry = await entryOf(res.body.attestation.id);
    const artifact = entry!.attestation!.artifact!;
    // Lay the store out as session 23 wrote it: the artifact in `proofs` by its hash, not in the entry.
    await (await entries()).updateOne({ _id: entry!._id }, { $unset: { 'attestation.artifact': '' } });
    await (await proofDocs()).insertOne({ _id: proofRef, artifact, engine: 'math', org_id: t.orgId });
    const doc = await fromDiagnostic(t, expression, proofRef, res.body.attestation.token);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-issued-here')).toBe('true');
    expect(doc.headers.get('x-issued-here-reason')).toBe('issued_by_this_service');
    // Neither place holds it: the document is not vouched for (fail closed), as before.
    await (await proofDocs()).deleteOne({ _id: proofRef });
    const gone = await fromDiagnostic(t, expression, proofRef, res.body.attestation.token);
    expect(gone.status).toBe(200);
    expect(gone.headers.get('x-issued-here')).toBe('false');
    expect(gone.headers.get('x-issued-here-reason')).toBe('proof_not_retained_here');
  }, 60_000);

  it('a second attempt of the activity writes nothing twice: one entry with the artifact, no `proofs` document', async () => {
    const { activity } = await mathActivity();
    const workflowId = `verify-math-${t.orgId}-s24-attempts-${Date.now()}`;
    const req = {
      input: { expression: '(u+6)^2 = u^2 + 12*u + 36' },
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: { audit: null, attestation_in_entry: true },
    };
    const first = await activity(req);
    const second = await activity(req);
    expect(first.status).toBe('VERIFIED');
    expect(second).toEqual(first);
    expect(await (await entries()).countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
    const entry = await entryOf(first.attestation!.id);
    expect(sha256Ref(entry!.attestation!.artifact!)).toBe(first.proof_ref);
    expect(await (await proofDocs()).countDocuments({ _id: first.proof_ref as string })).toBe(0);
  }, 120_000);

  it('an entry an earlier attempt wrote without a record: the proof goes to `proofs` with the record, and is found', async () => {
    const { activity, deps } = await mathActivity();
    const workflowId = `verify-math-${t.orgId}-s24-earlier-${Date.now()}`;
    const input = { expression: '(v+7)^2 = v^2 + 14*v + 49' };
    await appendVerificationAudit(deps, {
      org_id: t.orgId,
      workflow_id: workflowId,
      engine: 'math',
      input,
      result: { status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false },
      audit: null,
      log_id: attestationEntryId(attestationIdFor(t.orgId, workflowId)) as string,
    });
    const res = await activity({
      input,
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: { audit: null, attestation_in_entry: true },
    });
    expect(res.status).toBe('VERIFIED');
    const stored = await (await proofDocs()).findOne({ _id: res.proof_ref as string });
    expect(stored).toMatchObject({ engine: 'math', org_id: t.orgId });
    expect(sha256Ref(stored!.artifact)).toBe(res.proof_ref);
    const found = await findAttestationWithProof(deps.store, res.attestation!.id);
    expect(found?.attestation).toMatchObject({ proof_ref: res.proof_ref, token: res.attestation!.token });
    expect(found?.proof?.artifact).toEqual(stored!.artifact);
  }, 120_000);
});

describe('POST /verify/batch: each math item’s proof rides in its entry', () => {
  it('no `proofs` document for any item; each VERIFIED entry carries its own artifact; a batch item’s document is issued here', async () => {
    const items = [
      { query: '(z+8)^2 = z^2 + 16*z + 64', type: 'math' },
      { query: '(z+8)^2 = z^2 + 64', type: 'math' },
      { query: '(z-9)*(z+9) = z^2 - 81', type: 'math' },
    ];
    const res = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items });
    expect([200, 202]).toContain(res.status);
    const job = res.status === 200 ? res.body : await waitCompleted(apiUrl(), t.key, res.body.job_id);
    expect(job).toMatchObject({ status: 'completed', total_items: 3, completed_items: 3, failed_items: 0 });
    const results = (
      job.items as Array<{
        result: { status: string; proof_ref: string | null; attestation?: { id: string; token: string } };
      }>
    ).map((i) => i.result);
    expect(results.map((r) => r.status)).toEqual(['VERIFIED', 'UNVERIFIABLE', 'VERIFIED']);
    for (const [i, r] of results.entries()) {
      if (r.status !== 'VERIFIED') continue;
      expect(await (await proofDocs()).countDocuments({ _id: r.proof_ref! })).toBe(0);
      const entry = await entryOf(r.attestation!.id);
      expect(entry?.result.proof_ref).toBe(r.proof_ref);
      expect(entry?.attestation?.artifact).toMatchObject({ method: 'canonical_form', expression: items[i]!.query });
      expect(sha256Ref(entry!.attestation!.artifact!)).toBe(r.proof_ref);
    }
    const third = results[2]!;
    const doc = await fromDiagnostic(t, items[2]!.query, third.proof_ref!, third.attestation!.token);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-issued-here')).toBe('true');
    expect(doc.headers.get('x-issued-here-reason')).toBe('issued_by_this_service');
  }, 120_000);
});
