// /verify/natural_language as two activities (docs/natural-language.md):
//   1. translateNaturalLanguageActivity: the injection screen, then the provider's
//      translation (a normal activity under SVC_PROVIDER_TIMEOUT, never retried; `local` runs
//      the deterministic translator), then the screen again over the model's answer.
//   2. finalizeNaturalLanguageActivity: the math engine evaluates the translated expression
//      with its guards, the enforcement step fixes the final status (inner VERIFIED or
//      CORRECTION_NEEDED -> INCONCLUSIVE), and the mandatory ES256 attestation binds the
//      evaluated expression (svc.query_hash); signing failure -> BLOCKED, no token.
// A language model's output is never a proof: nothing here returns VERIFIED.
import { AttestationError } from '../core/attestation.js';
import type { ProviderName } from '../core/providers-config.js';
import type { NaturalLanguageResponse, NaturalLanguageStatus, TrustBoundary } from '../contract/natural-language.js';
import { screenText } from '../engines/nl/injection-screen.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import { NL_TIMEOUT_DETAIL } from '../contract/deadlines.js';
import { providerFailure, translateArithmetic, type ArithmeticTranslation } from './providers/index.js';
import { recordAttestation } from '../persistence/proofs.js';
import type { ProofContext } from './proofs.js';
import type { VerifyActivityInput } from './types.js';

export const NL_ENGINE = 'natural_language';

export interface NaturalLanguageInput {
  query: string;
  /** The resolved provider (the route answered 400 for unknown or unconfigured ones). */
  provider: ProviderName;
}

/** What the translation step hands to the finalize step (all of it lands in workflow history: no secrets). */
export type TranslateOutcome =
  | { ok: true; translation: ArithmeticTranslation }
  | {
      ok: false;
      status: Exclude<NaturalLanguageStatus, 'INCONCLUSIVE'>;
      reason: string;
      error: string;
      translation?: ArithmeticTranslation;
    };

export interface FinalizeInput extends NaturalLanguageInput {
  outcome: TranslateOutcome;
}

/** Screens the query, asks the provider, screens its answer. Provider failures are values. */
export async function translateNaturalLanguage(input: NaturalLanguageInput): Promise<TranslateOutcome> {
  const screen = screenText(input.query);
  if (screen.blocked)
    return { ok: false, status: 'BLOCKED', reason: `prompt_injection:${screen.reason}`, error: screen.detail };
  let translation: ArithmeticTranslation;
  try {
    translation = await translateArithmetic(input.provider, input.query);
  } catch (err) {
    const f = providerFailure(err);
    return { ok: false, status: 'ERROR', reason: f.code, error: f.message };
  }
  if (!translation.is_math_query) {
    return {
      ok: false,
      status: 'NOT_MATH_QUERY',
      reason: 'not_math_query',
      error: translation.reasoning || 'The query is not an arithmetic question.',
      translation,
    };
  }
  // The model's answer is untrusted input too: an answer that carries an injection is refused.
  const answerScreen = screenText(`${translation.expression ?? ''}\n${translation.reasoning}`);
  if (answerScreen.blocked) {
    return {
      ok: false,
      status: 'BLOCKED',
      reason: `provider_answer_injection:${answerScreen.reason}`,
      error: `The provider's answer was refused. ${answerScreen.detail}`,
    };
  }
  if (translation.expression === null || translation.expression.trim() === '') {
    return { ok: false, status: 'ERROR', reason: 'malformed_answer', error: 'The translation has no expression.' };
  }
  return { ok: true, translation };
}

export function trustBoundary(
  status: NaturalLanguageStatus,
  provider: string,
  evaluated: boolean,
  selfConsistent: boolean,
  attestationError?: string,
): TrustBoundary {
  const tb: TrustBoundary = {
    query_interpretation_source: 'llm_translation',
    query_semantics_verified: false,
    verification_scope: 'translated_expression_only',
    deterministic_expression_evaluation: evaluated,
    formal_proof: false,
    translation_claim_self_consistent: selfConsistent,
    provider_used: provider,
    trust_enforced: status,
    attestation_policy: 'mandatory',
    overall_status: status,
  };
  if (attestationError !== undefined) tb.attestation_error = attestationError;
  return tb;
}

/** The contract names SIGNING_FAILURE and CRYPTO_UNAVAILABLE; a missing key is crypto unavailable. */
const attestationErrorCode = (code: string) => (code === 'KEY_MISSING' ? 'CRYPTO_UNAVAILABLE' : code);

type Timed = Omit<NaturalLanguageResponse, 'latency_ms'>;

/** Evaluation, enforcement and the mandatory attestation. */
/**
 * The math engine's evaluation runs in the engine threads (ENGINE_TASKS.nl_evaluate): the
 * worker's main thread loads no mathjs (docs/performance.md, memory), and the evaluation is cut
 * at the math deadline like /verify/math's (503 `Natural-language verification timed out.`).
 */
export type NaturalLanguageContext = ProofContext & { pools: { engine: EnginePool }; mathTimeoutMs?: number };

const DEFAULT_MATH_TIMEOUT_MS = 5_000;

export async function finalizeNaturalLanguage(
  ctx: NaturalLanguageContext,
  orgId: string | null,
  input: FinalizeInput,
): Promise<Timed> {
  const { outcome, provider, query } = input;
  const translationOf = (t: ArithmeticTranslation | undefined) =>
    t && t.expression !== null
      ? { expression: t.expression, claimed_answer: t.claimed_answer, reasoning: t.reasoning, confidence: t.confidence }
      : null;
  if (!outcome.ok) {
    return {
      status: outcome.status,
      user_query: query,
      translation: translationOf(outcome.translation),
      verification: null,
      trust_boundary: trustBoundary(outcome.status, provider, false, false),
      final_answer: null,
      provider_used: provider,
      reason: outcome.reason,
      error: outcome.error,
    };
  }
  const t = outcome.translation;
  const translation = translationOf(t);
  const ev = await runIsolated(
    'nl_evaluate',
    { expression: t.expression ?? '', claimedAnswer: t.claimed_answer },
    {
      pool: ctx.pools.engine,
      orgId,
      timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? DEFAULT_MATH_TIMEOUT_MS),
      timeoutDetail: NL_TIMEOUT_DETAIL,
    },
  );
  if (ev.kind === 'rejected') {
    return {
      status: 'ERROR',
      user_query: query,
      translation,
      verification: null,
      trust_boundary: trustBoundary('ERROR', provider, false, false),
      final_answer: null,
      provider_used: provider,
      reason: ev.reason,
      error: ev.message,
    };
  }
  const verification = {
    calculated_value: ev.calculated_value,
    is_correct: ev.is_correct,
    diff: ev.diff,
    inner_status: ev.inner_status,
  };
  // Enforcement: the translation is a language step, so a deterministic evaluation of it is
  // at most INCONCLUSIVE about the question (contract, "Verdict moves").
  const enforced: NaturalLanguageStatus = 'INCONCLUSIVE';
  try {
    const att = await ctx.signer.sign({
      evaluatedExpression: ev.evaluated_expression,
      status: enforced,
      verified: false,
      engine: NL_ENGINE,
      confidence: t.confidence,
      proofRef: null,
    });
    await recordAttestation(ctx.store, att, { orgId, engine: NL_ENGINE, proofRef: null });
    return {
      status: enforced,
      user_query: query,
      translation,
      verification,
      trust_boundary: trustBoundary(enforced, provider, true, ev.is_correct),
      final_answer: ev.calculated_value,
      provider_used: provider,
      attestation: { id: att.jti, token: att.token, status: att.status },
    };
  } catch (err) {
    // Store failures are not AttestationErrors: rethrown, so the activity retries.
    if (!(err instanceof AttestationError)) throw err;
    const code = attestationErrorCode(err.code);
    return {
      status: 'BLOCKED',
      user_query: query,
      translation,
      verification,
      trust_boundary: trustBoundary('BLOCKED', provider, true, ev.is_correct, code),
      final_answer: null,
      provider_used: provider,
      reason: 'attestation_failed',
      error: 'The mandatory attestation could not be signed; the result is withheld (fail closed).',
    };
  }
}

export function makeNaturalLanguageActivities(ctx: NaturalLanguageContext) {
  return {
    /** Provider step: a normal activity (local for `local`), deadline SVC_PROVIDER_TIMEOUT, never retried. */
    async translateNaturalLanguageActivity(req: VerifyActivityInput<NaturalLanguageInput>): Promise<TranslateOutcome> {
      return translateNaturalLanguage(req.input);
    },
    async finalizeNaturalLanguageActivity(req: VerifyActivityInput<FinalizeInput>): Promise<Timed> {
      return finalizeNaturalLanguage(ctx, req.org_id, req.input);
    },
  };
}
