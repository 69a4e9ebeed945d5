// Authentication for the three credentials of the contract (X-API-Key, Authorization: Bearer,
// X-Agent-Token) and authorization by scope and role. Each middleware puts a Principal in
// ctx.state.principal; every handler scopes its queries by principal.orgId.
import type { Context, Middleware } from 'koa';
import { inspectApiKey, AGENT_PREFIX } from '../../core/api-keys.js';
import { verifyAccessToken, AccessTokenError } from '../../core/jwt.js';
import { hasScope, SCOPE_ADMIN_ALL, type Role, type Scope } from '../../core/scopes.js';
import type { ApiKeyDoc, OrganizationDoc, Plan, ResolvedKey, UserDoc } from '../../core/accounts.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';

export interface Principal {
  via: 'api_key' | 'jwt' | 'agent';
  orgId: string;
  userId: string | null;
  keyId: string | null;
  role: Role | null;
  plan: Plan;
  scopes: string[];
  /** Agent-token principals only. */
  agentId?: string;
}

export const INSUFFICIENT_PERMISSIONS = 'Insufficient permissions for this operation';
export const MISSING_KEY = 'Missing API key: send it in the X-API-Key header.';
export const INVALID_KEY = 'Invalid API key.';
export const LEGACY_KEY =
  'This API key was issued before v7.2 and no longer authenticates; re-issue it (sign in and POST /auth/api-keys, or POST /admin/keys/rotate with a working key of the same organization).';
export const INACTIVE_KEY = 'API key is revoked, inactive or expired.';
export const INVALID_TOKEN = 'Invalid or expired access token.';
export const lacksScope = (scope: Scope) => `API key lacks the required scope '${scope}'.`;

const unauthorized = (detail: string) => new HttpError(401, detail, { 'WWW-Authenticate': 'ApiKey' });

type KeyFailure = 'missing' | 'invalid' | 'legacy' | 'inactive_key' | 'inactive_account' | 'foreign_user';

interface KeyResolution {
  ok: boolean;
  failure?: KeyFailure;
  key?: ApiKeyDoc;
  user?: UserDoc | null;
  org?: OrganizationDoc | null;
}

/** Resolves an X-API-Key value to its key, owning user and organization, without deciding the status code. */
export async function resolveApiKey(deps: AppDeps, raw: string | undefined): Promise<KeyResolution> {
  if (!raw) return { ok: false, failure: 'missing' };
  const shape = inspectApiKey(raw);
  // Bad checksums, unknown prefixes and agent tokens are rejected without a store lookup.
  if (!shape.ok || shape.prefix === AGENT_PREFIX) return { ok: false, failure: 'invalid' };
  // The process's key cache (bounded staleness, docs/performance.md) saves the three reads
  // below; concurrent misses of one key share one lookup (single flight, core/key-cache.ts).
  const digest = deps.accounts.digest(raw);
  const got = await deps.accounts.keyCache.load(
    digest,
    () => lookupApiKey(deps, raw),
    (r) =>
      r.ok ? { keyId: (r.key as ApiKeyDoc)._id, value: { key: r.key, user: r.user, org: r.org } as ResolvedKey } : null,
  );
  if ('result' in got) return got.result;
  const cached = got.cached;
  if (cached.key.expires_at !== null && cached.key.expires_at.getTime() <= Date.now())
    return { ok: false, failure: 'inactive_key', ...cached };
  return { ok: true, ...cached };
}

/** The three reads of a key not in the cache (key by digest, its user and organization by `_id`). */
async function lookupApiKey(deps: AppDeps, raw: string): Promise<KeyResolution> {
  const key = await deps.accounts.findKeyByRaw(raw);
  if (!key) {
    const legacy = await deps.accounts.findLegacyKey(raw);
    return { ok: false, failure: legacy ? 'legacy' : 'invalid' };
  }
  const [user, org] = await Promise.all([deps.accounts.findUser(key.user_id), deps.accounts.findOrg(key.org_id)]);
  const expired = key.expires_at !== null && key.expires_at.getTime() <= Date.now();
  if (!key.active || key.revoked_at !== null || expired) return { ok: false, failure: 'inactive_key', key, user, org };
  if (!user || user.org_id !== key.org_id) return { ok: false, failure: 'foreign_user', key, user, org };
  if (!user.active || !org || !org.active) return { ok: false, failure: 'inactive_account', key, user, org };
  return { ok: true, key, user, org };
}

function keyPrincipal(r: KeyResolution): Principal {
  const key = r.key as ApiKeyDoc;
  const user = r.user as UserDoc;
  return {
    via: 'api_key',
    orgId: key.org_id,
    userId: user._id,
    keyId: key._id,
    role: user.role,
    plan: (r.org as OrganizationDoc).plan,
    scopes: key.scopes,
  };
}

function headerValue(ctx: Context, name: string): string | undefined {
  const v = ctx.get(name);
  return v === '' ? undefined : v;
}

/**
 * X-API-Key with a scope. Missing, invalid or pre-v7.2 keys: 401. Disabled key or account, missing scope: 403.
 * `null`: any scope (the MCP endpoint: each tool call is the REST route with its own scope).
 */
export function requireApiKey(deps: AppDeps, scope: Scope | null): Middleware {
  return async (ctx, next) => {
    const r = await resolveApiKey(deps, headerValue(ctx, 'X-API-Key'));
    if (!r.ok) {
      switch (r.failure) {
        case 'missing':
          throw unauthorized(MISSING_KEY);
        case 'legacy':
          throw unauthorized(LEGACY_KEY);
        case 'invalid':
        case 'inactive_key':
          // A revoked or expired key is simply no longer a valid credential here.
          throw unauthorized(r.failure === 'inactive_key' ? INACTIVE_KEY : INVALID_KEY);
        default:
          throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
      }
    }
    const principal = keyPrincipal(r);
    if (scope !== null && !hasScope(principal.scopes, scope)) throw new HttpError(403, lacksScope(scope));
    ctx.state.principal = principal;
    await next();
  };
}

/**
 * Admin routes: X-API-Key, then the role of the key's owner, then the key's own scope
 * (`admin:all` unless `scope` says otherwise; `null` leaves the scope check to the handler, as
 * key rotation does for a caller's own key). Missing or invalid key: 401; revoked/inactive/
 * expired key, inactive user or organization, user outside the key's organization, a role not
 * in `roles`, or a key without the scope: 403. The role alone never suffices: a key narrowed
 * to `attestation:read` cannot act as an admin even if its owner is one.
 */
export function requireAdminKey(
  deps: AppDeps,
  roles: readonly Role[],
  scope: Scope | null = SCOPE_ADMIN_ALL,
): Middleware {
  return async (ctx, next) => {
    const r = await resolveApiKey(deps, headerValue(ctx, 'X-API-Key'));
    if (!r.ok) {
      if (r.failure === 'missing') throw unauthorized(MISSING_KEY);
      if (r.failure === 'invalid') throw unauthorized(INVALID_KEY);
      if (r.failure === 'legacy') throw unauthorized(LEGACY_KEY);
      if (r.failure === 'inactive_key') throw new HttpError(403, INACTIVE_KEY);
      throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    }
    const principal = keyPrincipal(r);
    if (!principal.role || !roles.includes(principal.role)) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    if (scope !== null && !hasScope(principal.scopes, scope)) throw new HttpError(403, lacksScope(scope));
    ctx.state.principal = principal;
    await next();
  };
}

/** Verifies a Bearer access token and loads its (active) user and organization. */
export async function resolveJwt(
  deps: Pick<AppDeps, 'cfg' | 'accounts'>,
  authorization: string | undefined,
): Promise<Principal | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!m) return null;
  const secret = deps.cfg.SVC_JWT_SECRET_KEY;
  if (!secret) return null; // fail closed: no secret, no JWT authentication
  let claims;
  try {
    claims = await verifyAccessToken(m[1] as string, secret);
  } catch (err) {
    if (err instanceof AccessTokenError || err instanceof TypeError) return null;
    throw err;
  }
  const [user, org] = await Promise.all([deps.accounts.findUser(claims.userId), deps.accounts.findOrg(claims.orgId)]);
  if (!user || !user.active || user.org_id !== claims.orgId || !org || !org.active) return null;
  return { via: 'jwt', orgId: org._id, userId: user._id, keyId: null, role: user.role, plan: org.plan, scopes: [] };
}

export function requireJwt(deps: AppDeps): Middleware {
  return async (ctx, next) => {
    const principal = await resolveJwt(deps, headerValue(ctx, 'Authorization'));
    if (!principal) throw new HttpError(401, INVALID_TOKEN, { 'WWW-Authenticate': 'Bearer' });
    ctx.state.principal = principal;
    await next();
  };
}

/** Either credential (metrics, logs): a valid JWT wins; otherwise an active API key. */
export function requireKeyOrJwt(deps: AppDeps, scope: Scope): Middleware {
  const keyAuth = requireApiKey(deps, scope);
  return async (ctx, next) => {
    const principal = await resolveJwt(deps, headerValue(ctx, 'Authorization'));
    if (principal) {
      ctx.state.principal = principal;
      return next();
    }
    if (!headerValue(ctx, 'X-API-Key') && headerValue(ctx, 'Authorization')) {
      throw new HttpError(401, INVALID_TOKEN, { 'WWW-Authenticate': 'Bearer' });
    }
    return keyAuth(ctx, next);
  };
}

export function principalOf(ctx: Context): Principal {
  const p = ctx.state.principal as Principal | undefined;
  if (!p) throw new HttpError(401, MISSING_KEY);
  return p;
}
