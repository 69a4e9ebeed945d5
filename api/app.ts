// The Koa application: small composable middleware, then one router with a file per route group.
import Koa from 'koa';
import Router from '@koa/router';
import type { ServiceConfig } from '../core/config.js';
import type { TemporalGateway } from './temporal.js';
import { accessLog, errorHandler, versionPrefix } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMathRoutes } from './routes/verify-math.js';
import { SERVICE_VERSION } from '../core/version.js';

export interface AppDeps {
  cfg: ServiceConfig;
  temporal: TemporalGateway;
}

export const JSON_BODY_LIMIT = 1_000_000;

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();
  registerHealthRoutes(router, deps);
  registerMathRoutes(router, deps);

  app.use(accessLog());
  app.use(errorHandler());
  app.use(async (ctx, next) => {
    ctx.set('X-Service-Version', SERVICE_VERSION);
    await next();
  });
  app.use(versionPrefix());
  app.use(jsonBody({ limitBytes: JSON_BODY_LIMIT, timeoutMs: deps.cfg.SVC_BODY_READ_TIMEOUT * 1000 }));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
