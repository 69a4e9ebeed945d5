// Authentication slot for every protected route. Until accounts exist, verification routes
// run as an anonymous principal; the accounts layer replaces resolvePrincipal.
import type { Middleware } from 'koa';
import type { AppDeps } from '../app.js';

export interface Principal {
  orgId: string | null;
  userId: string | null;
  keyId: string | null;
  scopes: string[];
}

export function requireApiKey(_deps: AppDeps, _scope: string): Middleware {
  return async (ctx, next) => {
    ctx.state.principal = { orgId: null, userId: null, keyId: null, scopes: [] } satisfies Principal;
    await next();
  };
}
