// Which Verification Context documents this service issued (docs/verification-context-http.md,
// "Issued here"). A document's commitment (its proof_ref) is self-consistent whoever computes
// it, so `resolved` alone cannot tell a document of ours from a made-up or edited one (issue 28
// item 6). from-diagnostic records a VERIFIED document's commitment here, with its organization,
// only when the verdict behind it is ours for that organization: the attestation it carried was
// issued by this deployment to the caller's organization for that proof, and the proof itself
// was retained here. /resolve reports `issued_here` from this record: any edit changes the
// commitment, so an edited document is never issued here.
import type { Store } from './store.js';
import { findAttestationWithProof } from '../persistence/proofs.js';
import { isContextIssued, recordIssuedContext } from '../persistence/contexts.js';

export type { IssuedContextRecord } from '../persistence/contexts.js';

export type IssuedHereReason =
  /** resolve: the exact document was issued by this service. */
  | 'issued_by_this_service'
  /** resolve: the document does not resolve, so nothing about it is vouched for. */
  | 'not_resolved'
  /** resolve: no document with this commitment was issued here (made up, edited, or from another deployment). */
  | 'not_issued_here'
  /** from-diagnostic: the attestation is not recorded by this deployment. */
  | 'attestation_not_recorded_here'
  /** from-diagnostic: the attestation was issued to another organization, or for another proof. */
  | 'attestation_not_issued_to_caller'
  /** from-diagnostic: the proof behind the verdict is not retained here. */
  | 'proof_not_retained_here'
  /** from-diagnostic: the retained proof says the subject is not valid, the document admits it. */
  | 'admission_not_backed_by_proof';

export type IssuanceOutcome =
  { issued: true; reason: 'issued_by_this_service' } | { issued: false; reason: IssuedHereReason };

export interface IssuanceRequest {
  orgId: string;
  /** The VERIFIED document's commitment. */
  commitment: string;
  /** jti of the attestation the trust gate accepted. */
  attestationId: string;
  /** The diagnostic's proof_ref (the retained proof). */
  proofRef: string;
  admission: 'ADMIT' | 'DENY';
  verifier: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Records a VERIFIED document from from-diagnostic as issued here, when its verdict is ours for
 * the caller's organization; otherwise says why not (the document itself is unchanged).
 */
export async function recordIssuance(store: Store, r: IssuanceRequest): Promise<IssuanceOutcome> {
  // attestations by `_id`, or the audit entry that carries it (math since session 16), with the
  // proof it attests: carried by that entry (math since session 24), else `proofs` by `_id`.
  const found = await findAttestationWithProof(store, r.attestationId);
  if (!found) return { issued: false, reason: 'attestation_not_recorded_here' };
  const att = found.attestation;
  if (att.org_id !== r.orgId || att.proof_ref !== r.proofRef)
    return { issued: false, reason: 'attestation_not_issued_to_caller' };
  const proof = found.proof;
  if (!proof) return { issued: false, reason: 'proof_not_retained_here' };
  // Code and SQL proofs record whether the subject is valid (unsafe code, a malicious query are
  // VERIFIED with is_valid false); a document admitting such a subject is not what we issued.
  const verdict = isObject(proof.artifact) ? proof.artifact.verdict : undefined;
  if (r.admission === 'ADMIT' && isObject(verdict) && verdict.is_valid === false)
    return { issued: false, reason: 'admission_not_backed_by_proof' };
  await recordIssuedContext(store, {
    _id: r.commitment,
    org_id: r.orgId,
    attestation_id: r.attestationId,
    proof_ref: r.proofRef,
    verifier: r.verifier,
    created_at: new Date(),
  });
  return { issued: true, reason: 'issued_by_this_service' };
}

/** Whether a document with this commitment was issued here (by any organization: the commitment is only known to a holder of the document). */
export async function wasIssuedHere(store: Store, commitment: string): Promise<boolean> {
  return isContextIssued(store, commitment);
}
