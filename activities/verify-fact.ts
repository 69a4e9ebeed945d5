// /verify/fact as an activity: the deterministic analysis (engines/fact/), then, when the
// request's provider is a model, its entailment judgement on a bounded excerpt of the context,
// raced against SVC_PROVIDER_TIMEOUT. The judgement is advisory (engines/fact/combine.ts).
// A provider time-out is reported as `timed_out` (the route answers 503
// `Fact verification timed out.`); any other provider failure leaves the deterministic verdict
// and names the failure in `provider_error`. Only the provider's name crosses Temporal history.
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { analyzeFact, combineFact, providerExcerpt, type EntailmentInput } from '../engines/fact/index.js';
import { FACT_CLAIM_MAX_CHARS, FACT_CONTEXT_MAX_CHARS, FACT_TIMEOUT_DETAIL } from '../contract/fact.js';
import type { BatchItemActivityInput, BatchItemActivityResult } from '../core/batch.js';
import type { VerifyActivityInput } from './types.js';
import { runBatchItem } from './verify-batch.js';
import type { FactActivityInput, FactActivityResult } from '../core/verification-io.js';
export type { FactActivityInput, FactActivityResult };

/** Asks a model for an entailment judgement; throws on failure (a `.code` names the failure). */
export type EntailmentJudge = (provider: string, claim: string, context: string) => Promise<EntailmentInput>;

export interface FactActivityDeps {
  /** Undefined: no provider layer; every provider other than `local` is reported unavailable. */
  judge?: EntailmentJudge;
  /** SVC_PROVIDER_TIMEOUT in milliseconds. */
  providerTimeoutMs: number;
}

class ProviderTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderTimeout('provider timed out')), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const errorCode = (err: unknown): string => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : 'provider_unavailable';
};

export async function runFact(deps: FactActivityDeps, input: FactActivityInput): Promise<FactActivityResult> {
  const started = performance.now();
  const det = analyzeFact(input.claim, input.context);
  let judgement: EntailmentInput | null = null;
  let providerError: string | null = null;
  let note: string | null = null;
  if (input.provider !== 'local') {
    if (!deps.judge) {
      providerError = 'provider_unavailable';
      note = `The provider '${input.provider}' is not available to this worker; the verdict rests on the deterministic signals.`;
    } else {
      try {
        judgement = await withTimeout(
          deps.judge(input.provider, input.claim, providerExcerpt(input.context, det)),
          deps.providerTimeoutMs,
        );
      } catch (err) {
        const code = err instanceof ProviderTimeout ? 'provider_timeout' : errorCode(err);
        if (code === 'provider_timeout')
          return { timed_out: true, detail: FACT_TIMEOUT_DETAIL, provider_used: input.provider };
        providerError = code;
        note = `The provider gave no usable judgement (${code}); the verdict rests on the deterministic signals.`;
      }
    }
  }
  const out = combineFact(input.context, det, judgement, note);
  return {
    ...out,
    provider_used: input.provider,
    provider_error: providerError,
    latency_ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

export function makeVerifyFactActivity(deps: FactActivityDeps) {
  return async function verifyFactActivity(req: VerifyActivityInput<FactActivityInput>): Promise<FactActivityResult> {
    return runFact(deps, req.input);
  };
}

/**
 * Batch items of type `fact`: `query` is the claim, `params.context` the context, optional
 * `params.provider`. A missing or invalid context fails the item (not retried); a provider
 * time-out fails it with the route's detail.
 */
export function makeFactBatchActivity(
  deps: FactActivityDeps,
  resolve: (requested: string | undefined) => { ok: true; provider: string } | { ok: false; detail: string },
) {
  return async function verifyFactBatchItemActivity(req: BatchItemActivityInput): Promise<BatchItemActivityResult> {
    const context = req.params.context;
    const invalid = (message: string) =>
      ApplicationFailure.create({ message, type: 'ValidationError', nonRetryable: true });
    if (typeof context !== 'string' || context.trim() === '')
      throw invalid('fact items need params.context, a non-empty string');
    if (context.length > FACT_CONTEXT_MAX_CHARS)
      throw invalid(`params.context must be at most ${FACT_CONTEXT_MAX_CHARS} characters`);
    if (req.query.trim() === '') throw invalid('the claim (query) must not be empty');
    if (req.query.length > FACT_CLAIM_MAX_CHARS)
      throw invalid(`the claim (query) must be at most ${FACT_CLAIM_MAX_CHARS} characters`);
    const requested = req.params.provider;
    if (requested !== undefined && typeof requested !== 'string') throw invalid('params.provider must be a string');
    const p = resolve(requested);
    if (!p.ok) throw invalid(p.detail);
    return runBatchItem(req, async () => {
      const r = await runFact(deps, { claim: req.query, context, provider: p.provider });
      if (r.timed_out)
        throw ApplicationFailure.create({ message: r.detail, type: 'FactProviderTimeout', nonRetryable: true });
      return r;
    });
  };
}
