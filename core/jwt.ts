// HS256 access tokens for `Authorization: Bearer` (contract "Authentication" item 2), via jose.
//
// Claims: iss = svc-verification-service, aud = svc-api, sub = user id, org, role, jti, iat, exp.
// Header: alg HS256 (the only accepted algorithm, so alg=none / HS512 / ES256 tokens and
// key-confusion tricks are rejected), typ at+jwt (RFC 9068) so that other JWTs of the service
// cannot be replayed as access tokens.

import { errors, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { isRole, type Role } from './scopes.js';

export const ACCESS_TOKEN_ALG = 'HS256';
export const ACCESS_TOKEN_ISSUER = 'svc-verification-service';
export const ACCESS_TOKEN_AUDIENCE = 'svc-api';
export const ACCESS_TOKEN_TYP = 'at+jwt';
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Upper bound for a configured TTL: one day. */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;
/** HS256 keys shorter than the hash output (32 bytes) weaken the MAC (RFC 7518 §3.2). */
export const MIN_SECRET_BYTES = 32;

export interface AccessTokenSubject {
  userId: string;
  orgId: string;
  role: Role;
}

export interface AccessTokenClaims extends AccessTokenSubject {
  jti: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

export type AccessTokenErrorCode =
  /** Not a compact JWS, undecodable header or payload. */
  | 'malformed'
  /** Header alg other than HS256 (including `none`). */
  | 'algorithm_not_allowed'
  /** Signature does not verify under the secret (tampered, or signed with another key). */
  | 'bad_signature'
  | 'expired'
  /** iss, aud, typ, nbf/iat, or the service claims (sub, org, role, jti) are missing or wrong. */
  | 'invalid_claims';

/** Every verification failure; the HTTP layer maps all codes to 401. */
export class AccessTokenError extends Error {
  readonly code: AccessTokenErrorCode;
  constructor(code: AccessTokenErrorCode, message: string) {
    super(message);
    this.name = 'AccessTokenError';
    this.code = code;
  }
}

function secretKey(secret: string | Uint8Array): Uint8Array {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(key instanceof Uint8Array) || key.length < MIN_SECRET_BYTES) {
    throw new TypeError(`JWT secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  return key;
}

export interface IssueOptions {
  ttlSeconds?: number;
  /** Issue time; defaults to now. For tests and deterministic replays. */
  now?: Date;
}

/** Signs a new access token. Throws TypeError/RangeError on bad input (programming errors). */
export async function issueAccessToken(
  subject: AccessTokenSubject,
  secret: string | Uint8Array,
  options: IssueOptions = {},
): Promise<string> {
  const { userId, orgId, role } = subject;
  if (typeof userId !== 'string' || userId.length === 0)
    throw new TypeError('issueAccessToken: userId must be a non-empty string');
  if (typeof orgId !== 'string' || orgId.length === 0)
    throw new TypeError('issueAccessToken: orgId must be a non-empty string');
  if (!isRole(role)) throw new TypeError(`issueAccessToken: unknown role ${JSON.stringify(role)}`);
  const ttl = options.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_ACCESS_TOKEN_TTL_SECONDS) {
    throw new RangeError(`issueAccessToken: ttlSeconds must be an integer in [1, ${MAX_ACCESS_TOKEN_TTL_SECONDS}]`);
  }
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({ org: orgId, role })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setSubject(userId)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttl)
    .sign(secretKey(secret));
}

export interface VerifyOptions {
  /** Verification time; defaults to now. */
  now?: Date;
  /** Allowed clock skew in seconds for exp/iat (default 0). */
  clockToleranceSeconds?: number;
}

function mapJoseError(err: unknown): AccessTokenError {
  if (err instanceof errors.JWTExpired) return new AccessTokenError('expired', 'access token expired');
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new AccessTokenError('algorithm_not_allowed', 'access token algorithm not allowed');
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new AccessTokenError('bad_signature', 'access token signature invalid');
  if (err instanceof errors.JWTClaimValidationFailed)
    return new AccessTokenError('invalid_claims', `access token claim invalid: ${err.claim}`);
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return new AccessTokenError('malformed', 'access token malformed');
  // JOSENotSupported and anything else (e.g. a `crit` header) are treated as malformed.
  return new AccessTokenError('malformed', 'access token malformed');
}

/**
 * Verifies signature (HS256 only), typ, issuer, audience, expiry and the service claims.
 * Resolves to the claims or rejects with AccessTokenError; never returns unverified data.
 */
export async function verifyAccessToken(
  token: string,
  secret: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<AccessTokenClaims> {
  const key = secretKey(secret);
  if (typeof token !== 'string' || token.length === 0 || token.length > 8192) {
    throw new AccessTokenError('malformed', 'access token malformed');
  }
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
      typ: ACCESS_TOKEN_TYP,
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      currentDate: options.now,
      clockTolerance: options.clockToleranceSeconds ?? 0,
    }));
  } catch (err) {
    throw mapJoseError(err);
  }
  const { sub, org, role, jti, iat, exp } = payload;
  if (typeof sub !== 'string' || sub.length === 0)
    throw new AccessTokenError('invalid_claims', 'access token claim invalid: sub');
  if (typeof org !== 'string' || org.length === 0)
    throw new AccessTokenError('invalid_claims', 'access token claim invalid: org');
  if (!isRole(role)) throw new AccessTokenError('invalid_claims', 'access token claim invalid: role');
  if (typeof jti !== 'string' || jti.length === 0)
    throw new AccessTokenError('invalid_claims', 'access token claim invalid: jti');
  return { userId: sub, orgId: org, role, jti, issuedAt: iat as number, expiresAt: exp as number };
}
