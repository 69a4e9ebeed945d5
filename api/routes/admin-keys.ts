// POST /admin/keys/rotate: issue a new secret for a live key of the caller's organization.
import type Router from '@koa/router';
import { z } from 'zod';
import { decideKeyRotation } from '../../core/scopes.js';
import { HttpError } from '../errors.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf, requireAdminKey, INSUFFICIENT_PERMISSIONS } from '../middleware/auth.js';
import type { AppDeps } from '../app.js';

const rotateSchema = z.object({ key_id: z.string().min(1).max(100) });
export const KEY_NOT_FOUND = 'API key not found.';

export function registerAdminKeyRoutes(router: Router, deps: AppDeps): void {
  router.post('/admin/keys/rotate', requireAdminKey(deps, ['owner', 'admin', 'member']), async (ctx) => {
    const p = principalOf(ctx);
    const { key_id } = rotateSchema.parse(bodyObject(ctx));
    // Another organization's key, a revoked or an inactive key: absent (404).
    const target = await deps.accounts.keys.findOne({ _id: key_id, org_id: p.orgId, active: true, revoked_at: null });
    if (!target) throw new HttpError(404, KEY_NOT_FOUND);
    const owner = await deps.accounts.findUser(target.user_id);
    const decision = decideKeyRotation({
      callerRole: p.role,
      callerUserId: p.userId,
      keyOwnerUserId: target.user_id,
      keyOwnerRole: owner?.role,
    });
    if (!decision.allowed) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    // No multi-document transactions: mint the new key, then revoke the old one with a
    // conditional single-document update; if another rotation won the race, undo ours.
    const { doc, key } = await deps.accounts.createKey({
      orgId: target.org_id,
      userId: target.user_id,
      name: target.name,
      scopes: target.scopes,
      expiresAt: target.expires_at,
      rotatedFrom: target._id,
    });
    const revoked = await deps.accounts.keys.updateOne(
      { _id: target._id, active: true },
      { $set: { active: false, revoked_at: new Date(), rotated_to: doc._id } },
    );
    if (revoked.modifiedCount !== 1) {
      await deps.accounts.keys.deleteOne({ _id: doc._id });
      throw new HttpError(404, KEY_NOT_FOUND);
    }
    ctx.body = {
      key_id: doc._id,
      old_key_id: target._id,
      name: doc.name,
      new_key_secret: key,
      preview: doc.preview,
      created_at: doc.created_at.toISOString(),
    };
  });
}
