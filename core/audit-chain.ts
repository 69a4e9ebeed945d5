// Tamper-evident audit chain (reference notes, "Audit chain"; contract
// GET /admin/compliance/verify/{log_id}).
//
// Each organization's entries form a hash chain. The canonical payload of an entry is the
// RFC 8785 encoding of
//   { organization_id, user_id, query, result, verified, domain, timestamp,
//     previous_hash, raw_llm_output }
// (the legacy payload is the same object without raw_llm_output). entry_hash is the hex
// SHA-256 of that text; signature is the hex HMAC-SHA256 of the entry_hash hex string under
// SVC_AUDIT_SECRET_KEY. Verification never throws on stored data: anything malformed makes
// the corresponding check false (fail closed).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertCanonicalDomain, canonicalJson, CanonicalDomainError, sha256Hex } from './canonical-json.js';

export const AUDIT_SECRET_ENV = 'SVC_AUDIT_SECRET_KEY';

/** The audited facts, as stored. */
export interface AuditEntryFields {
  organization_id: string;
  /** Null for actions without a user (e.g. agent-token calls). */
  user_id: string | null;
  query: string;
  /** The verification result: a plain JSON object inside the canonical domain. */
  result: Record<string, unknown>;
  verified: boolean;
  /** Engine or domain that produced the result (e.g. `math`, `sql`). */
  domain: string;
  /** ISO 8601 text, hashed verbatim; a Date is hashed as its toISOString(). */
  timestamp: string | Date;
  /** Raw provider output for natural-language verifications; null/absent otherwise. */
  raw_llm_output?: string | null;
}

export interface AuditEntry extends AuditEntryFields {
  previous_hash: string | null;
  entry_hash: string;
  signature: string;
}

export interface CanonicalAuditPayload {
  organization_id: string;
  user_id: string | null;
  query: string;
  result: Record<string, unknown>;
  verified: boolean;
  domain: string;
  timestamp: string;
  previous_hash: string | null;
  raw_llm_output?: string | null;
}

export class AuditChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditChainError';
  }
}

export const SECRET_MISSING_ERROR = `audit secret is not configured (${AUDIT_SECRET_ENV}); verification fails closed`;

const HEX64 = /^[0-9a-f]{64}$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The payload object hashed for an entry. Throws AuditChainError when a field has the wrong
 * type or the result is not a canonical JSON object (callers verifying stored data catch it).
 */
export function canonicalAuditPayload(
  entry: AuditEntryFields & { previous_hash: string | null },
  opts: { legacy?: boolean } = {},
): CanonicalAuditPayload {
  const e = entry as unknown as Record<string, unknown>;
  const str = (key: string): string => {
    if (typeof e[key] !== 'string') throw new AuditChainError(`malformed stored entry: ${key} must be a string`);
    return e[key] as string;
  };
  const organization_id = str('organization_id');
  if (organization_id.length === 0) throw new AuditChainError('malformed stored entry: organization_id is empty');
  if (e.user_id !== null && typeof e.user_id !== 'string') {
    throw new AuditChainError('malformed stored entry: user_id must be a string or null');
  }
  if (typeof e.verified !== 'boolean') throw new AuditChainError('malformed stored entry: verified must be a boolean');
  let timestamp: string;
  if (e.timestamp instanceof Date) {
    if (Number.isNaN(e.timestamp.getTime())) throw new AuditChainError('malformed stored entry: invalid timestamp');
    timestamp = e.timestamp.toISOString();
  } else {
    timestamp = str('timestamp');
  }
  if (e.previous_hash !== null && typeof e.previous_hash !== 'string') {
    throw new AuditChainError('malformed stored entry: previous_hash must be a string or null');
  }
  const raw = e.raw_llm_output ?? null;
  if (raw !== null && typeof raw !== 'string') {
    throw new AuditChainError('malformed stored entry: raw_llm_output must be a string or null');
  }
  if (!isPlainObject(e.result)) throw new AuditChainError('malformed stored result: not a JSON object');
  try {
    assertCanonicalDomain(e.result, '$.result');
  } catch (err) {
    if (err instanceof CanonicalDomainError) throw new AuditChainError(`malformed stored result: ${err.message}`);
    throw err;
  }
  const payload: CanonicalAuditPayload = {
    organization_id,
    user_id: e.user_id as string | null,
    query: str('query'),
    result: e.result,
    verified: e.verified,
    domain: str('domain'),
    timestamp,
    previous_hash: e.previous_hash as string | null,
  };
  if (!opts.legacy) payload.raw_llm_output = raw;
  return payload;
}

/** Hex SHA-256 of the RFC 8785 encoding of the payload. */
export function entryHash(payload: CanonicalAuditPayload): string {
  return sha256Hex(Buffer.from(canonicalJson(payload), 'utf8'));
}

/** Hex HMAC-SHA256 of the entry_hash hex string. */
export function signEntryHash(hashHex: string, secret: string): string {
  return createHmac('sha256', secret).update(hashHex, 'utf8').digest('hex');
}

/** Builds a new entry (current payload) linked to `previousHash` (null for an organization's first entry). */
export function buildEntry(
  fields: AuditEntryFields,
  previousHash: string | null,
  secret: string | undefined,
): AuditEntry {
  if (!secret) throw new AuditChainError(SECRET_MISSING_ERROR);
  if (previousHash !== null && !HEX64.test(previousHash)) {
    throw new AuditChainError('previous_hash must be null or a 64-character lowercase hex entry_hash');
  }
  const payload = canonicalAuditPayload({ ...fields, previous_hash: previousHash });
  const hash = entryHash(payload);
  return {
    organization_id: payload.organization_id,
    user_id: payload.user_id,
    query: payload.query,
    result: payload.result,
    verified: payload.verified,
    domain: payload.domain,
    timestamp: payload.timestamp,
    raw_llm_output: payload.raw_llm_output ?? null,
    previous_hash: previousHash,
    entry_hash: hash,
    signature: signEntryHash(hash, secret),
  };
}

export interface AuditVerification {
  valid: boolean;
  checks: { hash_valid: boolean; signature_valid: boolean; chain_valid: boolean };
  errors: string[];
  /** Which payload the stored hash matched, when it matched one. */
  payload_version: 'current' | 'legacy' | null;
}

function checkHash(entry: AuditEntry, errors: string[]): 'current' | 'legacy' | null {
  if (typeof entry.entry_hash !== 'string' || !HEX64.test(entry.entry_hash)) {
    errors.push('malformed stored entry_hash');
    return null;
  }
  try {
    if (entryHash(canonicalAuditPayload(entry)) === entry.entry_hash) return 'current';
    // The legacy payload did not cover raw_llm_output, so it is accepted only for entries
    // that carry none; otherwise that field could be rewritten without detection.
    const raw = entry.raw_llm_output;
    if (
      (raw === undefined || raw === null || raw === '') &&
      entryHash(canonicalAuditPayload(entry, { legacy: true })) === entry.entry_hash
    ) {
      return 'legacy';
    }
    errors.push('entry_hash does not match the recomputed payload hash');
  } catch (err) {
    if (!(err instanceof AuditChainError || err instanceof CanonicalDomainError)) throw err;
    errors.push(err.message);
  }
  return null;
}

function checkSignature(entry: AuditEntry, secret: string, errors: string[]): boolean {
  if (
    typeof entry.entry_hash !== 'string' ||
    typeof entry.signature !== 'string' ||
    !/^[0-9a-fA-F]{64}$/.test(entry.signature)
  ) {
    errors.push('malformed stored signature');
    return false;
  }
  const expected = Buffer.from(signEntryHash(entry.entry_hash, secret), 'hex');
  const provided = Buffer.from(entry.signature, 'hex');
  // Both are 32 bytes here (regex above), which timingSafeEqual requires.
  if (expected.length !== provided.length || !timingSafeEqual(expected, provided)) {
    errors.push('signature does not match (HMAC-SHA256 of entry_hash)');
    return false;
  }
  return true;
}

function checkChain(entry: AuditEntry, predecessor: AuditEntry | null, errors: string[]): boolean {
  if (entry.previous_hash === null) {
    if (predecessor !== null) {
      errors.push('genesis entry (previous_hash null) has a predecessor in the organization');
      return false;
    }
    return true;
  }
  if (typeof entry.previous_hash !== 'string' || entry.previous_hash.length === 0) {
    errors.push('previous_hash must be null (genesis) or a non-empty link');
    return false;
  }
  if (predecessor === null) {
    errors.push('predecessor entry not found (chain broken)');
    return false;
  }
  let ok = true;
  if (predecessor.organization_id !== entry.organization_id) {
    errors.push('predecessor belongs to another organization');
    ok = false;
  }
  if (predecessor.entry_hash !== entry.previous_hash) {
    errors.push("previous_hash does not match the predecessor's entry_hash");
    ok = false;
  }
  return ok;
}

/**
 * Verifies one stored entry against its organization's immediately preceding entry
 * (null when the entry is the organization's first). Never throws on malformed data.
 */
export function verifyEntry(
  entry: AuditEntry,
  predecessor: AuditEntry | null,
  secret: string | undefined,
): AuditVerification {
  if (!secret) {
    return {
      valid: false,
      checks: { hash_valid: false, signature_valid: false, chain_valid: false },
      errors: [SECRET_MISSING_ERROR],
      payload_version: null,
    };
  }
  const errors: string[] = [];
  if (!isPlainObject(entry)) {
    return {
      valid: false,
      checks: { hash_valid: false, signature_valid: false, chain_valid: false },
      errors: ['malformed stored entry: not an object'],
      payload_version: null,
    };
  }
  const payloadVersion = checkHash(entry, errors);
  const signatureValid = checkSignature(entry, secret, errors);
  const chainValid = checkChain(entry, predecessor && isPlainObject(predecessor) ? predecessor : null, errors);
  const checks = { hash_valid: payloadVersion !== null, signature_valid: signatureValid, chain_valid: chainValid };
  return {
    valid: checks.hash_valid && checks.signature_valid && checks.chain_valid,
    checks,
    errors,
    payload_version: payloadVersion,
  };
}

export interface ChainVerification {
  valid: boolean;
  entries: Array<{ entry_hash: unknown } & AuditVerification>;
}

/** Verifies an organization's entries in stored order (oldest first): each against the one before it. */
export function verifyChain(entries: AuditEntry[], secret: string | undefined): ChainVerification {
  const results = entries.map((entry, i) => ({
    entry_hash: isPlainObject(entry) ? entry.entry_hash : undefined,
    ...verifyEntry(entry, i === 0 ? null : entries[i - 1], secret),
  }));
  return { valid: results.every((r) => r.valid), entries: results };
}
