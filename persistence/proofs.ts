// Proofs and attestation records: `proofs` (growing: one per distinct proved artifact, `_id` =
// its proof_ref, content-addressed) and `attestations` (growing: one per issued attestation,
// `_id` = its jti). Both are written once and read only by `_id`; every query of these
// collections is in this module, each with the key that serves it (docs/store-access.md).
//
// Writes are insert-once through the process's group commit (persistence/insert-coalescer.ts):
// no read before the write. A duplicate key on a proof means the same artifact is already
// retained (the id is its hash); on an attestation, the same jti written by an earlier attempt.
// Each caller awaits its own acknowledgement: the proof is stored before the attestation is
// signed and VERIFIED leaves the activity; the attestation record before the verdict is returned.
//
// Session 24 (issue 22, the last random-key insert): where the attestation record rides in the
// entry, so does the proof artifact it attests (AttestationInEntry.artifact): the entry's insert
// retains it, and `proofs` gets no insert (a content-hash `_id`, a random leaf of a growing table).
// A proof is found from its attestation (findAttestationWithProof): in the entry, else by `_id`.
//
// Session 16 (issue 22, round trips per verification): a `/verify/math` run whose workflow asks
// for it stores its attestation record in its audit entry instead (`audit_logs`, `_id`
// attestationEntryId(jti), field `attestation`): the entry is written anyway, before the verdict
// is returned, so the record costs no insert of its own. Reading an attestation by id is then two
// point lookups by `_id` at once: the record in `attestations` or the entry that carries it.
import type { Collection } from 'mongodb';
import type { ProofRecord, Store } from '../core/store.js';
import type { AttestationClaims, IssuedAttestation } from '../core/attestation.js';
import type { AuditLogDoc } from '../core/audit-log.js';
import { findEntryById } from './audit.js';
import { insertCoalescerFor } from './insert-coalescer.js';

export type { ProofRecord };

export interface AttestationRecord {
  _id: string; // the jti
  org_id: string | null;
  token: string;
  claims: AttestationClaims;
  status: 'ISSUED';
  engine: string;
  proof_ref: string | null;
  created_at: Date;
}

/** The attestation records collection (for seeding and tests; the service reads by `_id` only). */
export function attestationRecords(store: Store): Collection<AttestationRecord> {
  return store.collection<AttestationRecord>('attestations');
}

/**
 * Proof refs this process saw acknowledged by `store` (inserted, or a duplicate: already stored),
 * most recent last. A proof is never deleted or changed once stored (content-addressed,
 * insert-once; nothing in the service deletes one), so a ref in here is retained and its insert
 * is skipped: the same claim verified again costs no store command for its proof (issue 22, CPU
 * per /verify/math). Bounded (RETAINED_REFS, ~100 bytes each), per store.
 */
const retained = new WeakMap<Store, Map<string, true>>();
const RETAINED_REFS = 4096;

function retainedRefs(store: Store): Map<string, true> {
  let refs = retained.get(store);
  if (!refs) retained.set(store, (refs = new Map()));
  return refs;
}

function noteRetained(store: Store, proofRef: string): void {
  const refs = retainedRefs(store);
  refs.delete(proofRef);
  refs.set(proofRef, true);
  if (refs.size > RETAINED_REFS) refs.delete(refs.keys().next().value as string);
}

/**
 * Retains a proof artifact under its proof_ref: an insert by `_id`; a duplicate = already
 * retained. Skipped when this process already saw the same ref acknowledged (retainedRefs).
 */
export async function insertProof(store: Store, proofRef: string, record: Omit<ProofRecord, '_id'>): Promise<void> {
  if (retainedRefs(store).has(proofRef)) return;
  await insertCoalescerFor(store, 'proofs').insert({ _id: proofRef, ...record });
  noteRetained(store, proofRef);
}

/** Retains several proofs as one group (a batch chunk's): one insertMany by `_id`; a duplicate = already retained. */
export async function insertProofs(
  store: Store,
  records: Array<{ proofRef: string; record: Omit<ProofRecord, '_id'> }>,
): Promise<void> {
  const refs = retainedRefs(store);
  const missing = records.filter((r) => !refs.has(r.proofRef));
  if (missing.length === 0) return;
  await insertCoalescerFor(store, 'proofs').insertAll(missing.map((r) => ({ _id: r.proofRef, ...r.record })));
  for (const r of missing) noteRetained(store, r.proofRef);
}

/** A retained proof by its proof_ref (`_id` point lookup). */
export function findProof(store: Store, proofRef: string): Promise<ProofRecord | null> {
  return store.proofs.findOne({ _id: proofRef });
}

/**
 * Stores an issued attestation under its jti, scoped to `orgId`: an insert by `_id` (idempotent for
 * the same jti). Resolves false when a record with that jti was already stored (an earlier attempt
 * of the same verification, whose jti is derived from its workflow): the caller reads that one.
 */
export function recordAttestation(
  store: Store,
  issued: IssuedAttestation,
  meta: { orgId: string | null; engine: string; proofRef: string | null },
): Promise<boolean> {
  return insertCoalescerFor(store, 'attestations').insert({
    _id: issued.jti,
    org_id: meta.orgId,
    token: issued.token,
    claims: issued.claims,
    status: issued.status,
    engine: meta.engine,
    proof_ref: meta.proofRef,
    created_at: new Date(),
  });
}

/** Stores several issued attestations as one group (a batch chunk's): recordAttestation for each, one insertMany by `_id`. */
export function recordAttestations(
  store: Store,
  records: Array<{ issued: IssuedAttestation; orgId: string | null; engine: string; proofRef: string | null }>,
): Promise<boolean[]> {
  const createdAt = new Date();
  return insertCoalescerFor(store, 'attestations').insertAll(
    records.map(({ issued, orgId, engine, proofRef }) => ({
      _id: issued.jti,
      org_id: orgId,
      token: issued.token,
      claims: issued.claims,
      status: issued.status,
      engine,
      proof_ref: proofRef,
      created_at: createdAt,
    })),
  );
}

const ATTESTATION_ID = /^att_([0-9a-f]{32})$/;

/**
 * The `_id` of the audit entry that carries the attestation record `jti` (an `att_<32 hex>` id,
 * attestationIdFor): `log_<the same hex>`. Derived both ways, so a reader that has only the
 * attestation id finds the entry by `_id`. Null for an id of another shape (never in an entry).
 */
export function attestationEntryId(jti: string): string | null {
  const m = ATTESTATION_ID.exec(jti);
  return m ? `log_${m[1]}` : null;
}

/** The attestation record an audit entry carries, when it carries the one named `id`. */
export function attestationOfEntry(entry: AuditLogDoc | null, id: string): AttestationRecord | null {
  const att = entry?.attestation;
  const result = (entry?.result ?? {}) as Record<string, unknown>;
  if (!entry || !att || result.attestation_id !== id || att.claims?.jti !== id) return null;
  return {
    _id: id,
    org_id: entry.organization_id,
    token: att.token,
    claims: att.claims,
    status: att.status,
    engine: entry.domain,
    proof_ref: typeof result.proof_ref === 'string' ? result.proof_ref : null,
    created_at: entry.timestamp instanceof Date ? entry.timestamp : new Date(entry.timestamp),
  };
}

/**
 * The proof an audit entry carries beside its attestation record (session 24), as a proofs
 * record: only when the entry carries the attestation named `id` and the artifact it attests,
 * whose proof_ref is the entry's (hashed) `result.proof_ref` and the claims' proof hash.
 */
export function proofOfEntry(entry: AuditLogDoc | null, id: string): ProofRecord | null {
  const record = attestationOfEntry(entry, id);
  const artifact = entry?.attestation?.artifact;
  if (!record || !record.proof_ref || !artifact || entry?.attestation?.claims?.svc?.proof_hash !== record.proof_ref)
    return null;
  return {
    _id: record.proof_ref,
    artifact,
    engine: record.engine,
    org_id: record.org_id,
    created_at: record.created_at,
  };
}

/** Both point lookups of findAttestation: the record in `attestations` and the entry that may carry it. */
async function attestationSources(
  store: Store,
  id: string,
): Promise<{ rec: AttestationRecord | null; entry: AuditLogDoc | null }> {
  const entryId = attestationEntryId(id);
  const [rec, entry] = await Promise.all([
    attestationRecords(store).findOne({ _id: id }),
    entryId ? findEntryById(store, entryId) : null,
  ]);
  return { rec, entry };
}

/**
 * An attestation record by jti, any organization (the public badge): `attestations` by `_id`
 * and, at the same time, the audit entry that may carry it (`audit_logs` by `_id`,
 * attestationEntryId): two point lookups.
 */
export async function findAttestation(store: Store, id: string): Promise<AttestationRecord | null> {
  const { rec, entry } = await attestationSources(store, id);
  return rec ?? attestationOfEntry(entry, id);
}

/**
 * An attestation record by jti with the proof it attests (session 24, docs/store-access.md §18):
 * findAttestation's two point lookups; the proof is the one the entry carries beside the record
 * (a math verification or batch item since session 24), else `proofs` by `_id` = the record's
 * proof_ref (other engines, entries written before, a record in `attestations`): a third point
 * lookup, only then. `proof` is null when the attestation names no proof or it is not retained.
 */
export async function findAttestationWithProof(
  store: Store,
  id: string,
): Promise<{ attestation: AttestationRecord; proof: ProofRecord | null } | null> {
  const { rec, entry } = await attestationSources(store, id);
  const attestation = rec ?? attestationOfEntry(entry, id);
  if (!attestation) return null;
  if (!attestation.proof_ref) return { attestation, proof: null };
  const carried = rec ? null : proofOfEntry(entry, id);
  return { attestation, proof: carried ?? (await findProof(store, attestation.proof_ref)) };
}

/** An attestation record of `orgId` (`_id` point lookup, organization checked here): another organization's is null. */
export async function findOrgAttestation(store: Store, orgId: string, id: string): Promise<AttestationRecord | null> {
  const rec = await findAttestation(store, id);
  return rec && rec.org_id === orgId ? rec : null;
}
