// The sandboxed endpoints fail closed. Two extra worker + API pairs share the test stack's
// Temporal and store, each on its own task queue:
//   - "nodocker": the worker's DOCKER_HOST points at a socket that does not exist → 503
//     `sandbox unavailable` (the API also reads uploads with a 2 s deadline, for the 408 case);
//   - "oneslot": one sandbox container per worker, no wait for a slot → capacity rejections.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { startExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { newTenant, type Member } from './helpers.js';
import { BOUNDARY, postStats } from './uploads.js';

const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
const CSV = 'a,b\n1,2\n3,4\n5,6\n';

async function postJson(base: string, path: string, key: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

describe('sandbox failures', () => {
  const procs: ManagedProcess[] = [];
  let noDocker = '';
  let oneSlot = '';
  let t: Member;

  beforeAll(async () => {
    t = await newTenant();
    const qNoDocker = `svc-test-nodocker-${OFFSET}`;
    const qOneSlot = `svc-test-oneslot-${OFFSET}`;
    const [w1, w2, a1, a2] = await Promise.all([
      startExtraWorker('worker-nodocker', {
        SVC_TASK_QUEUE: qNoDocker,
        DOCKER_HOST: 'unix:///nonexistent/docker.sock',
      }),
      startExtraWorker('worker-oneslot', {
        SVC_TASK_QUEUE: qOneSlot,
        SVC_SANDBOX_MAX_CONCURRENT: '1',
        SVC_SANDBOX_ACQUIRE_TIMEOUT: '0.001',
      }),
      startExtraApi('api-nodocker', { SVC_TASK_QUEUE: qNoDocker, SVC_UPLOAD_READ_TIMEOUT: '2' }),
      startExtraApi('api-oneslot', { SVC_TASK_QUEUE: qOneSlot }),
    ]);
    procs.push(w1, w2, a1.proc, a2.proc);
    noDocker = a1.url;
    oneSlot = a2.url;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });

  describe('Docker unavailable', () => {
    it('the worker starts anyway, without touching Docker (session 16: no reap at start)', () => {
      expect(procs[0]?.logContains('worker ready')).toBe(true);
      expect(procs[0]?.logContains('sandbox reaping skipped')).toBe(false);
    });

    it('consensus high and maximum answer 503 sandbox unavailable', async () => {
      for (const mode of ['high', 'maximum']) {
        const res = await postJson(noDocker, '/verify/consensus', t.key, {
          query: '2^10 = 1024',
          verification_mode: mode,
        });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          detail: 'sandbox unavailable',
          code: expect.any(String),
          request_id: expect.any(String),
        });
        expect(res.headers.get('x-workflow-id')).toMatch(/^verify-consensus-/);
      }
    });

    it('consensus single needs no sandbox and still answers VERIFIED', async () => {
      const res = await postJson(noDocker, '/verify/consensus', t.key, { query: '2^10 = 1024' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'VERIFIED', meets_requirement: true });
    });

    it('stats answers 503 sandbox unavailable', async () => {
      const res = await postStats(t.key, { file: CSV, query: 'mean(a) > 1' }, noDocker);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        detail: 'sandbox unavailable',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    });

    it('the first sandbox run reaps the leftovers; without Docker it is skipped with a warning', async () => {
      // The rows above ran the sandbox; the reap runs once, in the background, beside the first run.
      const until = Date.now() + 10_000;
      while (!procs[0]?.logContains('sandbox reaping skipped: Docker unavailable') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      expect(procs[0]?.logContains('sandbox reaping skipped: Docker unavailable')).toBe(true);
    });

    it('stats still answers an unsupported query (BLOCKED) without the sandbox', async () => {
      const res = await postStats(t.key, { file: CSV, query: 'mode(a)' }, noDocker);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'BLOCKED',
        developer_fields: { constraint_id: 'stats_verifier.validation_error' },
      });
    });

    it('an upload that stalls past SVC_UPLOAD_READ_TIMEOUT answers 408', async () => {
      const url = new URL(noDocker);
      const started = Date.now();
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(Number(url.port), url.hostname, () =>
          sock.write(
            `POST /verify/stats HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\n` +
              `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 4000\r\n\r\n--${BOUNDARY}\r\n`,
          ),
        );
        let data = '';
        sock.on('data', (d) => (data += d.toString()));
        sock.on('error', reject);
        sock.on('close', () => resolve(data));
      });
      expect(reply).toMatch(/^HTTP\/1\.1 408/);
      expect(reply).toContain('{"detail":"Request body not received in time.","code":"request_timeout","request_id":"');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  describe('sandbox at capacity (one slot, no wait)', () => {
    it('stats: concurrent requests beyond the slot are BLOCKED with the capacity message, never VERIFIED', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () => postStats(t.key, { file: CSV, query: 'mean(a) = 3' }, oneSlot)),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      const statuses = results.map((r) => r.body.status);
      expect(statuses).not.toContain('VERIFIED');
      const rejected = results.filter((r) => r.body.status === 'BLOCKED');
      expect(rejected.length).toBeGreaterThanOrEqual(1);
      for (const r of rejected) {
        expect(r.body.agent_message).toBe('Sandbox capacity reached — retry shortly.');
        expect(r.body.developer_fields).toMatchObject({
          constraint_id: 'stats_verifier.runtime_unavailable',
          sandbox_error: 'capacity',
        });
        expect(r.body.proof_ref).toBeNull();
      }
      const ran = results.filter((r) => r.body.status === 'UNVERIFIABLE');
      expect(ran.length).toBeGreaterThanOrEqual(1);
      for (const r of ran) expect(r.body.developer_fields.is_valid).toBe(true);
    });

    it('consensus: a request that cannot get a sandbox slot answers 503 with the capacity message', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          postJson(oneSlot, '/verify/consensus', t.key, { query: '7 * 6 = 42', verification_mode: 'high' }),
        ),
      );
      const busy = results.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThanOrEqual(1);
      for (const r of busy)
        expect(r.body).toEqual({
          detail: 'Sandbox capacity reached — retry shortly.',
          code: expect.any(String),
          request_id: expect.any(String),
        });
      for (const r of results.filter((x) => x.status !== 503)) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', final_answer: 'true', meets_requirement: false });
      }
    });
  });
});
