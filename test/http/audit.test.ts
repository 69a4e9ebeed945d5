// The audit trail over HTTP: the JWT audit endpoints, CSV exports (formula neutralisation),
// the admin compliance endpoints and their role checks, tamper detection through the verify
// endpoint, and the fail-closed behaviour without SVC_AUDIT_SECRET_KEY. The chain under 500
// concurrent verifications is a load test of the shared worker: it is in audit.serial.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { addMember, db, get, newTenant, post, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { SECRET_MISSING_ERROR } from '../../core/audit-chain.js';
import type { ManagedProcess } from '../../infra/stack.js';
import { CROSS_ORG, INSUFFICIENT, bearer, chainOf, key, parseCsv, verifyMath } from './audit-fixtures.js';

describe('audit entries', () => {
  let t: Member;
  let other: Member;
  beforeAll(async () => {
    [t, other] = await Promise.all([newTenant(), newTenant()]);
  });

  it('record who, what, verdict, workflow and a request digest', async () => {
    const expression = '(y-1)^2 = y^2 - 2*y + 1';
    const res = await post('/verify/math', { expression, ignored_field: 'x' }, key(t.key));
    expect(res.status).toBe(200);
    const list = await get('/audit/logs?limit=1', bearer(t.token));
    const [entry] = list.body.logs;
    expect(entry).toEqual({
      id: expect.stringMatching(/^log_[0-9a-f]{32}$/),
      seq: 1,
      organization_id: t.orgId,
      user_id: t.userId,
      key_id: t.keyId,
      engine: 'math',
      query: expression,
      status: 'VERIFIED',
      verified: true,
      admission: null,
      proof_ref: res.body.proof_ref,
      attestation_id: res.body.attestation.id,
      workflow_id: res.headers.get('x-workflow-id'),
      // The validated request (unknown keys dropped), as JSON.
      request_digest: `sha256:${createHash('sha256').update(JSON.stringify({ expression })).digest('hex')}`,
      raw_llm_output: null,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      previous_hash: null,
      entry_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(list.text).not.toContain(t.key);
    const one = await get(`/audit/logs/${entry.id}`, bearer(t.token));
    expect(one.status).toBe(200);
    expect(one.body).toEqual(entry);
    // Another organization sees nothing.
    const foreign = await get(`/audit/logs/${entry.id}`, bearer(other.token));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      detail: 'Audit log not found.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await get('/audit/logs', bearer(other.token))).body.logs).toEqual([]);
  });

  it('neutralises spreadsheet formulas in CSV exports', async () => {
    const hostile = ['=1+1', '+2+3', '-4+5', '@7', '\t=8'];
    for (const e of hostile) await verifyMath(t, e);
    for (const res of [
      await get('/audit/export', bearer(t.token)),
      await get('/admin/compliance/export/csv', key(t.key)),
    ]) {
      expect(res.status).toBe(200);
      const rows = parseCsv(res.text);
      const queryCol = rows[0]!.indexOf('query');
      const queries = rows.slice(1).map((r) => r[queryCol]);
      for (const e of hostile) expect(queries).toContain(`'${e}`);
      // No cell anywhere starts a formula.
      for (const r of rows) for (const c of r) expect(/^[=+\-@\t\r]/.test(c)).toBe(false);
    }
  });

  it('caps /audit/export at the newest 1,000 entries', async () => {
    const u = await newTenant();
    const docs = Array.from({ length: 1005 }, (_, i) => ({
      _id: `log_bulk_${u.orgId}_${i + 1}`,
      organization_id: u.orgId,
      seq: i + 1,
      user_id: null,
      query: `q${i + 1}`,
      result: { status: 'VERIFIED' },
      verified: true,
      domain: 'math',
      timestamp: new Date().toISOString(),
      raw_llm_output: null,
      previous_hash: null,
      entry_hash: '0'.repeat(64),
      signature: '0'.repeat(64),
    }));
    // Entries written before heads existed: the organization has no head (sign-up now opens one),
    // so the first read heals the chain from them (persistence/audit.ts healLegacyChain).
    await (await db()).collection('audit_heads').deleteOne({ _id: u.orgId as any });
    await (await db()).collection('audit_rollups').deleteOne({ _id: u.orgId as any });
    await (await db()).collection('audit_logs').insertMany(docs as any[]);
    const rows = parseCsv((await get('/audit/export', bearer(u.token))).text);
    expect(rows).toHaveLength(1001);
    expect(rows[1]![1]).toBe('6');
    expect(rows[1000]![1]).toBe('1005');
  });
});

describe('admin compliance endpoints', () => {
  let owner: Member;
  let admin: Member;
  let member: Member;
  let other: Member;
  beforeAll(async () => {
    [owner, other] = await Promise.all([newTenant(), newTenant()]);
    [admin, member] = await Promise.all([addMember(owner.orgId, 'admin'), addMember(owner.orgId, 'member')]);
    await verifyMath(owner, '(p+q)^2 = p^2 + 2*p*q + q^2');
    await verifyMath(member, '8/2(2+2)');
    await verifyMath(other, '(z+1)^2 = z^2 + 2*z + 1');
  });

  const paths = (org: string, logId: string) => [
    '/admin/compliance/export/csv',
    `/admin/compliance/verify/${logId}`,
    `/admin/compliance/report/soc2/${org}`,
    `/admin/security/threats/${org}`,
  ];

  it('allow owners and admins, refuse members (403) and missing keys (401)', async () => {
    const [entry] = await chainOf(owner.orgId);
    for (const p of paths(owner.orgId, entry!._id)) {
      expect((await get(p, key(owner.key))).status, p).toBe(200);
      expect((await get(p, key(admin.key))).status, p).toBe(200);
      const m = await get(p, key(member.key));
      expect(m.status, p).toBe(403);
      expect(m.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
      expect((await get(p)).status, p).toBe(401);
      // JWT is not an admin credential.
      expect((await get(p, bearer(owner.token))).status, p).toBe(401);
    }
  });

  it("refuse another organization's data: 403 for org ids, 404 for log ids", async () => {
    const [foreign] = await chainOf(other.orgId);
    for (const p of [
      `/admin/compliance/report/soc2/${other.orgId}`,
      `/admin/security/threats/${other.orgId}`,
      `/admin/compliance/export/csv?org_id=${other.orgId}`,
    ]) {
      const res = await get(p, key(owner.key));
      expect(res.status, p).toBe(403);
      expect(res.body).toEqual({ detail: CROSS_ORG, code: expect.any(String), request_id: expect.any(String) });
    }
    const own = await get(`/admin/compliance/export/csv?org_id=${owner.orgId}`, key(owner.key));
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const v = await get(`/admin/compliance/verify/${foreign!._id}`, key(owner.key));
    expect(v.status).toBe(404);
    expect(v.body).toEqual({
      detail: 'Audit log not found.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('export the whole trail as CSV in chain order', async () => {
    const res = await get('/admin/compliance/export/csv', key(admin.key));
    const rows = parseCsv(res.text);
    expect(rows).toHaveLength(3);
    expect(rows.slice(1).map((r) => [r[1], r[4], r[7]])).toEqual([
      ['1', owner.userId, 'VERIFIED'],
      ['2', member.userId, 'BLOCKED'],
    ]);
    expect(res.text).not.toContain(owner.key);
  });

  it('report SOC 2 evidence: counts, chain integrity, users and masked keys', async () => {
    const res = await get(`/admin/compliance/report/soc2/${owner.orgId}`, key(owner.key));
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.report).toBe('soc2');
    expect(r.organization).toMatchObject({ id: owner.orgId, plan: 'enterprise', active: true });
    expect(r.controls.audit_logging).toMatchObject({
      secret_configured: true,
      entries_total: 2,
      chain_integrity: {
        window: 1000,
        checked: 2,
        invalid: 0,
        head_seq: 2,
        head_matches_last_entry: true,
        valid: true,
        first_invalid: null,
      },
    });
    expect(r.controls.verification_integrity).toMatchObject({
      total: 2,
      verified: 1,
      blocked: 1,
      unsafe_findings: 0,
      by_status: { VERIFIED: 1, BLOCKED: 1 },
      by_engine: {
        math: { total: 2, verified: 1, blocked: 1, unsafe_findings: 0, by_status: { VERIFIED: 1, BLOCKED: 1 } },
      },
      attestations_issued: 1,
    });
    expect(r.controls.access_control.users).toMatchObject({
      total: 3,
      active: 3,
      by_role: { owner: 1, admin: 1, member: 1 },
    });
    const keys = r.controls.access_control.api_keys;
    expect(keys.active).toBe(3);
    for (const k of keys.keys) expect(k.preview).toMatch(/^svc_live_\*+[A-Za-z0-9]{4}$/);
    for (const m of [owner, admin, member]) expect(res.text).not.toContain(m.key);
    expect(res.text).not.toContain('lookup_digest');
    expect(res.text).not.toContain('password_hash');
    expect(r.controls.rate_limiting).toMatchObject({
      plan: 'enterprise',
      limits: { per_minute: null, per_day: null, batch_size: 100 },
    });
  });

  it('summarise threats: blocked verifications, denials and key hygiene', async () => {
    // One authenticated denial of this organization (the tenant check of /metrics/{org_id}).
    expect((await get(`/metrics/${other.orgId}`, key(member.key))).status).toBe(403);
    // The denial is counted after the response (fire and forget): poll (up to 10 s: a loaded machine).
    let res = await get(`/admin/security/threats/${owner.orgId}`, key(owner.key));
    for (let i = 0; i < 100 && res.body.forbidden_requests?.last_24h < 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await get(`/admin/security/threats/${owner.orgId}`, key(owner.key));
    }
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      organization_id: owner.orgId,
      threat_level: 'elevated',
      blocked_verifications: { last_24h: 1, last_7d: 1, total: 1, by_engine_last_7d: { math: 1 } },
      unsafe_findings: { last_24h: 0, last_7d: 0, total: 0 },
      forbidden_requests: { last_24h: expect.any(Number) },
      api_keys: { active: 3, active_without_expiry: 3 },
      audit_chain: { valid: true, head_seq: 2 },
    });
    expect(res.body.forbidden_requests.last_24h).toBeGreaterThanOrEqual(1);
    expect(res.body.findings).toEqual(
      expect.arrayContaining([
        'blocked_verifications_last_24h',
        'forbidden_requests_last_24h',
        'active_keys_without_expiry',
      ]),
    );
  });
});

describe('tamper detection through GET /admin/compliance/verify/{log_id}', () => {
  async function tenantWithEntries(n: number) {
    const t = await newTenant();
    for (let i = 0; i < n; i++) await verifyMath(t, `(u+${i + 1})^2 = u^2 + ${2 * (i + 1)}*u + ${(i + 1) ** 2}`);
    const chain = await chainOf(t.orgId);
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    return { t, chain };
  }
  const verifyAt = (t: Member, id: string) => get(`/admin/compliance/verify/${id}`, key(t.key));
  const logs = async () => (await db()).collection('audit_logs');

  it('detects a changed stored field (hash)', async () => {
    const { t, chain } = await tenantWithEntries(3);
    expect((await verifyAt(t, chain[1]!._id)).body.valid).toBe(true);
    await (await logs()).updateOne({ _id: chain[1]!._id as any }, { $set: { query: '(u+2)^2 = u^2 + 4*u + 5' } });
    const res = await verifyAt(t, chain[1]!._id);
    expect(res.body).toMatchObject({
      valid: false,
      checks: { hash_valid: false, signature_valid: true, chain_valid: true },
    });
    expect(res.body.errors).toContain('entry_hash does not match the recomputed payload hash');
    // A verdict flip is caught the same way.
    await (
      await logs()
    ).updateOne({ _id: chain[2]!._id as any }, { $set: { 'result.status': 'BLOCKED', verified: false } });
    expect((await verifyAt(t, chain[2]!._id)).body.checks.hash_valid).toBe(false);
    // Re-hashing the edited entry without the secret cannot produce a valid signature.
    const edited = { ...chain[0]!, query: 'edited' };
    const { canonicalAuditPayload, entryHash } = await import('../../core/audit-chain.js');
    await (
      await logs()
    ).updateOne(
      { _id: chain[0]!._id as any },
      { $set: { query: 'edited', entry_hash: entryHash(canonicalAuditPayload(edited)) } },
    );
    const rehashed = await verifyAt(t, chain[0]!._id);
    expect(rehashed.body.checks).toEqual({ hash_valid: true, signature_valid: false, chain_valid: true });
  });

  it('detects a deleted entry (link) and a deleted newest entry (head)', async () => {
    const { t, chain } = await tenantWithEntries(4);
    await (await logs()).deleteOne({ _id: chain[1]!._id as any });
    const res = await verifyAt(t, chain[2]!._id);
    expect(res.body).toMatchObject({
      valid: false,
      checks: { hash_valid: true, signature_valid: true, chain_valid: false },
    });
    expect(res.body.errors).toContain("previous_hash does not match the predecessor's entry_hash");
    await (await logs()).deleteOne({ _id: chain[3]!._id as any });
    const report = await get(`/admin/compliance/report/soc2/${t.orgId}`, key(t.key));
    expect(report.body.controls.audit_logging.chain_integrity).toMatchObject({
      valid: false,
      head_seq: 4,
      head_matches_last_entry: false,
      invalid: 1,
    });
    expect(report.body.controls.audit_logging.chain_integrity.first_invalid).toMatchObject({
      log_id: chain[2]!._id,
      seq: 3,
    });
  });

  it('detects two entries swapped in order', async () => {
    const { t, chain } = await tenantWithEntries(4);
    const col = await logs();
    await col.updateOne({ _id: chain[1]!._id as any }, { $set: { seq: -2 } });
    await col.updateOne({ _id: chain[2]!._id as any }, { $set: { seq: 2 } });
    await col.updateOne({ _id: chain[1]!._id as any }, { $set: { seq: 3 } });
    for (const e of [chain[1]!, chain[2]!, chain[3]!]) {
      const res = await verifyAt(t, e._id);
      expect(res.body.valid, `entry ${e.seq}`).toBe(false);
      expect(res.body.checks).toEqual({ hash_valid: true, signature_valid: true, chain_valid: false });
    }
    expect((await verifyAt(t, chain[0]!._id)).body.valid).toBe(true);
  });

  it('detects an entry replayed into another organization', async () => {
    const { chain } = await tenantWithEntries(2);
    const { t: victim, chain: victimChain } = await tenantWithEntries(2);
    const col = await logs();
    // Verbatim copy at the victim's next position: it is not the victim's (organization_id differs), so it is not even visible.
    const { _id: _a, ...copy } = chain[1]!;
    await col.insertOne({ ...copy, _id: 'log_replayed_verbatim', seq: 3 } as any);
    expect((await verifyAt(victim, 'log_replayed_verbatim')).status).toBe(404);
    await col.deleteOne({ _id: 'log_replayed_verbatim' as any });
    // Relabelled for the victim: the hash covers organization_id and the link is foreign.
    await col.insertOne({ ...copy, _id: 'log_replayed', organization_id: victim.orgId, seq: 3 } as any);
    const res = await verifyAt(victim, 'log_replayed');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: false,
      checks: { hash_valid: false, signature_valid: true, chain_valid: false },
    });
    // Relinked to the victim's head too: still caught by the hash.
    await col.updateOne({ _id: 'log_replayed' as any }, { $set: { previous_hash: victimChain[1]!.entry_hash } });
    expect((await verifyAt(victim, 'log_replayed')).body.checks).toEqual({
      hash_valid: false,
      signature_valid: true,
      chain_valid: true,
    });
  });
});

describe('fail closed without SVC_AUDIT_SECRET_KEY', () => {
  const procs: ManagedProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('a worker without the audit secret returns no verdict (503) and writes no entry', async () => {
    const worker = await startExtraWorker(
      'worker-noaudit',
      { SVC_TASK_QUEUE: 'svc-noaudit', SVC_AUDIT_SECRET_KEY: undefined },
      240_000,
    );
    procs.push(worker);
    const { proc, url } = await startExtraApi('api-noaudit', { SVC_TASK_QUEUE: 'svc-noaudit' });
    procs.push(proc);
    const t = await newTenant();
    const res = await fetch(`${url}/verify/math`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ expression: '(k+1)^2 = k^2 + 2*k + 1' }),
    });
    const text = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(text)).toEqual({
      detail: 'Verification could not complete — retry shortly.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(text).not.toContain('VERIFIED');
    expect(await chainOf(t.orgId)).toEqual([]);
  }, 360_000);

  it('an API without the audit secret reports every entry invalid (fail closed)', async () => {
    const t = await newTenant();
    await verifyMath(t, '(k+2)^2 = k^2 + 4*k + 4');
    const [entry] = await chainOf(t.orgId);
    const { proc, url } = await startExtraApi('api-noauditkey', { SVC_AUDIT_SECRET_KEY: undefined });
    procs.push(proc);
    const res = await fetch(`${url}/admin/compliance/verify/${entry!._id}`, { headers: { 'x-api-key': t.key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      log_id: entry!._id,
      seq: 1,
      valid: false,
      checks: { hash_valid: false, signature_valid: false, chain_valid: false },
      errors: [SECRET_MISSING_ERROR],
      payload_version: null,
    });
  }, 120_000);
});
