// Errors people can act on (issue 27, point 9), black box through the stack: a stable `code` next
// to `detail`, a `request_id` in the body, the X-Request-Id header and the access log, and a hint
// on a 404 one typo from a served path. The plan rate limit keeps the contract's SVC-005 object.
// The full matrix is in test/inproc/errors-actionable.test.ts.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { db, get, http, newTenant, PASSWORD, post, randomIp, uniqueEmail } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function apiLog(): string {
  const f = path.join(inject('dataDir'), 'logs', 'api.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
}

describe('error bodies through the stack', () => {
  it('401 without a key: detail, code unauthenticated, request_id = X-Request-Id', async () => {
    const res = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      detail: 'Missing API key: send it in the X-API-Key header.',
      code: 'unauthenticated',
      request_id: expect.stringMatching(UUID),
    });
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  });

  it('400 for a missing field is invalid_field, and a sane caller id is echoed and logged', async () => {
    const t = await newTenant();
    const rid = `h10-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const res = await post('/verify/math', {}, { 'x-api-key': t.key, 'x-request-id': rid });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: "Invalid field 'expression': expression is required",
      code: 'invalid_field',
      request_id: rid,
    });
    expect(res.headers.get('x-request-id')).toBe(rid);
    // The access log line of this request carries the id (the log is flushed asynchronously).
    const deadline = Date.now() + 10_000;
    while (!apiLog().includes(rid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const line = apiLog()
      .split('\n')
      .find((l) => l.includes(rid));
    expect(line).toBeDefined();
    expect(line).toContain('/verify/math');
    expect(line).toContain('400');
  });

  it('an insane caller id is replaced by a fresh one', async () => {
    const res = await post('/verify/math', {}, { 'x-request-id': 'not a sane id' });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('409 for a second signup with the same e-mail is conflict', async () => {
    const email = uniqueEmail('twice');
    const body = { email, password: PASSWORD, organization_name: 'Twice' };
    expect((await post('/auth/signup', body, { 'x-forwarded-for': randomIp() })).status).toBe(200);
    const again = await post('/auth/signup', body, { 'x-forwarded-for': randomIp() });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      detail: expect.any(String),
      code: 'conflict',
      request_id: expect.stringMatching(UUID),
    });
  });

  it('405 names the allowed method, code method_not_allowed', async () => {
    const res = await get('/verify/math');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      detail: 'Method GET is not allowed on this path: use POST.',
      code: 'method_not_allowed',
      request_id: expect.stringMatching(UUID),
    });
  });

  it('404 on a near-miss path says which path was meant (also under /v1)', async () => {
    const t = await newTenant();
    const res = await post('/verify/maths', { expression: '1 + 1 = 2' }, { 'x-api-key': t.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      detail: 'Not Found: no route POST /verify/maths. Did you mean /verify/math?',
      code: 'route_not_found',
      hint: '/verify/math',
      request_id: expect.stringMatching(UUID),
    });
    const v1 = await http('GET', '/v1/helth');
    expect(v1.status).toBe(404);
    expect(v1.body.hint).toBe('/v1/health');
    const far = await get('/nothing/like/this');
    expect(far.body).toEqual({ detail: 'Not Found', code: 'route_not_found', request_id: expect.stringMatching(UUID) });
  });

  it('404 for a resource (not a route) is not_found', async () => {
    const t = await newTenant();
    const res = await get('/verify/batch/job_does_not_exist', { 'x-api-key': t.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: 'not_found',
      request_id: expect.stringMatching(UUID),
    });
  });

  it('429 keeps the SVC-005 object and adds only request_id', async () => {
    const t = await newTenant('free');
    const now = Math.floor(Date.now() / 1000);
    const start = now - (now % 60);
    await (
      await db()
    )
      .collection('rate_counters')
      .insertOne({ _id: `org:${t.orgId}:60:${start}` as any, count: 60, expires_at: new Date((start + 120) * 1000) });
    const res = await post('/verify/math', { expression: '1 + 1 = 2' }, { 'x-api-key': t.key });
    if (Math.floor(Date.now() / 1000) - (Math.floor(Date.now() / 1000) % 60) !== start) return; // window rolled over mid-test
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: {
        code: 'SVC-005',
        message: 'Rate limit exceeded',
        details: { limit: 60, reset_at: new Date((start + 60) * 1000).toISOString(), retry_after: expect.any(Number) },
      },
      request_id: res.headers.get('x-request-id'),
    });
  });
});
