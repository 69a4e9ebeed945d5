// Workflow tier: a verifyWorkflow run in local activity mode whose input asks for it
// (`input_auth_in_engine_activity`) has its input checked by its engine activity's interceptor
// instead of by the separate local activity first (workflows/input-auth.ts,
// activities/input-auth.ts). Proves the check is still done, and refuses exactly as the separate
// one: missing, forged, stale header or altered args fail the run with the same non-retryable
// WorkflowInputRefused failure and message before the engine activity's body runs. A run without
// the flag (a history written before) or in normal mode keeps the separate check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, WorkflowFailedError, type WorkflowClientInterceptor } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { verifyWorkflow } from '../../workflows/verify.js';
import { INPUT_AUTH_HEADER, INPUT_MAX_AGE_MS, signWorkflowInput } from '../../core/workflow-input-auth.js';
import { startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { engineDefaults } from './stubs/engine-activities.js';

type Input = Parameters<typeof verifyWorkflow>[0];

const acts = new ScriptedActivities({ ...engineDefaults(), appendAuditActivity: appendAuditDefault });
let tier: WorkflowTier;
let n = 0;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-input-auth-in-activity', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

function input(over: Partial<Input> = {}): Input {
  return {
    engine: 'math',
    input: { query: 'math claim' },
    org_id: 'org_wf',
    timeout_ms: 3_000,
    activity_mode: 'local',
    audit: { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` },
    audit_in_engine_activity: true,
    input_auth_in_engine_activity: true,
    ...over,
  } as Input;
}

/** A client whose starts carry the header `sign` makes (null: none), over the args `alter` gives. */
function clientSigning(
  sign: ((type: string, id: string, args: unknown[]) => unknown) | null,
  alter: (args: unknown[]) => unknown[] = (a) => a,
): Client {
  const interceptor: WorkflowClientInterceptor = {
    async startWithDetails(i, next) {
      const args = [...(i.options.args ?? [])];
      const headers = sign
        ? {
            ...i.headers,
            [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(sign(i.workflowType, i.options.workflowId, args)),
          }
        : i.headers;
      return next({ ...i, headers, options: { ...i.options, args: alter(args) } });
    },
  };
  return new Client({ connection: tier.env.connection, interceptors: { workflow: [interceptor] } });
}

const realSign = (type: string, id: string, args: unknown[]) => signWorkflowInput(tier.inputKey, type, id, args);

/** Local activity markers in the run's history: the engine activity, plus the separate check when it ran. */
async function localActivityMarkers(client: Client, id: string): Promise<number> {
  const history = await client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .length;
}

/** The run fails with the input check's own failure (not wrapped in an activity failure), and no activity body ran. */
async function refused(client: Client, req: Input, message: string | RegExp): Promise<void> {
  const id = `verify-wf-iaa-refused-${++n}`;
  const err = await client.workflow
    .execute(verifyWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id })
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('WorkflowInputRefused');
  expect((cause as ApplicationFailure).nonRetryable).toBe(true);
  if (typeof message === 'string') expect(cause!.message).toBe(message);
  else expect(cause!.message).toMatch(message);
  expect(acts.log.of(id)).toEqual([]);
}

describe('verifyWorkflow: the input check done by the engine activity (workflow tier)', () => {
  it('signed by the API, local mode, asked for: verified, the engine activity only (no separate check)', async () => {
    const id = `verify-wf-iaa-ok-${++n}`;
    const out = await tier.client.workflow.execute(verifyWorkflow, {
      args: [input()],
      taskQueue: tier.taskQueue,
      workflowId: id,
    });
    expect(out).toMatchObject({ status: 'VERIFIED', engine: 'math' });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
    expect(await localActivityMarkers(tier.client, id)).toBe(1);
  });

  it.each([
    ['without the flag (an older API, a history written before)', { input_auth_in_engine_activity: undefined }],
    ['in normal activity mode', { activity_mode: 'normal' as const }],
  ])('%s: the separate check still runs first', async (_name, over) => {
    const id = `verify-wf-iaa-sep-${++n}`;
    const req = input(over);
    const out = await tier.client.workflow.execute(verifyWorkflow, {
      args: [req],
      taskQueue: tier.taskQueue,
      workflowId: id,
    });
    expect(out).toMatchObject({ status: 'VERIFIED', engine: 'math' });
    // The check, plus the engine activity when it is local too.
    expect(await localActivityMarkers(tier.client, id)).toBe(req.activity_mode === 'local' ? 2 : 1);
  });

  it('no svc-input-auth header: refused before the engine activity runs, the same failure as the separate check', async () => {
    await refused(
      clientSigning(null),
      input(),
      'Workflow input refused: the input carries no svc-input-auth header (not started by the API).',
    );
  });

  it('a header signed under another key: refused', async () => {
    await refused(
      clientSigning((t, id, a) => signWorkflowInput('e'.repeat(64), t, id, a)),
      input(),
      'Workflow input refused: the input does not authenticate (wrong or altered input, type, workflow id or key).',
    );
  });

  it('a malformed header: refused', async () => {
    await refused(
      clientSigning(() => ({ v: 2, issued_at: Date.now(), mac: 'ab' })),
      input(),
      'Workflow input refused: malformed svc-input-auth header.',
    );
  });

  it.each([
    ['another organization', (r: Input) => ({ ...r, org_id: 'org_other' })],
    ['another audit user', (r: Input) => ({ ...r, audit: { ...r.audit!, user_id: 'u_2' } })],
    ['the flag added after signing', (r: Input) => ({ ...r, input_auth_in_engine_activity: true })],
  ])('args altered after the API signed them (%s): refused', async (_name, change) => {
    const signed = input(_name === 'the flag added after signing' ? { input_auth_in_engine_activity: undefined } : {});
    await refused(
      clientSigning(realSign, (args) => [change(args[0] as Input)]),
      signed,
      /^Workflow input refused: the input does not authenticate/,
    );
  });

  it('a genuine header issued too long before the run: refused as stale', async () => {
    await refused(
      clientSigning((t, id, a) => signWorkflowInput(tier.inputKey, t, id, a, Date.now() - INPUT_MAX_AGE_MS - 60_000)),
      input(),
      'Workflow input refused: the input authentication is stale (issued too long before this run started).',
    );
  });

  it.each([
    ['an unknown engine', { engine: 'bogus' }],
    ['a time-out that is not a duration', { timeout_ms: 'soon' }],
    ['another engine', { engine: 'logic' }],
  ])(
    'unsigned, the flag set, %s: the separate check refuses it (the run never throws before its first activity)',
    async (_name, over) => {
      await refused(
        clientSigning(null),
        input(over as Partial<Input>),
        'Workflow input refused: the input carries no svc-input-auth header (not started by the API).',
      );
    },
  );

  it('control: the same client signing with the real key is verified', async () => {
    const id = `verify-wf-iaa-ctl-${++n}`;
    const out = await clientSigning(realSign).workflow.execute(verifyWorkflow, {
      args: [input()],
      taskQueue: tier.taskQueue,
      workflowId: id,
    });
    expect(out).toMatchObject({ status: 'VERIFIED' });
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
  });
});
