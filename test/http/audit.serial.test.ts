// The audit trail under load: one linear hash chain per organization under 500 concurrent
// verifications, then the list, verify and export endpoints over that chain. The load fills
// the shared worker, so the file runs alone (vitest.config.ts); the other audit rows are in
// audit.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, get, newTenant, stackEnv, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { verifyChain, type AuditEntry } from '../../core/audit-chain.js';
import type { ManagedProcess } from '../../infra/stack.js';
import { Store } from '../../core/store.js';
import { AuditLog } from '../../persistence/audit.js';
import { bearer, chainOf, expressionFor, key, parseCsv, pool } from './audit-fixtures.js';

describe('500 concurrent verifications of one organization', () => {
  let t: Member;
  let loadApi: ManagedProcess;
  const responses: Array<{ status: number; workflowId: string; verdict: string }> = [];

  beforeAll(async () => {
    t = await newTenant('enterprise');
    // This test is about the chain under concurrency, not latency: an API process with a long
    // workflow grace (same worker and store) keeps a briefly overloaded test machine from
    // turning a slow request into a 503. Engine and audit activity deadlines are unchanged.
    const extra = await startExtraApi('api-audit-load', { SVC_WORKFLOW_GRACE: '60' });
    loadApi = extra.proc;
    const started = Date.now();
    const res = await pool(500, 25, async (i) => {
      const r = await fetch(`${extra.url}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.key },
        body: JSON.stringify({ expression: expressionFor(i) }),
      });
      const body = (await r.json()) as { status?: string };
      return {
        status: r.status,
        workflowId: r.headers.get('x-workflow-id') as string,
        verdict: body.status ?? 'OTHER',
      };
    });
    const ms = Date.now() - started;
    responses.push(...res);
    console.log(
      `[audit] 500 verifications (concurrency 25) with audit appends: ${ms} ms, ${Math.round(500 / (ms / 1000))}/s`,
    );
  }, 600_000);
  afterAll(async () => {
    await loadApi?.stop();
  });

  it('answers every request', () => {
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    expect(responses.filter((r) => r.verdict === 'VERIFIED').length).toBe(400);
    expect(responses.filter((r) => r.verdict === 'BLOCKED').length).toBe(50);
  });

  it('stores one linear chain: seq 1..500, each previous_hash the predecessor entry_hash, all signatures valid', async () => {
    const chain = await chainOf(t.orgId);
    expect(chain).toHaveLength(500);
    chain.forEach((e, i) => {
      expect(e.seq).toBe(i + 1);
      expect(e.previous_hash).toBe(i === 0 ? null : (chain[i - 1] as AuditEntry).entry_hash);
    });
    const v = verifyChain(chain, stackEnv().SVC_AUDIT_SECRET_KEY);
    expect(v.valid).toBe(true);
    // The head as readers see it (its document plus the moves after it), and the document itself once appends paused.
    const store = Store.lazy(stackEnv().MONGODB_URI as string);
    try {
      expect(await new AuditLog(store).currentHead(t.orgId)).toMatchObject({
        seq: 500,
        head_hash: chain[499]!.entry_hash,
      });
    } finally {
      await store.close();
    }
    await new Promise((r) => setTimeout(r, 2000));
    const head = await (await db()).collection('audit_heads').findOne({ _id: t.orgId as any });
    expect(head).toMatchObject({ seq: 500, head_hash: chain[499]!.entry_hash });
    // Exactly one entry per workflow.
    expect(new Set(chain.map((e) => (e.result as { workflow_id: string }).workflow_id))).toEqual(
      new Set(responses.map((r) => r.workflowId)),
    );
  });

  it('verifies a sample through GET /admin/compliance/verify/{log_id}', async () => {
    const chain = await chainOf(t.orgId);
    for (const e of [chain[0], chain[1], chain[249], chain[498], chain[499]]) {
      const res = await get(`/admin/compliance/verify/${e!._id}`, key(t.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        log_id: e!._id,
        seq: e!.seq,
        valid: true,
        checks: { hash_valid: true, signature_valid: true, chain_valid: true },
        errors: [],
        payload_version: 'current',
      });
    }
  });

  it('lists with GET /audit/logs: default 50, most recent first, status filters, limit bounds', async () => {
    const def = await get('/audit/logs', bearer(t.token));
    expect(def.status).toBe(200);
    expect(def.body.count).toBe(50);
    expect(def.body.logs.map((l: { seq: number }) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 500 - i));
    const max = await get('/audit/logs?limit=200', bearer(t.token));
    expect(max.body.logs).toHaveLength(200);
    for (const bad of ['201', '0', '-1', 'abc', '1.5']) {
      const res = await get(`/audit/logs?limit=${bad}`, bearer(t.token));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: "Invalid query parameter 'limit': must be an integer between 1 and 200.",
        code: expect.any(String),
        request_id: expect.any(String),
      });
    }
    const verifiedOnly = await get('/audit/logs?status=verified&limit=200', bearer(t.token));
    expect(verifiedOnly.body.logs).toHaveLength(200);
    expect(
      verifiedOnly.body.logs.every((l: { verified: boolean; status: string }) => l.verified && l.status === 'VERIFIED'),
    ).toBe(true);
    const blocked = await get('/audit/logs?status=blocked&limit=200', bearer(t.token));
    expect(blocked.body.logs).toHaveLength(50);
    expect(
      blocked.body.logs.every(
        (l: { status: string; query: string }) => l.status === 'BLOCKED' && l.query === '8/2(2+2)',
      ),
    ).toBe(true);
    expect((await get('/audit/logs?status=failed', bearer(t.token))).status).toBe(400);
    // JWT only.
    expect((await get('/audit/logs', key(t.key))).status).toBe(401);
  });

  it('exports the newest entries as CSV', async () => {
    const res = await get('/audit/export', bearer(t.token));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="audit-${t.orgId}.csv"`);
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([
      'id',
      'seq',
      'timestamp',
      'organization_id',
      'user_id',
      'key_id',
      'engine',
      'status',
      'verified',
      'admission',
      'query',
      'raw_llm_output',
      'proof_ref',
      'attestation_id',
      'workflow_id',
      'request_digest',
      'previous_hash',
      'entry_hash',
      'signature',
    ]);
    expect(rows).toHaveLength(501);
    expect(rows.slice(1).map((r) => Number(r[1]))).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
  });
});
