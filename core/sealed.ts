// Sealed workflow inputs. Workflow and activity inputs are stored in Temporal's history, so
// text that may carry a secret (an agent's query, tool arguments, gateway payloads) travels
// from the API to the worker encrypted: AES-256-GCM under a key derived (HKDF-SHA256, own
// label) from SVC_API_KEY_LOOKUP_SECRET, which the API and the worker both hold. Only the
// guard activity opens it; what it passes on is masked, or clean after the exfiltration scan.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface Sealed {
  v: 1;
  iv: string;
  ct: string;
  tag: string;
}

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

const keys = new Map<string, Buffer>();

function keyFor(secret: string | undefined): Buffer {
  if (!secret) throw new SealError('SVC_API_KEY_LOOKUP_SECRET is not set: sealed inputs cannot be used');
  let k = keys.get(secret);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', secret, 'svc-sealed-input', 'svc-sealed-input-v1', 32));
    keys.set(secret, k);
  }
  return k;
}

export function seal(value: unknown, secret: string | undefined, purpose: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret), iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString('base64url'),
    ct: ct.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
  };
}

export function unseal<T>(sealed: Sealed, secret: string | undefined, purpose: string): T {
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secret), Buffer.from(sealed.iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    const pt = Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64url')), decipher.final()]);
    return JSON.parse(pt.toString('utf8')) as T;
  } catch (err) {
    if (err instanceof SealError) throw err;
    throw new SealError('sealed input could not be opened (wrong key or tampered)');
  }
}
