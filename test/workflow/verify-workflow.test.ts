// Workflow tier: verifyWorkflow (workflows/verify.ts) with scripted activities. Proves the
// dispatch (every engine runs the activity the registry names, normal or local), the audit
// append after the engine (and none without an organization), the retry policy (infrastructure
// failures retried up to 3 attempts, the engine's own failure types never), the engine deadline
// (one attempt, then the workflow fails with a time-out) and that a failed audit append fails
// the run. The contract rows stay black-box (test/http/*).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { noopWorkflow, verifyWorkflow } from '../../workflows/verify.js';
import { failureOf, startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { ENGINE_ACTIVITY_NAMES, engineDefaults, type StubEngine } from './stubs/engine-activities.js';

type Input = Parameters<typeof verifyWorkflow>[0];

const acts = new ScriptedActivities({ ...engineDefaults(), appendAuditActivity: appendAuditDefault });
let tier: WorkflowTier;
let n = 0;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-verify', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

function input(engine: StubEngine, over: Partial<Input> = {}): Input {
  return {
    engine,
    input: { query: `${engine} claim` },
    org_id: 'org_wf',
    timeout_ms: 3_000,
    activity_mode: 'normal',
    audit: { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` },
    audit_in_engine_activity: true,
    ...over,
  } as Input;
}

function start(req: Input, id = `verify-wf-${++n}`) {
  return {
    id,
    result: tier.client.workflow.execute(verifyWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id }),
  };
}

const AUDIT = { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` };

describe('verifyWorkflow (workflow tier)', () => {
  it.each(['normal', 'local'] as const)(
    '%s: math runs verifyMathActivity once, asked to append the audit entry itself (no separate append)',
    async (mode) => {
      const { id, result } = start(input('math', { activity_mode: mode }));
      expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'math' });
      expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
      expect(acts.log.of(id, 'verifyMathActivity')[0]!.input).toEqual({
        input: { query: 'math claim' },
        org_id: 'org_wf',
        workflow_id: id,
        audit_entry: { audit: AUDIT },
      });
    },
  );

  it('math with attestation_in_audit_entry (session 16): the activity is asked to store the attestation record in the entry', async () => {
    const { id, result } = start(input('math', { activity_mode: 'local', attestation_in_audit_entry: true }));
    expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'math' });
    expect(acts.log.of(id, 'verifyMathActivity')[0]!.input).toEqual({
      input: { query: 'math claim' },
      org_id: 'org_wf',
      workflow_id: id,
      audit_entry: { audit: AUDIT, attestation_in_entry: true },
    });
  });

  it('math started without audit_in_engine_activity (an older API, a history written before): the separate append', async () => {
    const { id, result } = start(input('math', { activity_mode: 'local', audit_in_engine_activity: undefined }));
    const out = await result;
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity', 'appendAuditActivity']);
    expect(acts.log.of(id, 'verifyMathActivity')[0]!.input).toEqual({
      input: { query: 'math claim' },
      org_id: 'org_wf',
      workflow_id: id,
    });
    expect(acts.log.of(id, 'appendAuditActivity')[0]!.input).toMatchObject({ org_id: 'org_wf', result: out });
  });

  it('math without an organization: no audit entry asked for, none appended', async () => {
    const { id, result } = start(input('math', { org_id: null }));
    expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'math' });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
    expect(acts.log.of(id, 'verifyMathActivity')[0]!.input).toEqual({
      input: { query: 'math claim' },
      org_id: null,
      workflow_id: id,
    });
  });

  it('math: a failure of the activity that appends (e.g. the audit chain) fails the run, never a verdict', async () => {
    const id = 'verify-wf-math-audit-chain';
    acts.script(id, 'verifyMathActivity', { failType: 'AuditChainError' });
    const { result } = start(input('math', { activity_mode: 'local' }), id);
    expect(await failureOf(result)).toMatchObject({ type: 'AuditChainError' });
    expect(acts.attempts(id, 'verifyMathActivity')).toBe(1);
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(0);
  });

  it.each(
    (Object.entries(ENGINE_ACTIVITY_NAMES) as Array<[StubEngine, string]>).filter(([engine]) => engine !== 'math'),
  )('%s runs %s once, then appends the audit entry with its result', async (engine, activity) => {
    const { id, result } = start(input(engine));
    const out = await result;
    expect(out).toEqual({
      status: 'VERIFIED',
      engine,
      proof_ref: expect.stringMatching(/^sha256:/),
      echo: { query: `${engine} claim` },
    });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual([activity, 'appendAuditActivity']);
    expect(acts.log.of(id, activity)[0]!.input).toEqual({
      input: { query: `${engine} claim` },
      org_id: 'org_wf',
      workflow_id: id,
    });
    expect(acts.log.of(id, 'appendAuditActivity')[0]!.input).toEqual({
      org_id: 'org_wf',
      workflow_id: id,
      engine,
      input: { query: `${engine} claim` },
      result: out,
      audit: { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` },
    });
  });

  it('local mode runs the same activity as a local activity', async () => {
    const { id, result } = start(input('rag', { activity_mode: 'local' }));
    expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'rag' });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyRagActivity', 'appendAuditActivity']);
  });

  it('a run without an organization is not audited', async () => {
    const { id, result } = start(input('sql', { org_id: null }));
    expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'sql' });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifySqlActivity']);
  });

  it.each(['normal', 'local'] as const)(
    '%s: an infrastructure failure is retried and the third attempt answers',
    async (mode) => {
      const id = `verify-wf-flaky-${mode}`;
      acts.script(id, 'verifyCodeActivity', { failAttempts: 2 });
      const { result } = start(input('code', { activity_mode: mode }), id);
      expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'code' });
      expect(acts.attempts(id, 'verifyCodeActivity')).toBe(3);
    },
  );

  it('an activity failing on every attempt fails the run after 3 attempts, with no audit entry', async () => {
    const id = 'verify-wf-broken';
    acts.script(id, 'verifyLogicActivity', { failAttempts: 99 });
    const { result } = start(input('logic'), id);
    expect(await failureOf(result)).toMatchObject({
      activityType: 'verifyLogicActivity',
      timeout: false,
      message: 'store unavailable',
    });
    expect(acts.attempts(id, 'verifyLogicActivity')).toBe(3);
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(0);
  });

  // MongoServerSelectionError (session 17): the store unreachable for the driver's whole selection
  // time-out; another attempt would wait as long, past the 10 s fail-closed bound (issue 22).
  it.each(['EngineTimeout', 'DeterministicEngineError', 'ValidationError', 'MongoServerSelectionError'])(
    'a %s failure is final: one attempt',
    async (type) => {
      const id = `verify-wf-final-${type}`;
      acts.script(id, 'verifyMathActivity', { failType: type });
      const { result } = start(input('math'), id);
      expect(await failureOf(result)).toMatchObject({ activityType: 'verifyMathActivity', type });
      expect(acts.attempts(id, 'verifyMathActivity')).toBe(1);
      expect(acts.attempts(id, 'appendAuditActivity')).toBe(0);
    },
  );

  it.each(['normal', 'local'] as const)(
    '%s: an engine past its deadline (timeout_ms) fails the run with a time-out, not retried',
    async (mode) => {
      const id = `verify-wf-late-${mode}`;
      acts.script(id, 'verifyProcessActivity', { sleepMs: 2_500 });
      const t0 = Date.now();
      const { result } = start(input('process', { timeout_ms: 800, activity_mode: mode }), id);
      expect(await failureOf(result)).toMatchObject({ activityType: 'verifyProcessActivity', timeout: true });
      expect(Date.now() - t0).toBeLessThan(6_000); // the deadline ended it, not the run's time-out
      // Never re-run past its deadline, in either mode: a normal activity's schedule-to-close
      // budget is final, and a local one has only that time-out (workflows/policies.ts
      // engineLocalActivityOptions: with an equal start-to-close the worker could re-run it).
      // (A re-run is logged when it starts, and the run would end only after it.)
      expect(acts.attempts(id, 'verifyProcessActivity')).toBe(1);
      expect(acts.attempts(id, 'appendAuditActivity')).toBe(0);
    },
  );

  it('a failed audit append fails the run (no verdict without its audit record); chain errors are not retried', async () => {
    const id = 'verify-wf-audit-chain';
    acts.script(id, 'appendAuditActivity', { failType: 'AuditChainError' });
    const { result } = start(input('rag'), id);
    // (A local activity's failure reaches the client without its activity type.)
    expect(await failureOf(result)).toMatchObject({
      type: 'AuditChainError',
      message: 'appendAuditActivity failed (AuditChainError)',
    });
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(1);
  });

  it('an unreachable store during the audit append is final: one attempt (session 17)', async () => {
    const id = 'verify-wf-audit-unreachable';
    acts.script(id, 'appendAuditActivity', { failType: 'MongoServerSelectionError' });
    const { result } = start(input('rag'), id);
    expect(await failureOf(result)).toMatchObject({ type: 'MongoServerSelectionError' });
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(1);
  });

  it('a store hiccup during the audit append is retried', async () => {
    const id = 'verify-wf-audit-flaky';
    acts.script(id, 'appendAuditActivity', { failAttempts: 1 });
    const { result } = start(input('fact'), id);
    expect(await result).toMatchObject({ status: 'VERIFIED', engine: 'fact' });
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(2);
  });

  it('an unsigned start (no svc-input-auth header) fails before the engine or the audit runs', async () => {
    const id = 'verify-wf-unsigned';
    const anonymous = new Client({ connection: tier.env.connection });
    const result = anonymous.workflow.execute(verifyWorkflow, {
      args: [input('math')],
      taskQueue: tier.taskQueue,
      workflowId: id,
    });
    expect(await failureOf(result)).toMatchObject({ type: 'WorkflowInputRefused' });
    expect(acts.log.of(id)).toEqual([]);
  });

  it('noopWorkflow answers ok without an activity', async () => {
    const id = 'verify-wf-noop';
    expect(
      await tier.client.workflow.execute(noopWorkflow, { args: [], taskQueue: tier.taskQueue, workflowId: id }),
    ).toBe('ok');
    expect(acts.log.of(id)).toEqual([]);
  });
});
