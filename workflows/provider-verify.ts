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
import type { LogicActivityResult } from '../activities/verify-logic.js';
import type { LogicTranslateOutcome } from '../activities/verify-logic-nl.js';
import type { VerifyWorkflowInput } from '../core/engines.js';
import { NO_PROVIDER_STEP_FAILURE } from '../core/failure-types.js';
import type { ProviderName } from '../core/providers-config.js';
import {
  engineActivityOptions,
  engineLocalActivityOptions,
  providerActivityOptions,
  providerLocalActivityOptions,
  STORE_WRITE_OPTIONS,
} from './policies.js';

export interface ProviderWorkflowInput extends VerifyWorkflowInput {
  /** SVC_PROVIDER_TIMEOUT in ms: the provider activity's deadline. */
  provider_timeout_ms: number;
}

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

export async function providerVerifyWorkflow(req: ProviderWorkflowInput): Promise<unknown> {
  const workflowId = workflowInfo().workflowId;
  let result: unknown;
  if (req.engine === 'natural_language') {
    result = await naturalLanguageSteps(
      req.input as NaturalLanguageInput,
      req.org_id,
      workflowId,
      req.provider_timeout_ms,
      req.timeout_ms,
      req.activity_mode,
    );
  } else if (req.engine === 'logic') {
    const input = req.input as { query: string; provider: ProviderName };
    const t = await logicTranslateStep(input, req.org_id, workflowId, req.provider_timeout_ms);
    if (!t.ok) {
      result = {
        status: t.blocked ? 'BLOCKED' : 'ERROR',
        error: 'Internal verification error',
        reason: t.reason,
        message: t.message,
        provider_used: input.provider,
      } satisfies LogicActivityResult;
    } else {
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
        result = { ...solved, provider_used: input.provider, translated_query: t.dsl };
      } catch (err) {
        if (!isTimeoutFailure(err)) throw err;
        result = {
          status: 'ERROR',
          error: 'Internal verification error',
          reason: 'solver_timeout',
          provider_used: input.provider,
          translated_query: t.dsl,
        } satisfies LogicActivityResult & { translated_query: string };
      }
    }
  } else {
    // A caller's bug, not a passing fault: fail the run at once (a plain Error would fail only
    // the workflow task, retried until the run's time-out).
    throw ApplicationFailure.create({
      message: `engine ${req.engine} has no provider step`,
      type: NO_PROVIDER_STEP_FAILURE,
      nonRetryable: true,
    });
  }
  if (req.org_id !== null) {
    await auditActivities.appendAuditActivity({
      org_id: req.org_id,
      workflow_id: workflowId,
      engine: req.engine,
      input: req.input,
      result,
      audit: req.audit ?? null,
    });
  }
  return result;
}

const auditActivities = proxyLocalActivities<VerificationActivities>(STORE_WRITE_OPTIONS);
