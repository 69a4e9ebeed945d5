// Workflow tier (session 19, issue 22's memory at the mixed peak): the standalone worker's two SDK
// Workers (its own task queue and the eager-start queue) parse the bundle once and run their
// workflows in one workflow thread (workers/shared-workflow-thread.ts). Both queues' workflows and
// activities run; the thread stays while one Worker still runs and goes with the last one; the
// SDK's own Worker class still starts a thread per Worker.
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import * as threadedVm from '@temporalio/worker/lib/workflow/threaded-vm.js';
import { Client } from '@temporalio/client';
import { ROOT } from '../../infra/stack.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { WorkerSharingWorkflowThread } from '../../workers/shared-workflow-thread.js';
import { workflowInputAuthClientInterceptor } from '../../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../../activities/input-auth.js';
import { noopWorkflow, verifyWorkflow } from '../../workflows/verify.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { engineDefaults } from './stubs/engine-activities.js';

type Input = Parameters<typeof verifyWorkflow>[0];

let env: TestWorkflowEnvironment;
let client: Client;
const inputKey = randomBytes(32).toString('hex');
const acts = new ScriptedActivities({ ...engineDefaults(), appendAuditActivity: appendAuditDefault });

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: path.join(ROOT, '.tools', 'bin', 'temporal') } },
  });
  client = new Client({
    connection: env.connection,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(inputKey)] },
  });
}, 240_000);
afterAll(async () => {
  await env?.teardown();
});

/** Two Workers of `Cls` on two fresh task queues, as the standalone worker creates them. */
async function twoWorkers(Cls: typeof Worker) {
  const bundle = await workflowBundle();
  const queues = [`shared-wf-main-${randomUUID()}`, `shared-wf-eager-${randomUUID()}`];
  const workers = [];
  for (const taskQueue of queues)
    workers.push(
      await Cls.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities: { ...makeAuthenticateInputActivity(inputKey), ...acts.activities() },
        interceptors: { activity: [activityGrantInterceptor(inputKey)] },
        shutdownGraceTime: '2 s',
      }),
    );
  return { queues, workers, running: workers.map((w) => w.run()) };
}

function mathInput(): Input {
  return {
    engine: 'math',
    input: { query: 'math claim' },
    org_id: 'org_wf',
    timeout_ms: 3_000,
    activity_mode: 'normal',
    audit: { user_id: 'u_1', key_id: 'k_1', request_digest: `sha256:${'0'.repeat(64)}` },
    audit_in_engine_activity: true,
  } as Input;
}

describe('one workflow thread for the worker’s two Workers (session 19)', () => {
  it('two Workers of one sharing class: one bundle parse, one thread; both queues run workflows with activities; the thread goes with the last Worker', async () => {
    const threads = vi.spyOn(threadedVm.ThreadedVMWorkflowCreator, 'create');
    // The SDK's bundle parse (with its preload of the bundle in the main isolate), through `super`.
    const parses = vi.spyOn(Worker as unknown as { getOrCreateBundle: () => Promise<unknown> }, 'getOrCreateBundle');
    try {
      const { queues, workers, running } = await twoWorkers(WorkerSharingWorkflowThread());
      expect(threads).toHaveBeenCalledTimes(1);
      const created = (await threads.mock.results[0]!.value) as { workerThreadClients: unknown[] };
      expect(created.workerThreadClients).toHaveLength(1);
      for (const taskQueue of queues) {
        const id = `shared-wf-${randomUUID()}`;
        expect(await client.workflow.execute(noopWorkflow, { args: [], taskQueue, workflowId: id })).toBe('ok');
        const v = `shared-wf-verify-${randomUUID()}`;
        expect(
          await client.workflow.execute(verifyWorkflow, { args: [mathInput()], taskQueue, workflowId: v }),
        ).toMatchObject({ status: 'VERIFIED', engine: 'math' });
        expect(acts.log.of(v).map((c) => c.activity)).toEqual(['verifyMathActivity']);
      }
      // Concurrent runs on both queues through the one thread.
      const many = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          client.workflow.execute(noopWorkflow, {
            args: [],
            taskQueue: queues[i % 2]!,
            workflowId: `shared-wf-many-${randomUUID()}`,
          }),
        ),
      );
      expect(many).toEqual(Array(10).fill('ok'));
      // The first Worker stops: the other still runs workflows in the shared thread.
      workers[0]!.shutdown();
      await running[0];
      expect(
        await client.workflow.execute(noopWorkflow, {
          args: [],
          taskQueue: queues[1]!,
          workflowId: `shared-wf-after-${randomUUID()}`,
        }),
      ).toBe('ok');
      const clients = created.workerThreadClients as Array<{ workerExited: boolean }>;
      expect(clients[0]!.workerExited).toBe(false);
      workers[1]!.shutdown();
      await running[1];
      await vi.waitFor(() => expect(clients[0]!.workerExited).toBe(true), { timeout: 10_000, interval: 50 });
      // The bundle was parsed (and preloaded by the SDK) once for both.
      expect(parses).toHaveBeenCalledTimes(1);
    } finally {
      threads.mockRestore();
      parses.mockRestore();
    }
  }, 180_000);

  it("the SDK's own Worker class starts a workflow thread per Worker (what the sharing class saves)", async () => {
    const threads = vi.spyOn(threadedVm.ThreadedVMWorkflowCreator, 'create');
    const parses = vi.spyOn(Worker as unknown as { getOrCreateBundle: () => Promise<unknown> }, 'getOrCreateBundle');
    try {
      const { workers, running } = await twoWorkers(Worker);
      expect(threads).toHaveBeenCalledTimes(2);
      expect(parses).toHaveBeenCalledTimes(2);
      for (const w of workers) w.shutdown();
      await Promise.all(running);
    } finally {
      threads.mockRestore();
      parses.mockRestore();
    }
  }, 180_000);

  it('sharing classes are independent: Workers of two classes each get their own thread', async () => {
    const threads = vi.spyOn(threadedVm.ThreadedVMWorkflowCreator, 'create');
    try {
      const a = await twoWorkers(WorkerSharingWorkflowThread());
      const b = await twoWorkers(WorkerSharingWorkflowThread());
      expect(threads).toHaveBeenCalledTimes(2);
      for (const x of [a, b]) for (const w of x.workers) w.shutdown();
      await Promise.all([...a.running, ...b.running]);
    } finally {
      threads.mockRestore();
    }
  }, 180_000);
});
