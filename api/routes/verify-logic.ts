// POST /verify/logic: the query is compiled here (syntax errors 400, policy violations 403
// BLOCKED) and solved in a workflow by the Z3 activity. A natural-language query is translated
// by the provider first (its own activity under SVC_PROVIDER_TIMEOUT), then the same Z3 path
// (docs/natural-language.md).
// The one remaining reach into an engine (docs/architecture.md, "Layers"): the DSL front end
// (parser, type check; no solver) answers syntax errors with 400 and policy violations with
// 403 before any workflow or audit entry exists.
import { compileLogicQuery } from '../../engines/logic/compile.js';
import { looksLikeDsl } from '../../engines/logic/detect.js';
import { LogicInputError } from '../../engines/logic/errors.js';
import { logicNaturalLanguageDeadlineMs } from '../../core/engines.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { resolveProvider } from '../../core/providers-config.js';
import { engineRoute } from '../engine-route.js';
import { workflows } from '../workflows.js';

export function logicHandlers(deps: AppDeps) {
  const verifyLogic = engineRoute(deps, 'verifyLogic', {
    engine: 'logic',
    prepare: (input, ctx) => {
      if (!looksLikeDsl(input.query)) {
        const provider = resolveProvider(input.provider, deps.env);
        if (!provider.ok) throw new HttpError(400, provider.detail);
        return {
          input: { query: input.query, provider: provider.provider },
          options: {
            workflow: workflows.providerVerifyWorkflow,
            timeoutMs: logicNaturalLanguageDeadlineMs(deps.cfg),
          },
        };
      }
      try {
        compileLogicQuery(input.query);
      } catch (err) {
        if (!(err instanceof LogicInputError)) throw err;
        if (err.refusal === 'policy') {
          ctx.status = 403;
          ctx.body = {
            status: 'BLOCKED',
            reason: (err as { reason?: string }).reason,
            detail: err.message,
            position: err.position,
            provider_used: null,
          };
          return null;
        }
        throw new HttpError(400, err.position === null ? err.message : `${err.message} (at position ${err.position})`);
      }
      return { input };
    },
    respond: (ctx, { result }) => {
      const { input_refused, ...body } = result;
      if (result.status === 'BLOCKED') ctx.status = 403;
      // Input problems found only by the solver's front end (the route pre-validates, so rare).
      else if (input_refused === 'invalid') throw new HttpError(400, result.message ?? 'Invalid logic query.');
      ctx.body = body;
    },
  });
  return { verifyLogic };
}
