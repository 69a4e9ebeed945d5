// Extra API and worker processes on the test stack: how one is started (its environment, its
// entry, its readiness), and the processes shared by every file that asks for the same
// environment (session 19: the suite's parallel phase is bound by the CPU of process starts).
// No vitest import: the global setup (the main process) runs the shared ones.
import { freePort, LEAN_WORKER_ENV, ManagedProcess } from '../../infra/stack.js';
import { serviceArgs } from '../../infra/service-build.js';

/** The stack's part of a process's environment (the global setup's `stackEnv`) and where logs go. */
export interface StackBase {
  stackEnv: Record<string, string>;
  dataDir: string;
}

type Env = Record<string, string | undefined>;

/** `env` over `base` (an undefined value deletes the variable). */
function merged(base: NodeJS.ProcessEnv, env: Env): NodeJS.ProcessEnv {
  const full: NodeJS.ProcessEnv = { ...base, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k];
  return full;
}

/**
 * An API process on `port` (not started). `entry` 'api' is the plain API (api/server.ts);
 * 'api-process' is what the stack runs, the API with its in-process worker for eager starts.
 */
export function apiProcess(
  name: string,
  env: Env,
  port: number,
  at: StackBase,
  expectReady = true,
  entry: 'api' | 'api-process' = 'api',
): ManagedProcess {
  const fullEnv = merged({ ...process.env, ...at.stackEnv, HOST: '127.0.0.1', PORT: String(port) }, env);
  return new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: serviceArgs(entry === 'api' ? 'api/server.ts' : 'workers/api-process.ts', fullEnv),
      env: fullEnv,
      ready: async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200,
      readyTimeoutMs: expectReady ? 90_000 : 60_000,
    },
    at.dataDir,
  );
}

/** A worker process (not started): the lean defaults (LEAN_WORKER_ENV), then `env`. */
export function workerProcess(name: string, env: Env, at: StackBase, readyTimeoutMs = 120_000): ManagedProcess {
  const fullEnv = merged({ ...process.env, ...at.stackEnv, ...LEAN_WORKER_ENV }, env);
  return new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: serviceArgs('workers/verification-worker.ts', fullEnv),
      env: fullEnv,
      ready: async (p) => p.logContains('SVC_WORKER_READY'),
      readyTimeoutMs,
    },
    at.dataDir,
  );
}

export type SharedKind = 'api' | 'worker';

/** What a file asks the control server for: a process of this kind with exactly this environment. */
export interface SharedRequest {
  kind: SharedKind;
  name: string;
  env: Env;
}

/** The key of a shared process: its kind and its environment, keys sorted (undefined: deleted). */
export function sharedKey(kind: SharedKind, env: Env): string {
  const entries = Object.entries(env)
    .map(([k, v]) => [k, v ?? null] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${kind} ${JSON.stringify(entries)}`;
}

/**
 * The shared extra processes, run by the global setup: the first file that asks for an
 * environment starts its process, every later one gets the same process. They run until the
 * serial phase begins (test/http/serial-setup.ts stops them: nothing of group 0 runs then, and the
 * serial files time things) or the suite ends. A file must not stop, kill or restart one, nor
 * assert on anything of it but its own tenants' data.
 */
export class SharedProcesses {
  private readonly started = new Map<string, Promise<{ proc: ManagedProcess; url: string | null }>>();
  /** Process starts and requests served, for the suite's figures (docs/testing.md). */
  readonly counts = { starts: 0, requests: 0 };

  constructor(private readonly at: () => StackBase) {}

  async acquire(req: SharedRequest): Promise<{ url: string | null; name: string }> {
    this.counts.requests++;
    const key = sharedKey(req.kind, req.env);
    let entry = this.started.get(key);
    if (!entry) {
      this.counts.starts++;
      entry = this.start(req);
      this.started.set(key, entry);
      // A failed start is not kept: the next asker tries again (and gets its own error).
      entry.catch(() => this.started.delete(key));
    }
    const { proc, url } = await entry;
    return { url, name: proc.spec.name };
  }

  /** Starts the process of a request (a test may replace it). */
  protected async start(req: SharedRequest): Promise<{ proc: ManagedProcess; url: string | null }> {
    const name = `shared-${req.name}`;
    if (req.kind === 'worker') {
      const proc = workerProcess(name, req.env, this.at());
      await proc.start();
      return { proc, url: null };
    }
    const port = await freePort();
    const proc = apiProcess(name, req.env, port, this.at());
    await proc.start();
    return { proc, url: `http://127.0.0.1:${port}` };
  }

  /** Stops every shared process (idempotent); later requests start them again. */
  async stopAll(): Promise<void> {
    const all = [...this.started.values()];
    this.started.clear();
    await Promise.allSettled(all.map(async (p) => (await p).proc.stop()));
  }
}
