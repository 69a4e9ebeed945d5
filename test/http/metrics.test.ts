// Observability over HTTP: operator-only /metrics and /metrics/prometheus (operators come
// from SVC_METRICS_OPERATOR_USER_IDS, so those rows run against extra API processes), the
// tenant's /metrics/{org_id}, and the paginated /logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheus, { type PromFamily } from 'parse-prometheus-text-format';
import { db, get, http, newTenant, post, stackEnv, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { windowStart } from './windows.js';
import type { ManagedProcess } from '../../infra/stack.js';

const key = (k: string) => ({ 'x-api-key': k });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const INSUFFICIENT = 'Insufficient permissions for this operation';
const CROSS_ORG = "Cannot access another organization's data";

async function at(url: string, method: string, p: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: json };
}

const family = (families: PromFamily[], name: string) => families.find((f) => f.name === name);
const sample = (f: PromFamily | undefined, labels: Record<string, string>) =>
  f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

describe('platform-operator metrics', () => {
  let operator: Member;
  let tenant: Member;
  const procs: ManagedProcess[] = [];
  let url: string;

  beforeAll(async () => {
    [operator, tenant] = await Promise.all([newTenant(), newTenant()]);
    const extra = await startExtraApi('api-metrics-operator', {
      SVC_METRICS_OPERATOR_USER_IDS: ` usr_nobody , ${operator.userId}`,
    });
    procs.push(extra.proc);
    url = extra.url;
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('nobody is an operator when SVC_METRICS_OPERATOR_USER_IDS is unset (the main test stack)', async () => {
    for (const p of ['/metrics', '/metrics/prometheus']) {
      for (const h of [key(operator.key), bearer(operator.token)]) {
        const res = await get(p, h);
        expect(res.status, p).toBe(403);
        expect(res.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
      }
      expect((await get(p)).status).toBe(401);
    }
  });

  it('admits the listed user by JWT or by API key, refuses others; organization roles grant nothing', async () => {
    for (const p of ['/metrics', '/metrics/prometheus']) {
      expect((await at(url, 'GET', p, bearer(operator.token))).status, p).toBe(200);
      expect((await at(url, 'GET', p, key(operator.key))).status, p).toBe(200);
      // The tenant is the owner of its organization, but not an operator.
      const denied = await at(url, 'GET', p, key(tenant.key));
      expect(denied.status, p).toBe(403);
      expect(denied.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
      expect((await at(url, 'GET', p, bearer(tenant.token))).status, p).toBe(403);
      expect((await at(url, 'GET', p)).status, p).toBe(401);
      // When both are sent, the JWT can still authorize (a bad key beside it does not matter).
      expect((await at(url, 'GET', p, { ...bearer(operator.token), 'x-api-key': 'svc_live_invalid' })).status, p).toBe(
        200,
      );
    }
  });

  it("refuses the operator's revoked key (401)", async () => {
    const minted = await post('/auth/api-keys', { name: 'to revoke' }, bearer(operator.token));
    expect((await at(url, 'GET', '/metrics', key(minted.body.key))).status).toBe(200);
    await http('DELETE', `/auth/api-keys/${minted.body.id}`, { headers: bearer(operator.token) });
    // Revoked through the main API, checked on another process: refused within the key cache's
    // staleness bound (SVC_API_KEY_CACHE_TTL, docs/performance.md), never later.
    const bound = Number(stackEnv().SVC_API_KEY_CACHE_TTL ?? 5) * 1000;
    const deadline = Date.now() + bound + 1000;
    let res = await at(url, 'GET', '/metrics', key(minted.body.key));
    while (res.status !== 401 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      res = await at(url, 'GET', '/metrics', key(minted.body.key));
    }
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      detail: 'API key is revoked, inactive or expired.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('serves Prometheus text with request, latency, verdict and rate-limit series', async () => {
    expect(
      (await at(url, 'POST', '/verify/math', key(tenant.key), { expression: '(r+1)^2 = r^2 + 2*r + 1' })).body.status,
    ).toBe('VERIFIED');
    expect((await at(url, 'POST', '/verify/math', key(tenant.key), { expression: '8/2(2+2)' })).body.status).toBe(
      'BLOCKED',
    );
    // A 429 produced by this process (the per-key attestation verify limit, pre-filled).
    const start = await windowStart(3600);
    await (
      await db()
    )
      .collection('rate_counters')
      .updateOne(
        { _id: `attestation-verify:${tenant.keyId}:3600:${start}` as any },
        { $set: { count: 1000, expires_at: new Date((start + 3700) * 1000) } },
        { upsert: true },
      );
    expect((await at(url, 'POST', '/attestation/verify', key(tenant.key), { token: 'x' })).status).toBe(429);

    const res = await at(url, 'GET', '/metrics/prometheus', bearer(operator.token));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheus(res.text);
    const requests = family(families, 'svc_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    expect(Number(sample(requests, { method: 'POST', route: '/verify/math', status: '200' })?.value)).toBe(2);
    expect(Number(sample(requests, { method: 'POST', route: '/attestation/verify', status: '429' })?.value)).toBe(1);
    const latency = family(families, 'svc_http_request_duration_seconds');
    expect(latency?.type).toBe('HISTOGRAM');
    expect(latency?.metrics.some((m) => m.buckets && '+Inf' in m.buckets)).toBe(true);
    const verdicts = family(families, 'svc_verdicts_total');
    expect(Number(sample(verdicts, { engine: 'math', status: 'VERIFIED' })?.value)).toBe(1);
    expect(Number(sample(verdicts, { engine: 'math', status: 'BLOCKED' })?.value)).toBe(1);
    const limited = family(families, 'svc_rate_limit_rejections_total');
    expect(Number(sample(limited, { route: '/attestation/verify' })?.value)).toBe(1);
    expect(family(families, 'svc_workflow_failures_total')?.type).toBe('COUNTER');
    // Default process metrics are there too; tenant identifiers and credentials are not.
    expect(family(families, 'process_cpu_user_seconds_total')).toBeDefined();
    for (const secret of [tenant.orgId, tenant.key, tenant.userId, operator.key])
      expect(res.text).not.toContain(secret);
    // Unknown paths are one bounded label, never the raw path.
    await at(url, 'GET', '/no/such/path/12345');
    const again = parsePrometheus((await at(url, 'GET', '/metrics/prometheus', bearer(operator.token))).text);
    expect(
      sample(family(again, 'svc_http_requests_total'), { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBeDefined();
    expect((await at(url, 'GET', '/metrics/prometheus', bearer(operator.token))).text).not.toContain('12345');
  });

  it('serves JSON with global totals, a per-tenant breakdown from the audit log and this process’s counters', async () => {
    const res = await at(url, 'GET', '/metrics', key(operator.key));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const m = res.body;
    expect(m.scope).toBe('global');
    const mine = m.tenants.find((x: { org_id: string }) => x.org_id === tenant.orgId);
    expect(mine).toMatchObject({
      total: 2,
      verified: 1,
      blocked: 1,
      by_status: { VERIFIED: 1, BLOCKED: 1 },
      by_engine: { math: { total: 2 } },
    });
    const sum = m.tenants.reduce((n: number, x: { total: number }) => n + x.total, 0);
    expect(m.totals.verifications).toBe(sum);
    expect(m.totals.verifications).toBeGreaterThanOrEqual(2);
    expect(m.process.verdicts).toEqual(expect.arrayContaining([{ engine: 'math', status: 'VERIFIED', count: 1 }]));
    expect(m.process.http_requests).toEqual(
      expect.arrayContaining([{ method: 'POST', route: '/verify/math', status: 200, count: 2 }]),
    );
    expect(m.process.rate_limit_rejections).toEqual([{ route: '/attestation/verify', count: 1 }]);
    const lat = m.process.http_latency.find(
      (l: { route: string; status: number }) => l.route === '/verify/math' && l.status === 200,
    );
    expect(lat.count).toBe(2);
    expect(lat.mean_ms).toBeGreaterThan(0);
  });

  it('counts workflow time-outs (no worker on the task queue)', async () => {
    const { proc, url: deadUrl } = await startExtraApi('api-metrics-noworker', {
      SVC_METRICS_OPERATOR_USER_IDS: operator.userId,
      SVC_TASK_QUEUE: 'svc-no-worker-here',
      SVC_MATH_TIMEOUT: '1',
      SVC_WORKFLOW_GRACE: '1',
    });
    procs.push(proc);
    const res = await at(deadUrl, 'POST', '/verify/math', key(tenant.key), { expression: '1 + 1' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      detail: 'Math verification timed out.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const families = parsePrometheus((await at(deadUrl, 'GET', '/metrics/prometheus', bearer(operator.token))).text);
    expect(
      Number(sample(family(families, 'svc_workflow_failures_total'), { engine: 'math', reason: 'timeout' })?.value),
    ).toBe(1);
    expect(sample(family(families, 'svc_verdicts_total'), { engine: 'math' })).toBeUndefined();
  }, 120_000);
});

describe('GET /metrics/{org_id}', () => {
  let t: Member;
  let other: Member;
  beforeAll(async () => {
    [t, other] = await Promise.all([newTenant(), newTenant()]);
    await post('/verify/math', { expression: '(c-d)^2 = c^2 - 2*c*d + d^2' }, key(t.key));
    await post('/verify/math', { expression: '3 + 4' }, key(t.key));
  });

  it("returns the caller's own organization's metrics (key or JWT)", async () => {
    for (const h of [key(t.key), bearer(t.token)]) {
      const res = await get(`/metrics/${t.orgId}`, h);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        org_id: t.orgId,
        verifications: { total: 2, verified: 1, blocked: 0, by_engine: { math: { total: 2, verified: 1 } } },
        last_24h: { total: 2, verified: 1 },
        audit_entries: 2,
        attestations_issued: 1,
        rate_limit_rejections_last_7d: 0,
      });
    }
  });

  it("refuses another organization's metrics (403), and operator ids do not matter here", async () => {
    const res = await get(`/metrics/${other.orgId}`, key(t.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: CROSS_ORG, code: expect.any(String), request_id: expect.any(String) });
    expect((await get(`/metrics/${t.orgId}`)).status).toBe(401);
  });
});

describe('GET /logs', () => {
  let t: Member;
  let other: Member;
  const workflowIds: string[] = [];
  beforeAll(async () => {
    [t, other] = await Promise.all([newTenant(), newTenant()]);
    for (let i = 1; i <= 5; i++) {
      const res = await post('/verify/math', { expression: `${i} + ${i}` }, key(t.key));
      workflowIds.push(res.headers.get('x-workflow-id') as string);
    }
    await post('/verify/math', { expression: '9 + 9' }, key(other.key));
  });

  it('returns the tenant’s verification log, most recent first, paged with next_cursor', async () => {
    const first = await get('/logs?limit=2', key(t.key));
    expect(first.status).toBe(200);
    expect(first.body.logs.map((l: { query: string }) => l.query)).toEqual(['5 + 5', '4 + 4']);
    expect(first.body.next_cursor).toBe('4');
    const second = await get(`/logs?limit=2&cursor=${first.body.next_cursor}`, bearer(t.token));
    expect(second.body.logs.map((l: { query: string }) => l.query)).toEqual(['3 + 3', '2 + 2']);
    const third = await get(`/logs?limit=2&cursor=${second.body.next_cursor}`, key(t.key));
    expect(third.body.logs.map((l: { query: string }) => l.query)).toEqual(['1 + 1']);
    expect(third.body.next_cursor).toBeNull();
    const all = await get('/logs', key(t.key));
    expect(all.body.logs.map((l: { workflow_id: string }) => l.workflow_id)).toEqual([...workflowIds].reverse());
    expect(all.body.logs.every((l: { organization_id: string }) => l.organization_id === t.orgId)).toBe(true);
    expect(all.body.next_cursor).toBeNull();
  });

  it('rejects bad paging parameters (400) and anonymous calls (401)', async () => {
    for (const q of ['limit=0', 'limit=201', 'cursor=abc', 'cursor=0', 'cursor=-3']) {
      const res = await get(`/logs?${q}`, key(t.key));
      expect(res.status, q).toBe(400);
    }
    expect((await get('/logs')).status).toBe(401);
  });
});
