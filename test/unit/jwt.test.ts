import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_ISSUER,
  AccessTokenError,
  issueAccessToken,
  verifyAccessToken,
  type AccessTokenErrorCode,
} from '../../core/jwt.js';

const SECRET = 'jwt-secret-for-tests-0123456789abcdef'; // 37 bytes
const OTHER_SECRET = 'another-secret-for-tests-0123456789abc';
const KEY = new TextEncoder().encode(SECRET);
const SUBJECT = { userId: 'user-1', orgId: 'org-1', role: 'admin' as const };
const T0 = new Date('2025-01-01T00:00:00Z');
const T0_S = T0.getTime() / 1000;

async function expectCode(p: Promise<unknown>, code: AccessTokenErrorCode): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AccessTokenError);
  expect((err as AccessTokenError).code).toBe(code);
}

/** A token with the right shape and claims, signed however the test wants. */
function forged(overrides: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  return new SignJWT({ org: 'org-1', role: 'member', ...overrides })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...header } as { alg: string })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setSubject('user-9')
    .setJti('jti-9')
    .setIssuedAt(T0_S)
    .setExpirationTime(T0_S + 600);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('issueAccessToken', () => {
  it('issues an HS256 at+jwt with the contract claims', async () => {
    const token = await issueAccessToken(SUBJECT, SECRET, { now: T0 });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    const claims = decodeJwt(token);
    expect(claims).toEqual({
      iss: 'svc-verification-service',
      aud: 'svc-api',
      sub: 'user-1',
      org: 'org-1',
      role: 'admin',
      jti: claims.jti,
      iat: T0_S,
      exp: T0_S + 3600,
    });
    expect(claims.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('honours ttlSeconds and gives each token its own jti', async () => {
    const a = await issueAccessToken(SUBJECT, SECRET, { now: T0, ttlSeconds: 60 });
    const b = await issueAccessToken(SUBJECT, SECRET, { now: T0, ttlSeconds: 60 });
    expect(decodeJwt(a).exp).toBe(T0_S + 60);
    expect(decodeJwt(a).jti).not.toBe(decodeJwt(b).jti);
  });

  it.each<[string, () => Promise<string>, ErrorConstructor]>([
    ['short secret', () => issueAccessToken(SUBJECT, 'too-short-secret'), TypeError],
    ['empty userId', () => issueAccessToken({ ...SUBJECT, userId: '' }, SECRET), TypeError],
    ['empty orgId', () => issueAccessToken({ ...SUBJECT, orgId: '' }, SECRET), TypeError],
    ['unknown role', () => issueAccessToken({ ...SUBJECT, role: 'root' as never }, SECRET), TypeError],
    ['ttl 0', () => issueAccessToken(SUBJECT, SECRET, { ttlSeconds: 0 }), RangeError],
    ['ttl fractional', () => issueAccessToken(SUBJECT, SECRET, { ttlSeconds: 1.5 }), RangeError],
    ['ttl over a day', () => issueAccessToken(SUBJECT, SECRET, { ttlSeconds: 86_401 }), RangeError],
  ])('rejects %s', async (_name, call, type) => {
    await expect(call()).rejects.toBeInstanceOf(type);
  });
});

describe('verifyAccessToken', () => {
  it('round-trips the claims', async () => {
    const token = await issueAccessToken(SUBJECT, SECRET, { now: T0 });
    const claims = await verifyAccessToken(token, SECRET, { now: new Date(T0.getTime() + 1000) });
    expect(claims).toEqual({
      userId: 'user-1',
      orgId: 'org-1',
      role: 'admin',
      jti: decodeJwt(token).jti,
      issuedAt: T0_S,
      expiresAt: T0_S + 3600,
    });
  });

  it('accepts a Uint8Array secret equal to the string secret', async () => {
    const token = await issueAccessToken(SUBJECT, KEY, { now: T0 });
    expect((await verifyAccessToken(token, SECRET, { now: T0 })).userId).toBe('user-1');
  });

  it('accepts a hand-built token with valid claims (the forging helper is sound)', async () => {
    const token = await forged().sign(KEY);
    expect(await verifyAccessToken(token, SECRET, { now: T0 })).toEqual({
      userId: 'user-9',
      orgId: 'org-1',
      role: 'member',
      jti: 'jti-9',
      issuedAt: T0_S,
      expiresAt: T0_S + 600,
    });
  });

  it('expires at exp, not before', async () => {
    const token = await issueAccessToken(SUBJECT, SECRET, { now: T0, ttlSeconds: 60 });
    expect((await verifyAccessToken(token, SECRET, { now: new Date((T0_S + 59) * 1000) })).userId).toBe('user-1');
    await expectCode(verifyAccessToken(token, SECRET, { now: new Date((T0_S + 60) * 1000) }), 'expired');
    await expectCode(verifyAccessToken(token, SECRET, { now: new Date((T0_S + 7200) * 1000) }), 'expired');
    expect(
      (await verifyAccessToken(token, SECRET, { now: new Date((T0_S + 62) * 1000), clockToleranceSeconds: 5 })).userId,
    ).toBe('user-1');
  });

  it('rejects alg=none', async () => {
    const token = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(decodeJwt(await forged().sign(KEY)))}.`;
    await expectCode(verifyAccessToken(token, SECRET, { now: T0 }), 'algorithm_not_allowed');
  });

  it('rejects HS512 even under the same secret', async () => {
    const token = await forged({}, { alg: 'HS512' }).sign(KEY);
    await expectCode(verifyAccessToken(token, SECRET, { now: T0 }), 'algorithm_not_allowed');
  });

  it('rejects ES256', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await forged({}, { alg: 'ES256' }).sign(privateKey);
    await expectCode(verifyAccessToken(token, SECRET, { now: T0 }), 'algorithm_not_allowed');
  });

  it('rejects a token signed with another secret', async () => {
    const token = await issueAccessToken(SUBJECT, OTHER_SECRET, { now: T0 });
    await expectCode(verifyAccessToken(token, SECRET, { now: T0 }), 'bad_signature');
  });

  it('rejects a tampered signature', async () => {
    const token = await issueAccessToken(SUBJECT, SECRET, { now: T0 });
    const [h, p, s] = token.split('.');
    const sig = Buffer.from(s, 'base64url');
    sig[0] ^= 0x01;
    await expectCode(verifyAccessToken(`${h}.${p}.${sig.toString('base64url')}`, SECRET, { now: T0 }), 'bad_signature');
  });

  it('rejects a tampered payload (role escalation)', async () => {
    const token = await issueAccessToken({ ...SUBJECT, role: 'member' }, SECRET, { now: T0 });
    const [h, p, s] = token.split('.');
    const payload = { ...JSON.parse(Buffer.from(p, 'base64url').toString()), role: 'owner' };
    await expectCode(verifyAccessToken(`${h}.${b64(payload)}.${s}`, SECRET, { now: T0 }), 'bad_signature');
  });

  it.each<[string, () => SignJWT, AccessTokenErrorCode]>([
    ['wrong issuer', () => forged().setIssuer('someone-else'), 'invalid_claims'],
    ['wrong audience', () => forged().setAudience('svc-admin'), 'invalid_claims'],
    ['audience list without svc-api', () => forged().setAudience(['a', 'b']), 'invalid_claims'],
    ['wrong typ', () => forged({}, { typ: 'JWT' }), 'invalid_claims'],
    ['missing typ', () => forged({}, { typ: undefined }), 'invalid_claims'],
    ['attestation typ', () => forged({}, { typ: 'svc-attestation+jwt' }), 'invalid_claims'],
    ['unknown role', () => forged({ role: 'root' }), 'invalid_claims'],
    ['missing org', () => forged({ org: undefined }), 'invalid_claims'],
    ['empty org', () => forged({ org: '' }), 'invalid_claims'],
    ['empty sub', () => forged().setSubject(''), 'invalid_claims'],
    ['empty jti', () => forged().setJti(''), 'invalid_claims'],
    ['not yet valid (nbf)', () => forged().setNotBefore(T0_S + 300), 'invalid_claims'],
  ])('rejects %s', async (_name, build, code) => {
    await expectCode(verifyAccessToken(await build().sign(KEY), SECRET, { now: T0 }), code);
  });

  it.each([
    ['empty string', ''],
    ['two segments', 'abc.def'],
    ['garbage', 'not a jwt at all'],
    ['header not JSON', `${Buffer.from('nope').toString('base64url')}.${b64({ sub: 'x' })}.sig`],
    ['oversized', 'a'.repeat(9000)],
  ])('rejects a malformed token (%s)', async (_name, token) => {
    await expectCode(verifyAccessToken(token, SECRET, { now: T0 }), 'malformed');
  });

  it('rejects a non-string token as malformed', async () => {
    await expectCode(verifyAccessToken(undefined as unknown as string, SECRET), 'malformed');
  });

  it('refuses to verify with a secret shorter than 32 bytes', async () => {
    const token = await issueAccessToken(SUBJECT, SECRET, { now: T0 });
    await expect(verifyAccessToken(token, 'short')).rejects.toBeInstanceOf(TypeError);
  });
});
