// Per-IP limits on anonymous /auth/* and plan limits. The store-outage row stops the store:
// it is in store-restart.serial.test.ts (session 18: it shares that file's stop of the store).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { db, newTenant, post, randomIp, uniqueEmail, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { secondApi } from './shared-apis.js';
import type { ManagedProcess } from '../../infra/stack.js';

const MATH = { expression: '1 + 1' };

async function signinAt(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email: uniqueEmail('ghost'), password: 'whatever password' }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('per-IP limit on anonymous /auth/*', () => {
  const procs: ManagedProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('limits by peer address and ignores X-Forwarded-For from an untrusted peer', async () => {
    const { proc, url } = await startExtraApi('api-ip-untrusted', {
      SVC_RATE_LIMIT_PER_IP: '3',
      SVC_AUTH_TRUSTED_PROXIES: '',
    });
    procs.push(proc);
    for (let i = 0; i < 3; i++) expect((await signinAt(url, { 'x-forwarded-for': randomIp() })).status).toBe(401);
    const limited = await signinAt(url, { 'x-forwarded-for': '203.0.113.99' });
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toMatch(/^Too many authentication attempts\. Try again in \d+ seconds\.$/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.detail).toBe(`Too many authentication attempts. Try again in ${retryAfter} seconds.`);
  });

  it('uses the rightmost forwarded hop when the peer is a trusted proxy', async () => {
    const { proc, url } = await startExtraApi('api-ip-trusted', {
      SVC_RATE_LIMIT_PER_IP: '2',
      SVC_AUTH_TRUSTED_PROXIES: '127.0.0.0/8,::1',
    });
    procs.push(proc);
    const hop = { 'x-forwarded-for': '203.0.113.7, 198.51.100.20:4711' };
    expect((await signinAt(url, hop)).status).toBe(401);
    expect((await signinAt(url, hop)).status).toBe(401);
    expect((await signinAt(url, hop)).status).toBe(429);
    // Same leftmost (spoofable) hop, different rightmost hop: a different bucket.
    expect((await signinAt(url, { 'x-forwarded-for': '203.0.113.7, 198.51.100.21' })).status).toBe(401);
  });

  it('refuses to start with SVC_RATE_LIMIT_PER_IP below 1', async () => {
    await expect(startExtraApi('api-ip-zero', { SVC_RATE_LIMIT_PER_IP: '0' }, false)).rejects.toThrow(
      /SVC_RATE_LIMIT_PER_IP must be at least 1/,
    );
  });
});

describe('plan limits', () => {
  let free: Member;
  beforeAll(async () => {
    free = await newTenant('free');
  });

  it('shares per-organization counters across two API processes', async () => {
    const { url, release } = await secondApi();
    onTestFinished(release);
    const first = await post('/verify/math', MATH, { 'x-api-key': free.key });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    const r1 = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await fetch(`${url}/verify/math`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': free.key },
      body: JSON.stringify(MATH),
    });
    expect(second.status).toBe(200);
    const r2 = Number(second.headers.get('x-ratelimit-remaining'));
    // Same minute window: the other process saw this process's request.
    if (Number(first.headers.get('x-ratelimit-reset')) === Number(second.headers.get('x-ratelimit-reset')))
      expect(r2).toBe(r1 - 1);
    expect(Number(second.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('answers 429 with the SVC-005 object once the minute window is used up', async () => {
    const t = await newTenant('free');
    const now = Math.floor(Date.now() / 1000);
    const start = now - (now % 60);
    await (
      await db()
    )
      .collection('rate_counters')
      .insertOne({ _id: `org:${t.orgId}:60:${start}` as any, count: 60, expires_at: new Date((start + 120) * 1000) });
    const res = await post('/verify/math', MATH, { 'x-api-key': t.key });
    if (Math.floor(Date.now() / 1000) - (Math.floor(Date.now() / 1000) % 60) !== start) return; // window rolled over mid-test
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: {
        code: 'SVC-005',
        message: 'Rate limit exceeded',
        details: { limit: 60, reset_at: new Date((start + 60) * 1000).toISOString(), retry_after: expect.any(Number) },
      },
      request_id: expect.any(String),
    });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('answers 429 once the daily quota is used up, and pro plans get 600/min', async () => {
    const t = await newTenant('free');
    const now = Math.floor(Date.now() / 1000);
    const day = now - (now % 86_400);
    await (await db()).collection('rate_counters').insertOne({
      _id: `org:${t.orgId}:86400:${day}` as any,
      count: 1000,
      expires_at: new Date((day + 86_460) * 1000),
    });
    const res = await post('/verify/math', MATH, { 'x-api-key': t.key });
    expect(res.status).toBe(429);
    expect(res.body.error.details.limit).toBe(1000);
    const pro = await newTenant('pro');
    const ok = await post('/verify/math', MATH, { 'x-api-key': pro.key });
    expect(ok.headers.get('x-ratelimit-limit')).toBe('600');
  });
});
