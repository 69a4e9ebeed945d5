// The Koa application: small composable middleware, then one router with a file per route group.
import Koa from 'koa';
import Router from '@koa/router';
import { accessLog, errorHandler, methodNotAllowedBody, requestId, versionPrefix } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { lingeringClose } from './middleware/lingering-close.js';
import { JSON_BODY_LIMIT, type AppDeps } from './deps.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerAdminKeyRoutes } from './routes/admin-keys.js';
import { registerMathRoutes } from './routes/verify-math.js';
import { registerLogicRoutes } from './routes/verify-logic.js';
import { registerCodeRoutes } from './routes/verify-code.js';
import { registerSqlRoutes } from './routes/verify-sql.js';
import { registerProcessRagRoutes } from './routes/verify-process-rag.js';
import { registerBatchRoutes } from './routes/verify-batch.js';
import { registerConsensusRoutes } from './routes/verify-consensus.js';
import { registerStatsRoutes } from './routes/verify-stats.js';
import { registerFactRoutes } from './routes/verify-fact.js';
import { registerImageRoutes } from './routes/verify-image.js';
import { registerAttestationRoutes } from './routes/attestations.js';
import { registerVerificationContextRoutes } from './routes/verification-context.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerComplianceRoutes } from './routes/compliance.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerBadgeRoutes } from './routes/badges.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerNaturalLanguageRoutes } from './routes/natural-language.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerAgentApprovalRoutes } from './routes/agent-approvals.js';
import { registerA2aRoutes } from './routes/a2a.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerOpenApiRoutes } from './openapi.js';
import { httpMetrics } from './metrics.js';
import { SERVICE_VERSION } from '../core/version.js';

export { apiKeyGuard, JSON_BODY_LIMIT, type AppDeps } from './deps.js';

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();
  registerHealthRoutes(router, deps);
  registerAuthRoutes(router, deps);
  registerAdminKeyRoutes(router, deps);
  registerMathRoutes(router, deps);
  registerLogicRoutes(router, deps);
  registerNaturalLanguageRoutes(router, deps);
  registerCodeRoutes(router, deps);
  registerSqlRoutes(router, deps);
  registerProcessRagRoutes(router, deps);
  registerBatchRoutes(router, deps);
  registerConsensusRoutes(router, deps);
  registerStatsRoutes(router, deps);
  registerFactRoutes(router, deps);
  registerImageRoutes(router, deps);
  registerAttestationRoutes(router, deps);
  registerVerificationContextRoutes(router, deps);
  registerAuditRoutes(router, deps);
  registerComplianceRoutes(router, deps);
  registerMetricsRoutes(router, deps);
  registerBadgeRoutes(router, deps);
  registerWebhookRoutes(router, deps);
  registerAgentRoutes(router, deps);
  registerAgentApprovalRoutes(router, deps);
  registerA2aRoutes(router, deps);
  // The MCP server runs each tool call through this app's own handler (api/mcp/loopback.ts).
  let handler: ReturnType<Koa['callback']> | null = null;
  registerMcpRoutes(router, deps, () => (handler ??= app.callback()));
  registerOpenApiRoutes(router);

  app.use(requestId());
  app.use(accessLog());
  app.use(httpMetrics(deps.store));
  // A refusal that closes the connection before the body was read lingers (reads and drops the rest, bounded) so the client reads it.
  app.use(lingeringClose());
  app.use(
    errorHandler({ routePaths: () => router.stack.flatMap((l) => (typeof l.path === 'string' ? [l.path] : [])) }),
  );
  app.use(async (ctx, next) => {
    ctx.set('X-Service-Version', SERVICE_VERSION);
    await next();
  });
  app.use(versionPrefix());
  app.use(jsonBody({ limitBytes: JSON_BODY_LIMIT, timeoutMs: deps.cfg.SVC_BODY_READ_TIMEOUT * 1000 }));
  app.use(methodNotAllowedBody());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
