// The attestation signer signs with node:crypto (synchronously) instead of jose's WebCrypto job
// (docs/performance.md, session 13): the token must be the one jose would issue for the same
// claims (same header and payload, member for member), verify with the service's own verifier
// and with jose, and a tampered token or another key must not verify.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeProtectedHeader, jwtVerify, SignJWT, importJWK } from 'jose';
import {
  ATTESTATION_TYP,
  AttestationError,
  AttestationSigner,
  loadSigningKey,
  verifyAttestationToken,
} from '../../core/attestation.js';

const pem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ISSUER = 'svc-test';
const subject = {
  evaluatedExpression: '(x+1)**2 = x**2 + 2*x + 1',
  status: 'VERIFIED',
  verified: true,
  engine: 'math',
  confidence: 1,
  proofRef: 'sha256:' + 'ab'.repeat(32),
};
const part = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8'));

describe('attestation signing with node:crypto', () => {
  it('issues the token jose would issue for the same claims, verifiable by the service and by jose', async () => {
    const key = await loadSigningKey(pem());
    expect(key.nodeKey).toBeDefined();
    const issued = await new AttestationSigner(key, ISSUER).sign(subject, { jti: 'att_fixed' });
    // jose's own serialisation of the same claims, from the same key.
    const c = issued.claims;
    const viaJose = await new SignJWT({ svc: c.svc })
      .setProtectedHeader({ alg: 'ES256', typ: ATTESTATION_TYP, kid: key.kid })
      .setIssuer(c.iss)
      .setSubject(c.sub)
      .setIssuedAt(c.iat)
      .setExpirationTime(c.exp)
      .setJti(c.jti)
      .sign(key.privateKey);
    // Header and payload byte for byte; the signatures differ (ECDSA is randomised), both 64 bytes r||s.
    expect(issued.token.split('.').slice(0, 2)).toEqual(viaJose.split('.').slice(0, 2));
    expect(Buffer.from(issued.token.split('.')[2]!, 'base64url')).toHaveLength(64);
    expect(decodeProtectedHeader(issued.token)).toEqual({ alg: 'ES256', typ: ATTESTATION_TYP, kid: key.kid });
    expect(part(issued.token, 1)).toEqual(issued.claims);
    const verified = await verifyAttestationToken(issued.token, [key.publicJwk], ISSUER);
    expect(verified).toMatchObject({ valid: true, kid: key.kid, claims: issued.claims });
    const { payload } = await jwtVerify(issued.token, await importJWK(key.publicJwk, 'ES256'), { issuer: ISSUER });
    expect(payload.jti).toBe('att_fixed');
  });

  it('refuses a tampered token and a token of another key', async () => {
    const key = await loadSigningKey(pem());
    const other = await loadSigningKey(pem());
    const { token } = await new AttestationSigner(key, ISSUER).sign(subject);
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...part(token, 1), svc: { ...part(token, 1).svc, query_hash: 'sha256:00' } }),
    ).toString('base64url');
    expect((await verifyAttestationToken(`${h}.${forged}.${s}`, [key.publicJwk], ISSUER)).valid).toBe(false);
    expect((await verifyAttestationToken(`${h}.${p}.${s}`, [{ ...other.publicJwk, kid: key.kid }], ISSUER)).valid).toBe(
      false,
    );
    // A signature flipped in one byte.
    const sig = Buffer.from(s, 'base64url');
    sig[10] = (sig[10] ?? 0) ^ 1;
    expect(
      (await verifyAttestationToken(`${h}.${p}.${sig.toString('base64url')}`, [key.publicJwk], ISSUER)).valid,
    ).toBe(false);
  });

  it('fails closed: no key, or a key node:crypto cannot sign with, is an AttestationError', async () => {
    await expect(new AttestationSigner(null, ISSUER).sign(subject)).rejects.toBeInstanceOf(AttestationError);
    const key = await loadSigningKey(pem());
    // An RSA key handle where the P-256 one belongs: crypto.sign refuses; never a token.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const broken = new AttestationSigner({ ...key, nodeKey: rsa }, ISSUER);
    await expect(broken.sign(subject)).rejects.toMatchObject({ code: 'SIGNING_FAILURE' });
  });
});
