// Attestations over HTTP: storage with the organization, GET /attestation/{id}, POST
// /attestation/verify (algorithm, expiry, issuer, claim shape, rotated-out keys, per-key
// limit) and the public JWKS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, decodeProtectedHeader, importPKCS8, jwtVerify } from 'jose';
import { db, get, mintKey, newTenant, post, stackEnv, type Member } from './helpers.js';
import { startExtraApi, startExtraApis } from './extra-api.js';
import { windowStart } from './windows.js';
import { loadSigningKey, ATTESTATION_TYP, queryHash } from '../../core/attestation.js';
import { SERVICE_VERSION } from '../../core/version.js';
import { attestationEntryId, attestationOfEntry } from '../../persistence/proofs.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import type { ManagedProcess } from '../../infra/stack.js';

const IDENTITY = '(h+2)^2 = h^2 + 4*h + 4';
const key = (k: string) => ({ 'x-api-key': k });
const issuer = () => stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local';
const newPem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const publicPem = (pem: string) => createPublicKey(pem).export({ format: 'pem', type: 'spki' }).toString();

let t: Member;
let other: Member;
let verified: any;

beforeAll(async () => {
  [t, other] = await Promise.all([newTenant(), newTenant()]);
  const res = await post('/verify/math', { expression: IDENTITY }, key(t.key));
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('VERIFIED');
  verified = res.body;
});

describe('issued attestations are stored with their organization', () => {
  it('stores {_id: jti, org_id, token, claims, status, engine, proof_ref, created_at}', async () => {
    const att = verified.attestation;
    expect(att).toEqual({
      id: expect.stringMatching(/^att_[0-9a-f]{32}$/),
      token: expect.any(String),
      status: 'ISSUED',
    });
    // A math verification's record is stored in its audit entry (session 16; persistence/proofs.ts).
    const entry = await (
      await db()
    )
      .collection<AuditLogDoc>('audit_logs')
      .findOne({ _id: attestationEntryId(att.id) as string });
    const rec = attestationOfEntry(entry, att.id);
    expect(rec).toMatchObject({
      _id: att.id,
      org_id: t.orgId,
      token: att.token,
      status: 'ISSUED',
      engine: 'math',
      proof_ref: verified.proof_ref,
    });
    expect(rec!.created_at).toBeInstanceOf(Date);
    expect(rec!.claims.jti).toBe(att.id);
    expect(rec!.claims.svc.proof_hash).toBe(verified.proof_ref);
    expect(rec!.claims.svc.query_hash).toBe(queryHash(IDENTITY));
  });

  it('GET /attestation/{id} returns it with a fresh verification', async () => {
    const res = await get(`/attestation/${verified.attestation.id}`, key(t.key));
    expect(res.status).toBe(200);
    const kid = decodeProtectedHeader(verified.attestation.token).kid;
    expect(res.body).toEqual({
      id: verified.attestation.id,
      status: 'ISSUED',
      token: verified.attestation.token,
      claims: expect.objectContaining({ iss: issuer(), jti: verified.attestation.id, sub: queryHash(IDENTITY) }),
      // Issue 27: the signed admission (none for math).
      admission: null,
      engine: 'math',
      proof_ref: verified.proof_ref,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      verification: { valid: true, kid },
    });
    expect(res.body.claims.svc).toEqual({
      version: SERVICE_VERSION,
      result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 },
      query_hash: queryHash(IDENTITY),
      proof_hash: verified.proof_ref,
    });
  });

  // Found by the fuzzer: a natural-language attestation (no proof) came back without proof_ref,
  // which the contract declares as always present (null when there is no proof).
  it('GET /attestation/{id} of an attestation without a proof shows proof_ref null', async () => {
    const nl = await post('/verify/natural_language', { query: 'What is 15% of 200?' }, key(t.key));
    expect(nl.status).toBe(200);
    const res = await get(`/attestation/${nl.body.attestation.id}`, key(t.key));
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('proof_ref', null);
    expect(res.body).toMatchObject({
      id: nl.body.attestation.id,
      engine: 'natural_language',
      verification: { valid: true },
    });
  });

  it("answers 404 for another organization's attestation, an unknown id and a malformed id", async () => {
    for (const [id, k] of [
      [verified.attestation.id, other.key],
      ['att_00000000000000000000000000000000', t.key],
      ['../../etc', t.key],
    ] as const) {
      const res = await get(`/attestation/${encodeURIComponent(id)}`, key(k));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        detail: 'Attestation not found.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    }
  });

  it('requires a key with attestation:read', async () => {
    expect((await get(`/attestation/${verified.attestation.id}`)).status).toBe(401);
    const narrow = await mintKey(t.token, 'verify only', { scopes: ['verify:read'] });
    const res = await get(`/attestation/${verified.attestation.id}`, key(narrow.key));
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("API key lacks the required scope 'attestation:read'.");
    const v = await post('/attestation/verify', { token: verified.attestation.token }, key(narrow.key));
    expect(v.status).toBe(403);
  });

  it('does not store anything for results that are not VERIFIED', async () => {
    const before = await (await db()).collection('attestations').countDocuments({ org_id: t.orgId });
    const res = await post('/verify/math', { expression: '2 + 2' }, key(t.key));
    expect(res.status).toBe(200);
    expect(res.body.status).not.toBe('VERIFIED');
    expect(res.body.attestation).toBeUndefined();
    expect(await (await db()).collection('attestations').countDocuments({ org_id: t.orgId })).toBe(before);
  });
});

describe('POST /attestation/verify', () => {
  const verify = (token: unknown) => post('/attestation/verify', { token }, key(t.key));

  async function sign(
    claims: Record<string, unknown>,
    opts: { alg?: string; typ?: string; exp?: number; iss?: string; pem?: string } = {},
  ) {
    const pem = opts.pem ?? (stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string);
    const signing = await loadSigningKey(pem);
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: opts.typ ?? ATTESTATION_TYP, kid: signing.kid })
      .setIssuer(opts.iss ?? issuer())
      .setSubject('sha256:abc')
      .setJti('att_test')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 3600);
    return jwt.sign(await importPKCS8(pem, 'ES256'));
  }
  const svcClaims = {
    svc: {
      version: SERVICE_VERSION,
      result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 },
      query_hash: 'sha256:abc',
      proof_hash: null,
    },
  };

  it('accepts a service-issued token: {valid, claims, kid}', async () => {
    const res = await verify(verified.attestation.token);
    expect(res.status).toBe(200);
    // Issue 27: `admission` (null: math signs none).
    expect(res.body).toEqual({
      valid: true,
      admission: null,
      claims: expect.objectContaining({ jti: verified.attestation.id, iss: issuer() }),
      kid: decodeProtectedHeader(verified.attestation.token).kid,
    });
  });

  it('rejects tampering, foreign keys, other algorithms, expiry, issuer and claim shape (200, valid false, reason)', async () => {
    const [h, p, s] = verified.attestation.token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.svc.result.status = 'BLOCKED';
    const forgedPayload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const hsHeader = Buffer.from(
      JSON.stringify({
        alg: 'HS256',
        typ: ATTESTATION_TYP,
        kid: decodeProtectedHeader(verified.attestation.token).kid,
      }),
    ).toString('base64url');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: ATTESTATION_TYP })).toString('base64url');
    const cases: Array<[string, Promise<string> | string, string]> = [
      ['garbage', 'not.a.token', 'malformed token'],
      ['edited payload', `${h}.${forgedPayload}.${s}`, 'signature verification failed'],
      ['alg none', `${noneHeader}.${p}.`, 'algorithm not allowed'],
      ['alg HS256', `${hsHeader}.${p}.${s}`, 'algorithm not allowed'],
      ['wrong typ', sign(svcClaims, { typ: 'JWT' }), 'unexpected token type'],
      ['unknown key', sign(svcClaims, { pem: newPem() }), 'unknown signing key'],
      ['expired', sign(svcClaims, { exp: Math.floor(Date.now() / 1000) - 10 }), 'token expired'],
      ['other issuer', sign(svcClaims, { iss: 'elsewhere' }), 'issuer or claim mismatch'],
      ['no svc claims', sign({}), 'claims missing'],
    ];
    for (const [label, tokenP, reason] of cases) {
      const res = await verify(await tokenP);
      expect(res.status, label).toBe(200);
      expect(res.body, label).toEqual({ valid: false, reason });
    }
  });

  it('answers 400 without a token string', async () => {
    for (const body of [{}, { token: 5 }, { token: '' }]) {
      const res = await post('/attestation/verify', body, key(t.key));
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/^Invalid field 'token'/);
    }
  });

  it('answers 429 once the key used its 1000 verifications this hour', async () => {
    const u = await newTenant();
    const start = await windowStart(3600);
    await (
      await db()
    )
      .collection('rate_counters')
      .updateOne(
        { _id: `attestation-verify:${u.keyId}:3600:${start}` as any },
        { $set: { count: 1000, expires_at: new Date((start + 3700) * 1000) } },
        { upsert: true },
      );
    const res = await post('/attestation/verify', { token: verified.attestation.token }, key(u.key));
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'SVC-005', message: 'Rate limit exceeded', details: { limit: 1000 } });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key is counted separately.
    expect((await post('/attestation/verify', { token: verified.attestation.token }, key(t.key))).status).toBe(200);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public signing key without authentication, usable to verify tokens', async () => {
    const res = await get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body.keys).toHaveLength(1);
    const [jwk] = res.body.keys;
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(jwk).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: decodeProtectedHeader(verified.attestation.token).kid,
    });
    const { payload } = await jwtVerify(verified.attestation.token, createLocalJWKSet(res.body), {
      issuer: issuer(),
      algorithms: ['ES256'],
    });
    expect(payload.jti).toBe(verified.attestation.id);
  });
});

describe('key rotation: SVC_ATTESTATION_VERIFY_KEYS', () => {
  const procs: ManagedProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });
  const verifyAt = async (url: string, token: string) => {
    const res = await fetch(`${url}/attestation/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ token }),
    });
    return { status: res.status, body: await res.json() };
  };

  it('keeps verifying tokens of a rotated-out key listed as a verification key (PEM or JWK)', async () => {
    const oldPem = stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string;
    const oldKid = decodeProtectedHeader(verified.attestation.token).kid;
    const rotatedPem = newPem();
    const jwk = { ...createPublicKey(oldPem).export({ format: 'jwk' }), kid: oldKid };

    // New signing key only: the old token's key is unknown. The three API processes start side by side.
    const [bare, ...rotated] = await startExtraApis([
      ['api-att-rotated-bare', { SVC_ATTESTATION_SIGNING_KEY_PEM: rotatedPem }],
      [
        'api-att-rotated-pem',
        {
          SVC_ATTESTATION_SIGNING_KEY_PEM: rotatedPem,
          SVC_ATTESTATION_VERIFY_KEYS: JSON.stringify([publicPem(oldPem)]),
        },
      ],
      [
        'api-att-rotated-jwk',
        { SVC_ATTESTATION_SIGNING_KEY_PEM: rotatedPem, SVC_ATTESTATION_VERIFY_KEYS: JSON.stringify([jwk]) },
      ],
    ]);
    procs.push(bare!.proc, ...rotated.map((r) => r.proc));
    expect((await verifyAt(bare!.url, verified.attestation.token)).body).toEqual({
      valid: false,
      reason: 'unknown signing key',
    });

    for (const { proc, url } of rotated) {
      const res = await verifyAt(url, verified.attestation.token);
      expect(res.body).toMatchObject({ valid: true, kid: oldKid });
      const jwks = await (await fetch(`${url}/.well-known/jwks.json`)).json();
      const rotatedKid = (await loadSigningKey(rotatedPem)).kid;
      expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([rotatedKid, oldKid]);
      await proc.stop();
    }
  }, 180_000);

  it('refuses to start with an unusable SVC_ATTESTATION_VERIFY_KEYS', async () => {
    // Both processes start side by side; each must exit with its own reason.
    await Promise.all([
      expect(startExtraApi('api-att-badkeys-json', { SVC_ATTESTATION_VERIFY_KEYS: 'not json' }, false)).rejects.toThrow(
        /SVC_ATTESTATION_VERIFY_KEYS: must be a JSON array/,
      ),
      expect(
        startExtraApi('api-att-badkeys-private', { SVC_ATTESTATION_VERIFY_KEYS: JSON.stringify([newPem()]) }, false),
      ).rejects.toThrow(/SVC_ATTESTATION_VERIFY_KEYS: item 0: is a private key/),
    ]);
  }, 60_000);
});

describe('attestations without a signing key', () => {
  it('an API process without a signing key still verifies tokens with the listed public keys', async () => {
    // Verification only needs public keys: an API with no signing key but the old public key.
    const { proc, url } = await startExtraApi('api-att-verify-only', {
      SVC_ATTESTATION_SIGNING_KEY_PEM: undefined,
      SVC_ATTESTATION_VERIFY_KEYS: JSON.stringify([publicPem(stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string)]),
    });
    try {
      const res = await fetch(`${url}/attestation/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.key },
        body: JSON.stringify({ token: verified.attestation.token }),
      });
      expect((await res.json()).valid).toBe(true);
      const jwks = await (await fetch(`${url}/.well-known/jwks.json`)).json();
      expect(jwks.keys).toHaveLength(1);
    } finally {
      await proc.stop();
    }
  }, 90_000);
});
