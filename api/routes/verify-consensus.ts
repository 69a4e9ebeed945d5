// POST /verify/consensus: several engines on one claim (docs/consensus.md). Validated here,
// run by the consensus activity (engines in parallel under one 30 s deadline), and mapped to
// the contract's statuses: 422 when the confidence is below min_confidence (the body still
// carries the consensus), 503 when the sandbox a mode needs is unavailable or full.
import { requiredPercent } from '../../contract/consensus.js';
import { SANDBOX_CAPACITY_MESSAGE, SANDBOX_UNAVAILABLE_MESSAGE } from '../../contract/common.js';
import { HttpError } from '../errors.js';
import { keyLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { bodyAsInput, engineRoute } from '../engine-route.js';

/** Per-key limit on top of the plan limit (consensus runs up to four engines and two containers). */
export const CONSENSUS_KEY_LIMIT = { perWindow: 120, windowSeconds: 60 } as const;

export function consensusHandlers(deps: AppDeps) {
  const verifyConsensus = engineRoute(deps, 'verifyConsensus', {
    engine: 'consensus',
    prepare: bodyAsInput,
    use: [keyLimit(deps.counter, 'consensus', CONSENSUS_KEY_LIMIT.perWindow, CONSENSUS_KEY_LIMIT.windowSeconds)],
    respond: (ctx, { result, workflowId, request }) => {
      const { sandbox_failure: sandboxFailure, ...body } = result;
      const headers = { 'X-Workflow-Id': workflowId };
      if (sandboxFailure === 'unavailable') throw new HttpError(503, SANDBOX_UNAVAILABLE_MESSAGE, headers);
      if (sandboxFailure === 'capacity')
        throw new HttpError(503, SANDBOX_CAPACITY_MESSAGE, { ...headers, 'Retry-After': '1' });
      const required = requiredPercent(request.min_confidence);
      // Natural language runs no engine: it is answered as it is (UNVERIFIABLE, confidence 0).
      // Translated natural language ran engines: their confidence is checked like any other.
      if ((body.query_kind !== 'natural_language' || body.engines_used > 0) && body.confidence < required) {
        const detail = `Consensus confidence ${body.confidence} is below min_confidence (${required}).`;
        throw new HttpError(422, detail, headers, { detail, ...body });
      }
      ctx.body = body;
    },
  });
  return { verifyConsensus };
}
