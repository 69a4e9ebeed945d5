// POST /webhooks/secret-scanning through the real stack (Temporal, store, worker, SMTP sink),
// with a local key server and feedback sink in this process (secret-scanning-fixture.ts;
// global-setup.ts points the stack at it). Contract: "POST /webhooks/secret-scanning" and
// "Events"; docs/secret-scanning.md. The SMTP and worker outage rows stop stack components:
// they are in secret-scanning.serial.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiUrl, db, get, mintKey, newTenant, addMember, post, stackEnv, type Member } from './helpers.js';
import { lookupDigest, maskApiKey } from '../../core/api-keys.js';
import { startExtraApi } from './extra-api.js';
import { extraWorker } from './extra-worker.js';
import {
  INVALID,
  PATH,
  closeTemporal,
  deliver,
  expectNothingKept,
  historyContains,
  keyDoc,
  keyServer,
  mailsFor,
  match,
  newSigningKey,
  openTemporal,
  REVOKED_WITHIN_MS,
  revokedAt,
  sha256,
  signed,
  sleep,
  startFixture,
  stopFixture,
  temporal,
  waitFor,
  workflowExists,
} from './secret-scanning-fixture.js';

// ---------------------------------------------------------------------------------------

describe('POST /webhooks/secret-scanning', () => {
  const current = newSigningKey();
  const stranger = newSigningKey(); // never published

  beforeAll(async () => {
    keyServer.published.push(current);
    await startFixture();
    await openTemporal();
  });

  afterAll(async () => {
    await stopFixture();
    await closeTemporal();
  });

  it('revokes a real key within seconds of the 200; the key then gets 401; one audit event, one e-mail, hashed feedback', async () => {
    const t = await newTenant();
    const spare = await mintKey(t.token, 'spare key'); // to call the owner-only audit check afterwards
    const m = match(t.key);
    const body = JSON.stringify([m]);
    const res = await deliver(body, signed(body, current));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'accepted', delivery_id: sha256(body), matches: 1 });
    // "Within seconds", not after a retry back-off: the bound leaves room for a loaded CI machine
    // (2.8 s seen there); bench/leak-revocation.ts measures the latency itself.
    const seen = await revokedAt(t.keyId);
    expect(seen - res.at).toBeLessThan(REVOKED_WITHIN_MS);

    const doc = await keyDoc(t.keyId);
    expect(doc?.active).toBe(false);
    expect(doc?.revoked_at).toBeInstanceOf(Date);
    const denied = await post('/verify/math', { expression: '1 + 1' }, { 'x-api-key': t.key });
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({
      detail: 'API key is revoked, inactive or expired.',
      code: expect.any(String),
      request_id: expect.any(String),
    });

    // The security event in the organization's audit chain, with the masked preview only.
    const preview = maskApiKey(t.key);
    const logs = await waitFor(
      'audit event',
      async () => {
        const r = await get('/audit/logs', { authorization: `Bearer ${t.token}` });
        const found = r.body.logs.filter((l: any) => l.status === 'SECRET_LEAK_AUTO_REVOKED');
        return found.length > 0 ? found : null;
      },
      10_000,
      200,
    );
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      key_id: t.keyId,
      engine: 'security',
      verified: false,
      query: `SECRET_LEAK_AUTO_REVOKED ${preview}`,
    });
    expect(JSON.stringify(logs[0])).not.toContain(t.key);
    const chain = await get(`/admin/compliance/verify/${logs[0].id}`, { 'x-api-key': spare.key });
    expect(chain.status).toBe(200);
    expect(chain.body.valid).toBe(true);

    // One e-mail to the key's user, with the preview and never the key.
    const mails = await waitFor(
      'notification e-mail',
      async () => (mailsFor(t.keyId).length > 0 ? mailsFor(t.keyId) : null),
      15_000,
      200,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain(`To: ${t.email}`);
    expect(mails[0]).toContain(preview);
    expect(mails[0]).not.toContain(t.key);
    expect(mails[0]).not.toContain(t.key.slice(9, 30));

    // Feedback: one label per match, a SHA-256 hash (the feedback URL is plain HTTP, so never raw).
    const fb = await waitFor(
      'feedback',
      async () => keyServer.feedback.find((p) => JSON.stringify(p).includes(sha256(t.key))),
      15_000,
      100,
    );
    expect(fb).toEqual([{ token_hash: sha256(t.key), token_type: 'svc_live_api_key', label: 'true_positive' }]);
    expect(JSON.stringify(keyServer.feedback)).not.toContain(t.key);
    // Workflow inputs and results are in Temporal's history, encrypted by the payload codec
    // (docs/payload-encryption.md): neither the key nor even its lookup digest is readable there.
    expect(historyContains(lookupDigest(t.key, stackEnv().SVC_API_KEY_LOOKUP_SECRET as string))).toBe(false);
    expect(historyContains(t.key)).toBe(false);
  });

  it('a redelivery is the same workflow: 200 again, nothing revoked twice, no second e-mail', async () => {
    const t = await newTenant();
    const body = JSON.stringify([match(t.key)]);
    const first = await deliver(body, signed(body, current));
    expect(first.status).toBe(200);
    await revokedAt(t.keyId);
    await waitFor('e-mail', async () => mailsFor(t.keyId).length === 1, 15_000, 200);
    const revokedOnce = (await keyDoc(t.keyId))?.revoked_at;

    const again = await deliver(body, signed(body, current));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The same body re-signed with a fresh signature is still the same delivery.
    const third = await deliver(body, signed(body, current));
    expect(third.status).toBe(200);
    await sleep(1500);
    expect(mailsFor(t.keyId)).toHaveLength(1);
    expect((await keyDoc(t.keyId))?.revoked_at).toEqual(revokedOnce);
    const events = await (
      await db()
    )
      .collection('audit_logs')
      .countDocuments({ organization_id: t.orgId, 'result.status': 'SECRET_LEAK_AUTO_REVOKED' });
    expect(events).toBe(1);
    const runs = [];
    for await (const w of temporal().workflow.list({ query: `WorkflowId = "leak-revocation-${sha256(body)}"` }))
      runs.push(w);
    expect(runs).toHaveLength(1);
  });

  it('an already-revoked key or an unknown token changes nothing and sends nothing; feedback labels them', async () => {
    const t = await newTenant();
    const first = JSON.stringify([match(t.key)]);
    expect((await deliver(first, signed(first, current))).status).toBe(200);
    await revokedAt(t.keyId);
    await waitFor('first e-mail', async () => mailsFor(t.keyId).length === 1, 15_000, 200);
    const revokedOnce = (await keyDoc(t.keyId))?.revoked_at;

    // Another delivery (different body) naming the same, now revoked key, plus an unknown token.
    const unknown = `svc_live_${randomBytes(24).toString('base64url').slice(0, 30)}unknwn`;
    const second = JSON.stringify([
      match(t.key, 'again'),
      { token: unknown, type: 'svc_live_api_key', url: 'https://example.test/x', source: 'commit', extra: 'ignored' },
    ]);
    const res = await deliver(second, signed(second, current));
    expect(res.status).toBe(200);
    expect(res.body.matches).toBe(2);
    const fb = await waitFor(
      'feedback',
      async () => keyServer.feedback.find((p) => JSON.stringify(p).includes(sha256(unknown))),
      15_000,
      100,
    );
    expect(fb).toEqual([
      { token_hash: sha256(t.key), token_type: 'svc_live_api_key', label: 'true_positive' },
      { token_hash: sha256(unknown), token_type: 'svc_live_api_key', label: 'false_positive' },
    ]);
    await sleep(500);
    expect(mailsFor(t.keyId)).toHaveLength(1);
    expect((await keyDoc(t.keyId))?.revoked_at).toEqual(revokedOnce);
    expect(
      await (
        await db()
      )
        .collection('audit_logs')
        .countDocuments({ organization_id: t.orgId, 'result.status': 'SECRET_LEAK_AUTO_REVOKED' }),
    ).toBe(1);
  });

  it('mails the organization’s first active owner when the key’s user is no longer active', async () => {
    const t = await newTenant();
    const member = await addMember(t.orgId, 'member');
    await (await db()).collection('users').updateOne({ _id: member.userId as any }, { $set: { active: false } });
    const body = JSON.stringify([match(member.key)]);
    expect((await deliver(body, signed(body, current))).status).toBe(200);
    await revokedAt(member.keyId);
    const mails = await waitFor(
      'fallback e-mail',
      async () => (mailsFor(member.keyId).length > 0 ? mailsFor(member.keyId) : null),
      15_000,
      200,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain(`To: ${t.email}`);
    expect(mails[0]).not.toContain(member.email);
    expect(mails[0]).not.toContain(member.key);
  });

  describe('refused before anything is parsed, logged or stored', () => {
    let t: Member;
    let auditBefore: number;
    beforeAll(async () => {
      t = await newTenant();
      auditBefore = await (await db()).collection('audit_logs').countDocuments({ organization_id: t.orgId });
    });

    const report = () => {
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      return { marker, body: JSON.stringify([match(t.key, marker)]) };
    };

    it('forged: a signature over another body', async () => {
      const { marker, body } = report();
      const other = JSON.stringify([match(t.key)]);
      const res = await deliver(body, signed(other, current));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ...INVALID, code: expect.any(String), request_id: expect.any(String) });
      await expectNothingKept(t, body, marker, auditBefore);
    });

    it('truncated: the body cut short under the original signature', async () => {
      const { marker, body } = report();
      const headers = signed(body, current);
      const cut = body.slice(0, body.length - 3);
      const res = await deliver(cut, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ...INVALID, code: expect.any(String), request_id: expect.any(String) });
      await expectNothingKept(t, cut, marker, auditBefore);
    });

    it('re-signed with another key under a published key id, or under an unknown id', async () => {
      const { marker, body } = report();
      const res = await deliver(body, signed(body, current, stranger.privateKey));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ...INVALID, code: expect.any(String), request_id: expect.any(String) });
      await sleep(1100); // past the refetch throttle: the unknown id below triggers one refetch
      const fetchesBefore = keyServer.fetches;
      const res2 = await deliver(body, signed(body, stranger));
      expect(res2.status).toBe(401);
      expect(res2.body).toEqual({ ...INVALID, code: expect.any(String), request_id: expect.any(String) });
      expect(keyServer.fetches).toBe(fetchesBefore + 1);
      await expectNothingKept(t, body, marker, auditBefore);
    });

    it('missing, empty, non-base64 or over-long signature headers; missing key id', async () => {
      const { marker, body } = report();
      const good = signed(body, current);
      const cases: Record<string, string>[] = [
        {},
        { 'Github-Public-Key-Identifier': current.id },
        { 'Github-Public-Key-Signature': good['Github-Public-Key-Signature'] },
        { ...good, 'Github-Public-Key-Signature': 'not base64!' },
        { ...good, 'Github-Public-Key-Signature': 'A'.repeat(1028) },
        // A valid signature padded past 1024 characters is refused on length, before decoding.
        {
          ...good,
          'Github-Public-Key-Signature':
            good['Github-Public-Key-Signature'] + 'A'.repeat(1025 - good['Github-Public-Key-Signature'].length + 3),
        },
        { ...good, 'Github-Public-Key-Identifier': 'x'.repeat(300) },
      ];
      for (const headers of cases) {
        const res = await deliver(body, headers);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ ...INVALID, code: expect.any(String), request_id: expect.any(String) });
      }
      await expectNothingKept(t, body, marker, auditBefore);
    });

    it('oversized: 413 from Content-Length, and while streaming as soon as 1 MiB is exceeded', async () => {
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      const big = JSON.stringify([{ ...match(t.key, marker), padding: 'x'.repeat(1_048_576) }]);
      const res = await deliver(big, signed(big, current));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        detail: 'Request body exceeds the 1048576 byte limit for this endpoint.',
        code: expect.any(String),
        request_id: expect.any(String),
      });

      // Chunked, no Content-Length: the answer comes while the client is still sending.
      const { port } = new URL(apiUrl());
      const streamed = await new Promise<{ status: number; body: string; sentWhenAnswered: number; ended: boolean }>(
        (resolve, reject) => {
          let sent = 0;
          let ended = false;
          const req = httpRequest({
            host: '127.0.0.1',
            port: Number(port),
            path: PATH,
            method: 'POST',
            headers: { 'content-type': 'application/json', ...signed(big, current) },
          });
          req.on('response', (r) => {
            const at = sent;
            let text = '';
            r.on('data', (c) => (text += c));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text, sentWhenAnswered: at, ended }));
          });
          req.on('error', (err) => (sent > 1_048_576 ? undefined : reject(err)));
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          const pump = () => {
            if (sent >= 4 * 1_048_576) {
              ended = true;
              req.end();
              return;
            }
            sent += chunk.length;
            req.write(chunk, () => setTimeout(pump, 5));
          };
          pump();
        },
      );
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body)).toEqual({
        detail: 'Request body exceeds the 1048576 byte limit for this endpoint.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      expect(streamed.ended).toBe(false);
      expect(streamed.sentWhenAnswered).toBeLessThan(4 * 1_048_576);
      await expectNothingKept(t, big, marker, auditBefore);
    });

    it('after verification: 501 matches, an empty array, a non-array, malformed JSON or a match without a token: 400', async () => {
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      const many = JSON.stringify(
        Array.from({ length: 501 }, (_, i) => match(i === 0 ? t.key : `tok_${marker}_${i}`, marker)),
      );
      const rows: [string, object][] = [
        [many, { detail: 'At most 500 matches per request.' }],
        ['[]', { detail: 'Request body must be a non-empty JSON array of match objects.' }],
        [
          JSON.stringify({ token: t.key, type: 'x' }),
          { detail: 'Request body must be a non-empty JSON array of match objects.' },
        ],
        [`[{"token": "${marker}"`, { detail: 'Malformed JSON body.' }],
        [
          JSON.stringify([{ type: 'svc_live_api_key', url: marker }]),
          { detail: "Invalid field '0.token': Invalid input: expected string, received undefined" },
        ],
      ];
      for (const [body, detail] of rows) {
        const res = await deliver(body, signed(body, current));
        expect(res.status, body.slice(0, 40)).toBe(400);
        expect(res.body).toEqual({ ...detail, code: expect.any(String), request_id: expect.any(String) });
        expect(await workflowExists(body)).toBe(false);
      }
      await expectNothingKept(t, many, marker, auditBefore);
    });

    it('key server down: an unknown key id fails closed (503), a cached key still verifies', async () => {
      const rotated = newSigningKey();
      const { marker, body } = report();
      keyServer.status = 500;
      try {
        await sleep(1100);
        const res = await deliver(body, signed(body, rotated));
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          detail: 'Webhook signing keys unavailable — retry shortly.',
          code: expect.any(String),
          request_id: expect.any(String),
        });
        await expectNothingKept(t, body, marker, auditBefore);
      } finally {
        keyServer.status = 200;
      }
      // Rotation: once published, the new id is fetched on first use and verifies.
      keyServer.published.push(rotated);
      await sleep(1100);
      const ok = await deliver(body, signed(body, rotated));
      expect(ok.status).toBe(200);
      await revokedAt(t.keyId);
    });
  });

  it('raw tokens go only to an HTTPS feedback URL, and never into the workflow history', async () => {
    // A worker and an API of their own, with an HTTPS feedback URL (self-signed, trusted by the worker).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-leak-tls-'));
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const received: unknown[][] = [];
    const tls = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
    const env = {
      SVC_TASK_QUEUE: 'svc-leak-raw',
      SVC_LEAK_FEEDBACK_URL: `https://127.0.0.1:${(tls.address() as AddressInfo).port}/feedback`,
      SVC_LEAK_FEEDBACK_SEND_RAW: 'true',
      NODE_EXTRA_CA_CERTS: certFile,
    };
    // Like startExtraWorker, with more time to get ready: a second worker bundles its workflows
    // and warms its engines first, which takes minutes on a loaded machine.
    const worker = extraWorker('worker-leak-raw', env, 300_000);
    const [w, a] = await Promise.allSettled([worker.start(), startExtraApi('api-leak-raw', env)]);
    if (w.status === 'rejected' || a.status === 'rejected') {
      await worker.stop();
      if (a.status === 'fulfilled') await a.value.proc.stop();
      tls.close();
      throw w.status === 'rejected' ? w.reason : (a as PromiseRejectedResult).reason;
    }
    const api = a.value;
    try {
      const t = await newTenant();
      const unknown = `svc_live_${randomBytes(30).toString('base64url').slice(0, 36)}`;
      const body = JSON.stringify([match(t.key), { token: unknown, type: 'other_type' }]);
      const res = await fetch(`${api.url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signed(body, current) },
        body,
      });
      expect(res.status).toBe(200);
      await revokedAt(t.keyId, 30_000);
      const fb = await waitFor('raw feedback', async () => received[0], 60_000, 100);
      expect(fb).toEqual([
        { token_raw: t.key, token_type: 'svc_live_api_key', label: 'true_positive' },
        { token_raw: unknown, token_type: 'other_type', label: 'false_positive' },
      ]);
      // The history (encrypted by the payload codec) holds neither raw token.
      await waitFor(
        'workflow completion',
        async () =>
          (
            await temporal()
              .workflow.getHandle(`leak-revocation-${sha256(body)}`)
              .describe()
          ).status.name === 'COMPLETED',
        30_000,
        200,
      );
      expect(historyContains(t.key)).toBe(false);
      expect(historyContains(unknown)).toBe(false);
    } finally {
      await Promise.all([worker.stop(), api.proc.stop()]);
      await new Promise((r) => tls.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 480_000);
});
