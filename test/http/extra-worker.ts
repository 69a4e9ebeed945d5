// Starts an additional worker against the test stack's Temporal and store, on its own task
// queue and with its own environment (e.g. a dead DOCKER_HOST, or one sandbox slot). Pair it
// with startExtraApi(..., { SVC_TASK_QUEUE: <same queue> }) so that API's workflows reach it.
import { inject } from 'vitest';
import { LEAN_WORKER_ENV, ManagedProcess } from '../../infra/stack.js';
import { serviceArgs } from '../../infra/service-build.js';

// An extra worker starts lean (LEAN_WORKER_ENV) unless its test asks for more: a worker's start
// is the costliest thing a test does on this 2-core machine, and extra workers serve a handful
// of requests each.

/** A worker process on the test stack (not started yet): the lean defaults, then `env` (undefined deletes). */
export function extraWorker(
  name: string,
  env: Record<string, string | undefined>,
  readyTimeoutMs = 120_000,
): ManagedProcess {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...inject('stackEnv'), ...LEAN_WORKER_ENV, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  return new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: serviceArgs('workers/verification-worker.ts', fullEnv),
      env: fullEnv,
      ready: async (p) => p.logContains('SVC_WORKER_READY'),
      readyTimeoutMs,
    },
    inject('dataDir'),
  );
}

export async function startExtraWorker(
  name: string,
  env: Record<string, string | undefined>,
  readyTimeoutMs?: number,
): Promise<ManagedProcess> {
  const proc = extraWorker(name, env, readyTimeoutMs);
  await proc.start();
  return proc;
}
