// The attestation key ring: every public key an attestation may be verified with.
//
// It is the signing key's public half plus the extra public keys of
// SVC_ATTESTATION_VERIFY_KEYS, so that tokens signed by a rotated-out key keep verifying
// after the signing key changes. The extra keys are parsed synchronously (config start-up
// check) and must be ES256 (EC P-256) public keys; a private key there is refused, since
// a verification-key list is often shared more widely than a signing secret.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { AttestationError, loadSigningKey } from './attestation.js';

export const VERIFY_KEYS_ENV = 'SVC_ATTESTATION_VERIFY_KEYS';

export class VerifyKeysConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifyKeysConfigError';
  }
}

/** The key id `loadSigningKey` derives when none is given, so a rotated-out key keeps its kid. */
export function derivedKid(jwk: { crv?: string; kty?: string; x?: string; y?: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url')
    .slice(0, 16);
}

function publicJwkOf(key: KeyObject, kid: string | undefined, where: string): JWK {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new VerifyKeysConfigError(`${where}: must be an EC P-256 (ES256) public key`);
  }
  const jwk = key.export({ format: 'jwk' }) as JWK;
  const pub: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  return { ...pub, kid: kid ?? derivedKid(pub), alg: 'ES256', use: 'sig' };
}

/**
 * Parses SVC_ATTESTATION_VERIFY_KEYS: a JSON array whose items are public JWKs
 * (`{kty:"EC", crv:"P-256", x, y, kid?}`) or SPKI PEM strings (`-----BEGIN PUBLIC KEY-----`,
 * newlines as `\n` in the JSON string). Without `kid`, the kid is derived as for the signing
 * key. Unset or blank: no extra keys. Throws VerifyKeysConfigError naming the bad item.
 */
export function parseVerifyKeys(raw: string | undefined): JWK[] {
  if (raw === undefined || raw.trim() === '') return [];
  let items: unknown;
  try {
    items = JSON.parse(raw);
  } catch {
    throw new VerifyKeysConfigError('must be a JSON array of public JWKs or PEM strings');
  }
  if (!Array.isArray(items)) throw new VerifyKeysConfigError('must be a JSON array of public JWKs or PEM strings');
  const keys: JWK[] = [];
  items.forEach((item, i) => {
    const where = `item ${i}`;
    if (typeof item === 'string') {
      if (/PRIVATE KEY/.test(item))
        throw new VerifyKeysConfigError(`${where}: is a private key; list public keys only`);
      let key: KeyObject;
      try {
        key = createPublicKey(item.replace(/\\n/g, '\n'));
      } catch {
        throw new VerifyKeysConfigError(`${where}: not a readable PEM public key`);
      }
      keys.push(publicJwkOf(key, undefined, where));
      return;
    }
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new VerifyKeysConfigError(`${where}: must be a JWK object or a PEM string`);
    }
    const jwk = item as Record<string, unknown>;
    if ('d' in jwk) throw new VerifyKeysConfigError(`${where}: is a private key; list public keys only`);
    if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid.length === 0)) {
      throw new VerifyKeysConfigError(`${where}: kid must be a non-empty string`);
    }
    if (jwk.alg !== undefined && jwk.alg !== 'ES256') throw new VerifyKeysConfigError(`${where}: alg must be ES256`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk as never, format: 'jwk' });
    } catch {
      throw new VerifyKeysConfigError(`${where}: not a valid public JWK`);
    }
    keys.push(publicJwkOf(key, jwk.kid as string | undefined, where));
  });
  return keys;
}

export interface AttestationKeyRing {
  /** kid of the key new attestations are signed with; null when signing is disabled. */
  signingKid: string | null;
  /** Signing key first, then the extra verification keys; one entry per kid. */
  publicJwks: JWK[];
}

/** Builds the key ring from configuration. Never throws for a missing signing key (verification still works). */
export async function loadKeyRing(cfg: {
  SVC_ATTESTATION_SIGNING_KEY_PEM?: string;
  SVC_ATTESTATION_VERIFY_KEYS?: string;
}): Promise<AttestationKeyRing> {
  let signing: JWK | null = null;
  try {
    signing = (await loadSigningKey(cfg.SVC_ATTESTATION_SIGNING_KEY_PEM)).publicJwk;
  } catch (err) {
    if (!(err instanceof AttestationError)) throw err;
  }
  const publicJwks: JWK[] = [];
  const seen = new Set<string>();
  for (const jwk of [...(signing ? [signing] : []), ...parseVerifyKeys(cfg.SVC_ATTESTATION_VERIFY_KEYS)]) {
    if (seen.has(jwk.kid as string)) continue;
    seen.add(jwk.kid as string);
    publicJwks.push(jwk);
  }
  return { signingKid: (signing?.kid as string | undefined) ?? null, publicJwks };
}
