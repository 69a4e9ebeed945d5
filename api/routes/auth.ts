// /auth/*: sign-up, sign-in, the current user, and API-key management (JWT).
import { SIGNIN_FAILED } from '../../contract/auth.js';
import { MongoServerError } from 'mongodb';
import { hashPassword, verifySignInPassword, checkPasswordPolicy } from '../../core/passwords.js';
import { issueAccessToken } from '../../core/jwt.js';
import { maxScopesForRole, scopesCovered, type Scope } from '../../core/scopes.js';
import type { ApiKeyDoc, UserDoc } from '../../core/accounts.js';
import { HttpError } from '../errors.js';
import { principalOf, requireJwt, INSUFFICIENT_PERMISSIONS } from '../middleware/auth.js';
import { planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

const userView = (u: UserDoc) => ({ id: u._id, email: u.email, org_id: u.org_id, role: u.role });
export const keyView = (k: ApiKeyDoc) => ({
  id: k._id,
  name: k.name,
  preview: k.preview,
  scopes: k.scopes,
  created_at: k.created_at.toISOString(),
  expires_at: k.expires_at ? k.expires_at.toISOString() : null,
  is_active: k.active,
});

export function authHandlers(deps: AppDeps) {
  const ipLimit = deps.ipLimiter.middleware();
  const account = planLimit(deps.counter, 'account');
  const jwtSecret = () => {
    if (!deps.cfg.SVC_JWT_SECRET_KEY) throw new HttpError(503, 'server secrets not configured');
    return deps.cfg.SVC_JWT_SECRET_KEY;
  };
  const session = async (user: UserDoc) => ({
    access_token: await issueAccessToken({ userId: user._id, orgId: user.org_id, role: user.role }, jwtSecret()),
    token_type: 'bearer',
    user: userView(user),
  });

  const signup = endpoint('signup', [ipLimit], async (ctx, req) => {
    const input = req.body();
    jwtSecret();
    const policy = checkPasswordPolicy(input.password, input.email);
    if (policy) throw new HttpError(400, policy);
    const passwordHash = await hashPassword(input.password);
    try {
      const { user } = await deps.accounts.createOrgWithOwner({
        orgName: input.organization_name,
        email: input.email,
        passwordHash,
      });
      ctx.body = await session(user);
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 11000) {
        throw new HttpError(409, 'An account with this e-mail already exists.');
      }
      throw err;
    }
  });

  const signin = endpoint('signin', [ipLimit], async (ctx, req) => {
    const input = req.body();
    const user = await deps.accounts.findUserByEmail(input.email.trim());
    // Same KDF work whether or not the user exists; one message for every failure.
    const ok = await verifySignInPassword(input.password, user?.password_hash);
    if (!ok || !user || !user.active) throw new HttpError(401, SIGNIN_FAILED);
    const org = await deps.accounts.findOrg(user.org_id);
    if (!org || !org.active) throw new HttpError(401, SIGNIN_FAILED);
    ctx.body = await session(user);
  });

  const me = endpoint('me', [requireJwt(deps), account], async (ctx) => {
    const p = principalOf(ctx);
    const [user, org] = await Promise.all([deps.accounts.findUser(p.userId as string), deps.accounts.findOrg(p.orgId)]);
    if (!user || !org) throw new HttpError(401, 'Invalid or expired access token.');
    ctx.body = { ...userView(user), organization: { id: org._id, name: org.name, plan: org.plan } };
  });

  const createApiKey = endpoint('createApiKey', [requireJwt(deps), account], async (ctx, req) => {
    const p = principalOf(ctx);
    const input = req.body();
    // A key never carries more than its user's role allows (admin:all: owners and admins only);
    // without explicit scopes it gets exactly that maximum.
    const allowed = maxScopesForRole(p.role);
    const scopes = (input.scopes ? [...new Set(input.scopes)] : [...allowed]) as Scope[];
    if (!scopesCovered(allowed, scopes)) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    const expiresAt = input.expires_in_days ? new Date(Date.now() + input.expires_in_days * 86_400_000) : null;
    const { doc, key } = await deps.accounts.createKey({
      orgId: p.orgId,
      userId: p.userId as string,
      name: input.name,
      scopes,
      expiresAt,
    });
    ctx.body = {
      id: doc._id,
      name: doc.name,
      key,
      created_at: doc.created_at.toISOString(),
      scopes: doc.scopes,
      expires_at: doc.expires_at?.toISOString() ?? null,
      preview: doc.preview,
    };
  });

  const listApiKeys = endpoint('listApiKeys', [requireJwt(deps), account], async (ctx) => {
    const p = principalOf(ctx);
    ctx.body = (await deps.accounts.listActiveKeys(p.orgId)).map(keyView);
  });

  const revokeApiKey = endpoint('revokeApiKey', [requireJwt(deps), account], async (ctx, req) => {
    const p = principalOf(ctx);
    const revoked = await deps.accounts.revokeKey(p.orgId, req.params.key_id);
    if (!revoked) throw new HttpError(404, 'API key not found.');
    ctx.body = { id: req.params.key_id, revoked: true };
  });
  return { signup, signin, me, createApiKey, listApiKeys, revokeApiKey };
}
