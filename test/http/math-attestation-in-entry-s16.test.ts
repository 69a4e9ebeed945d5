// Session 16 (issue 22, round trips per verification): a `/verify/math` run stores its attestation
// record in its audit entry, which it writes anyway before returning the verdict, instead of a
// separate `attestations` insert (persistence/proofs.ts, activities/verify-math.ts). Against the
// stack's real Temporal and store: the entry (id derived from the attestation id) carries the
// record and `attestations` holds none; GET /attestation/{id}, its organization scope and the
// public badge answer it as before; a second attempt answers the token the first one stored; an
// entry an earlier attempt wrote without a record (its verdict was not VERIFIED) gets the record
// in `attestations`, as before; nothing is stored for a verdict that is not VERIFIED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { appendVerificationAudit } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { makeVerifyMathActivity } from '../../activities/verify-math.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { attestationEntryId, findAttestation } from '../../persistence/proofs.js';
import { db, get, newTenant, post, stackEnv, type Member } from './helpers.js';
import { workflowStartMs } from './workflow-start.js';

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

const entryIdOf = (orgId: string, workflowId: string, idTimeMs?: number) =>
  attestationEntryId(attestationIdFor(orgId, workflowId, idTimeMs)) as string;
const entries = async () => (await db()).collection<AuditLogDoc>('audit_logs');
const attestationDocs = async () => (await db()).collection<{ _id: string }>('attestations');

async function mathActivity() {
  const env = stackEnv();
  const store = Store.lazy(env.MONGODB_URI as string);
  stores.push(store);
  const key = await loadSigningKey(env.SVC_ATTESTATION_SIGNING_KEY_PEM as string);
  const signer = new AttestationSigner(key, (env.SVC_DEPLOYMENT_ID as string | undefined) ?? 'svc-local');
  if (!pool) {
    pool = new EnginePool({ size: 1, preload: ['math'] });
    // A cold thread loads mathjs first: not part of what these rows prove.
    await pool.warmUp();
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

describe('/verify/math: the attestation record stored in the audit entry', () => {
  it('the entry carries the record, `attestations` holds none; GET /attestation/{id} and the badge answer it', async () => {
    const res = await post('/verify/math', { expression: '(q+5)^2 = q^2 + 10*q + 25' }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    const workflowId = res.headers.get('x-workflow-id') as string;
    // Session 23: the ids start with the run's start time.
    const start = await workflowStartMs(workflowId);
    const id = res.body.attestation.id as string;
    expect(id).toBe(attestationIdFor(t.orgId, workflowId, start));
    const entry = await (await entries()).findOne({ _id: entryIdOf(t.orgId, workflowId, start) });
    expect(entry).toMatchObject({
      organization_id: t.orgId,
      domain: 'math',
      result: { status: 'VERIFIED', attestation_id: id, proof_ref: res.body.proof_ref, workflow_id: workflowId },
      attestation: {
        token: res.body.attestation.token,
        status: 'ISSUED',
        claims: { jti: id, svc: { proof_hash: res.body.proof_ref } },
      },
    });
    expect(await (await attestationDocs()).countDocuments({ _id: id })).toBe(0);

    const got = await get(`/attestation/${id}`, { 'x-api-key': t.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      status: 'ISSUED',
      token: res.body.attestation.token,
      claims: { jti: id },
      admission: null,
      engine: 'math',
      proof_ref: res.body.proof_ref,
      created_at: new Date(entry!.timestamp).toISOString(),
      verification: { valid: true },
    });
    // Organization-scoped as before: another organization's key gets the same 404 as an unknown id.
    const foreign = await get(`/attestation/${id}`, { 'x-api-key': other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Attestation not found.');
    const badge = await get(`/badge/attestation/${id}`);
    expect(badge.status).toBe(200);
    expect(badge.text).toContain('verified');
  });

  it('a verdict that is not VERIFIED stores no record anywhere', async () => {
    const res = await post('/verify/math', { expression: '(q+5)^2 = q^2 + 25' }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('UNVERIFIABLE');
    const workflowId = res.headers.get('x-workflow-id') as string;
    const start = await workflowStartMs(workflowId);
    const entry = await (await entries()).findOne({ _id: entryIdOf(t.orgId, workflowId, start) });
    expect(entry).toMatchObject({ result: { status: 'UNVERIFIABLE', attestation_id: null } });
    expect(entry).not.toHaveProperty('attestation');
    expect(await (await attestationDocs()).countDocuments({ _id: attestationIdFor(t.orgId, workflowId, start) })).toBe(
      0,
    );
    expect(
      (await get(`/attestation/${attestationIdFor(t.orgId, workflowId, start)}`, { 'x-api-key': t.key })).status,
    ).toBe(404);
  });

  it('a second attempt of the activity writes nothing twice and answers the token the first one stored', async () => {
    const { activity } = await mathActivity();
    const workflowId = `verify-math-${t.orgId}-s16-attempts-${Date.now()}`;
    const req = {
      input: { expression: '(r-2)*(r+2) = r^2 - 4' },
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: {
        audit: { user_id: t.userId, key_id: null, request_digest: `sha256:${'2'.repeat(64)}` },
        attestation_in_entry: true,
      },
    };
    const first = await activity(req);
    // A new second (the token's iat) before the second attempt: a re-signed token would differ.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await activity(req);
    expect(first.status).toBe('VERIFIED');
    expect(second).toEqual(first);
    const logs = await entries();
    expect(await logs.countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
    const entry = await logs.findOne({ _id: entryIdOf(t.orgId, workflowId) });
    expect(entry?.attestation?.token).toBe(first.attestation!.token);
    expect(await (await attestationDocs()).countDocuments({ _id: first.attestation!.id })).toBe(0);
  }, 120_000);

  it('an entry an earlier attempt wrote without a record (not VERIFIED then) gets it in `attestations`, found by id', async () => {
    const { activity, deps } = await mathActivity();
    const workflowId = `verify-math-${t.orgId}-s16-earlier-${Date.now()}`;
    const input = { expression: '(p+1)^3 = p^3 + 3*p^2 + 3*p + 1' };
    // The earlier attempt: its verdict timed out (UNVERIFIABLE) and its entry landed, its reply did not.
    await appendVerificationAudit(deps, {
      org_id: t.orgId,
      workflow_id: workflowId,
      engine: 'math',
      input,
      result: { status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false },
      audit: null,
      log_id: entryIdOf(t.orgId, workflowId),
    });
    const res = await activity({
      input,
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: { audit: null, attestation_in_entry: true },
    });
    expect(res.status).toBe('VERIFIED');
    const id = attestationIdFor(t.orgId, workflowId);
    expect(res.attestation?.id).toBe(id);
    expect(await (await entries()).countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
    expect(await (await attestationDocs()).countDocuments({ _id: id })).toBe(1);
    const rec = await findAttestation(deps.store, id);
    expect(rec).toMatchObject({ _id: id, org_id: t.orgId, token: res.attestation!.token, proof_ref: res.proof_ref });
    const got = await get(`/attestation/${id}`, { 'x-api-key': t.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, token: res.attestation!.token, engine: 'math', proof_ref: res.proof_ref });
  }, 120_000);
});
