// What every route file receives (AppDeps) and the guard of every verification route. Kept out
// of api/app.ts so that route files never import the module that imports them.
import type { Middleware } from 'koa';
import type { ServiceConfig } from '../core/config.js';
import type { Store } from '../core/store.js';
import type { Accounts } from '../core/accounts.js';
import type { Scope } from '../core/scopes.js';
import type { TemporalGateway } from './temporal.js';
import { requireApiKey } from './middleware/auth.js';
import { planLimit, type IpLimiter, type WindowCounter } from './middleware/rate-limit.js';

export interface AppDeps {
  cfg: ServiceConfig;
  /** The environment the composition root read (core/config.ts processEnv): provider keys, leak and A2A settings. */
  env: NodeJS.ProcessEnv;
  store: Store;
  accounts: Accounts;
  temporal: TemporalGateway;
  counter: WindowCounter;
  ipLimiter: IpLimiter;
}

export const JSON_BODY_LIMIT = 1_000_000;

/** X-API-Key with `scope`, then the organization's plan limit: the guard of every verification route. */
export function apiKeyGuard(deps: AppDeps, scope: Scope): Middleware[] {
  return [requireApiKey(deps, scope), planLimit(deps.counter)];
}
