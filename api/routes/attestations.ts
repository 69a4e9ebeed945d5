// Attestations: look-up of an issued attestation, verification of any attestation token, and
// the public key set (JWKS) that third parties verify tokens with. docs/attestations.md.
import type Router from '@koa/router';
import { ATTESTATION_ID_PATTERN, ATTESTATION_NOT_FOUND, attestationVerifyRequestSchema as verifySchema } from '../../contract/attestation.js';
import type { ServiceConfig } from '../../core/config.js';
import { verifyAttestationToken, type AttestationVerifyResult } from '../../core/attestation.js';
import { loadKeyRing, type AttestationKeyRing } from '../../core/attestation-keys.js';
import { attestationRecords, type AttestationRecord } from '../../core/attestation-records.js';
import { HttpError } from '../errors.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf } from '../middleware/auth.js';
import { keyLimit } from '../middleware/rate-limit.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';

export { ATTESTATION_NOT_FOUND };
/** Contract: attestation verify 1000 per hour (per key, on top of the plan limit). */
export const ATTESTATION_VERIFY_PER_HOUR = 1000;
export const ATTESTATION_ID = ATTESTATION_ID_PATTERN;

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
    engine: rec.engine,
    proof_ref: rec.proof_ref,
    created_at: rec.created_at.toISOString(),
    verification: v.valid ? { valid: true, kid: v.kid } : { valid: false, reason: v.reason },
  };
}

export function registerAttestationRoutes(router: Router, deps: AppDeps): void {
  router.get('/.well-known/jwks.json', async (ctx) => {
    const ring = await attestationKeyRing(deps.cfg);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: ring.publicJwks };
  });

  router.post(
    '/attestation/verify',
    ...apiKeyGuard(deps, 'attestation:read'),
    keyLimit(deps.counter, 'attestation-verify', ATTESTATION_VERIFY_PER_HOUR, 3600),
    async (ctx) => {
      const { token } = verifySchema.parse(bodyObject(ctx));
      const v = await verifyToken(deps.cfg, token);
      ctx.body = v.valid ? { valid: true, claims: v.claims, kid: v.kid } : { valid: false, reason: v.reason };
    },
  );

  router.get('/attestation/:id', ...apiKeyGuard(deps, 'attestation:read'), async (ctx) => {
    const id = ctx.params.id as string;
    // Organization-scoped: another organization's attestation is indistinguishable from none.
    const rec = ATTESTATION_ID.test(id) ? await attestationRecords(deps.store).findOne({ _id: id, org_id: principalOf(ctx).orgId }) : null;
    if (!rec) throw new HttpError(404, ATTESTATION_NOT_FOUND);
    ctx.body = await attestationView(deps.cfg, rec);
  });
}
