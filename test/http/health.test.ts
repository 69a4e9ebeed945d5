import { beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import nodeHttp from 'node:http';
import { apiUrl, get, http, newTenant, stackEnv } from './helpers.js';

describe('GET /health', () => {
  it('reports service, version 7.3.0 and an ISO timestamp', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'healthy', service: 'svc-verification-service', version: '7.3.0' });
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
    expect(Object.keys(res.body).sort()).toEqual(['service', 'status', 'timestamp', 'version']);
  });

  it('is served under /v1 as well', async () => {
    const res = await get('/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('7.3.0');
  });
});

describe('GET /health/identity', () => {
  it('returns both HMACs of the nonce under the two server secrets', async () => {
    const nonce = `n-${Date.now()}`;
    const res = await get(`/health/identity?nonce=${encodeURIComponent(nonce)}`);
    expect(res.status).toBe(200);
    const env = stackEnv();
    const jwt = createHmac('sha256', env.SVC_JWT_SECRET_KEY as string)
      .update(`svc-server-identity-v1:jwt:${nonce}`)
      .digest('hex');
    const lookup = createHmac('sha256', env.SVC_API_KEY_LOOKUP_SECRET as string)
      .update(`svc-server-identity-v1:lookup:${nonce}`)
      .digest('hex');
    expect(res.body).toEqual({ identity: { jwt_hmac: jwt, lookup_hmac: lookup } });
    expect(res.text).not.toContain(env.SVC_JWT_SECRET_KEY as string);
    expect(res.text).not.toContain(env.SVC_API_KEY_LOOKUP_SECRET as string);
  });

  it('accepts a nonce of exactly 128 characters', async () => {
    const res = await get(`/health/identity?nonce=${'a'.repeat(128)}`);
    expect(res.status).toBe(200);
    expect(res.body.identity.jwt_hmac).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['missing', ''],
    ['empty', '?nonce='],
    ['over 128 characters', `?nonce=${'a'.repeat(129)}`],
    ['repeated', '?nonce=a&nonce=b'],
  ])('rejects a %s nonce with 400', async (_label, query) => {
    const res = await get(`/health/identity${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'nonce is required (max 128 characters)',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});

describe('HTTP hygiene', () => {
  let key: Record<string, string>;
  beforeAll(async () => {
    key = { 'x-api-key': (await newTenant()).key };
  });

  it('answers unknown routes with 404 and a detail', async () => {
    const res = await get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found', code: expect.any(String), request_id: expect.any(String) });
  });

  // Found by the fuzzer (bench/fuzz-openapi.sh): a method no route uses (TRACE) was a bare
  // 501, a known method on the wrong path a bare 405; both are client errors with a detail.
  it('answers a method the path does not serve with 405, Allow and a detail (never a 5xx)', async () => {
    // fetch refuses TRACE, so it goes out through node:http.
    const trace = await new Promise<{ status: number; allow: string | undefined; body: unknown }>((resolve, reject) => {
      const req = nodeHttp.request(`${apiUrl()}/health`, { method: 'TRACE' }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(trace).toEqual({
      status: 405,
      allow: 'HEAD, GET',
      body: {
        detail: 'Method TRACE is not allowed on this path: use HEAD, GET.',
        code: 'method_not_allowed',
        request_id: expect.any(String),
      },
    });
    // Any other method no route uses (was a bare 501).
    const propfind = await http('PROPFIND', '/health');
    expect(propfind.status).toBe(405);
    expect(propfind.body).toEqual({
      detail: 'Method PROPFIND is not allowed on this path: use HEAD, GET.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const del = await http('DELETE', '/verify/math', { headers: key });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('POST');
    expect(del.body).toEqual({
      detail: 'Method DELETE is not allowed on this path: use POST.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const patch = await http('PATCH', '/v1/auth/api-keys', { body: {} });
    expect(patch.status).toBe(405);
    expect(patch.body.detail).toMatch(/^Method PATCH is not allowed on this path: use /);
    // OPTIONS still lists the methods.
    const options = await http('OPTIONS', '/verify/math');
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('POST');
  });

  it('rejects malformed JSON with 400 and never a stack trace', async () => {
    const res = await http('POST', '/verify/math', {
      rawBody: '{"expression": "1+1",',
      headers: { 'content-type': 'application/json', ...key },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Malformed JSON body/);
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('rejects a non-object body with 400', async () => {
    const res = await http('POST', '/verify/math', {
      rawBody: '[1,2]',
      headers: { 'content-type': 'application/json', ...key },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'Request body must be a JSON object.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('rejects an empty body with 400', async () => {
    const res = await http('POST', '/verify/math', {
      rawBody: '',
      headers: { 'content-type': 'application/json', ...key },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'Request body is required (a JSON object).',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('rejects a non-JSON content type with 415', async () => {
    const res = await http('POST', '/verify/math', {
      rawBody: 'expression=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...key },
    });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/application\/json/);
  });
});
