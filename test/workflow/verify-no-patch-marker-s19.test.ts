// Workflow tier (session 19): a verification run whose input carries `input_auth_no_patch_marker`
// (set by the API: every run it starts has its input checked) records no `svc-input-auth` patch
// marker and no TemporalChangeVersion search-attribute upsert (workflows/input-auth.ts): two
// history events and a visibility update fewer per verification. The check itself still runs:
// an unsigned input with the flag set is refused as before, whether the engine activity checks it
// (math, local) or the separate check does (another engine, or normal mode). A run without the
// flag (an older API, a history written before) keeps the marker, and both kinds of history
// replay on the current workflow code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, WorkflowFailedError, type WorkflowClientInterceptor } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { verifyWorkflow } from '../../workflows/verify.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { engineDefaults } from './stubs/engine-activities.js';

type Input = Parameters<typeof verifyWorkflow>[0];
const EventType = temporal.api.enums.v1.EventType;

const acts = new ScriptedActivities({ ...engineDefaults(), appendAuditActivity: appendAuditDefault });
let tier: WorkflowTier;
let n = 0;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-no-patch-marker', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

/** What the API sends for a math verification (api/temporal.ts), with the session 19 flag. */
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
    input_auth_no_patch_marker: true,
    ...over,
  } as Input;
}

async function history(id: string) {
  return tier.client.workflow.getHandle(id).fetchHistory();
}

/** The run's events: their types, and the names of the markers. */
async function shape(id: string): Promise<string[]> {
  return ((await history(id)).events ?? []).map((e) => {
    const type = EventType[e.eventType as number] as string;
    return e.markerRecordedEventAttributes ? `${type}:${e.markerRecordedEventAttributes.markerName}` : type;
  });
}

async function run(req: Input, client: Client = tier.client): Promise<string> {
  const id = `verify-wf-npm-${++n}`;
  const out = await client.workflow.execute(verifyWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id });
  expect(out).toMatchObject({ status: 'VERIFIED', engine: req.engine });
  return id;
}

/** A client whose starts carry no svc-input-auth header (not started by the API). */
function unsigned(): Client {
  const interceptor: WorkflowClientInterceptor = {
    async startWithDetails(i, next) {
      return next(i);
    },
  };
  return new Client({ connection: tier.env.connection, interceptors: { workflow: [interceptor] } });
}

describe('verifyWorkflow: no patch marker for runs of an API that always checks the input (session 19)', () => {
  it('math, local, the flag set: six events, no patch marker, no search-attribute upsert; the engine activity only', async () => {
    const id = await run(input());
    expect(await shape(id)).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
      'EVENT_TYPE_WORKFLOW_TASK_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
      'EVENT_TYPE_MARKER_RECORDED:core_local_activity',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
  });

  it('the flag set, the separate check (normal mode): it still runs first, without a patch marker', async () => {
    const id = await run(input({ activity_mode: 'normal' }));
    const events = await shape(id);
    expect(events.filter((e) => e === 'EVENT_TYPE_MARKER_RECORDED:core_local_activity')).toHaveLength(1);
    expect(events.some((e) => e.endsWith(':core_patch'))).toBe(false);
    expect(events).not.toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
    expect(acts.log.of(id).map((c) => c.activity)).toEqual(['verifyMathActivity']);
  });

  it('without the flag (an older API, a history written before): the patch marker and its upsert are recorded', async () => {
    const id = await run(input({ input_auth_no_patch_marker: undefined }));
    const events = await shape(id);
    expect(events).toContain('EVENT_TYPE_MARKER_RECORDED:core_patch');
    expect(events).toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
  });

  it.each([
    ['math, checked by the engine activity', {}],
    ['another engine, the separate check', { engine: 'logic' }],
    ['normal mode, the separate check', { activity_mode: 'normal' }],
  ])('unsigned, the flag set (%s): refused as before, no activity body ran', async (_name, over) => {
    const id = `verify-wf-npm-refused-${++n}`;
    const err = await unsigned()
      .workflow.execute(verifyWorkflow, {
        args: [input(over as Partial<Input>)],
        taskQueue: tier.taskQueue,
        workflowId: id,
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('WorkflowInputRefused');
    expect(cause!.message).toBe(
      'Workflow input refused: the input carries no svc-input-auth header (not started by the API).',
    );
    expect(acts.log.of(id)).toEqual([]);
    expect((await shape(id)).some((e) => e.endsWith(':core_patch'))).toBe(false);
  });

  it('histories with and without the marker replay on the current workflow code', async () => {
    const withFlag = await run(input());
    const withoutFlag = await run(input({ input_auth_no_patch_marker: undefined }));
    const bundle = await workflowBundle();
    for (const id of [withFlag, withoutFlag]) {
      await expect(Worker.runReplayHistory({ workflowBundle: bundle }, await history(id), id)).resolves.toBeUndefined();
    }
  });

  it.each(['local', 'normal'] as const)(
    'a run started with the flag whose history a worker from before session 19 wrote (marker and upsert recorded) replays (%s mode)',
    async (mode) => {
      // Such a worker ignores the flag: its history is that of a run without it, with the flag in
      // the input (an API upgraded before its workers). Rewriting the started event's input makes it.
      const id = await run(input({ activity_mode: mode, input_auth_no_patch_marker: undefined }));
      const h = await history(id);
      expect(await shape(id)).toContain('EVENT_TYPE_MARKER_RECORDED:core_patch');
      const payload = h.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const args = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as Record<string, unknown>;
      expect(args.input_auth_no_patch_marker).toBeUndefined();
      payload.data = Buffer.from(JSON.stringify({ ...args, input_auth_no_patch_marker: true }));
      await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, h, id)).resolves.toBeUndefined();
    },
  );
});
