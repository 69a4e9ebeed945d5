// POST /admin/keys/rotate: issue a new secret for a live key of the caller's organization.
//
// Authorization, in order (docs/security-model.md "Key rotation"):
//   1. key of another organization, revoked or inactive → 404;
//   2. the role matrix of `decideKeyRotation`; then another user's key also needs `admin:all`
//      on the calling key (an admin action), while one's own key needs only the role;
//   3. the calling key must hold every scope of the rotated key (a key never rotates into
//      scopes wider than its own);
//   4. exactly one of concurrent rotations of one key wins (`Accounts.rotateKey`); the others
//      get 409.
import { ROTATION_IN_PROGRESS, ROTATION_WIDER_SCOPES } from '../../contract/admin.js';
import { API_KEY_NOT_FOUND as KEY_NOT_FOUND } from '../../contract/auth.js';
import { decideKeyRotation, hasScope, scopesCovered, SCOPE_ADMIN_ALL } from '../../core/scopes.js';
import { HttpError } from '../errors.js';
import { principalOf, requireAdminKey, INSUFFICIENT_PERMISSIONS, lacksScope } from '../middleware/auth.js';
import { planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

export function adminKeyHandlers(deps: AppDeps) {
  // Scope checked in the handler: rotating one's own key is self-service for every role.
  const auth = requireAdminKey(deps, ['owner', 'admin', 'member'], null);
  const rotateApiKey = endpoint('rotateApiKey', [auth, planLimit(deps.counter, 'account')], async (ctx, req) => {
    const p = principalOf(ctx);
    const { key_id } = req.body();
    // Another organization's key, a revoked or an inactive key: absent (404).
    const target = await deps.accounts.findActiveKey(p.orgId, key_id);
    if (!target) throw new HttpError(404, KEY_NOT_FOUND);
    const owner = await deps.accounts.findUser(target.user_id);
    const decision = decideKeyRotation({
      callerRole: p.role,
      callerUserId: p.userId,
      keyOwnerUserId: target.user_id,
      keyOwnerRole: owner?.role,
    });
    if (!decision.allowed) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    if (target.user_id !== p.userId && !hasScope(p.scopes, SCOPE_ADMIN_ALL))
      throw new HttpError(403, lacksScope(SCOPE_ADMIN_ALL));
    if (!scopesCovered(p.scopes, target.scopes)) throw new HttpError(403, ROTATION_WIDER_SCOPES);
    const rotated = await deps.accounts.rotateKey(target);
    if (!rotated.ok) {
      if (rotated.reason === 'in_progress') throw new HttpError(409, ROTATION_IN_PROGRESS);
      throw new HttpError(404, KEY_NOT_FOUND);
    }
    const { doc, key } = rotated;
    ctx.body = {
      key_id: doc._id,
      old_key_id: target._id,
      name: doc.name,
      new_key_secret: key,
      preview: doc.preview,
      created_at: doc.created_at.toISOString(),
    };
  });
  return { rotateApiKey };
}
