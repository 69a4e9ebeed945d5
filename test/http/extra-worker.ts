// Starts an additional worker against the test stack's Temporal and store, on its own task
// queue and with its own environment (e.g. a dead DOCKER_HOST, or one sandbox slot). Pair it
// with startExtraApi(..., { SVC_TASK_QUEUE: <same queue> }) so that API's workflows reach it.
import path from 'node:path';
import { inject } from 'vitest';
import { ManagedProcess, ROOT } from '../../infra/stack.js';

export async function startExtraWorker(name: string, env: Record<string, string | undefined>) {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...inject('stackEnv'), ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  const proc = new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'workers', 'verification-worker.ts')],
      env: fullEnv,
      ready: async (p) => p.logContains('SVC_WORKER_READY'),
      readyTimeoutMs: 120_000,
    },
    inject('dataDir'),
  );
  await proc.start();
  return proc;
}
