// Small helpers for black-box HTTP tests against the stack started by global-setup.ts.
import { inject } from 'vitest';

export const apiUrl = () => inject('apiUrl');
export const stackEnv = () => inject('stackEnv');

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Buffer | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${apiUrl()}${path}`, { method, headers, body: body as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
  http<T>('POST', path, { body, headers });
export const get = <T = any>(path: string, headers?: Record<string, string>) => http<T>('GET', path, { headers });

/** Stops, starts or SIGKILLs a stack component through the global setup's control endpoint. */
export async function control(
  action: 'stop' | 'start' | 'kill9',
  component: 'temporal' | 'ferretdb' | 'worker' | 'api' | 'smtp',
) {
  const res = await fetch(`${inject('controlUrl')}/${action}/${component}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`control ${action} ${component} failed: ${await res.text()}`);
  return (await res.json()) as { ok: true; ended?: 'exited' | 'killed' };
}

// ---------------------------------------------------------------------------------------
// Tenants: sign up through the API; extra members are inserted directly into the store
// (the contract has no invitation endpoint), then sign in through the API like anyone else.
// ---------------------------------------------------------------------------------------
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { hashPassword } from '../../core/passwords.js';
import { Store } from '../../core/store.js';
import { Accounts } from '../../persistence/accounts.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { sha256Ref } from '../../core/canonical-json.js';

import { PASSWORD_FOR_LEAK_SCAN } from './leak-markers.js';
export const PASSWORD = PASSWORD_FOR_LEAK_SCAN;

export interface Member {
  userId: string;
  orgId: string;
  email: string;
  role: string;
  token: string;
  key: string;
  keyId: string;
}

let mongo: MongoClient | null = null;
export async function db() {
  if (!mongo) {
    mongo = new MongoClient(stackEnv().MONGODB_URI as string);
    await mongo.connect();
  }
  return mongo.db();
}

export const uniqueEmail = (tag = 'user') => `${tag}-${randomBytes(6).toString('hex')}@example.test`;

export async function mintKey(token: string, name = 'test key', extra: Record<string, unknown> = {}) {
  const res = await post('/auth/api-keys', { name, ...extra }, { authorization: `Bearer ${token}` });
  if (res.status !== 200) throw new Error(`mint key failed: ${res.status} ${res.text}`);
  return res.body as { id: string; key: string; name: string; created_at: string };
}

/** A fresh organization with its owner, signed in, with one API key. */
export async function newTenant(plan: 'free' | 'pro' | 'enterprise' = 'enterprise'): Promise<Member> {
  const email = uniqueEmail('owner');
  const res = await post(
    '/auth/signup',
    { email, password: PASSWORD, organization_name: `Org ${email}` },
    { 'x-forwarded-for': randomIp() },
  );
  if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${res.text}`);
  const { access_token, user } = res.body;
  if (plan !== 'free')
    await (await db()).collection('organizations').updateOne({ _id: user.org_id }, { $set: { plan } });
  const k = await mintKey(access_token);
  return { userId: user.id, orgId: user.org_id, email, role: 'owner', token: access_token, key: k.key, keyId: k.id };
}

/** Adds a user with `role` to an organization (as the service writes a member: persistence/accounts.ts) and signs them in through the API. */
export async function addMember(orgId: string, role: 'owner' | 'admin' | 'member'): Promise<Member> {
  const email = uniqueEmail(role);
  memberStore ??= Store.lazy(stackEnv().MONGODB_URI as string);
  const user = await new Accounts(memberStore, '').addUser({
    orgId,
    email,
    passwordHash: await hashPassword(PASSWORD),
    role,
  });
  const userId = user._id;
  const res = await post('/auth/signin', { email, password: PASSWORD }, { 'x-forwarded-for': randomIp() });
  if (res.status !== 200) throw new Error(`signin failed: ${res.status} ${res.text}`);
  const k = await mintKey(res.body.access_token);
  return { userId, orgId, email, role, token: res.body.access_token, key: k.key, keyId: k.id };
}
let memberStore: Store | null = null;

/** The per-IP limiter keys on the peer address (loopback here); X-Forwarded-For is ignored unless trusted. */
export const randomIp = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

/**
 * Waits until the stack's worker answers a postgresql check with PostgreSQL itself: PGlite
 * starts on a worker's first postgresql request and, until it is ready (seconds; more on a
 * loaded machine, where its start outlasts the request's budget), a check is "not_run" and the
 * verdict fails closed. Readiness, not timing: asks every 2 s for at most 4 minutes.
 */
export async function untilPostgresReady(key: string): Promise<void> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const res = await post(
      '/verify/sql',
      { query: 'SELECT id FROM svc_ready', schema_ddl: 'CREATE TABLE svc_ready (id INT);', dialect: 'postgresql' },
      { 'x-api-key': key },
    );
    if (res.body?.developer_fields?.postgres_check === 'accepted') return;
    if (Date.now() > deadline)
      throw new Error(`PGlite never became ready: ${JSON.stringify(res.body?.developer_fields)}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/**
 * Review A3 (session 24): where one verdict's proof is retained, found as the service finds it,
 * by point reads only: its audit entry by `_id` from its attestation id (attestationEntryId),
 * and `proofs` by `_id` = proof_ref. `inEntry`: the entry carries an artifact whose sha256 is
 * proof_ref; `inProofs`: a `proofs` document written for this organization (proofs are shared by
 * content across tenants: another file's copy of the same identity names its own organization).
 */
export async function proofPlaces(
  result: { proof_ref: string | null; attestation?: { id: string } | null },
  orgId: string,
): Promise<{ inEntry: boolean; inProofs: boolean }> {
  const d = await db();
  const entryId = result.attestation ? attestationEntryId(result.attestation.id) : null;
  const [entry, inProofs] = await Promise.all([
    entryId
      ? d
          .collection<{ _id: string; attestation?: { artifact?: Record<string, unknown> } }>('audit_logs')
          .findOne({ _id: entryId })
      : null,
    d.collection<{ _id: string; org_id?: string | null }>('proofs').findOne({ _id: result.proof_ref as string }),
  ]);
  const carried = entry?.attestation?.artifact;
  return {
    inEntry: carried !== undefined && sha256Ref(carried) === result.proof_ref,
    inProofs: inProofs !== null && inProofs.org_id === orgId,
  };
}

/**
 * A retained proof as a test sees it (session 24, docs/store-access.md §18): `proofs` by `_id`
 * = proof_ref, or else the audit entries that carry it beside their attestation record (a math
 * verification's or batch math item's since session 24), found here by a filter (the test's own
 * client; the service finds it from the attestation, by `_id`). `count` is how many places hold it.
 */
export async function retainedProof(
  proofRef: string,
): Promise<{ artifact: Record<string, unknown>; where: 'proofs' | 'entry'; count: number } | null> {
  const d = await db();
  const inProofs = await d
    .collection<{ _id: string; artifact: Record<string, unknown> }>('proofs')
    .findOne({ _id: proofRef });
  const entries = await d
    .collection<{ _id: string; attestation?: { artifact?: Record<string, unknown> } }>('audit_logs')
    .find({ 'result.proof_ref': proofRef, 'attestation.artifact': { $exists: true } })
    .toArray();
  const count = (inProofs ? 1 : 0) + entries.length;
  if (inProofs) return { artifact: inProofs.artifact, where: 'proofs', count };
  const carried = entries[0]?.attestation?.artifact;
  return carried ? { artifact: carried, where: 'entry', count } : null;
}
