// The client's retry logic against a tiny local HTTP server: 429/503 retried within bounds,
// Retry-After honoured (seconds and HTTP-date), every other error thrown at once, and no error
// ever returned as a result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcClient, SvcApiError, SvcNetworkError, parseRetryAfter, outcomeOf } from '../../client/index.js';

interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

let server: Server;
let base: string;
let script: Scripted[] = [];
let hits: { method: string; url: string; at: number; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', at: Date.now(), body });
      const next = script.shift() ?? { status: 500, body: { detail: 'script exhausted' } };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function setup(steps: Scripted[], opts: ConstructorParameters<typeof SvcClient>[0] = {}) {
  script = [...steps];
  hits = [];
  const waits: number[] = [];
  const client = new SvcClient({
    baseUrl: base,
    apiKey: 'svc_live_test',
    sleep: async (ms) => void waits.push(ms),
    ...opts,
  });
  return { client, waits };
}

const verified = { status: 'VERIFIED', is_valid: true, proof_ref: `sha256:${'a'.repeat(64)}`, is_authoritative: true };

describe('Retry-After', () => {
  it('parses delta-seconds and HTTP-dates; past dates are 0; junk is null', () => {
    const now = Date.parse('2026-11-23T22:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 22:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 21:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-1', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('waits the seconds a 429 names, then returns the 200 (real wait, same body sent again)', async () => {
    script = [
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { code: 'SVC-005', message: 'Rate limit exceeded' } },
      },
      { status: 200, body: verified },
    ];
    hits = [];
    const client = new SvcClient({ baseUrl: base, apiKey: 'k' });
    const res = await client.verifyMath('1+1 = 2');
    expect(res).toEqual(verified);
    expect(hits).toHaveLength(2);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(950);
    expect(hits[1]!.body).toBe(hits[0]!.body);
    expect(JSON.parse(hits[1]!.body)).toEqual({ expression: '1+1 = 2' });
  });

  it('honours an HTTP-date on 503', async () => {
    const at = new Date(Date.now() + 20_000).toUTCString();
    const { client, waits } = setup([
      { status: 503, headers: { 'retry-after': at }, body: { detail: 'Server busy — retry shortly.' } },
      { status: 200, body: verified },
    ]);
    await expect(client.verifyMath('x = x')).resolves.toEqual(verified);
    expect(waits).toHaveLength(1);
    // The date's distance (19-20 s at second resolution, less the time spent getting here, seconds
    // at most on a loaded machine), not a computed back-off (at most 8 s).
    expect(waits[0]).toBeGreaterThan(10_000);
    expect(waits[0]).toBeLessThanOrEqual(20_000);
  });

  it('falls back to the SVC-005 body retry_after, then to exponential back-off', async () => {
    const { client, waits } = setup([
      {
        status: 429,
        body: {
          error: {
            code: 'SVC-005',
            message: 'Rate limit exceeded',
            details: { limit: 60, reset_at: 'x', retry_after: 2 },
          },
        },
      },
      { status: 503, body: { detail: 'Server busy — retry shortly.' } },
      { status: 503, body: { detail: 'Server busy — retry shortly.' } },
      { status: 200, body: verified },
    ]);
    await expect(client.health()).resolves.toEqual(verified);
    expect(waits).toEqual([2000, 1000, 2000]);
  });
});

describe('give-up bounds', () => {
  it('stops after maxAttempts and throws the last 503 with its detail', async () => {
    const busy = {
      status: 503,
      headers: { 'retry-after': '0' },
      body: { detail: 'Batch capacity reached — retry shortly.' },
    };
    const { client, waits } = setup([busy, busy, busy, busy, busy], { retry: { maxAttempts: 3 } });
    const err = await client.submitBatch([{ query: '1+1', type: 'math' }]).catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err).toMatchObject({ status: 503, detail: 'Batch capacity reached — retry shortly.', retryable: true });
    expect(hits).toHaveLength(3);
    expect(waits).toEqual([0, 0]);
  });

  it('gives up at once when Retry-After exceeds the total wait budget', async () => {
    const { client, waits } = setup([
      {
        status: 429,
        headers: { 'retry-after': '3600' },
        body: { error: { code: 'SVC-005', message: 'Rate limit exceeded' } },
      },
      { status: 200, body: verified },
    ]);
    const err = await client.verifyMath('1').catch((e) => e);
    expect(err).toMatchObject({ status: 429, detail: 'Rate limit exceeded', code: 'SVC-005' });
    expect(hits).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('counts the waits against maxTotalWaitMs', async () => {
    const step = { status: 503, headers: { 'retry-after': '4' }, body: { detail: 'Server busy — retry shortly.' } };
    const { client, waits } = setup([step, step, step, step], { retry: { maxAttempts: 10, maxTotalWaitMs: 10_000 } });
    await expect(client.verifyMath('1')).rejects.toMatchObject({ status: 503 });
    expect(waits).toEqual([4000, 4000]);
    expect(hits).toHaveLength(3);
  });
});

describe('no retry, no pass', () => {
  it.each([400, 401, 403, 404, 408, 413, 422, 500])('HTTP %i is thrown at once with its detail', async (status) => {
    const { client, waits } = setup([
      { status, body: { detail: `detail ${status}` } },
      { status: 200, body: verified },
    ]);
    await expect(client.verifyMath('1')).rejects.toEqual(
      new SvcApiError(status, `detail ${status}`, { detail: `detail ${status}` }),
    );
    expect(hits).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('a BLOCKED verdict sent with 403 by logic is returned as data, and is not a pass', async () => {
    const blocked = {
      status: 'BLOCKED',
      reason: 'string_literal',
      detail: 'String literals are not allowed',
      provider_used: null,
    };
    const { client } = setup([{ status: 403, body: blocked }]);
    const res = await client.verifyLogic('(EQ x "a")');
    expect(res).toEqual(blocked);
    expect(outcomeOf('logic', res)).toBe('blocked');
  });

  it('a 403 without a verdict still throws, even on a verdict endpoint', async () => {
    const { client } = setup([{ status: 403, body: { detail: 'Insufficient permissions for this operation' } }]);
    await expect(client.verifyLogic('(GT x 1)')).rejects.toMatchObject({
      status: 403,
      detail: 'Insufficient permissions for this operation',
    });
  });

  it('a 2xx that is not JSON is an error, not a result', async () => {
    script = [];
    hits = [];
    const fakeFetch = (async () => new Response('<html>ok</html>', { status: 200 })) as unknown as typeof fetch;
    const client = new SvcClient({ baseUrl: base, apiKey: 'k', fetch: fakeFetch });
    await expect(client.verifyMath('1')).rejects.toMatchObject({ status: 200, detail: 'response is not JSON' });
  });

  it('an unreachable service is a network error', async () => {
    const client = new SvcClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', retry: { maxAttempts: 1 } });
    const err = await client.health().catch((e) => e);
    expect(err).toBeInstanceOf(SvcNetworkError);
    expect(err.timedOut).toBe(false);
  });

  it('only a proven result is a pass', () => {
    expect(outcomeOf('math', verified)).toBe('verified');
    expect(outcomeOf('math', { ...verified, proof_ref: null })).toBe('not_verified');
    expect(outcomeOf('math', { status: 'UNVERIFIABLE', proof_ref: null })).toBe('not_verified');
    expect(outcomeOf('code', { ...verified, admission: 'BLOCKED' })).toBe('blocked');
    expect(outcomeOf('code', { ...verified, admission: 'ADMIT' })).toBe('verified');
    expect(outcomeOf('code', { ...verified })).toBe('not_verified');
    expect(outcomeOf('stats', { status: 'UNVERIFIABLE', proof_ref: null })).toBe('not_verified');
    expect(outcomeOf('logic', { status: 'ERROR', error: 'Internal verification error' })).toBe('error');
    expect(outcomeOf('natural_language', { status: 'INCONCLUSIVE' })).toBe('not_verified');
    expect(outcomeOf('fact', { verdict: 'REFUTED' })).toBe('not_verified');
    expect(outcomeOf('consensus', { meets_requirement: 'true' })).toBe('not_verified');
    expect(outcomeOf('math', undefined)).toBe('error');
  });
});

describe('credentials', () => {
  it('sends the key only where the endpoint takes it, and the bearer token to /auth', async () => {
    script = [
      { status: 200, body: { status: 'healthy' } },
      { status: 200, body: [] },
    ];
    hits = [];
    const seen: Record<string, string>[] = [];
    const spy = (async (url: string, init: RequestInit) => {
      seen.push(init.headers as Record<string, string>);
      return fetch(url, init);
    }) as unknown as typeof fetch;
    const client = new SvcClient({ baseUrl: base, apiKey: 'svc_live_k', accessToken: 'jwt.t.x', fetch: spy });
    await client.health();
    await client.listKeys();
    expect(seen[0]!['x-api-key']).toBeUndefined();
    expect(seen[1]).toMatchObject({ authorization: 'Bearer jwt.t.x' });
    expect(seen[1]!['x-api-key']).toBeUndefined();
  });
});
