import { describe, expect, it, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { generateApiKey, generateAgentToken } from '../../core/api-keys.js';
import {
  addMember,
  db,
  get,
  http,
  mintKey,
  newTenant,
  post,
  PASSWORD,
  randomIp,
  uniqueEmail,
  type Member,
} from './helpers.js';

const MATH = { expression: '2 + 3' };
const key = (k: string) => ({ 'x-api-key': k });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const ip = () => ({ 'x-forwarded-for': randomIp() });

describe('sign-up, sign-in, me, keys, verify', () => {
  it('runs the whole first-key flow', async () => {
    const email = uniqueEmail('flow');
    const signup = await post(
      '/auth/signup',
      { email, password: PASSWORD, organization_name: 'Flow Org', extra: 'ignored' },
      ip(),
    );
    expect(signup.status).toBe(200);
    expect(signup.body.token_type).toBe('bearer');
    expect(signup.body.user).toEqual({
      id: expect.stringMatching(/^usr_/),
      email,
      org_id: expect.stringMatching(/^org_/),
      role: 'owner',
    });

    const signin = await post('/auth/signin', { email, password: PASSWORD }, ip());
    expect(signin.status).toBe(200);
    expect(signin.body.user).toEqual(signup.body.user);
    const token = signin.body.access_token as string;

    const me = await get('/auth/me', bearer(token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      ...signup.body.user,
      organization: { id: signup.body.user.org_id, name: 'Flow Org', plan: 'free' },
    });

    const created = await post('/auth/api-keys', { name: 'ci' }, bearer(token));
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(expect.arrayContaining(['id', 'name', 'key', 'created_at']));
    expect(created.body.key).toMatch(/^svc_live_[A-Za-z0-9]{36}$/);
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);

    const list = await get('/auth/api-keys', bearer(token));
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      id: created.body.id,
      name: 'ci',
      preview: `svc_live_********${created.body.key.slice(-4)}`,
    });
    expect(list.text).not.toContain(created.body.key);

    const verified = await post('/verify/math', MATH, key(created.body.key));
    expect(verified.status).toBe(200);
    expect(verified.headers.get('x-workflow-id')).toMatch(new RegExp(`^verify-math-${signup.body.user.org_id}-`));
    expect(verified.headers.get('x-ratelimit-limit')).toBe('60');

    const del = await http('DELETE', `/auth/api-keys/${created.body.id}`, { headers: bearer(token) });
    expect(del.status).toBe(200);
    expect((await get('/auth/api-keys', bearer(token))).body).toEqual([]);
    const after = await post('/verify/math', MATH, key(created.body.key));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({
      detail: 'API key is revoked, inactive or expired.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it.each([
    ['an invalid e-mail', { email: 'not-an-email', password: PASSWORD, organization_name: 'x' }, /email/],
    ['a short password', { email: uniqueEmail(), password: 'short', organization_name: 'x' }, /at least 12/],
    ['a common password', { email: uniqueEmail(), password: 'password1234', organization_name: 'x' }, /common/],
    ['a missing organization name', { email: uniqueEmail(), password: PASSWORD }, /organization_name/],
    ['a non-string password', { email: uniqueEmail(), password: 123456789012, organization_name: 'x' }, /password/],
  ])('rejects sign-up with %s (400, detail)', async (_label, body, detail) => {
    const res = await post('/auth/signup', body, ip());
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });

  it('rejects a password equal to the e-mail', async () => {
    const email = uniqueEmail('same');
    const res = await post('/auth/signup', { email, password: email, organization_name: 'x' }, ip());
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/e-?mail/i);
  });

  it('lets exactly one of several concurrent sign-ups with one e-mail win', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        post('/auth/signup', { email, password: PASSWORD, organization_name: 'Race' }, ip()),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(
      results
        .filter((r) => r.status === 409)
        .every((r) => r.body.detail === 'An account with this e-mail already exists.'),
    ).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    const users = await (await db()).collection('users').countDocuments({ email_lower: email });
    expect(users).toBe(1);
  });

  it('gives one answer for a wrong password and an unknown e-mail', async () => {
    const t = await newTenant();
    const wrong = await post('/auth/signin', { email: t.email, password: 'wrong password 123' }, ip());
    const unknown = await post('/auth/signin', { email: uniqueEmail('ghost'), password: PASSWORD }, ip());
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({
      detail: 'Incorrect email or password.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    // One answer for both (only the request id differs).
    expect({ ...unknown.body, request_id: wrong.body.request_id }).toEqual(wrong.body);
  });
});

describe('credentials', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    ['missing', {}, 401, 'Missing API key: send it in the X-API-Key header.'],
    ['malformed', key('hello'), 401, 'Invalid API key.'],
    ['bad checksum', key(`svc_live_${'A'.repeat(36)}`), 401, 'Invalid API key.'],
    ['unknown but well-formed', key(generateApiKey('svc_live_')), 401, 'Invalid API key.'],
    ['unknown test key', key(generateApiKey('svc_test_')), 401, 'Invalid API key.'],
    ['agent token in X-API-Key', key(generateAgentToken()), 401, 'Invalid API key.'],
  ])('%s key → %i', async (_label, headers, status, detail) => {
    const res = await post('/verify/math', MATH, headers as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
  });

  it('does not accept a JWT where an API key is required', async () => {
    const res = await post('/verify/math', MATH, bearer(t.token));
    expect(res.status).toBe(401);
  });

  it.each([
    ['missing', {}],
    ['garbage', bearer('abc.def.ghi')],
    ['an API key as bearer', bearer('svc_live_x')],
  ])('JWT routes reject a %s token with 401', async (_label, headers) => {
    const res = await get('/auth/me', headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      detail: 'Invalid or expired access token.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('rejects an expired key with 401', async () => {
    const k = await mintKey(t.token, 'expiring');
    await (
      await db()
    )
      .collection('api_keys')
      .updateOne({ _id: k.id as any }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    const res = await post('/verify/math', MATH, key(k.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      detail: 'API key is revoked, inactive or expired.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('tells the holder of a pre-v7.2 key to re-issue it', async () => {
    const legacy = generateApiKey('svc_live_');
    const keyId = `key_legacy_${Date.now()}`;
    await (await db()).collection('api_keys').insertOne({
      _id: keyId as any,
      org_id: t.orgId,
      user_id: t.userId,
      name: 'old',
      hash_scheme: 'sha256-legacy',
      lookup_digest: createHash('sha256').update(legacy).digest('hex'),
      preview: 'svc_live_********old1',
      key_version: 'v2',
      scopes: ['verify:read'],
      active: true,
      revoked_at: null,
      expires_at: null,
      created_at: new Date(),
    });
    // The pointer the start-up backfill writes for such a record (persistence/migrations.ts): without it the key is unknown.
    await (
      await db()
    )
      .collection('api_key_legacy_digests')
      .insertOne({ _id: createHash('sha256').update(legacy).digest('hex') as any, key_id: keyId });
    const res = await post('/verify/math', MATH, key(legacy));
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/issued before v7\.2.*re-issue/);
  });

  it('refuses a key without the verify:read scope with 403', async () => {
    const k = await mintKey(t.token, 'agents only', { scopes: ['agent:write'] });
    const res = await post('/verify/math', MATH, key(k.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail: "API key lacks the required scope 'verify:read'.",
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('refuses keys of an inactive user or organization with 403', async () => {
    const other = await newTenant();
    const member = await addMember(other.orgId, 'member');
    const d = await db();
    await d.collection('users').updateOne({ _id: member.userId as any }, { $set: { active: false } });
    const r1 = await post('/verify/math', MATH, key(member.key));
    expect(r1.status).toBe(403);
    expect(r1.body).toEqual({
      detail: 'Insufficient permissions for this operation',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    await d.collection('organizations').updateOne({ _id: other.orgId as any }, { $set: { active: false } });
    const r2 = await post('/verify/math', MATH, key(other.key));
    expect(r2.status).toBe(403);
    const r3 = await post('/auth/signin', { email: other.email, password: PASSWORD }, ip());
    expect(r3.status).toBe(401);
  });

  it('lets a member mint keys but not admin:all keys', async () => {
    const m = await addMember(t.orgId, 'member');
    const res = await post('/auth/api-keys', { name: 'x', scopes: ['admin:all'] }, bearer(m.token));
    expect(res.status).toBe(403);
    const ok = await post('/auth/api-keys', { name: 'x', scopes: ['verify:read'] }, bearer(m.token));
    expect(ok.status).toBe(200);
  });
});

describe('tenant isolation and key rotation', () => {
  let a: { owner: Member; admin: Member; member: Member; member2: Member };
  let b: Member;

  beforeAll(async () => {
    const owner = await newTenant();
    a = {
      owner,
      admin: await addMember(owner.orgId, 'admin'),
      member: await addMember(owner.orgId, 'member'),
      member2: await addMember(owner.orgId, 'member'),
    };
    b = await newTenant();
  });

  it('lists only the caller organization’s keys and cannot revoke another organization’s key', async () => {
    const listB = await get('/auth/api-keys', bearer(b.token));
    expect(listB.body.map((k: { id: string }) => k.id)).toEqual([b.keyId]);
    const del = await http('DELETE', `/auth/api-keys/${a.owner.keyId}`, { headers: bearer(b.token) });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({
      detail: 'API key not found.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await post('/verify/math', MATH, key(a.owner.key))).status).toBe(200);
  });

  const rotate = (callerKey: string, keyId: string) => post('/admin/keys/rotate', { key_id: keyId }, key(callerKey));

  it.each([
    ['owner', 'admin', 200],
    ['owner', 'member', 200],
    ['admin', 'member', 200],
    ['admin', 'owner', 403],
    ['member', 'member2', 403],
    ['member', 'admin', 403],
    ['member', 'owner', 403],
  ] as const)('%s rotating the key of %s → %i', async (caller, target, status) => {
    // Fresh keys for each row so earlier rotations do not interfere.
    const callerKey = await mintKey(a[caller].token, `${caller}-caller`);
    const targetKey = await mintKey(a[target].token, `${target}-target`);
    const res = await rotate(callerKey.key, targetKey.id);
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body).toEqual({
        detail: 'Insufficient permissions for this operation',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      expect((await post('/verify/math', MATH, key(targetKey.key))).status).toBe(200);
    } else {
      expect(res.body.new_key_secret).toMatch(/^svc_live_[A-Za-z0-9]{36}$/);
      expect(res.body.old_key_id).toBe(targetKey.id);
      expect((await post('/verify/math', MATH, key(targetKey.key))).status).toBe(401);
      expect((await post('/verify/math', MATH, key(res.body.new_key_secret))).status).toBe(200);
    }
  });

  it('lets every role rotate its own key', async () => {
    for (const who of ['owner', 'admin', 'member'] as const) {
      const k = await mintKey(a[who].token, `${who}-own`);
      const res = await rotate(k.key, k.id);
      expect(res.status).toBe(200);
      expect((await post('/verify/math', MATH, key(res.body.new_key_secret))).status).toBe(200);
    }
  });

  it('treats another organization’s, revoked and unknown keys as absent (404)', async () => {
    const caller = await mintKey(a.owner.token, 'rotator');
    expect((await rotate(caller.key, b.keyId)).status).toBe(404);
    const revoked = await mintKey(a.member.token, 'to revoke');
    await http('DELETE', `/auth/api-keys/${revoked.id}`, { headers: bearer(a.member.token) });
    const r = await rotate(caller.key, revoked.id);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: 'API key not found.', code: expect.any(String), request_id: expect.any(String) });
    expect((await rotate(caller.key, 'key_does_not_exist')).status).toBe(404);
  });

  it('answers 401 without a key, 403 with a revoked caller key, 400 without key_id', async () => {
    expect((await post('/admin/keys/rotate', { key_id: 'x' })).status).toBe(401);
    const k = await mintKey(a.owner.token, 'soon revoked');
    await http('DELETE', `/auth/api-keys/${k.id}`, { headers: bearer(a.owner.token) });
    const res = await post('/admin/keys/rotate', { key_id: a.member.keyId }, key(k.key));
    expect(res.status).toBe(403);
    const bad = await post('/admin/keys/rotate', {}, key(a.owner.key));
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/key_id/);
  });
});
