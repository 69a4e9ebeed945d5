// Starts an additional worker against the test stack's Temporal and store, on its own task
// queue and with its own environment (e.g. a dead DOCKER_HOST, or one sandbox slot). Pair it
// with startExtraApi(..., { SVC_TASK_QUEUE: <same queue> }) so that API's workflows reach it.
import { inject } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { workerProcess } from './extra-process.js';
import { sharedProcess } from './extra-api.js';

// An extra worker starts lean (LEAN_WORKER_ENV) unless its test asks for more: a worker's start
// is the costliest thing a test does on this 2-core machine, and extra workers serve a handful
// of requests each.

/** A worker process on the test stack (not started yet): the lean defaults, then `env` (undefined deletes). */
export function extraWorker(
  name: string,
  env: Record<string, string | undefined>,
  readyTimeoutMs = 120_000,
): ManagedProcess {
  return workerProcess(name, env, { stackEnv: inject('stackEnv'), dataDir: inject('dataDir') }, readyTimeoutMs);
}

/**
 * A lean extra worker shared by every file that asks for the same `env` (session 19), which
 * names a task queue of its own (a fixed name: the key is the environment). Never stop it (call
 * `release` in afterAll).
 */
export async function sharedExtraWorker(
  name: string,
  env: Record<string, string | undefined>,
): Promise<{ release: () => Promise<void> }> {
  if (!env.SVC_TASK_QUEUE) throw new Error('a shared worker needs a task queue of its own (SVC_TASK_QUEUE)');
  const { release } = await sharedProcess({ kind: 'worker', name, env });
  return { release };
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
