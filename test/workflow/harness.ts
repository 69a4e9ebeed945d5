// Workflow tier harness (docs/testing.md): a Temporal dev server from the project's own temporal
// CLI (.tools/bin/temporal, never a downloaded server), a worker on the prebuilt workflow bundle
// (the one the stack's workers load, input check included) with the test's scripted activities,
// and a client that signs workflow inputs as the API's does. One per test file.
//
// Time: the time-skipping test server is a separate download, so these tests run on the real
// clock; every time-out and retry interval the tests provoke is sub-second or a few seconds
// (activity deadlines come from the workflow input, retry intervals start at 100-200 ms).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { ROOT } from '../../infra/stack.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { workflowInputAuthClientInterceptor } from '../../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../../activities/input-auth.js';

export interface WorkflowTier {
  env: TestWorkflowEnvironment;
  client: Client;
  taskQueue: string;
  /** The workflow input key the worker and the client hold (for rows that sign by hand). */
  inputKey: string;
  stop(): Promise<void>;
}

/** Starts a server, a worker on `taskQueue` running `activities`, and a signing client. */
export async function startWorkflowTier(
  taskQueue: string,
  activities: Record<string, (...args: never[]) => Promise<unknown>>,
): Promise<WorkflowTier> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: path.join(ROOT, '.tools', 'bin', 'temporal') } },
  });
  const inputKey = randomBytes(32).toString('hex');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: { ...makeAuthenticateInputActivity(inputKey), ...activities },
    interceptors: { activity: [activityGrantInterceptor(inputKey)] },
  });
  const running = worker.run();
  const client = new Client({
    connection: env.connection,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(inputKey)] },
  });
  return {
    env,
    client,
    taskQueue,
    inputKey,
    async stop() {
      worker.shutdown();
      await running.catch(() => undefined);
      await env.teardown();
    },
  };
}

/** Records every call of the scripted activities: name, argument, attempt. */
export class CallLog {
  readonly calls: Array<{ activity: string; input: unknown; workflowId: string }> = [];
  add(activity: string, input: unknown, workflowId: string): void {
    this.calls.push({ activity, input, workflowId });
  }
  /** The calls of one run (by workflow id), optionally of one activity. */
  of(workflowId: string, activity?: string) {
    return this.calls.filter((c) => c.workflowId === workflowId && (activity === undefined || c.activity === activity));
  }
}

/** The failure a workflow ended with: its cause chain, outermost first, as plain facts. */
export async function failureOf(result: Promise<unknown>): Promise<{
  activityType: string | null;
  timeout: boolean;
  type: string | null;
  message: string;
}> {
  const err = await result.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowFailedError)) throw new Error(`expected the workflow to fail, got ${String(err)}`);
  let activityType: string | null = null;
  let timeout = false;
  let type: string | null = null;
  let message = '';
  for (let cur: unknown = err.cause; cur; cur = (cur as { cause?: unknown }).cause) {
    if (cur instanceof ActivityFailure) activityType = cur.activityType;
    if (cur instanceof TimeoutFailure) timeout = true;
    if (cur instanceof ApplicationFailure) {
      type = cur.type ?? null;
      message = cur.message;
    }
  }
  return { activityType, timeout, type, message };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
