// Session 17 (issue 22, one write fewer per batch chunk): a batch math unit stores each VERIFIED
// item's attestation record in the item's audit entry, which it writes anyway before the result
// document, instead of a separate `attestations` insert (activities/verify-batch.ts,
// `attestation_in_entry`). Against the stack's real Temporal and store: every item's entry has
// the id derived from its attestation id and carries the record; `attestations` holds none of the
// job's; GET /attestation/{id} (organization-scoped), POST /attestation/verify and the public badge
// answer every item's attestation; a re-run of the unit after a crash before its result document
// writes nothing twice and answers the tokens the first run stored; an entry an earlier attempt
// wrote without a record gets the record in `attestations`; a run without the flag (started
// before session 17) keeps the old layout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { appendVerificationAudit } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { batchItemAuditLogId, batchItemEntryId } from '../../activities/verify-batch.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { resultId, resultOfDoc, type StoredResultDoc } from '../../persistence/batch.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { batchActivitiesOn } from './batch-activities.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { apiUrl, db, get, newTenant, post, stackEnv, type Member } from './helpers.js';
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

const entries = async () => (await db()).collection<AuditLogDoc>('audit_logs');
const attestationDocs = async () => (await db()).collection<{ _id: string; token: string }>('attestations');

type ItemView = {
  status: string;
  result?: {
    status: string;
    proof_ref: string | null;
    attestation?: { id: string; token: string; status: string };
  };
};

/** The batch activities as a worker builds them (to run a unit again by hand, as after a crash). */
async function activities() {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(store);
  if (!pool) {
    pool = new EnginePool({ size: 1, preload: ['math'] });
    await pool.warmUp(); // a cold thread loads mathjs first: not what these rows prove
  }
  return { acts: await batchActivitiesOn(store, pool), store };
}

const UNIT_QUERIES = [
  '(w+1)^2 = w^2 + 2*w + 1',
  '(w+1)^2 = w^2 + 1',
  '(w-4)*(w+4) = w^2 - 16',
  '6 * 7',
  '(w+1)^2 = w^2 + 2*w + 1', // the same artifact twice: one proof, two attestations
];

function unitInput(jobId: string, attestationInEntry: boolean) {
  return {
    job_id: jobId,
    unit: 0,
    items: UNIT_QUERIES.map((query, index) => ({ index, query, params: {} })),
    org_id: t.orgId,
    workflow_id: `batch-${t.orgId}-${jobId}`,
    timeout_ms: 60_000,
    audit: { user_id: t.userId, key_id: null, request_digest: `sha256:${'3'.repeat(64)}` },
    ...(attestationInEntry ? { attestation_in_entry: true } : {}),
  };
}

async function storedUnit(jobId: string): Promise<Array<{ index: number; view: ItemView }>> {
  const raw = await (await db()).collection<StoredResultDoc>('batch_results').findOne({ _id: resultId(jobId, 0) });
  expect(raw).not.toBeNull();
  return (resultOfDoc(raw!) as unknown as { items: Array<{ index: number; view: ItemView }> }).items;
}

describe('POST /verify/batch: attestation records in the items’ audit entries', () => {
  it('every item’s entry has the derived id and carries its record; `attestations` holds none; every surface answers it', async () => {
    const items = [
      { query: '(s+2)^2 = s^2 + 4*s + 4', type: 'math' },
      { query: '(s+2)^2 = s^2 + 4', type: 'math' },
      { query: '(s-1)*(s+1) = s^2 - 1', type: 'math' },
      { query: '3 + 4', type: 'math' },
    ];
    const res = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items });
    expect([200, 202]).toContain(res.status);
    const job = res.status === 200 ? res.body : await waitCompleted(apiUrl(), t.key, res.body.job_id);
    expect(job).toMatchObject({ status: 'completed', total_items: 4, completed_items: 4, failed_items: 0 });
    const workflowId = job.workflow_id as string;
    // Session 23: the ids start with the job run's start time.
    const start = await workflowStartMs(workflowId);
    const views = job.items as ItemView[];
    expect(views.map((v) => v.result?.status)).toEqual(['VERIFIED', 'UNVERIFIABLE', 'VERIFIED', 'UNVERIFIABLE']);

    const logs = await entries();
    // The items' entries and the job's: nothing else, nothing under the old per-item ids.
    expect(await logs.countDocuments({ 'result.workflow_id': workflowId })).toBe(5);
    for (let i = 0; i < items.length; i++)
      for (const time of [undefined, start])
        expect(await logs.countDocuments({ _id: batchItemAuditLogId(t.orgId, workflowId, i, time) })).toBe(0);

    for (const [i, v] of views.entries()) {
      const id = attestationIdFor(t.orgId, `${workflowId}#item-${i}`, start);
      const entry = await logs.findOne({ _id: attestationEntryId(id) as string });
      expect(entry?._id).toBe(batchItemEntryId(t.orgId, workflowId, i, true, start));
      expect(await (await attestationDocs()).countDocuments({ _id: id })).toBe(0);
      if (v.result!.status !== 'VERIFIED') {
        expect(entry).toMatchObject({ domain: 'math', result: { status: 'UNVERIFIABLE', attestation_id: null } });
        expect(entry).not.toHaveProperty('attestation');
        const none = await get(`/attestation/${id}`, { 'x-api-key': t.key });
        expect(none.status).toBe(404);
        expect(none.body.detail).toBe('Attestation not found.');
        continue;
      }
      const att = v.result!.attestation!;
      expect(att.id).toBe(id);
      expect(entry).toMatchObject({
        organization_id: t.orgId,
        domain: 'math',
        result: { status: 'VERIFIED', attestation_id: id, proof_ref: v.result!.proof_ref, workflow_id: workflowId },
        attestation: {
          token: att.token,
          status: 'ISSUED',
          claims: { jti: id, svc: { proof_hash: v.result!.proof_ref } },
        },
      });
      const got = await get(`/attestation/${id}`, { 'x-api-key': t.key });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id,
        status: 'ISSUED',
        token: att.token,
        claims: { jti: id },
        engine: 'math',
        proof_ref: v.result!.proof_ref,
        created_at: new Date(entry!.timestamp).toISOString(),
        verification: { valid: true },
      });
      const foreign = await get(`/attestation/${id}`, { 'x-api-key': other.key });
      expect(foreign.status).toBe(404);
      expect(foreign.body.detail).toBe('Attestation not found.');
      const verified = await post('/attestation/verify', { token: att.token }, { 'x-api-key': t.key });
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({
        valid: true,
        claims: { jti: id, svc: { proof_hash: v.result!.proof_ref } },
      });
      const badge = await get(`/badge/attestation/${id}`);
      expect(badge.status).toBe(200);
      expect(badge.text).toContain('verified');
    }
    // Every entry still verifies (hash, signature, link) with the record beside its hashed payload.
    for (const e of await logs.find({ 'result.workflow_id': workflowId }).toArray()) {
      const checked = await get(`/admin/compliance/verify/${e._id}`, { 'x-api-key': t.key });
      expect(checked.status).toBe(200);
      expect(checked.body).toMatchObject({
        valid: true,
        checks: { hash_valid: true, signature_valid: true, chain_valid: true },
      });
    }
  }, 120_000);
});

describe('verification-context issuance from a batch item (the record found in its entry)', () => {
  it('a VERIFIED batch item’s document is issued here; another organization’s key sees the same document issued', async () => {
    const expression = '(k+3)^2 = k^2 + 6*k + 9';
    const res = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items: [{ query: expression, type: 'math' }] });
    expect([200, 202]).toContain(res.status);
    const job = res.status === 200 ? res.body : await waitCompleted(apiUrl(), t.key, res.body.job_id);
    const r = (job.items as ItemView[])[0]!.result!;
    expect(r.status).toBe('VERIFIED');
    expect(await (await attestationDocs()).countDocuments({ _id: r.attestation!.id })).toBe(0);
    const doc = await post(
      '/verification-context/from-diagnostic',
      {
        query: expression,
        verifier: 'math',
        diagnostic: {
          status: 'VERIFIED',
          agent_message: 'Identity proven.',
          developer_fields: { evaluated_expression: expression, is_valid: true },
          proof_ref: r.proof_ref,
          is_authoritative: true,
        },
        attestation_token: r.attestation!.token,
      },
      { 'x-api-key': t.key },
    );
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-issued-here')).toBe('true');
    expect(doc.headers.get('x-issued-here-reason')).toBe('issued_by_this_service');
    const resolved = await post('/verification-context/resolve', doc.body, { 'x-api-key': other.key });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      resolved: true,
      issued_here: true,
      issued_here_reason: 'issued_by_this_service',
    });
  }, 120_000);
});

describe('batch math unit with attestation_in_entry: re-runs and earlier entries', () => {
  it('a re-run that finds no result document writes nothing twice and answers the tokens the first run stored', async () => {
    const { acts } = await activities();
    const jobId = `bj_s17_rerun_${Date.now()}`;
    const req = unitInput(jobId, true);
    expect(await acts.mathBatchUnitActivity(req)).toEqual(
      UNIT_QUERIES.map((_, index) => ({ index, status: 'completed' })),
    );
    const first = await storedUnit(jobId);
    expect(first.map((it) => it.view.result?.status)).toEqual([
      'VERIFIED',
      'UNVERIFIABLE',
      'VERIFIED',
      'UNVERIFIABLE',
      'VERIFIED',
    ]);
    // The crash came after the entries, before the result document.
    await (await db()).collection<StoredResultDoc>('batch_results').deleteOne({ _id: resultId(jobId, 0) });
    await new Promise((r) => setTimeout(r, 1100)); // a new second (the token's iat): a re-signed token would differ
    await acts.mathBatchUnitActivity(req);
    const second = await storedUnit(jobId);
    expect(second.map((it) => it.view.result?.attestation?.token)).toEqual(
      first.map((it) => it.view.result?.attestation?.token),
    );
    const logs = await entries();
    expect(await logs.countDocuments({ 'result.workflow_id': req.workflow_id })).toBe(UNIT_QUERIES.length);
    for (const it of first) {
      const att = it.view.result?.attestation;
      if (!att) continue;
      expect((await logs.findOne({ _id: attestationEntryId(att.id) as string }))?.attestation?.token).toBe(att.token);
      expect(await (await attestationDocs()).countDocuments({ _id: att.id })).toBe(0);
    }
  }, 120_000);

  it('an entry an earlier attempt wrote without a record (its verdict was not VERIFIED) gets it in `attestations`', async () => {
    const { acts, store } = await activities();
    const jobId = `bj_s17_earlier_${Date.now()}`;
    const req = unitInput(jobId, true);
    // The earlier attempt: item 0 timed out in its engine (UNVERIFIABLE), its entry landed, nothing after it.
    await appendVerificationAudit(
      { store, auditSecret: stackEnv().SVC_AUDIT_SECRET_KEY as string },
      {
        org_id: t.orgId,
        workflow_id: req.workflow_id,
        engine: 'math',
        input: { query: UNIT_QUERIES[0] },
        result: { status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false },
        audit: req.audit,
        log_id: batchItemEntryId(t.orgId, req.workflow_id, 0, true),
      },
    );
    await acts.mathBatchUnitActivity(req);
    const items = await storedUnit(jobId);
    const att = items[0]!.view.result!.attestation!;
    expect(items[0]!.view.result!.status).toBe('VERIFIED');
    expect(att.id).toBe(attestationIdFor(t.orgId, `${req.workflow_id}#item-0`));
    expect(await (await attestationDocs()).findOne({ _id: att.id })).toMatchObject({ token: att.token });
    expect(await (await entries()).countDocuments({ 'result.workflow_id': req.workflow_id })).toBe(UNIT_QUERIES.length);
    const got = await get(`/attestation/${att.id}`, { 'x-api-key': t.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: att.id, token: att.token, engine: 'math', verification: { valid: true } });
    // The other VERIFIED items' records are in their entries, as in a first run.
    for (const i of [2, 4]) {
      const a = items[i]!.view.result!.attestation!;
      expect(await (await attestationDocs()).countDocuments({ _id: a.id })).toBe(0);
      expect((await get(`/attestation/${a.id}`, { 'x-api-key': t.key })).body.token).toBe(a.token);
    }
  }, 120_000);

  it('a unit without the flag (a run started before session 17) keeps the old layout', async () => {
    const { acts } = await activities();
    const jobId = `bj_s17_old_${Date.now()}`;
    const req = unitInput(jobId, false);
    await acts.mathBatchUnitActivity(req);
    const items = await storedUnit(jobId);
    const logs = await entries();
    for (const it of items) {
      const entry = await logs.findOne({ _id: batchItemAuditLogId(t.orgId, req.workflow_id, it.index) });
      expect(entry).not.toBeNull();
      expect(entry).not.toHaveProperty('attestation');
      const att = it.view.result?.attestation;
      if (!att) continue;
      expect(await (await attestationDocs()).findOne({ _id: att.id })).toMatchObject({ token: att.token });
      expect(await logs.countDocuments({ _id: attestationEntryId(att.id) as string })).toBe(0);
    }
  }, 120_000);
});
