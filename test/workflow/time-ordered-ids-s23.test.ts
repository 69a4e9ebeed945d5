// Workflow tier (session 23): a run whose input carries `time_ordered_ids` (set by the API) hands
// its start time (workflowInfo().startTime: the WorkflowExecutionStarted event's time) to every
// activity that derives an audit entry or attestation id, and the same value to every attempt of
// it, so a retried activity derives the same ids (core/time-ordered-id.ts). A run without the
// flag (an older API, a history written before) passes none and keeps the hash-only ids. Both
// kinds of history replay on the current workflow code. batchWorkflow's rows are in
// batch-workflow.test.ts (session 23 block).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { verifyWorkflow } from '../../workflows/verify.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { engineDefaults } from './stubs/engine-activities.js';

type Input = Parameters<typeof verifyWorkflow>[0];

const acts = new ScriptedActivities({
  ...engineDefaults(),
  appendAuditActivity: appendAuditDefault,
});
let tier: WorkflowTier;
let n = 0;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-time-ordered-ids', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

/** What the API sends for a verification (api/temporal.ts), with the session 23 flag. */
function verifyInput(over: Partial<Input> = {}): Input {
  return {
    engine: 'math',
    input: { query: 'math claim' },
    org_id: 'org_wf',
    timeout_ms: 3_000,
    activity_mode: 'local',
    audit: { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` },
    audit_in_engine_activity: true,
    attestation_in_audit_entry: true,
    input_auth_in_engine_activity: true,
    input_auth_no_patch_marker: true,
    time_ordered_ids: true,
    ...over,
  } as Input;
}

/** The run's start time as its history records it (what workflowInfo().startTime reads). */
async function startMs(id: string): Promise<number> {
  const t = (await tier.client.workflow.getHandle(id).fetchHistory()).events![0]!.eventTime!;
  return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

async function replays(id: string) {
  const history = await tier.client.workflow.getHandle(id).fetchHistory();
  await expect(
    Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, id),
  ).resolves.toBeUndefined();
}

const runVerify = async (req: Input, script?: (id: string) => void) => {
  const id = `verify-wf-s23-${++n}`;
  script?.(id);
  await tier.client.workflow.execute(verifyWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id });
  return id;
};
const inputOf = (c: { input: unknown }) =>
  c.input as Record<string, unknown> & { audit_entry?: Record<string, unknown> };

describe('verifyWorkflow: the start time reaches the activities that derive ids (session 23)', () => {
  it('math (audited in its activity): every attempt gets audit_entry.id_time_ms = the run’s start time', async () => {
    const id = await runVerify(verifyInput(), (wf) => acts.script(wf, 'verifyMathActivity', { failAttempts: 2 }));
    const start = await startMs(id);
    const calls = acts.log.of(id, 'verifyMathActivity');
    expect(calls).toHaveLength(3);
    for (const c of calls)
      expect(inputOf(c).audit_entry).toMatchObject({ attestation_in_entry: true, id_time_ms: start });
    await replays(id);
  });

  it('another engine (the separate append, normal mode): every append attempt gets id_time_ms = the start time', async () => {
    const id = await runVerify(verifyInput({ engine: 'logic', activity_mode: 'normal' }), (wf) =>
      acts.script(wf, 'appendAuditActivity', { failAttempts: 1 }),
    );
    const start = await startMs(id);
    const appends = acts.log.of(id, 'appendAuditActivity');
    expect(appends).toHaveLength(2);
    for (const c of appends) expect(inputOf(c)).toMatchObject({ workflow_id: id, id_time_ms: start });
    await replays(id);
  });

  it('without the flag (an older API, a history written before): no time passed, hash-only ids', async () => {
    const math = await runVerify(verifyInput({ time_ordered_ids: undefined }));
    expect(inputOf(acts.log.of(math, 'verifyMathActivity')[0]!).audit_entry).not.toHaveProperty('id_time_ms');
    const logic = await runVerify(verifyInput({ engine: 'logic', time_ordered_ids: undefined }));
    expect(inputOf(acts.log.of(logic, 'appendAuditActivity')[0]!)).not.toHaveProperty('id_time_ms');
    await replays(math);
    await replays(logic);
  });
});
