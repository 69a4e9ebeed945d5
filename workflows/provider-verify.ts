// Verifications with a language-model step (docs/natural-language.md): the provider call is
// its own activity (normal, so it shows in the Temporal UI; local for the embedded `local`
// translator), with SVC_PROVIDER_TIMEOUT as its deadline and no retry at all, so the total
// stays bounded and a late provider is ERROR. Then the deterministic engine activity, then the
// audit append, as in verifyWorkflow.
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../activities/index.js';
import type { FinalizeInput, NaturalLanguageInput, TranslateOutcome } from '../activities/verify-natural-language.js';
import type { LogicTranslateOutcome } from '../activities/verify-logic-nl.js';
import type { EngineName, VerifyWorkflowInput } from '../core/engines.js';
import type { EngineResult } from '../core/verification-io.js';
import { NO_PROVIDER_STEP_FAILURE } from '../core/failure-types.js';
import type { ProviderName } from '../core/providers-config.js';
import {
  engineActivityOptions,
  engineLocalActivityOptions,
  providerActivityOptions,
  providerLocalActivityOptions,
  STORE_WRITE_OPTIONS,
} from './policies.js';

export interface ProviderWorkflowInput<E extends EngineName = EngineName> extends VerifyWorkflowInput<E> {
  /** SVC_PROVIDER_TIMEOUT in ms: the provider activity's deadline. */
  provider_timeout_ms: number;
}

/** Engines with a provider step: natural language always, logic for a query that is not the DSL. */
export type ProviderStepEngine = 'natural_language' | 'logic';

/** A provider call is never retried: one attempt, bounded by its deadline. */
export function providerActivities(provider: ProviderName, timeoutMs: number) {
  return provider === 'local'
    ? proxyLocalActivities<VerificationActivities>(providerLocalActivityOptions(timeoutMs))
    : proxyActivities<VerificationActivities>(providerActivityOptions(timeoutMs));
}

export function isTimeoutFailure(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; i < 4 && cur; i++) {
    if (cur instanceof TimeoutFailure) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** The provider step of a natural-language query; a late or failed step is an ERROR outcome. */
export async function naturalLanguageTranslateStep(
  input: NaturalLanguageInput,
  orgId: string | null,
  workflowId: string,
  timeoutMs: number,
): Promise<TranslateOutcome> {
  const acts = providerActivities(input.provider, timeoutMs);
  try {
    return await acts.translateNaturalLanguageActivity({ input, org_id: orgId, workflow_id: workflowId });
  } catch (err) {
    if (isTimeoutFailure(err)) {
      return {
        ok: false,
        status: 'ERROR',
        reason: 'provider_timeout',
        error: `The ${input.provider} provider did not answer within ${timeoutMs / 1000} s.`,
      };
    }
    if (err instanceof ActivityFailure) {
      return {
        ok: false,
        status: 'ERROR',
        reason: 'provider_failure',
        error: `The ${input.provider} provider step failed.`,
      };
    }
    throw err;
  }
}

/** Translation, evaluation and attestation of one natural-language query (also used by batch items). */
export async function naturalLanguageSteps(
  input: NaturalLanguageInput,
  orgId: string | null,
  workflowId: string,
  providerTimeoutMs: number,
  engineTimeoutMs: number,
  mode: 'normal' | 'local',
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const outcome = await naturalLanguageTranslateStep(input, orgId, workflowId, providerTimeoutMs);
  const acts =
    mode === 'local'
      ? proxyLocalActivities<VerificationActivities>(engineLocalActivityOptions(engineTimeoutMs))
      : proxyActivities<VerificationActivities>(engineActivityOptions(engineTimeoutMs));
  const finalizeInput: FinalizeInput = { ...input, outcome };
  const result = await acts.finalizeNaturalLanguageActivity({
    input: finalizeInput,
    org_id: orgId,
    workflow_id: workflowId,
  });
  return { ...result, latency_ms: Date.now() - started };
}

/** The provider step of a natural-language logic query (translation to the DSL). */
export async function logicTranslateStep(
  input: { query: string; provider: ProviderName },
  orgId: string | null,
  workflowId: string,
  timeoutMs: number,
): Promise<LogicTranslateOutcome> {
  const acts = providerActivities(input.provider, timeoutMs);
  try {
    return await acts.translateLogicActivity({ input, org_id: orgId, workflow_id: workflowId });
  } catch (err) {
    if (isTimeoutFailure(err))
      return {
        ok: false,
        reason: 'provider_timeout',
        message: `The ${input.provider} provider did not answer within ${timeoutMs / 1000} s.`,
      };
    if (err instanceof ActivityFailure)
      return { ok: false, reason: 'provider_failure', message: `The ${input.provider} provider step failed.` };
    throw err;
  }
}

/** One engine's provider steps and engine step, typed by the engine's result (core/verification-io.ts). */
type ProviderSteps<E extends ProviderStepEngine> = (
  req: ProviderWorkflowInput<E>,
  workflowId: string,
) => Promise<EngineResult<E>>;

/** Natural language: the provider's translation, then evaluation and attestation. */
const naturalLanguageRun: ProviderSteps<'natural_language'> = (req, workflowId) =>
  naturalLanguageSteps(
    req.input as NaturalLanguageInput,
    req.org_id,
    workflowId,
    req.provider_timeout_ms,
    req.timeout_ms,
    req.activity_mode,
  );

/** Logic from natural language: the provider's translation to the DSL, then the solver. */
const logicRun: ProviderSteps<'logic'> = async (req, workflowId) => {
  const input = req.input as { query: string; provider: ProviderName };
  const t = await logicTranslateStep(input, req.org_id, workflowId, req.provider_timeout_ms);
  if (!t.ok) {
    return {
      status: t.blocked ? 'BLOCKED' : 'ERROR',
      error: 'Internal verification error',
      reason: t.reason,
      message: t.message,
      provider_used: input.provider,
    };
  }
  const acts =
    req.activity_mode === 'local'
      ? proxyLocalActivities<VerificationActivities>(engineLocalActivityOptions(req.timeout_ms))
      : proxyActivities<VerificationActivities>(engineActivityOptions(req.timeout_ms));
  try {
    const solved = await acts.verifyLogicActivity({
      input: { query: t.dsl },
      org_id: req.org_id,
      workflow_id: workflowId,
    });
    return { ...solved, provider_used: input.provider, translated_query: t.dsl };
  } catch (err) {
    if (!isTimeoutFailure(err)) throw err;
    return {
      status: 'ERROR',
      error: 'Internal verification error',
      reason: 'solver_timeout',
      provider_used: input.provider,
      translated_query: t.dsl,
    };
  }
};

/** The engines with a provider step, each to its steps: `PROVIDER_STEPS[req.engine]` is typed by the engine. */
const PROVIDER_STEPS: { readonly [E in ProviderStepEngine]: ProviderSteps<E> } = {
  natural_language: naturalLanguageRun,
  logic: logicRun,
};

/** The provider step(s) and the engine step of one verification, then its audit entry; typed by the engine's result. */
export async function providerVerifyWorkflow<E extends ProviderStepEngine>(
  req: ProviderWorkflowInput<E>,
): Promise<EngineResult<E>> {
  const workflowId = workflowInfo().workflowId;
  // A caller outside the types (another engine): its bug, not a passing fault. Fail the run at
  // once (a plain Error would fail only the workflow task, retried until the run's time-out).
  if (!Object.hasOwn(PROVIDER_STEPS, req.engine))
    throw ApplicationFailure.create({
      message: `engine ${req.engine} has no provider step`,
      type: NO_PROVIDER_STEP_FAILURE,
      nonRetryable: true,
    });
  const steps: ProviderSteps<E> = PROVIDER_STEPS[req.engine];
  const result = await steps(req, workflowId);
  if (req.org_id !== null) {
    await auditActivities.appendAuditActivity({
      org_id: req.org_id,
      workflow_id: workflowId,
      engine: req.engine,
      input: req.input,
      result,
      audit: req.audit ?? null,
      // Session 23: the entry id starts with the run's start time (workflows/verify.ts).
      ...(req.time_ordered_ids === true ? { id_time_ms: workflowInfo().startTime.getTime() } : {}),
    });
  }
  return result;
}

const auditActivities = proxyLocalActivities<VerificationActivities>(STORE_WRITE_OPTIONS);
