// The worker-thread pool that runs the agent guards (engines/agent-guards) off the event loop,
// each task under a deadline (an aborted task's thread is terminated by piscina).
import { Piscina } from 'piscina';
import { projectModuleUrl } from '../core/project-paths.js';
import type { GuardReport, GuardTask } from '../engines/agent-guards/index.js';

let pool: Piscina | null = null;

function getPool(): Piscina {
  if (!pool) {
    pool = new Piscina({
      filename: projectModuleUrl('../engines/agent-guards/worker.ts', import.meta.url).href,
      minThreads: 1,
      maxThreads: 2,
      maxQueue: 256,
      idleTimeout: 60_000,
    });
  }
  return pool;
}

export class GuardUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GuardUnavailableError';
  }
}

export async function runGuards(task: GuardTask, timeoutMs: number): Promise<GuardReport> {
  try {
    return (await getPool().run(task, { signal: AbortSignal.timeout(timeoutMs) })) as GuardReport;
  } catch (err) {
    throw new GuardUnavailableError(`guard scan failed: ${String((err as Error)?.name ?? 'Error')}`);
  }
}

export async function shutdownGuardPool(): Promise<void> {
  if (pool) await pool.destroy();
  pool = null;
}
