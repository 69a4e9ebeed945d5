// Issued attestations are kept with their organization so that GET /attestation/{id} and
// /badge/attestation/{id} can return and re-verify them. Every signing path calls
// recordAttestation right after signing; a store failure propagates (the activity fails and
// is retried), so no VERIFIED result is returned with an attestation that cannot be looked up.
import type { Collection } from 'mongodb';
import { Store } from './store.js';
import type { AttestationClaims, IssuedAttestation } from './attestation.js';
import { coalescerFor } from './upsert-coalescer.js';

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

Store.registerIndexes(async (store) => {
  await store.collection('attestations').createIndex({ org_id: 1, created_at: -1 });
});

export function attestationRecords(store: Store): Collection<AttestationRecord> {
  return store.collection<AttestationRecord>('attestations');
}

/** Stores an issued attestation under its jti, scoped to `orgId` (idempotent for the same jti). */
export async function recordAttestation(
  store: Store,
  issued: IssuedAttestation,
  meta: { orgId: string | null; engine: string; proofRef: string | null },
): Promise<void> {
  // Group-committed with the concurrent verifications of this process (core/upsert-coalescer.ts).
  await coalescerFor(store, 'attestations').upsert(issued.jti, {
    org_id: meta.orgId,
    token: issued.token,
    claims: issued.claims,
    status: issued.status,
    engine: meta.engine,
    proof_ref: meta.proofRef,
    created_at: new Date(),
  });
}
