// The local key server and feedback sink for the leaked-key webhook (global-setup.ts points the
// stack at its port), and helpers shared by secret-scanning.test.ts and its serial twin.
import { expect, inject } from 'vitest';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { apiUrl, db, stackEnv, type Member } from './helpers.js';

export const INVALID = { detail: 'invalid webhook signature' };
export const PATH = '/webhooks/secret-scanning';
export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SigningKey {
  id: string;
  privateKey: KeyObject;
  pem: string;
}
export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    id: randomBytes(32).toString('hex'),
    privateKey,
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

// ---- the local key server and feedback sink --------------------------------------------
/** The key server's state: the published keys, its answer status, its fetch count, the feedback it got. */
export const keyServer = { published: [] as SigningKey[], status: 200, fetches: 0, feedback: [] as unknown[][] };
let fixture: Server | undefined;

/** Serves /keys and /feedback on the port the stack's SVC_SECRET_SCANNING_KEYS_URL names. */
export function startFixture(): Promise<void> {
  const port = Number(new URL(stackEnv().SVC_SECRET_SCANNING_KEYS_URL as string).port);
  fixture = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/keys') {
      keyServer.fetches++;
      if (keyServer.status !== 200) return void res.writeHead(keyServer.status).end('unavailable');
      const doc = {
        public_keys: keyServer.published.map((k, i) => ({
          key_identifier: k.id,
          key: k.pem,
          is_current: i === keyServer.published.length - 1,
        })),
      };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    }
    if (req.method === 'POST' && req.url === '/feedback') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        keyServer.feedback.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200).end('{}');
      });
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((r) => fixture!.listen(port, '127.0.0.1', () => r()));
}

export const stopFixture = () => new Promise((r) => (fixture ? fixture.close(r) : r(undefined)));

// ---- helpers ---------------------------------------------------------------------------
export interface Delivery {
  status: number;
  body: any;
  text: string;
  at: number;
}

export async function deliver(body: string | Buffer, headers: Record<string, string>): Promise<Delivery> {
  const res = await fetch(`${apiUrl()}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body as BodyInit,
  });
  const at = Date.now();
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, at };
}

export const signed = (body: string | Buffer, key: SigningKey, signer: KeyObject = key.privateKey) => ({
  'Github-Public-Key-Identifier': key.id,
  'Github-Public-Key-Signature': sign('sha256', Buffer.from(body), signer).toString('base64'),
});

export const match = (token: string, marker = randomBytes(6).toString('hex')) => ({
  token,
  type: 'svc_live_api_key',
  url: `https://example.test/leaks/${marker}/config.env`,
  source: 'content',
});

export async function keyDoc(keyId: string) {
  return (await db()).collection('api_keys').findOne({ _id: keyId as any });
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * How soon after the 200 a key must be seen revoked: seconds (the revocation is a local activity
 * run in the workflow's first task), not a retry back-off. Generous for a loaded CI machine;
 * bench/leak-revocation.ts prints the latency itself.
 */
export const REVOKED_WITHIN_MS = 5000;

/** Resolves with the time the key was first seen revoked. */
export const revokedAt = (keyId: string, timeoutMs = 10_000) =>
  waitFor(
    `revocation of ${keyId}`,
    async () => ((await keyDoc(keyId))?.active === false ? Date.now() : null),
    timeoutMs,
  );

export function mailsFor(keyId: string): string[] {
  const dir = path.join(inject('dataDir'), 'mail');
  if (!existsSync(dir)) return [];
  return (
    readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      // Quoted-printable soft line breaks undone, so long lines read as sent.
      .map((f) => readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, ''))
      .filter((m) => m.includes(keyId))
  );
}

export const logsText = () =>
  ['api.log', 'worker.log']
    .map((f) => path.join(inject('dataDir'), 'logs', f))
    .filter(existsSync)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

/** Whether Temporal's stored history (SQLite file and its WAL) contains this text anywhere. */
export function historyContains(text: string): boolean {
  const base = path.join(inject('dataDir'), 'temporal.sqlite');
  const needle = Buffer.from(text, 'utf8');
  return [base, `${base}-wal`].filter(existsSync).some((f) => readFileSync(f).includes(needle));
}

let client: Client | undefined;
/** A Temporal client on the stack's server (opened by openTemporal in beforeAll). */
export const temporal = (): Client => {
  if (!client) throw new Error('openTemporal() first');
  return client;
};
export async function openTemporal() {
  client = new Client({ connection: await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string }) });
}
export const closeTemporal = async () => client?.connection.close();
export async function workflowExists(body: string | Buffer): Promise<boolean> {
  try {
    await temporal()
      .workflow.getHandle(`leak-revocation-${sha256(body)}`)
      .describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** After a refused request: no workflow, no revocation, no audit entry, nothing of the body in the logs. */
export async function expectNothingKept(t: Member, body: string | Buffer, marker: string, auditBefore: number) {
  expect(await workflowExists(body)).toBe(false);
  expect((await keyDoc(t.keyId))?.active).toBe(true);
  expect(await (await db()).collection('audit_logs').countDocuments({ organization_id: t.orgId })).toBe(auditBefore);
  expect(await (await db()).collection('leak_notifications').countDocuments({ key_id: t.keyId })).toBe(0);
  const logs = logsText();
  expect(logs).not.toContain(marker);
  expect(logs).not.toContain(t.key);
}
