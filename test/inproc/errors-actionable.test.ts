// Errors people can act on (issue 27, point 9), in process: every error body carries a stable
// `code` next to `detail` and a `request_id` (also the X-Request-Id header); a route 404 one typo
// from a served path names it. The matrix lives here; test/http/errors-actionable.test.ts keeps a
// black-box row per behaviour through the stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_KEY, INVALID_KEY } from '../../api/middleware/auth.js';
import { nearestRoute } from '../../api/middleware/errors.js';
import { codeForStatus } from '../../contract/error-codes.js';
import { startInProcessApp, send, type InProcessApp } from './harness.js';

let app: InProcessApp;
beforeAll(async () => {
  app = await startInProcessApp();
});
afterAll(async () => {
  await app?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function call(method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${app.url}${path}`, { method, headers: opts.headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('error bodies: detail, a stable code, the request id', () => {
  const MATH = { expression: '(x+1)^2 = x^2 + 2*x + 1' };
  it.each([
    [
      'no API key',
      () => send(app, '/verify/math', MATH, { key: null }),
      401,
      { detail: MISSING_KEY, code: 'unauthenticated' },
    ],
    [
      'an unknown API key',
      () => send(app, '/verify/math', MATH, { key: 'svc_live_not-a-key' }),
      401,
      { detail: INVALID_KEY, code: 'unauthenticated' },
    ],
    [
      'a missing field',
      () => send(app, '/verify/math', {}),
      400,
      { detail: "Invalid field 'expression': expression is required", code: 'invalid_field' },
    ],
    ['malformed JSON', () => send(app, '/verify/math', undefined, { raw: '{"a": ' }), 400, { code: 'invalid_request' }],
    [
      'a text/plain body',
      () => send(app, '/verify/math', undefined, { raw: '{}', contentType: 'text/plain' }),
      415,
      { code: 'unsupported_media_type' },
    ],
    [
      'a body over the limit',
      () => send(app, '/verify/math', undefined, { raw: JSON.stringify({ expression: 'x'.repeat(1_100_000) }) }),
      413,
      { code: 'payload_too_large' },
    ],
    [
      'a method the path does not serve',
      () => call('GET', '/verify/math'),
      405,
      { detail: 'Method GET is not allowed on this path: use POST.', code: 'method_not_allowed' },
    ],
  ] as const)('%s', async (_label, run, status, expected) => {
    const res = await run();
    expect(res.status).toBe(status);
    expect(Object.keys(res.body)).toEqual(['detail', 'code', 'request_id']);
    expect(res.body).toMatchObject(expected);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.request_id).toMatch(UUID);
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  });

  it('every status gets its own code; unknown ones a generic http_<status>', () => {
    expect([400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 503].map(codeForStatus)).toEqual([
      'invalid_request',
      'unauthenticated',
      'forbidden',
      'not_found',
      'request_timeout',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'unprocessable',
      'rate_limited',
      'internal_error',
      'service_unavailable',
    ]);
    expect(codeForStatus(418)).toBe('http_418');
  });
});

describe('X-Request-Id', () => {
  it('echoes a sane incoming id in the header and the error body', async () => {
    const res = await call('POST', '/verify/math', {
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-42.a:b_c' },
      body: '{}',
    });
    expect(res.headers.get('x-request-id')).toBe('trace-42.a:b_c');
    expect(res.body.request_id).toBe('trace-42.a:b_c');
  });
  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'two words'],
    ['a quote', 'x"y'],
    ['a slash', 'a/b'],
  ])('replaces an id with %s by a fresh one', async (_label, id) => {
    const res = await call('POST', '/verify/math', {
      headers: { 'content-type': 'application/json', 'x-request-id': id },
      body: '{}',
    });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });
  it('is set on successful answers too, fresh per request', async () => {
    const a = await call('GET', '/health');
    const b = await call('GET', '/health');
    expect(a.status).toBe(200);
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
  });
});

describe('a 404 for a near-miss path names the served one', () => {
  it.each([
    ['POST', '/verify/maths', '/verify/math'],
    ['POST', '/verify/Math', undefined],
    ['POST', '/verfy/logic', '/verify/logic'],
    ['POST', '/v1/verify/cod', '/v1/verify/code'],
    ['GET', '/helth', '/health'],
    ['POST', '/agents/ag_123/verfy', '/agents/ag_123/verify'],
  ])('%s %s', async (method, path, hint) => {
    const res = await call(method, path, {
      headers: { 'content-type': 'application/json', 'x-api-key': app.key },
      body: method === 'GET' ? undefined : '{}',
    });
    if (hint === undefined) {
      // The router matches case-insensitively: no 404 at all.
      expect(res.status).not.toBe(404);
      return;
    }
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      detail: `Not Found: no route ${method} ${path}. Did you mean ${hint}?`,
      code: 'route_not_found',
      hint,
      request_id: expect.stringMatching(UUID),
    });
  });
  it('a path nothing is near gets no hint', async () => {
    const res = await call('GET', '/completely/unrelated/thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found', code: 'route_not_found', request_id: expect.stringMatching(UUID) });
  });
  it('nearestRoute: bounded, same segment count, at most two edits', () => {
    const routes = ['/verify/math', '/verify/logic', '/agents/:id/verify', '/health'];
    expect(nearestRoute('/verify/mathh', routes)).toBe('/verify/math');
    expect(nearestRoute('/verify/mxyzh', routes)).toBeUndefined();
    expect(nearestRoute('/verify', routes)).toBeUndefined();
    expect(nearestRoute('/verify/math', routes)).toBeUndefined();
    expect(nearestRoute(`/verify/${'m'.repeat(300)}`, routes)).toBeUndefined();
  });
});
