// Session 15 (issue 22): the API-key cache's single flight (core/key-cache.ts `load`). When a
// key is not cached (first use, or its 5 s entry expired), concurrent requests used to miss at
// once and each made the key's reads; now they share one lookup. Black box on an API process of
// its own under the store-command capture: 12 concurrent first uses of a key read its digest
// once. Revocation through that process still takes effect at once for every request after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { newTenant, type Member } from './helpers.js';
import { captureEnv } from '../store-commands/env.js';
import { classify, readCapture } from '../store-commands/classify.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('API-key cache single flight (session 15)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-keycache-capture-'));
  let api: ExtraApi;
  let t: Member;
  beforeAll(async () => {
    api = await startExtraApi('api-keycache-s15', captureEnv(dir));
    t = await newTenant();
  }, 180_000);
  afterAll(async () => {
    await api?.proc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (p: string, headers: Record<string, string>, method = 'GET') => {
    const res = await fetch(`${api.url}${p}`, { method, headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const digestReads = () =>
    readCapture(dir)
      .flatMap(classify)
      .filter((o) => o.coll === 'api_key_digests' && o.cmd === 'find').length;

  it('12 concurrent first uses of a key: all 200, and the key is read once', async () => {
    await sleep(600); // the capture flushes every 250 ms
    const before = digestReads();
    const all = await Promise.all(
      Array.from({ length: 12 }, () => call(`/metrics/${t.orgId}`, { 'x-api-key': t.key })),
    );
    expect(all.map((r) => r.status)).toEqual(Array(12).fill(200));
    await sleep(600);
    // Before session 15: 12 (one per request).
    expect(digestReads() - before).toBe(1);
  }, 60_000);

  it('revoked through this process: 12 concurrent requests right after the revocation are all 401 with the detail', async () => {
    const revoke = await call(`/auth/api-keys/${t.keyId}`, { authorization: `Bearer ${t.token}` }, 'DELETE');
    expect(revoke.status).toBe(200);
    const all = await Promise.all(
      Array.from({ length: 12 }, () => call(`/metrics/${t.orgId}`, { 'x-api-key': t.key })),
    );
    for (const r of all) {
      expect(r.status).toBe(401);
      expect(r.body.detail).toBe('API key is revoked, inactive or expired.');
    }
  }, 60_000);
});
