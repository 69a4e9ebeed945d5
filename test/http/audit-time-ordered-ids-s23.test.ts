// Session 23 (issue 22, bytes written per verification and per batch item): the audit entry ids
// (and the attestation ids an entry is found by) of runs the API starts now begin with the run's
// start time (core/time-ordered-id.ts, `time_ordered_ids` in the workflow input), so new entries
// sort after the stored ones and land on the `_id` index's right edge. Against the stack's real
// Temporal and store: the ids carry the start time Temporal's history records, for /verify/math
// (entry id from the attestation id), another engine (the workflow's own append) and a batch job
// (items and the job's entry); every surface answers them (the entry, its verification, the
// attestation and its badge, the export); ids of one organization sort as its chain does; entries
// of the old form (hash only: written before, or by runs started without the flag) are still read,
// chained and verified beside the new ones; and a retried activity writes the same entry once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { idTimeMs } from '../../core/time-ordered-id.js';
import { appendVerificationAudit, auditLogId } from '../../activities/audit.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { batchItemEntryId } from '../../activities/verify-batch.js';
import { makeVerifyMathActivity } from '../../activities/verify-math.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { bearer, key, parseCsv } from './audit-fixtures.js';
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
/** The time an id's 32 hex digits start with (a time-ordered id's own). */
const timeOf = (id: string) => idTimeMs(id.slice(4));

/** The math activity as a worker builds it (to run it by hand: an old run's, or a retried attempt). */
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

/** GET /admin/compliance/verify/{id}: the entry's hash, signature and link all hold. */
async function expectVerified(member: Member, id: string) {
  const checked = await get(`/admin/compliance/verify/${id}`, key(member.key));
  expect(checked.status).toBe(200);
  expect(checked.body).toMatchObject({
    log_id: id,
    valid: true,
    checks: { hash_valid: true, signature_valid: true, chain_valid: true },
  });
}

describe('time-ordered ids of the runs the API starts', () => {
  it('/verify/math: the attestation id and its entry’s id start with the run’s start time; every surface answers them', async () => {
    const before = Date.now();
    const res = await post('/verify/math', { expression: '(a+6)^2 = a^2 + 12*a + 36' }, key(t.key));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    const workflowId = res.headers.get('x-workflow-id') as string;
    const start = await workflowStartMs(workflowId);
    expect(start).toBeGreaterThanOrEqual(before - 5_000); // the stack's clock, not this process's: a few seconds apart at most
    const id = res.body.attestation.id as string;
    expect(id).toMatch(/^att_[0-9a-f]{32}$/);
    expect(id).toBe(attestationIdFor(t.orgId, workflowId, start));
    expect(timeOf(id)).toBe(start);
    const entryId = attestationEntryId(id) as string;
    expect(timeOf(entryId)).toBe(start);
    // The entry is stored under that id (a point read), and it is the run's only entry.
    const logs = await entries();
    expect(await logs.countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
    expect(await logs.findOne({ _id: entryId })).toMatchObject({
      organization_id: t.orgId,
      result: { attestation_id: id, workflow_id: workflowId },
    });

    const one = await get(`/audit/logs/${entryId}`, bearer(t.token));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: entryId, attestation_id: id, workflow_id: workflowId, status: 'VERIFIED' });
    expect((await get(`/audit/logs/${entryId}`, bearer(other.token))).status).toBe(404);
    await expectVerified(t, entryId);
    const got = await get(`/attestation/${id}`, key(t.key));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      token: res.body.attestation.token,
      engine: 'math',
      verification: { valid: true },
    });
    const foreign = await get(`/attestation/${id}`, key(other.key));
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Attestation not found.');
    const badge = await get(`/badge/attestation/${id}`);
    expect(badge.status).toBe(200);
    expect(badge.text).toContain('verified');
  });

  it('another engine (the workflow’s own append): the entry id is auditLogId with the run’s start time', async () => {
    const res = await post('/verify/logic', { query: '(AND (GT x 5) (LT x 3))' }, key(t.key));
    expect(res.status).toBe(200);
    const workflowId = res.headers.get('x-workflow-id') as string;
    const start = await workflowStartMs(workflowId);
    const entry = await (await entries()).findOne({ 'result.workflow_id': workflowId });
    expect(entry?._id).toBe(auditLogId(t.orgId, workflowId, start));
    expect(entry?._id).not.toBe(auditLogId(t.orgId, workflowId));
    expect(timeOf(entry!._id)).toBe(start);
    expect((await get(`/audit/logs/${entry!._id}`, bearer(t.token))).body).toMatchObject({ engine: 'logic' });
    await expectVerified(t, entry!._id);
  });

  it('an organization’s entry ids sort as its chain does (later runs, later ids)', async () => {
    const m = await newTenant();
    const expressions = ['(b+1)^2 = b^2 + 2*b + 1', '(b+1)^2 = b^2 + 1', '2 + 2', '(b-2)*(b+2) = b^2 - 4'];
    for (const expression of expressions)
      expect((await post('/verify/math', { expression }, key(m.key))).status).toBe(200);
    const list = await get('/audit/logs?limit=10', bearer(m.token));
    expect(list.status).toBe(200);
    const bySeq = [...(list.body.logs as Array<{ id: string; seq: number; workflow_id: string }>)].sort(
      (x, y) => x.seq - y.seq,
    );
    expect(bySeq.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    const ids = bySeq.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);
    for (const e of bySeq) expect(timeOf(e.id)).toBe(await workflowStartMs(e.workflow_id));
  });

  it('a batch job: its items’ entries, their attestations and the job’s entry start with the job run’s start time', async () => {
    const items = [
      { query: '(c+2)^2 = c^2 + 4*c + 4', type: 'math' },
      { query: '(c+2)^2 = c^2 + 4', type: 'math' },
      { query: '(c-3)*(c+3) = c^2 - 9', type: 'math' },
    ];
    const res = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items });
    expect([200, 202]).toContain(res.status);
    const job = res.status === 200 ? res.body : await waitCompleted(apiUrl(), t.key, res.body.job_id);
    expect(job).toMatchObject({ status: 'completed', total_items: 3, completed_items: 3, failed_items: 0 });
    const workflowId = job.workflow_id as string;
    const start = await workflowStartMs(workflowId);
    const logs = await entries();
    const stored = await logs.find({ 'result.workflow_id': workflowId }).toArray();
    // The three items' entries and the job's own, every one under a time-ordered id.
    expect(stored.map((e) => e._id).sort()).toEqual(
      [
        ...items.map((_, i) => batchItemEntryId(t.orgId, workflowId, i, true, start)),
        auditLogId(t.orgId, workflowId, start),
      ].sort(),
    );
    for (const e of stored) {
      expect(timeOf(e._id)).toBe(start);
      await expectVerified(t, e._id);
    }
    const views = job.items as Array<{ result?: { status: string; attestation?: { id: string; token: string } } }>;
    expect(views.map((v) => v.result?.status)).toEqual(['VERIFIED', 'UNVERIFIABLE', 'VERIFIED']);
    for (const i of [0, 2]) {
      const att = views[i]!.result!.attestation!;
      expect(att.id).toBe(attestationIdFor(t.orgId, `${workflowId}#item-${i}`, start));
      const got = await get(`/attestation/${att.id}`, key(t.key));
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: att.id, token: att.token, verification: { valid: true } });
      expect((await get(`/badge/attestation/${att.id}`)).text).toContain('verified');
    }
  }, 120_000);
});

describe('entries of the old form beside the new ones', () => {
  it('are read, chained and verified; the old attestation id still finds its entry; the export has both', async () => {
    const m = await newTenant();
    const { activity, deps } = await mathActivity();
    // 1: a run the API starts now (time-ordered).
    const first = await post('/verify/math', { expression: '(d+1)^2 = d^2 + 2*d + 1' }, key(m.key));
    expect(first.status).toBe(200);
    // 2: a math run started without `time_ordered_ids` (an older API, or a replayed history): its attestation in its entry.
    const oldMathWf = `verify-math-${m.orgId}-s23-old-${Date.now()}`;
    const oldMath = await activity({
      input: { expression: '(d-5)^2 = d^2 - 10*d + 25' },
      org_id: m.orgId,
      workflow_id: oldMathWf,
      audit_entry: {
        audit: { user_id: m.userId, key_id: null, request_digest: `sha256:${'5'.repeat(64)}` },
        attestation_in_entry: true,
      },
    });
    expect(oldMath.status).toBe('VERIFIED');
    const oldAtt = oldMath.attestation!.id;
    expect(oldAtt).toBe(attestationIdFor(m.orgId, oldMathWf)); // the hash-only form
    // 3: another engine's entry of the old form (the separate append, default id).
    const oldWf = `verify-logic-${m.orgId}-s23-old-${Date.now()}`;
    const appended = await appendVerificationAudit(deps, {
      org_id: m.orgId,
      workflow_id: oldWf,
      engine: 'logic',
      input: { query: '(GT x 1)' },
      result: { status: 'SAT' },
      audit: null,
    });
    expect(appended.log_id).toBe(auditLogId(m.orgId, oldWf));
    // 4: a new run after them: its entry links to the old one.
    const last = await post('/verify/math', { expression: '(d+4)*(d-4) = d^2 - 16' }, key(m.key));
    expect(last.status).toBe(200);

    const list = await get('/audit/logs?limit=10', bearer(m.token));
    const bySeq = [
      ...(list.body.logs as Array<{ id: string; seq: number; previous_hash: string | null; entry_hash: string }>),
    ].sort((x, y) => x.seq - y.seq);
    const ids = bySeq.map((e) => e.id);
    expect(ids).toEqual([
      attestationEntryId(first.body.attestation.id),
      attestationEntryId(oldAtt),
      auditLogId(m.orgId, oldWf),
      attestationEntryId(last.body.attestation.id),
    ]);
    // The chain runs through both forms.
    for (let i = 1; i < bySeq.length; i++) expect(bySeq[i]!.previous_hash).toBe(bySeq[i - 1]!.entry_hash);
    for (const id of ids) {
      const one = await get(`/audit/logs/${id}`, bearer(m.token));
      expect(one.status).toBe(200);
      expect(one.body.id).toBe(id);
      await expectVerified(m, id);
    }
    // The old attestation id finds its entry (attestationEntryId of the hash-only id), as before.
    const got = await get(`/attestation/${oldAtt}`, key(m.key));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: oldAtt, token: oldMath.attestation!.token, verification: { valid: true } });
    expect((await get(`/badge/attestation/${oldAtt}`)).text).toContain('verified');
    // Both exports list every entry under its own id.
    for (const res of [
      await get('/audit/export', bearer(m.token)),
      await get('/admin/compliance/export/csv', key(m.key)),
    ]) {
      expect(res.status).toBe(200);
      const rows = parseCsv(res.text);
      const col = rows[0]!.indexOf('id');
      expect(
        rows
          .slice(1)
          .map((r) => r[col])
          .sort(),
      ).toEqual([...ids].sort());
    }
  }, 120_000);
});

describe('a retried activity writes the same time-ordered entry', () => {
  it('the math activity twice with the same input (an attempt after a crash): one entry, the first attempt’s token', async () => {
    const { activity } = await mathActivity();
    const workflowId = `verify-math-${t.orgId}-s23-retry-${Date.now()}`;
    const start = Date.now() - 250; // as the workflow passes it: its run's start, fixed for every attempt
    const req = {
      input: { expression: '(e+7)^2 = e^2 + 14*e + 49' },
      org_id: t.orgId,
      workflow_id: workflowId,
      audit_entry: {
        audit: { user_id: t.userId, key_id: null, request_digest: `sha256:${'6'.repeat(64)}` },
        attestation_in_entry: true,
        id_time_ms: start,
      },
    };
    const firstAttempt = await activity(req);
    await new Promise((r) => setTimeout(r, 1100)); // a new second (the token's iat): a re-signed token would differ
    const second = await activity(req);
    expect(firstAttempt.status).toBe('VERIFIED');
    expect(second).toEqual(firstAttempt);
    expect(firstAttempt.attestation!.id).toBe(attestationIdFor(t.orgId, workflowId, start));
    const logs = await entries();
    expect(await logs.countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
    const entry = await logs.findOne({ _id: attestationEntryId(firstAttempt.attestation!.id) as string });
    expect(timeOf(entry!._id)).toBe(start);
    expect(entry?.attestation?.token).toBe(firstAttempt.attestation!.token);
  }, 120_000);

  it('the separate append twice with the same input: the second finds the first’s entry', async () => {
    const { deps } = await mathActivity();
    const workflowId = `verify-logic-${t.orgId}-s23-retry-${Date.now()}`;
    const req = {
      org_id: t.orgId,
      workflow_id: workflowId,
      engine: 'logic',
      input: { query: '(GT y 2)' },
      result: { status: 'SAT' },
      audit: null,
      id_time_ms: Date.now() - 100,
    };
    const a = await appendVerificationAudit(deps, req);
    const b = await appendVerificationAudit(deps, req);
    expect(a.log_id).toBe(auditLogId(t.orgId, workflowId, req.id_time_ms));
    expect(b).toEqual(a);
    expect(await (await entries()).countDocuments({ 'result.workflow_id': workflowId })).toBe(1);
  });
});
