// POST /verify/natural_language (docs/natural-language.md): validated with the contract schema,
// the provider resolved (unknown or unconfigured: 400 listing what is available), then one
// providerVerifyWorkflow: screen + provider translation (its own activity, SVC_PROVIDER_TIMEOUT),
// math evaluation, enforcement and the mandatory attestation, audit.
import { resolveProvider } from '../../core/providers-config.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { engineRoute } from '../engine-route.js';

export function naturalLanguageHandlers(deps: AppDeps) {
  const verifyNaturalLanguage = engineRoute(deps, 'verifyNaturalLanguage', {
    engine: 'natural_language',
    prepare: (input) => {
      const provider = resolveProvider(input.provider, deps.env);
      if (!provider.ok) throw new HttpError(400, provider.detail);
      // providerVerifyWorkflow (api/workflows.ts), with SVC_PROVIDER_TIMEOUT for the provider step.
      return { input: { query: input.query, provider: provider.provider } };
    },
    // latency_ms: the whole request as the caller saw it (validation to response).
    respond: (ctx, { result, startedAt }) => {
      ctx.body = { ...result, latency_ms: Math.round((performance.now() - startedAt) * 100) / 100 };
    },
  });
  return { verifyNaturalLanguage };
}
