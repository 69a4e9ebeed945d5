// POST /verify/natural_language (docs/natural-language.md): validated with the contract schema,
// the provider resolved (unknown or unconfigured: 400 listing what is available), then one
// providerVerifyWorkflow: screen + provider translation (its own activity, SVC_PROVIDER_TIMEOUT),
// math evaluation, enforcement and the mandatory attestation, audit.
import type Router from '@koa/router';
import { naturalLanguageRequestSchema } from '../../contract/natural-language.js';
import { resolveProvider } from '../../core/providers-config.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf } from '../middleware/auth.js';
import { HttpError } from '../errors.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';

export const NL_TIMEOUT_DETAIL = 'Natural-language verification timed out.';

export function registerNaturalLanguageRoutes(router: Router, deps: AppDeps): void {
  router.post('/verify/natural_language', ...apiKeyGuard(deps, 'verify:read'), async (ctx) => {
    const started = performance.now();
    const input = naturalLanguageRequestSchema.parse(bodyObject(ctx));
    const provider = resolveProvider(input.provider, process.env);
    if (!provider.ok) throw new HttpError(400, provider.detail);
    const principal = principalOf(ctx);
    const providerTimeoutMs = deps.cfg.SVC_PROVIDER_TIMEOUT * 1000;
    const { result, workflowId } = await deps.temporal.runVerification<Record<string, unknown>>(
      'natural_language',
      { query: input.query, provider: provider.provider },
      {
        orgId: principal.orgId,
        principal,
        timeoutMs: providerTimeoutMs + deps.cfg.SVC_MATH_TIMEOUT * 1000,
        timeoutDetail: NL_TIMEOUT_DETAIL,
        workflowType: 'providerVerifyWorkflow',
        workflowArgs: { provider_timeout_ms: providerTimeoutMs },
      },
    );
    ctx.set('X-Workflow-Id', workflowId);
    // latency_ms: the whole request as the caller saw it (validation to response).
    ctx.body = { ...result, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  });
}
