// /verify/math appends its audit entry inside the engine's activity (issue 22, CPU per
// verification; workflows/verify.ts, activities/verify-math.ts): one local activity fewer. The
// guarantees stay, against the stack's real Temporal and store: the verification is still a
// workflow with its history (the input check, the math activity, no separate append), its verdict
// comes with its audit entry, which names the attestation and proof the caller got, and a second
// attempt of the activity (a retry, a re-run after a worker crash) writes nothing twice and
// answers the same attestation token the first attempt stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { temporalDataConverter } from '../../core/payload-codec.js';
import { Store } from '../../core/store.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { auditLogId } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { makeVerifyMathActivity } from '../../activities/verify-math.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { db, newTenant, post, stackEnv, type Member } from './helpers.js';
import { workflowStartMs } from './workflow-start.js';

let t: Member;
let conn: Connection;
const stores: Store[] = [];
let pool: EnginePool | null = null;

beforeAll(async () => {
  t = await newTenant();
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
});
afterAll(async () => {
  await conn?.close();
  await pool?.shutdown();
  for (const s of stores) await s.close().catch(() => undefined);
});

/**
 * The id of the entry of a run the API started (attestation_in_audit_entry: derived from its
 * attestation id, session 16, which starts with the run's start time, session 23).
 */
const entryIdOf = async (orgId: string, workflowId: string) =>
  attestationEntryId(attestationIdFor(orgId, workflowId, await workflowStartMs(workflowId))) as string;

/** The activity types of a run's local-activity markers, in history order. */
async function localActivities(workflowId: string): Promise<string[]> {
  const client = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const types: string[] = [];
  for (const e of history.events ?? []) {
    if (e.eventType !== temporal.api.enums.v1.EventType.EVENT_TYPE_MARKER_RECORDED) continue;
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0];
    if (!data) continue; // a patch marker
    const record = defaultPayloadConverter.fromPayload<{ activity_type?: string; activityType?: string }>(data);
    types.push(record.activity_type ?? record.activityType ?? '?');
  }
  return types;
}

describe('/verify/math: the audit entry written by the engine activity', () => {
  it('VERIFIED with its audit entry naming the attestation and proof returned; the history shows the input check and the math activity only', async () => {
    const res = await post('/verify/math', { expression: '(y+2)^2 = y^2 + 4*y + 4' }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    const workflowId = res.headers.get('x-workflow-id') as string;
    expect(workflowId).toMatch(new RegExp(`^verify-math-${t.orgId}-`));
    // The attestation id is derived from the workflow id and its start time (every attempt issues the same one).
    const start = await workflowStartMs(workflowId);
    expect(res.body.attestation.id).toBe(attestationIdFor(t.orgId, workflowId, start));
    const entry = await (
      await db()
    )
      .collection<{ _id: string; result?: unknown }>('audit_logs')
      .findOne({ _id: await entryIdOf(t.orgId, workflowId) });
    expect(entry).toMatchObject({
      organization_id: t.orgId,
      domain: 'math',
      verified: true,
      result: {
        status: 'VERIFIED',
        proof_ref: res.body.proof_ref,
        attestation_id: res.body.attestation.id,
        workflow_id: workflowId,
        key_id: expect.any(String),
      },
    });
    // The attestation record is the entry's (session 16: test/http/math-attestation-in-entry-s16.test.ts).
    expect(entry).toMatchObject({
      attestation: { token: res.body.attestation.token, status: 'ISSUED', claims: { jti: res.body.attestation.id } },
    });
    // Still one workflow per verification, with its history: the math activity that checked the
    // input (workflows/input-auth.ts, input_auth_in_engine_activity), sealed the proof and
    // appended the entry; no separate input check, no appendAuditActivity.
    expect(await localActivities(workflowId)).toEqual(['verifyMathActivity']);
  });

  it('an unproven claim is audited too (UNVERIFIABLE, no attestation)', async () => {
    const res = await post('/verify/math', { expression: '(y+2)^2 = y^2 + 4' }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('UNVERIFIABLE');
    const workflowId = res.headers.get('x-workflow-id') as string;
    const entry = await (
      await db()
    )
      .collection<{ _id: string; result?: unknown }>('audit_logs')
      .findOne({ _id: await entryIdOf(t.orgId, workflowId) });
    expect(entry).toMatchObject({
      verified: false,
      result: { status: 'UNVERIFIABLE', proof_ref: null, attestation_id: null, workflow_id: workflowId },
    });
  });

  it('a second attempt of the activity writes no second entry or attestation and answers the stored token', async () => {
    const env = stackEnv();
    const store = Store.lazy(env.MONGODB_URI as string);
    stores.push(store);
    const key = await loadSigningKey(env.SVC_ATTESTATION_SIGNING_KEY_PEM as string);
    const signer = new AttestationSigner(key, (env.SVC_DEPLOYMENT_ID as string | undefined) ?? 'svc-local');
    pool = new EnginePool({ size: 1, preload: ['math'] });
    // A cold thread loads mathjs first: not part of what this row proves (a loaded machine took >5 s).
    await pool.warmUp();
    const activity = makeVerifyMathActivity({
      store,
      signer,
      enginePool: pool,
      mathTimeoutMs: 30_000,
      auditSecret: env.SVC_AUDIT_SECRET_KEY as string,
    });
    const workflowId = `verify-math-${t.orgId}-attempts-${Date.now()}`;
    const req = {
      input: { expression: '(z-1)*(z+1) = z^2 - 1' },
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: { audit: { user_id: t.userId, key_id: null, request_digest: `sha256:${'1'.repeat(64)}` } },
    };
    const first = await activity(req);
    // A new second (the token's iat) before the second attempt: a re-signed token would differ.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await activity(req);
    expect(first.status).toBe('VERIFIED');
    expect(second).toEqual(first);
    expect(second.attestation?.id).toBe(attestationIdFor(t.orgId, workflowId));
    const d = await db();
    expect(
      await d
        .collection<{ _id: string; result?: unknown }>('audit_logs')
        .countDocuments({ _id: auditLogId(t.orgId, workflowId) }),
    ).toBe(1);
    expect(
      await d
        .collection<{ _id: string; result?: unknown }>('audit_logs')
        .countDocuments({ 'result.workflow_id': workflowId }),
    ).toBe(1);
    expect(await d.collection<{ _id: string }>('attestations').countDocuments({ _id: first.attestation!.id })).toBe(1);
    const entry = await d
      .collection<{ _id: string; result?: unknown }>('audit_logs')
      .findOne({ _id: auditLogId(t.orgId, workflowId) });
    expect(entry?.result).toMatchObject({ attestation_id: first.attestation!.id, proof_ref: first.proof_ref });
  }, 120_000);

  it('without the audit secret the activity refuses before any work: no proof, no attestation, no entry', async () => {
    const env = stackEnv();
    const store = Store.lazy(env.MONGODB_URI as string);
    stores.push(store);
    const activity = makeVerifyMathActivity({
      store,
      signer: new AttestationSigner(null, 'svc-local'),
      enginePool: pool ?? (pool = new EnginePool({ size: 1, preload: ['math'] })),
      auditSecret: undefined,
    });
    const workflowId = `verify-math-${t.orgId}-nosecret-${Date.now()}`;
    await expect(
      activity({
        input: { expression: '(w+3)^2 = w^2 + 6*w + 9' },
        org_id: t.orgId,
        workflow_id: workflowId,
        audit_entry: { audit: null },
      }),
    ).rejects.toMatchObject({ type: 'AuditConfigError', nonRetryable: true });
    const d = await db();
    expect(
      await d
        .collection<{ _id: string; result?: unknown }>('audit_logs')
        .countDocuments({ _id: auditLogId(t.orgId, workflowId) }),
    ).toBe(0);
    expect(
      await d
        .collection<{ _id: string }>('attestations')
        .countDocuments({ _id: attestationIdFor(t.orgId, workflowId) }),
    ).toBe(0);
  });
});
