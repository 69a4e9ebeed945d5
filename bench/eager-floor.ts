// The floor issue 22 sets for `/verify/math`: an empty workflow (noopWorkflow) started with EAGER
// START through a client that shares its native connection with a worker in the same process, on
// the same Temporal server as the stack being measured, in the same run. That is how the API
// process runs a math verification (workers/api-process.ts): client and in-process worker on one
// connection, the first workflow task handed back inline with the start. Signed and encrypted as
// the API's starts are (the workers run no other input), so the floor includes the input check.
// The worker polls a task queue of its own: the stack's workers never take a floor run, and the
// floor's CPU is this process's (client + worker) plus Temporal's.
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

export interface EagerFloor {
  /** One empty workflow, started eagerly and awaited; false if it failed. */
  noop: () => Promise<boolean>;
  /** Runs started, and how many of them the server answered with their first task inline. */
  counts: () => { started: number; eager: number };
  close: () => Promise<void>;
}

/**
 * Starts the floor's worker (the workflow bundle, input check and codec of `tree`, a checkout) on
 * `address` and returns the empty-workflow driver. `env` is the stack's (payload and input keys).
 */
export async function startEagerFloor(tree: string, address: string, env: NodeJS.ProcessEnv): Promise<EagerFloor> {
  const load = <T>(rel: string) => import(path.join(tree, rel)) as Promise<T>;
  const bundle = await load<typeof import('../workers/workflow-bundle.js')>('workers/workflow-bundle.ts');
  const codec = await load<typeof import('../core/payload-codec.js')>('core/payload-codec.ts');
  const auth = await load<typeof import('../core/workflow-input-auth.js')>('core/workflow-input-auth.ts');
  const acts = await load<typeof import('../activities/input-auth.js')>('activities/input-auth.ts');
  const inputKey = auth.workflowInputKey(env);
  const taskQueue = `${env.SVC_TASK_QUEUE ?? 'svc-verification'}-floor`;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    // As the API's in-process worker (workers/api-process.ts): same bundle, codec, input check and grant.
    dataConverter: codec.temporalDataConverter(env, { refuseUnencrypted: true }),
    workflowBundle: await bundle.workflowBundle(),
    activities: acts.makeAuthenticateInputActivity(inputKey),
    interceptors: { activity: [acts.activityGrantInterceptor(inputKey)] },
    enableNonLocalActivities: false,
  });
  const running = worker.run();
  const client = new Client({
    connection,
    dataConverter: codec.temporalDataConverter(env),
    interceptors: { workflow: [auth.workflowInputAuthClientInterceptor(inputKey)] },
  });
  let i = 0;
  let eager = 0;
  const prefix = `bench-floor-${process.pid}-${Date.now()}`;
  return {
    noop: async () => {
      try {
        const h = await client.workflow.start('noopWorkflow', {
          taskQueue,
          workflowId: `${prefix}-${i++}`,
          requestEagerStart: true,
        });
        if (h.eagerlyStarted) eager++;
        return (await h.result()) === 'ok';
      } catch {
        return false;
      }
    },
    counts: () => ({ started: i, eager }),
    close: async () => {
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

/** This process's CPU time in ms (user + system, all threads): the floor's client and worker. */
export const selfCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
