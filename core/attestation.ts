// ES256 attestation tokens (reference notes, "Attestation claims").
// Signing failures are typed (AttestationError with a machine-readable code) so that every
// caller can turn them into the contract's fail-closed outcome instead of a VERIFIED.
import {
  randomUUID,
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as signBytes,
  type KeyObject,
} from 'node:crypto';
import { SignJWT, jwtVerify, importPKCS8, exportJWK, decodeProtectedHeader, type JWK } from 'jose';
import { SERVICE_VERSION } from './version.js';

export const ATTESTATION_TYP = 'svc-attestation+jwt';

export type AttestationErrorCode = 'SIGNING_FAILURE' | 'CRYPTO_UNAVAILABLE' | 'KEY_MISSING';

export class AttestationError extends Error {
  constructor(
    readonly code: AttestationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AttestationError';
  }
}

export interface AttestationSubject {
  /** The expression actually evaluated (never the natural-language text). */
  evaluatedExpression: string;
  status: string;
  verified: boolean;
  engine: string;
  confidence: number;
  /** The result's proof_ref (null when the result is not VERIFIED). */
  proofRef: string | null;
  /**
   * Admission of results that carry one (code, SQL): signed beside the status, so that a
   * VERIFIED "proven unsafe" result can never be read as admissible from its token.
   */
  admission?: AttestedAdmission;
}

export type AttestedAdmission = 'ADMIT' | 'BLOCKED';

export interface AttestationClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  svc: {
    version: string;
    /** `admission` only on admission-bearing results (absent on math, consensus, …, and on tokens issued before 7.3). */
    result: { status: string; verified: boolean; engine: string; confidence: number; admission?: AttestedAdmission };
    query_hash: string;
    proof_hash: string | null;
  };
}

export interface IssuedAttestation {
  token: string;
  jti: string;
  claims: AttestationClaims;
  status: 'ISSUED';
}

export function queryHash(evaluatedExpression: string): string {
  return `sha256:${createHash('sha256').update(evaluatedExpression, 'utf8').digest('hex')}`;
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject | CryptoKey;
  publicJwk: JWK;
  /**
   * The same private key as node:crypto's KeyObject: AttestationSigner signs with it synchronously
   * (`crypto.sign`, ECDSA P-256 over SHA-256, r||s as JWS wants). jose's `sign` runs WebCrypto's
   * asynchronous job on the thread pool, which cost the API ~0.4 ms of its main thread per
   * verification besides the pool's own CPU (docs/performance.md, session 13). Absent: jose signs.
   */
  nodeKey?: KeyObject;
}

/** Imports a PKCS#8 PEM P-256 private key; kid is the RFC 7638 thumbprint-like sha256 of its public JWK. */
export async function loadSigningKey(pem: string | undefined, kid?: string): Promise<SigningKey> {
  if (!pem || !pem.includes('PRIVATE KEY')) {
    throw new AttestationError('KEY_MISSING', 'attestation signing key is not configured');
  }
  try {
    const privateKey = await importPKCS8(pem, 'ES256', { extractable: true });
    const nodeKey = createPrivateKey(pem.replace(/\\n/g, '\n'));
    const publicJwk = await exportJWK(createPublicKey(pem.replace(/\\n/g, '\n')));
    const derivedKid =
      kid ??
      createHash('sha256')
        .update(JSON.stringify({ crv: publicJwk.crv, kty: publicJwk.kty, x: publicJwk.x, y: publicJwk.y }))
        .digest('base64url')
        .slice(0, 16);
    return {
      kid: derivedKid,
      privateKey,
      nodeKey,
      publicJwk: { ...publicJwk, kid: derivedKid, alg: 'ES256', use: 'sig' },
    };
  } catch (err) {
    if (err instanceof AttestationError) throw err;
    throw new AttestationError('CRYPTO_UNAVAILABLE', 'attestation signing key could not be loaded');
  }
}

export class AttestationSigner {
  constructor(
    private readonly key: SigningKey | null,
    private readonly issuer: string,
    private readonly ttlSeconds = 365 * 24 * 3600,
  ) {}

  get kid(): string | null {
    return this.key?.kid ?? null;
  }

  /** `opts.jti`: the attestation id chosen by the caller (derived from its workflow, so a retry reuses it); default random. */
  async sign(subject: AttestationSubject, opts: { jti?: string } = {}): Promise<IssuedAttestation> {
    if (!this.key) throw new AttestationError('KEY_MISSING', 'attestation signing key is not configured');
    const now = Math.floor(Date.now() / 1000);
    const jti = opts.jti ?? `att_${randomUUID().replace(/-/g, '')}`;
    const qh = queryHash(subject.evaluatedExpression);
    const claims: AttestationClaims = {
      iss: this.issuer,
      sub: qh,
      iat: now,
      exp: now + this.ttlSeconds,
      jti,
      svc: {
        version: SERVICE_VERSION,
        result: {
          status: subject.status,
          verified: subject.verified,
          engine: subject.engine,
          confidence: subject.confidence,
          ...(subject.admission ? { admission: subject.admission } : {}),
        },
        query_hash: qh,
        proof_hash: subject.proofRef,
      },
    };
    try {
      if (this.key.nodeKey)
        return { token: compactEs256(claims, this.key.kid, this.key.nodeKey), jti, claims, status: 'ISSUED' };
      const token = await new SignJWT({ svc: claims.svc })
        .setProtectedHeader({ alg: 'ES256', typ: ATTESTATION_TYP, kid: this.key.kid })
        .setIssuer(claims.iss)
        .setSubject(claims.sub)
        .setIssuedAt(claims.iat)
        .setExpirationTime(claims.exp)
        .setJti(jti)
        .sign(this.key.privateKey);
      return { token, jti, claims, status: 'ISSUED' };
    } catch {
      throw new AttestationError('SIGNING_FAILURE', 'attestation signing failed');
    }
  }
}

const b64url = (json: unknown) => Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');

/**
 * The JWS compact serialisation jose's SignJWT produces for these claims (same header and
 * payload, members in the same order), signed with node:crypto: ES256 is ECDSA P-256 over SHA-256
 * with the signature as r||s (RFC 7518 3.4), which `dsaEncoding: 'ieee-p1363'` gives.
 */
export function compactEs256(claims: AttestationClaims, kid: string, key: KeyObject): string {
  // ES256 only: any other key would sign something no verifier of ours accepts.
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error('attestation key is not a P-256 key');
  const header = b64url({ alg: 'ES256', typ: ATTESTATION_TYP, kid });
  const payload = b64url({
    svc: claims.svc,
    iss: claims.iss,
    sub: claims.sub,
    iat: claims.iat,
    exp: claims.exp,
    jti: claims.jti,
  });
  const input = `${header}.${payload}`;
  const signature = signBytes('sha256', Buffer.from(input, 'utf8'), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export type AttestationVerifyResult =
  { valid: true; claims: AttestationClaims; kid: string } | { valid: false; reason: string };

/** Verifies signature (ES256 pinned), expiry, issuer and claim shape against the configured public keys. */
export async function verifyAttestationToken(
  token: string,
  publicJwks: JWK[],
  issuer: string,
): Promise<AttestationVerifyResult> {
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { valid: false, reason: 'malformed token' };
  }
  if (header.alg !== 'ES256') return { valid: false, reason: 'algorithm not allowed' };
  if (header.typ !== ATTESTATION_TYP) return { valid: false, reason: 'unexpected token type' };
  const jwk = publicJwks.find((k) => k.kid === header.kid);
  if (!jwk) return { valid: false, reason: 'unknown signing key' };
  try {
    const { payload } = await jwtVerify(token, jwk, { algorithms: ['ES256'], issuer, typ: ATTESTATION_TYP });
    const svc = payload.svc as AttestationClaims['svc'] | undefined;
    if (
      !svc ||
      typeof svc !== 'object' ||
      typeof svc.query_hash !== 'string' ||
      !svc.result ||
      typeof svc.result.status !== 'string' ||
      // A present admission must be one of the two values (a token saying anything else is not read as either).
      ('admission' in svc.result && svc.result.admission !== 'ADMIT' && svc.result.admission !== 'BLOCKED') ||
      typeof payload.jti !== 'string' ||
      typeof payload.sub !== 'string' ||
      typeof payload.exp !== 'number'
    ) {
      return { valid: false, reason: 'claims missing' };
    }
    return { valid: true, claims: payload as unknown as AttestationClaims, kid: jwk.kid as string };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_JWT_EXPIRED') return { valid: false, reason: 'token expired' };
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return { valid: false, reason: 'issuer or claim mismatch' };
    return { valid: false, reason: 'signature verification failed' };
  }
}

/** The admission a token signs, or null when it signs none (engines without admission, older tokens). */
export function attestedAdmission(claims: AttestationClaims): AttestedAdmission | null {
  const a = claims.svc?.result?.admission;
  return a === 'ADMIT' || a === 'BLOCKED' ? a : null;
}
