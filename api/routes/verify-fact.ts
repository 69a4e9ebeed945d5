// POST /verify/fact: claim + context, validated with the contract schema; the provider named in
// the request (or SVC_LLM_PROVIDER) must be configured (400 listing what is). The analysis and
// the provider's judgement run in the fact activity under SVC_PROVIDER_TIMEOUT; a provider
// time-out is 503 `Fact verification timed out.` (docs/fact-and-image.md).
import { resolveProvider } from '../../core/providers-config.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { engineRoute } from '../engine-route.js';

export function factHandlers(deps: AppDeps) {
  const verifyFact = engineRoute(deps, 'verifyFact', {
    engine: 'fact',
    prepare: (input) => {
      const provider = resolveProvider(input.provider, deps.env);
      if (!provider.ok) throw new HttpError(400, provider.detail);
      return { input: { claim: input.claim, context: input.context, provider: provider.provider } };
    },
    respond: (ctx, { result, workflowId }) => {
      if (result.timed_out) throw new HttpError(503, result.detail, { 'X-Workflow-Id': workflowId });
      const { timed_out: _t, ...body } = result;
      ctx.body = body;
    },
  });
  return { verifyFact };
}
