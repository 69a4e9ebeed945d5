// The Koa application: small composable middleware, then one router with a file per route group.
import Koa from 'koa';
import Router from '@koa/router';
import { accessLog, errorHandler, methodNotAllowedBody, requestId, versionPrefix } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { lingeringClose } from './middleware/lingering-close.js';
import { JSON_BODY_LIMIT, type AppDeps } from './deps.js';
import { bindEndpoints } from './bind-endpoints.js';
import { healthHandlers } from './routes/health.js';
import { authHandlers } from './routes/auth.js';
import { adminKeyHandlers } from './routes/admin-keys.js';
import { mathHandlers } from './routes/verify-math.js';
import { logicHandlers } from './routes/verify-logic.js';
import { codeHandlers } from './routes/verify-code.js';
import { sqlHandlers } from './routes/verify-sql.js';
import { processRagHandlers } from './routes/verify-process-rag.js';
import { batchHandlers } from './routes/verify-batch.js';
import { consensusHandlers } from './routes/verify-consensus.js';
import { statsHandlers } from './routes/verify-stats.js';
import { factHandlers } from './routes/verify-fact.js';
import { imageHandlers } from './routes/verify-image.js';
import { attestationHandlers } from './routes/attestations.js';
import { verificationContextHandlers } from './routes/verification-context.js';
import { auditHandlers } from './routes/audit.js';
import { complianceHandlers } from './routes/compliance.js';
import { metricsHandlers } from './routes/metrics.js';
import { badgeHandlers } from './routes/badges.js';
import { webhookHandlers } from './routes/webhooks.js';
import { naturalLanguageHandlers } from './routes/natural-language.js';
import { agentHandlers } from './routes/agents.js';
import { agentApprovalHandlers } from './routes/agent-approvals.js';
import { a2aHandlers } from './routes/a2a.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerOpenApiRoutes } from './openapi.js';
import { httpMetrics } from './metrics.js';
import { SERVICE_VERSION } from '../core/version.js';

export { apiKeyGuard, JSON_BODY_LIMIT, type AppDeps } from './deps.js';

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();
  // Every row of the contract table with its handler (api/bind-endpoints.ts): a missing or extra one does not compile.
  bindEndpoints(router, {
    ...healthHandlers(deps),
    ...authHandlers(deps),
    ...adminKeyHandlers(deps),
    ...mathHandlers(deps),
    ...logicHandlers(deps),
    ...naturalLanguageHandlers(deps),
    ...codeHandlers(deps),
    ...sqlHandlers(deps),
    ...processRagHandlers(deps),
    ...batchHandlers(deps),
    ...consensusHandlers(deps),
    ...statsHandlers(deps),
    ...factHandlers(deps),
    ...imageHandlers(deps),
    ...attestationHandlers(deps),
    ...verificationContextHandlers(deps),
    ...auditHandlers(deps),
    ...complianceHandlers(deps),
    ...metricsHandlers(deps),
    ...badgeHandlers(deps),
    ...webhookHandlers(deps),
    ...agentHandlers(deps),
    ...agentApprovalHandlers(deps),
    ...a2aHandlers(deps),
  });
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
