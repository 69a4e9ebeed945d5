// Workflow tier: providerVerifyWorkflow (workflows/provider-verify.ts) with scripted activities.
// Proves both provider paths (natural language: translate then finalize; logic: translate then
// the solver), the provider step as a normal activity (local for the embedded `local`
// translator) that is never retried and whose late or failed answer becomes an ERROR outcome
// instead of a failed run, a blocked translation that never reaches the solver, the solver's
// deadline (ERROR solver_timeout, audited) and retries, and the audit append after either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_PROVIDER_STEP_FAILURE } from '../../core/failure-types.js';
import { providerVerifyWorkflow } from '../../workflows/provider-verify.js';
import { failureOf, startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault, PROOF_REF } from './stubs/scripted-activities.js';
import { providerDefaults } from './stubs/provider-activities.js';

type Input = Parameters<typeof providerVerifyWorkflow>[0];

const acts = new ScriptedActivities({ ...providerDefaults(), appendAuditActivity: appendAuditDefault });
let tier: WorkflowTier;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-provider', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

const nl = (provider: string, over: Partial<Input> = {}): Input =>
  ({
    engine: 'natural_language',
    input: { query: 'what is two plus two', provider },
    org_id: 'org_wf',
    timeout_ms: 3_000,
    // Room for a loaded machine's activity round trip; the late-provider rows set 0.8 s.
    provider_timeout_ms: 5_000,
    activity_mode: 'local',
    audit: null,
    ...over,
  }) as Input;
const logic = (over: Partial<Input> = {}): Input =>
  nl('openai', {
    engine: 'logic',
    input: { query: 'x is greater than 5', provider: 'openai' },
    activity_mode: 'normal',
    ...over,
  });

const run = (id: string, req: Input, extra: { workflowExecutionTimeout?: string } = {}) =>
  tier.client.workflow.execute(providerVerifyWorkflow, {
    args: [req],
    taskQueue: tier.taskQueue,
    workflowId: id,
    ...extra,
  });
const sequence = (id: string) => acts.log.of(id).map((c) => c.activity);

describe('providerVerifyWorkflow: natural language (workflow tier)', () => {
  it.each(['openai', 'local'])(
    '%s: translate, finalize with the translation, audit; the result carries latency_ms',
    async (provider) => {
      const id = `provider-wf-nl-${provider}`;
      const out = (await run(id, nl(provider))) as Record<string, unknown>;
      expect(out).toMatchObject({ status: 'VERIFIED', proof_ref: PROOF_REF, latency_ms: expect.any(Number) });
      expect(sequence(id)).toEqual([
        'translateNaturalLanguageActivity',
        'finalizeNaturalLanguageActivity',
        'appendAuditActivity',
      ]);
      expect(acts.log.of(id, 'translateNaturalLanguageActivity')[0]!.input).toEqual({
        input: { query: 'what is two plus two', provider },
        org_id: 'org_wf',
        workflow_id: id,
      });
      expect(acts.log.of(id, 'finalizeNaturalLanguageActivity')[0]!.input).toEqual({
        input: {
          query: 'what is two plus two',
          provider,
          outcome: { ok: true, translation: { expression: '2 + 2', claimed: '4' } },
        },
        org_id: 'org_wf',
        workflow_id: id,
      });
      expect(acts.log.of(id, 'appendAuditActivity')[0]!.input).toMatchObject({
        org_id: 'org_wf',
        workflow_id: id,
        engine: 'natural_language',
        result: out,
      });
    },
  );

  it.each(['openai', 'local'])(
    '%s: a provider past its time-out is one attempt, and finalize gets ERROR provider_timeout',
    async (provider) => {
      const id = `provider-wf-nl-late-${provider}`;
      acts.script(id, 'translateNaturalLanguageActivity', { sleepMs: 10_000 });
      const t0 = Date.now();
      await run(id, nl(provider, { provider_timeout_ms: 800 }));
      // The 0.8 s provider time-out ended the step, not the provider's 10 s answer.
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(acts.attempts(id, 'translateNaturalLanguageActivity')).toBe(1);
      expect(
        (acts.log.of(id, 'finalizeNaturalLanguageActivity')[0]!.input as { input: { outcome: unknown } }).input.outcome,
      ).toEqual({
        ok: false,
        status: 'ERROR',
        reason: 'provider_timeout',
        error: `The ${provider} provider did not answer within 0.8 s.`,
      });
    },
  );

  it('a failing provider step is not retried: finalize gets ERROR provider_failure', async () => {
    const id = 'provider-wf-nl-failed';
    acts.script(id, 'translateNaturalLanguageActivity', { failAttempts: 99 });
    await run(id, nl('anthropic'));
    expect(acts.attempts(id, 'translateNaturalLanguageActivity')).toBe(1);
    expect(
      (acts.log.of(id, 'finalizeNaturalLanguageActivity')[0]!.input as { input: { outcome: unknown } }).input.outcome,
    ).toEqual({
      ok: false,
      status: 'ERROR',
      reason: 'provider_failure',
      error: 'The anthropic provider step failed.',
    });
  });

  it('the evaluation step is retried on infrastructure failures; without an organization nothing is audited', async () => {
    const id = 'provider-wf-nl-flaky';
    acts.script(id, 'finalizeNaturalLanguageActivity', { failAttempts: 2 });
    expect(await run(id, nl('openai', { org_id: null }))).toMatchObject({ status: 'VERIFIED' });
    expect(acts.attempts(id, 'finalizeNaturalLanguageActivity')).toBe(3);
    expect(sequence(id)).not.toContain('appendAuditActivity');
  });
});

describe('providerVerifyWorkflow: logic (workflow tier)', () => {
  it('translate to the DSL, solve it, audit: the result names the provider and the translated query', async () => {
    const id = 'provider-wf-logic';
    const out = await run(id, logic());
    expect(out).toEqual({ status: 'SAT', model: { x: 6 }, provider_used: 'openai', translated_query: '(x > 5)' });
    expect(sequence(id)).toEqual(['translateLogicActivity', 'verifyLogicActivity', 'appendAuditActivity']);
    expect(acts.log.of(id, 'verifyLogicActivity')[0]!.input).toEqual({
      input: { query: '(x > 5)' },
      org_id: 'org_wf',
      workflow_id: id,
    });
    expect(acts.log.of(id, 'appendAuditActivity')[0]!.input).toMatchObject({
      engine: 'logic',
      input: { query: 'x is greater than 5', provider: 'openai' },
      result: out,
    });
  });

  it('a blocked translation is BLOCKED and never reaches the solver; a failed one is ERROR', async () => {
    const blocked = 'provider-wf-logic-blocked';
    acts.script(blocked, 'translateLogicActivity', {
      result: { ok: false, blocked: true, reason: 'prompt_injection:override', message: 'refused' },
    });
    expect(await run(blocked, logic())).toEqual({
      status: 'BLOCKED',
      error: 'Internal verification error',
      reason: 'prompt_injection:override',
      message: 'refused',
      provider_used: 'openai',
    });
    expect(sequence(blocked)).toEqual(['translateLogicActivity', 'appendAuditActivity']);

    const failed = 'provider-wf-logic-untranslatable';
    acts.script(failed, 'translateLogicActivity', {
      result: { ok: false, reason: 'untranslatable', message: 'no DSL' },
    });
    expect(await run(failed, logic())).toMatchObject({ status: 'ERROR', reason: 'untranslatable' });
    expect(sequence(failed)).not.toContain('verifyLogicActivity');
  });

  it('a late provider is ERROR provider_timeout after one attempt, and the solver does not run', async () => {
    const id = 'provider-wf-logic-late';
    acts.script(id, 'translateLogicActivity', { sleepMs: 2_000 });
    expect(await run(id, logic({ provider_timeout_ms: 800 }))).toMatchObject({
      status: 'ERROR',
      reason: 'provider_timeout',
      message: 'The openai provider did not answer within 0.8 s.',
    });
    expect(acts.attempts(id, 'translateLogicActivity')).toBe(1);
    expect(sequence(id)).not.toContain('verifyLogicActivity');
  });

  it('a solver past its deadline is ERROR solver_timeout (audited), not a failed run', async () => {
    const id = 'provider-wf-logic-solver-late';
    acts.script(id, 'verifyLogicActivity', { sleepMs: 2_500 });
    expect(await run(id, logic({ timeout_ms: 800 }))).toEqual({
      status: 'ERROR',
      error: 'Internal verification error',
      reason: 'solver_timeout',
      provider_used: 'openai',
      translated_query: '(x > 5)',
    });
    expect(acts.attempts(id, 'verifyLogicActivity')).toBe(1);
    expect(sequence(id)).toContain('appendAuditActivity');
  });

  it('solver infrastructure failures are retried (3 attempts), then fail the run; a DeterministicEngineError is final', async () => {
    const flaky = 'provider-wf-logic-solver-flaky';
    acts.script(flaky, 'verifyLogicActivity', { failAttempts: 2 });
    expect(await run(flaky, logic())).toMatchObject({ status: 'SAT' });
    expect(acts.attempts(flaky, 'verifyLogicActivity')).toBe(3);

    const broken = 'provider-wf-logic-solver-broken';
    acts.script(broken, 'verifyLogicActivity', { failAttempts: 99 });
    expect(await failureOf(run(broken, logic()))).toMatchObject({
      activityType: 'verifyLogicActivity',
      timeout: false,
    });
    expect(acts.attempts(broken, 'verifyLogicActivity')).toBe(3);
    expect(sequence(broken)).not.toContain('appendAuditActivity');

    const final = 'provider-wf-logic-solver-final';
    acts.script(final, 'verifyLogicActivity', { failType: 'DeterministicEngineError' });
    expect(await failureOf(run(final, logic()))).toMatchObject({ type: 'DeterministicEngineError' });
    expect(acts.attempts(final, 'verifyLogicActivity')).toBe(1);
  });

  it('an engine without a provider step fails the run at once with a NoProviderStep failure, no activity run', async () => {
    const id = 'provider-wf-no-provider-step';
    // The run's 30 s time-out is the alternative: a plain Error would fail the workflow task, retried until then.
    const handle = await tier.client.workflow.start(providerVerifyWorkflow, {
      // A caller outside the types: the workflow's signature takes only the provider-step engines.
      args: [nl('openai', { engine: 'math' as string as Input['engine'] })],
      taskQueue: tier.taskQueue,
      workflowId: id,
      workflowExecutionTimeout: '30 s',
    });
    expect(await failureOf(handle.result())).toEqual({
      activityType: null,
      timeout: false,
      type: NO_PROVIDER_STEP_FAILURE,
      message: 'engine math has no provider step',
    });
    const history = await handle.fetchHistory();
    expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect(acts.log.of(id)).toEqual([]);
  });
});

describe('providerVerifyWorkflow: time-ordered ids (session 23, review C5)', () => {
  /** The run's start time as its history records it (what workflowInfo().startTime reads). */
  async function startMs(id: string): Promise<number> {
    const t = (await tier.client.workflow.getHandle(id).fetchHistory()).events![0]!.eventTime!;
    return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
  }

  it('with `time_ordered_ids` the append carries the start event’s time as `id_time_ms`; without it, none', async () => {
    const flagged = 'provider-wf-time-ordered';
    await run(flagged, logic({ time_ordered_ids: true }));
    const withFlag = acts.log.of(flagged, 'appendAuditActivity');
    expect(withFlag).toHaveLength(1);
    expect((withFlag[0]!.input as { id_time_ms?: number }).id_time_ms).toBe(await startMs(flagged));

    const plain = 'provider-wf-time-ordered-off';
    await run(plain, logic());
    const without = acts.log.of(plain, 'appendAuditActivity');
    expect(without).toHaveLength(1);
    expect(without[0]!.input).not.toHaveProperty('id_time_ms');
  });
});
