// Scopes and roles of the contract ("Scopes", "User and organization", "Admin endpoints") and
// the pure authorization decisions built on them. Unknown scope or role strings never grant
// anything (fail closed).

import { ROLES, SCOPES, type Role, type Scope } from '../contract/auth.js';

export { ROLES, SCOPES, type Role, type Scope };

export const SCOPE_VERIFY_READ: Scope = 'verify:read';
export const SCOPE_AGENT_WRITE: Scope = 'agent:write';
export const SCOPE_ATTESTATION_READ: Scope = 'attestation:read';
export const SCOPE_ADMIN_ALL: Scope = 'admin:all';

/**
 * Scopes given to a key created through `POST /auth/api-keys` or rotation. The contract does
 * not state them; everything except `admin:all` (admin endpoints authorize by role anyway).
 */
export const DEFAULT_API_KEY_SCOPES: readonly Scope[] = ['verify:read', 'agent:write', 'attestation:read'];

/** Higher number = more privilege. Sign-up creates `owner`. */
export const ROLE_RANK: Readonly<Record<Role, number>> = { member: 1, admin: 2, owner: 3 };

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether a key holding `keyScopes` may use an endpoint that requires `required`. `admin:all` grants every scope. */
export function hasScope(keyScopes: readonly unknown[] | null | undefined, required: Scope): boolean {
  if (!Array.isArray(keyScopes)) return false;
  return keyScopes.includes(SCOPE_ADMIN_ALL) || keyScopes.includes(required);
}

/** Roles allowed to call `POST /admin/keys/rotate` at all (for their own key). */
export const KEY_ROTATION_ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export interface KeyRotationRequest {
  callerRole: unknown;
  callerUserId: unknown;
  keyOwnerUserId: unknown;
  keyOwnerRole: unknown;
}

export type KeyRotationDecision =
  | { allowed: true; reason: 'own_key' | 'other_user_key' }
  | { allowed: false; reason: 'invalid_caller' | 'role_not_allowed' | 'insufficient_role' | 'owner_outranks_caller' };

/**
 * The rotation matrix of `POST /admin/keys/rotate`, with the reason (for logs, not for the
 * response body, which is always `Insufficient permissions for this operation`).
 *   own key                      → any allowed role
 *   another user's key           → caller must be owner or admin, and the key owner's role must not
 *                                  outrank the caller's (admin cannot rotate an owner's key)
 *   member, another user's key   → denied
 * Organization, revocation and activity checks (404) are the caller's job and come first.
 */
export function decideKeyRotation(req: KeyRotationRequest): KeyRotationDecision {
  const { callerRole, callerUserId, keyOwnerUserId, keyOwnerRole } = req;
  if (typeof callerUserId !== 'string' || callerUserId.length === 0)
    return { allowed: false, reason: 'invalid_caller' };
  if (!isRole(callerRole) || !KEY_ROTATION_ROLES.includes(callerRole))
    return { allowed: false, reason: 'role_not_allowed' };
  if (callerUserId === keyOwnerUserId) return { allowed: true, reason: 'own_key' };
  if (callerRole !== 'owner' && callerRole !== 'admin') return { allowed: false, reason: 'insufficient_role' };
  // An owner whose role cannot be read is treated as outranking everyone (fail closed).
  if (!isRole(keyOwnerRole) || ROLE_RANK[keyOwnerRole] > ROLE_RANK[callerRole]) {
    return { allowed: false, reason: 'owner_outranks_caller' };
  }
  return { allowed: true, reason: 'other_user_key' };
}

/** Boolean form of `decideKeyRotation`. */
export function canRotateKey(req: KeyRotationRequest): boolean {
  return decideKeyRotation(req).allowed;
}

/**
 * The widest scopes a user of `role` may put on a key (and the default of a key minted without
 * explicit scopes through `POST /auth/api-keys`): `admin:all` only for owners and admins, since
 * admin endpoints need both the role and the scope. Unknown roles get nothing (fail closed).
 */
export function maxScopesForRole(role: unknown): readonly Scope[] {
  if (role === 'owner' || role === 'admin') return [...DEFAULT_API_KEY_SCOPES, SCOPE_ADMIN_ALL];
  if (role === 'member') return DEFAULT_API_KEY_SCOPES;
  return [];
}

/**
 * Whether a holder of `held` may hand out a key carrying `requested`: every requested scope must
 * be granted by `held` (`admin:all` grants every scope). Unknown strings in `requested` must be
 * held literally; a non-array on either side is never covered.
 */
export function scopesCovered(
  held: readonly unknown[] | null | undefined,
  requested: readonly unknown[] | null | undefined,
): boolean {
  if (!Array.isArray(held) || !Array.isArray(requested)) return false;
  if (held.includes(SCOPE_ADMIN_ALL)) return true;
  return requested.every((s) => typeof s === 'string' && held.includes(s));
}
