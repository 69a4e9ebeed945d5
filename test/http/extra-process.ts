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
 * How long a shared process outlives its last user: a file that asks for the same environment
 * within it (the next file of a worker, or one running beside) gets the same process; after it
 * the process is stopped (idle, it would cost ~0.4 % of a core for the rest of the phase).
 */
export const SHARED_LINGER_MS = 30_000;

type Started = { proc: ManagedProcess; url: string | null };
interface Entry {
  started: Promise<Started>;
  /** Files holding it (acquired, not yet released). */
  users: number;
  linger: NodeJS.Timeout | null;
  /** The process once started (to tell a crashed one at the next request). */
  proc: ManagedProcess | null;
}

/**
 * The shared extra processes, run by the global setup: the first file that asks for an
 * environment starts its process, every later one gets the same process while one holds it (and
 * SHARED_LINGER_MS after the last released it). Whatever is left is stopped when the serial phase
 * begins (test/http/serial-setup.ts: the serial files fault and time the stack) and at the end.
 * A file must not stop, kill or restart one, nor assert on anything of it but its own tenants' data.
 */
export class SharedProcesses {
  private readonly entries = new Map<string, Entry>();
  /** Process starts and requests served, for the suite's figures (docs/testing.md). */
  readonly counts = { starts: 0, requests: 0 };

  constructor(
    private readonly at: () => StackBase,
    private readonly lingerMs = SHARED_LINGER_MS,
  ) {}

  async acquire(req: SharedRequest): Promise<{ url: string | null; name: string }> {
    this.counts.requests++;
    const key = sharedKey(req.kind, req.env);
    let entry = this.entries.get(key);
    // One that has exited was not stopped here (a stop removes it first): it crashed, or a file
    // stopped it. Started again for this file and later ones, not handed out dead; the files that
    // held it still release by the key, so their holds carry over.
    let holds = 0;
    if (entry?.proc && !entry.proc.running) {
      if (entry.linger) clearTimeout(entry.linger);
      this.entries.delete(key);
      holds = entry.users;
      entry = undefined;
    }
    if (!entry) {
      this.counts.starts++;
      const created: Entry = { started: this.start(req), users: holds, linger: null, proc: null };
      this.entries.set(key, created);
      // A failed start is not kept: the next asker tries again (and gets its own error).
      created.started.then(
        (s) => void (created.proc = s.proc),
        () => {
          if (this.entries.get(key) === created) this.entries.delete(key);
        },
      );
      entry = created;
    }
    entry.users++;
    if (entry.linger) clearTimeout(entry.linger);
    entry.linger = null;
    try {
      const { proc, url } = await entry.started;
      return { url, name: proc.spec.name };
    } catch (err) {
      entry.users--;
      throw err;
    }
  }

  /** A file is done with the process of `req`: stopped SHARED_LINGER_MS after its last user, unless asked for again. */
  release(req: SharedRequest): void {
    const key = sharedKey(req.kind, req.env);
    const entry = this.entries.get(key);
    if (!entry || entry.users === 0) return;
    entry.users--;
    if (entry.users > 0) return;
    entry.linger = setTimeout(() => {
      if (this.entries.get(key) !== entry || entry.users > 0) return;
      this.entries.delete(key);
      void entry.started.then((s) => s.proc.stop()).catch(() => undefined);
    }, this.lingerMs);
    entry.linger.unref();
  }

  /** Starts the process of a request (a test may replace it). */
  protected async start(req: SharedRequest): Promise<Started> {
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
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const e of all) if (e.linger) clearTimeout(e.linger);
    await Promise.allSettled(all.map(async (e) => (await e.started).proc.stop()));
  }
}
