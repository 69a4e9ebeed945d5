// POST /verify/fact: claim + context, validated with the contract schema; the provider named in
// the request (or SVC_LLM_PROVIDER) must be configured (400 listing what is). The analysis and
// the provider's judgement run in the fact activity under SVC_PROVIDER_TIMEOUT; a provider
// time-out is 503 `Fact verification timed out.` (docs/fact-and-image.md).
import type Router from '@koa/router';
import { FACT_TIMEOUT_DETAIL, factRequestSchema } from '../../contract/fact.js';
import { resolveProvider } from '../../core/providers-config.js';
import type { FactActivityInput, FactActivityResult } from '../../core/verification-io.js';
import { HttpError } from '../errors.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf } from '../middleware/auth.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';

/** Beyond the provider time-out: the deterministic analysis of up to 1,000,000 characters. */
export const FACT_ANALYSIS_BUDGET_MS = 5000;

export function registerFactRoutes(router: Router, deps: AppDeps): void {
  router.post('/verify/fact', ...apiKeyGuard(deps, 'verify:read'), async (ctx) => {
    const input = factRequestSchema.parse(bodyObject(ctx));
    const provider = resolveProvider(input.provider, process.env);
    if (!provider.ok) throw new HttpError(400, provider.detail);
    const principal = principalOf(ctx);
    const workflowInput: FactActivityInput = { claim: input.claim, context: input.context, provider: provider.provider };
    const { result, workflowId } = await deps.temporal.runVerification<FactActivityResult>('fact', workflowInput, {
      orgId: principal.orgId,
      principal,
      timeoutMs: deps.cfg.SVC_PROVIDER_TIMEOUT * 1000 + FACT_ANALYSIS_BUDGET_MS,
      timeoutDetail: FACT_TIMEOUT_DETAIL,
    });
    ctx.set('X-Workflow-Id', workflowId);
    if (result.timed_out) throw new HttpError(503, result.detail, { 'X-Workflow-Id': workflowId });
    const { timed_out: _t, ...body } = result;
    ctx.body = body;
  });
}
