// The audit log's domain shapes (pure): a stored entry, its position document, the head with its
// verdict roll-up, and the public view of an entry. The queries that store and read them are in
// persistence/audit.ts; the chain itself (hashes, signatures, verification) in core/audit-chain.ts.
import type { AuditEntry } from './audit-chain.js';
import type { AuditRollup } from './audit-rollup.js';
import type { AttestationClaims } from './attestation.js';

/**
 * The attestation record of the verification an entry audits, stored in the entry (session 16,
 * issue 22: one insert fewer per `/verify/math`). Not part of the hashed payload: the entry's
 * `result.attestation_id` (hashed) names it, and its token is signed on its own. Its jti is that
 * id; organization, engine, proof_ref and time are the entry's (persistence/proofs.ts).
 */
export interface AttestationInEntry {
  token: string;
  claims: AttestationClaims;
  status: 'ISSUED';
  /**
   * The proof artifact the attestation attests (session 24, docs/store-access.md §18): retained
   * here, by the entry's own insert, instead of in `proofs` under its hash, so the verification
   * sends no random-key insert. Its proof_ref (sha256 of its RFC 8785 form) is the entry's
   * `result.proof_ref` and the claims' proof hash. Absent on entries written before, whose proof
   * is in `proofs` (persistence/proofs.ts findAttestationWithProof).
   */
  artifact?: Record<string, unknown>;
}

export interface AuditLogDoc extends AuditEntry {
  _id: string;
  /** Position in the organization's chain, 1-based and gap-free. */
  seq: number;
  /** Present on entries that carry their verification's attestation record (attestationEntryId). */
  attestation?: AttestationInEntry;
}

/**
 * Position index: `{_id: "<org>#<seq>", log_id, entry_hash}`, written right after the entries it
 * names; the last contiguous position is the chain's head.
 * FerretDB 1.x answers only `_id` equality without reading the whole collection (it pushes no
 * other filter and no sort down to SQLite), so every read by position goes through this index.
 */
export interface AuditSeqDoc {
  _id: string;
  log_id: string;
  /**
   * The entry's hash: the head's hash when this is the last position (the positions move the
   * head, session 14). Absent on positions written before: the entry is read for it.
   */
  entry_hash?: string;
  /** The entry's verdict flags, so a status-filtered page reads only index documents for entries it skips. */
  verified: boolean;
  blocked: boolean;
}

export const seqKey = (orgId: string, seq: number) => `${orgId}#${seq}`;

export const isBlocked = (doc: Pick<AuditLogDoc, 'result'>) => {
  const r = (doc.result ?? {}) as Record<string, unknown>;
  return r.status === 'BLOCKED' || r.admission === 'BLOCKED';
};

export interface AuditPage {
  docs: AuditLogDoc[];
  /** Seq to pass as `beforeSeq` for the next page; null when the page reached the first entry. */
  next: number | null;
}

export interface AuditHeadDoc {
  _id: string; // organization id
  /** Entries in the chain (0: none yet). */
  seq: number;
  head_hash: string | null;
  updated_at: Date;
}

/**
 * The organization's verdict roll-up (core/audit-rollup.ts), `audit_rollups` `{_id: org}`: the
 * counts of entries 1..seq, written after each head move. Kept out of the head so that the
 * head's compare-and-swap (a scan of the heads on FerretDB/SQLite) stays small.
 */
export interface AuditRollupDoc {
  _id: string; // organization id (the recent roll-up: organization id + '#recent')
  /** The last position counted. */
  seq: number;
  /**
   * The counts (`all` and `hours`) packed into one JSON string of tuples (persistence/audit.ts
   * `rollupDoc`): FerretDB reads and writes one string at copy cost, while the same counts as
   * 169 nested hour objects cost it ~17 ms of CPU per write and ~12 ms per read (issue 22).
   */
  counts?: string;
  /**
   * Session 23: set only on the organization's recent roll-up (`{_id: org#recent}`,
   * persistence/audit.ts `recentRollupDoc`): its `counts` hold `all` and only the hours the
   * entries after position `base` fell in; the rest is the complete roll-up `{_id: org}`.
   */
  base?: number;
  /** The counts as nested objects: documents written before session 11 (read, never written). */
  all?: AuditRollup['all'];
  hours?: AuditRollup['hours'];
  updated_at: Date;
}

export type AuditStatusFilter = 'verified' | 'blocked';

export interface ChainIntegrity {
  checked: number;
  invalid: number;
  head_seq: number;
  head_matches_last_entry: boolean;
  valid: boolean;
  first_invalid: { log_id: string; seq: number; errors: string[] } | null;
}

/** The public view of an entry (API responses, CSV rows): every field shown is covered by entry_hash, except id and seq. */
export function auditLogView(doc: AuditLogDoc) {
  const r = (doc.result ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: doc._id,
    seq: doc.seq,
    organization_id: doc.organization_id,
    user_id: doc.user_id,
    key_id: str(r.key_id),
    engine: doc.domain,
    query: doc.query,
    status: str(r.status),
    verified: doc.verified,
    admission: str(r.admission),
    proof_ref: str(r.proof_ref),
    attestation_id: str(r.attestation_id),
    workflow_id: str(r.workflow_id),
    request_digest: str(r.request_digest),
    raw_llm_output: doc.raw_llm_output ?? null,
    timestamp: typeof doc.timestamp === 'string' ? doc.timestamp : new Date(doc.timestamp).toISOString(),
    previous_hash: doc.previous_hash,
    entry_hash: doc.entry_hash,
    signature: doc.signature,
  };
}

export type AuditLogView = ReturnType<typeof auditLogView>;
