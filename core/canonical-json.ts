// RFC 8785 (JSON Canonicalization Scheme) encoding and the sha256 commitments built on it.
// The encoding itself comes from the `canonicalize` library; this module adds the domain
// checks RFC 8785 requires of its input (I-JSON: finite numbers, integers exactly
// representable as IEEE-754 doubles, no lone surrogates) so that nothing is silently
// rounded or replaced before it is hashed.
import { createHash } from 'node:crypto';
import canonicalizeLib from 'canonicalize';

const canonicalize = canonicalizeLib as unknown as (value: unknown) => string | undefined;

export class CanonicalDomainError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} at ${path || '$'}`);
    this.name = 'CanonicalDomainError';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws CanonicalDomainError when `value` is outside the canonical encoding's domain. */
export function assertCanonicalDomain(value: unknown, path = '$'): void {
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalDomainError('non-finite number', path);
    if (Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER + 1) {
      throw new CanonicalDomainError('integer not exactly representable (|n| > 2^53)', path);
    }
    return;
  }
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw new CanonicalDomainError('lone surrogate in string', path);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertCanonicalDomain(item, `${path}[${i}]`));
    return;
  }
  if (typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
      throw new CanonicalDomainError('not a plain JSON object', path);
    }
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (LONE_SURROGATE.test(k)) throw new CanonicalDomainError('lone surrogate in key', path);
      if (v === undefined) throw new CanonicalDomainError('undefined value', `${path}.${k}`);
      assertCanonicalDomain(v, `${path}.${k}`);
    }
    return;
  }
  throw new CanonicalDomainError(`unsupported type ${typeof value}`, path);
}

/** RFC 8785 canonical JSON text of `value` (domain-checked first). */
export function canonicalJson(value: unknown): string {
  assertCanonicalDomain(value);
  const text = canonicalize(value);
  if (typeof text !== 'string') throw new CanonicalDomainError('value has no JSON encoding', '$');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of `value`: the shape of every proof_ref. */
export function sha256Ref(value: unknown): string {
  return `sha256:${sha256Hex(Buffer.from(canonicalJson(value), 'utf8'))}`;
}
