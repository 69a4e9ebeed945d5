// Attestation helpers shared by the attestation, badge, compliance and Verification Context
// routes: the process's key ring, token verification and the stored-attestation view.
// Kept out of api/routes/ so no route file imports another (test/unit/api-imports.test.ts).
import type { ServiceConfig } from '../core/config.js';
import { attestedAdmission, verifyAttestationToken, type AttestationVerifyResult } from '../core/attestation.js';
import { loadKeyRing, type AttestationKeyRing } from '../core/attestation-keys.js';
import type { AttestationRecord } from '../core/proof-store.js';

/** Contract: attestation verify 1000 per hour (per key, on top of the plan limit). */
export const ATTESTATION_VERIFY_PER_HOUR = 1000;

const rings = new WeakMap<ServiceConfig, Promise<AttestationKeyRing>>();

/** The process's key ring (signing key + SVC_ATTESTATION_VERIFY_KEYS), loaded once per configuration. */
export function attestationKeyRing(cfg: ServiceConfig): Promise<AttestationKeyRing> {
  let ring = rings.get(cfg);
  if (!ring) {
    ring = loadKeyRing(cfg);
    rings.set(cfg, ring);
  }
  return ring;
}

export async function verifyToken(cfg: ServiceConfig, token: string): Promise<AttestationVerifyResult> {
  const ring = await attestationKeyRing(cfg);
  return verifyAttestationToken(token, ring.publicJwks, cfg.SVC_DEPLOYMENT_ID);
}

/** The stored attestation with the result of re-verifying its token now. */
export async function attestationView(cfg: ServiceConfig, rec: AttestationRecord) {
  const v = await verifyToken(cfg, rec.token);
  return {
    id: rec._id,
    status: rec.status,
    token: rec.token,
    claims: rec.claims,
    // The signed admission (code, SQL and what embeds them): BLOCKED content is never admissible,
    // whatever its status. null when the token signs none.
    admission: attestedAdmission(rec.claims),
    engine: rec.engine,
    // Always present: a record stored without one (natural language; the store may drop a null
    // field) is null, as the contract declares (found by the fuzzer).
    proof_ref: rec.proof_ref ?? null,
    created_at: rec.created_at.toISOString(),
    verification: v.valid ? { valid: true, kid: v.kid } : { valid: false, reason: v.reason },
  };
}
