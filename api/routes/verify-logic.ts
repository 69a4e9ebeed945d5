// POST /verify/logic: the query is compiled here (syntax errors 400, policy violations 403
// BLOCKED) and solved in a workflow by the Z3 activity.
import type Router from '@koa/router';
import { logicRequestSchema } from '../../contract/logic.js';
// The one remaining reach into an engine (docs/architecture.md, "Layers"): the DSL front end
// (parser, type check; no solver) answers syntax errors with 400 and policy violations with
// 403 before any workflow or audit entry exists.
import { compileLogicQuery } from '../../activities/engines/logic/compile.js';
import { looksLikeDsl } from '../../activities/engines/logic/detect.js';
import { LogicInputError } from '../../activities/engines/logic/errors.js';
import type { LogicActivityResult } from '../../core/verification-io.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf } from '../middleware/auth.js';
import { HttpError } from '../errors.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { resolveProvider } from '../../core/providers-config.js';

export { logicRequestSchema };

export function registerLogicRoutes(router: Router, deps: AppDeps): void {
  router.post('/verify/logic', ...apiKeyGuard(deps, 'verify:read'), async (ctx) => {
    const input = logicRequestSchema.parse(bodyObject(ctx));
    if (looksLikeDsl(input.query)) {
      try {
        compileLogicQuery(input.query);
      } catch (err) {
        if (!(err instanceof LogicInputError)) throw err;
        if (err.httpStatus === 403) {
          ctx.status = 403;
          ctx.body = { status: 'BLOCKED', reason: (err as { reason?: string }).reason, detail: err.message, position: err.position, provider_used: null };
          return;
        }
        throw new HttpError(400, err.position === null ? err.message : `${err.message} (at position ${err.position})`);
      }
    } else {
      // Natural language: the provider translates to the DSL (its own activity under
      // SVC_PROVIDER_TIMEOUT), then the same Z3 path (docs/natural-language.md).
      const provider = resolveProvider(input.provider, process.env);
      if (!provider.ok) throw new HttpError(400, provider.detail);
      const providerTimeoutMs = deps.cfg.SVC_PROVIDER_TIMEOUT * 1000;
      const { result, workflowId } = await deps.temporal.runVerification<LogicActivityResult>('logic', { query: input.query, provider: provider.provider }, {
        orgId: principalOf(ctx).orgId,
        principal: principalOf(ctx),
        timeoutMs: providerTimeoutMs + deps.cfg.SVC_Z3_TIMEOUT * 1000 + 3000,
        timeoutDetail: 'Logic verification timed out.',
        workflowType: 'providerVerifyWorkflow',
        workflowArgs: { provider_timeout_ms: providerTimeoutMs },
      });
      ctx.set('X-Workflow-Id', workflowId);
      const { http_status: _ignored, ...body } = result;
      if (result.status === 'BLOCKED') ctx.status = 403;
      ctx.body = body;
      return;
    }
    const { result, workflowId } = await deps.temporal.runVerification<LogicActivityResult>('logic', input, {
      orgId: principalOf(ctx).orgId,
      principal: principalOf(ctx),
      timeoutMs: deps.cfg.SVC_Z3_TIMEOUT * 1000 + 3000,
      timeoutDetail: 'Logic verification timed out.',
    });
    ctx.set('X-Workflow-Id', workflowId);
    const { http_status, ...body } = result;
    if (result.status === 'BLOCKED') ctx.status = 403;
    else if (http_status === 400) throw new HttpError(400, result.message ?? 'Invalid logic query.');
    ctx.body = body;
  });
}
