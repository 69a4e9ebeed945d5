// Attestations: look-up of an issued attestation, verification of any attestation token, and
// the public key set (JWKS) that third parties verify tokens with. docs/attestations.md.
import { ATTESTATION_ID_PATTERN, ATTESTATION_NOT_FOUND } from '../../contract/attestation.js';
import { findOrgAttestation } from '../../core/proof-store.js';
import { ATTESTATION_VERIFY_PER_HOUR, attestationKeyRing, attestationView, verifyToken } from '../attestations.js';
import { attestedAdmission } from '../../core/attestation.js';
import { HttpError } from '../errors.js';
import { principalOf } from '../middleware/auth.js';
import { keyLimit } from '../middleware/rate-limit.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

export function attestationHandlers(deps: AppDeps) {
  const jwks = endpoint('jwks', [], async (ctx) => {
    const ring = await attestationKeyRing(deps.cfg);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: ring.publicJwks };
  });

  const verifyAttestation = endpoint(
    'verifyAttestation',
    [
      ...apiKeyGuard(deps, 'attestation:read'),
      keyLimit(deps.counter, 'attestation-verify', ATTESTATION_VERIFY_PER_HOUR, 3600),
    ],
    async (ctx, req) => {
      const { token } = req.body();
      const v = await verifyToken(deps.cfg, token);
      // `admission` is read from the verified claims only: a valid signature over a BLOCKED admission
      // says "do not admit" as loudly as `valid` says "authentic".
      ctx.body = v.valid
        ? { valid: true, admission: attestedAdmission(v.claims), claims: v.claims, kid: v.kid }
        : { valid: false, reason: v.reason };
    },
  );

  const getAttestation = endpoint('getAttestation', [...apiKeyGuard(deps, 'attestation:read')], async (ctx, req) => {
    const id = req.params.id;
    // Organization-scoped: another organization's attestation is indistinguishable from none.
    const rec = ATTESTATION_ID_PATTERN.test(id)
      ? await findOrgAttestation(deps.store, principalOf(ctx).orgId, id)
      : null;
    if (!rec) throw new HttpError(404, ATTESTATION_NOT_FOUND);
    ctx.body = await attestationView(deps.cfg, rec);
  });
  return { jwks, verifyAttestation, getAttestation };
}
