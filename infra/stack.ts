// The project's own process supervisor: Temporal dev server, FerretDB, the worker(s) and the
// API, each a child process with its log file and pid file under .data/<profile>/, started in
// order and waited for, stopped cleanly (SIGTERM, then SIGKILL). Used by `npm run dev`
// (profile dev) and by the test suite's global setup (profile test).
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  unlinkSync,
  openSync,
  readSync,
  closeSync,
  statSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSecretsFile, generateSecrets } from './secrets.js';
import { devOperatorFrom, seedDevOperator, withDevOperator, type DevOperator } from './dev-operator.js';
import { workflowBundlePath } from '../workers/workflow-bundle.js';
import { PROJECT_ROOT } from '../core/project-paths.js';
import { serviceArgs } from './service-build.js';
import { FerretIdIndexKeeper } from './ferret-id-index.js';
import { FerretCheckpointer } from './ferret-checkpointer.js';
import { ferretSqliteUrl, storeSync, type StoreSync } from './ferret-sqlite.js';
import { goRuntimeEnv } from './go-runtime.js';
import { auxiliaryEnv } from '../core/child-env.js';
import { devPorts, workerMetricsPort, type StackPorts } from './ports.js';
import { loadSqlEngineConfig } from '../core/config.js';
import type { PgTemplateResult } from '../engines/sql/pg-template.js';

export const ROOT = PROJECT_ROOT;
// The port layout lives in infra/ports.ts (session 22: every fixed port below Linux's ephemeral range).
export { DEV_PORTS, TEST_PORTS, devPorts, testPorts, type StackPorts } from './ports.js';
const TOOLS_BIN = path.join(ROOT, '.tools', 'bin');

/**
 * V8 flags of the standalone worker and the API processes (docs/performance.md, Memory, session 15).
 * The worker runs with code and heaps sized for memory (~75 MB less resident idle and under load);
 * the API, whose main thread serves every /verify/math, keeps V8's code and young generation: the
 * same flag cost it ~14 % CPU per request there. The price in the worker: its code engine ~34 % more CPU per scan, logic ~5-8 %.
 * Session 17: the API's old generation grows by 20 % of the live heap between full collections
 * instead of V8's dynamic factor (up to 4× on this machine): API −34 to −71 MB at the math peak for
 * +2 to +8 % of its CPU in four loaded A/B runs (docs/performance.md "Session 17: the API process under load").
 * Session 20: the API's main thread's semi-spaces at 8 MB instead of V8's 16 (its young generation
 * committed 34 MB idle and under load, the largest single part of the API's V8 pages): API −17 MB
 * at the math peak for no CPU cost measured (quiet cpu-ab, same tree: API 10.9 → 10.5 ms per
 * /verify/math). 4 MB saved −21 MB more but cost +1.0 ms of the API's CPU per verification in the
 * same quiet runs, and so was not kept (docs/performance.md "Session 20 on a quiet machine").
 * SVC_API_V8_FLAGS='--heap-growing-percent=20' reverts it.
 */
export const WORKER_V8_FLAGS = '--optimize-for-size';
export const API_V8_FLAGS = '--heap-growing-percent=20 --max-semi-space-size=8';

/**
 * The embedded Temporal UI's own port (loopback, internal): the read-only gate
 * (infra/temporal-ui-gate.ts) serves the UI's public port in front of it.
 */
export function temporalUiUpstreamPort(ports: StackPorts): number {
  return ports.temporalUiUpstream;
}

/**
 * Entries of the dev server's host-level mutable-state cache (`history.hostLevelCacheMaxSize`;
 * the dev server sets 8096). It keeps two entries per execution (the run and its "current"
 * pointer), finished ones too, for up to an hour: 8096 entries held the last ~4,000 executions,
 * ~110 MB of Temporal's live heap (docs/performance.md "Session 22: Temporal's memory"). A run's
 * state is read while it runs and once more when its execution time-out timer fires (engine budget
 * plus grace, ~10 s after a math run's start); an operator opening a history reads it from SQLite.
 * SVC_TEMPORAL_HISTORY_CACHE_ENTRIES overrides it (temporalHistoryCacheEntries).
 */
export const TEMPORAL_HISTORY_CACHE_ENTRIES = 2048;

/** SVC_TEMPORAL_HISTORY_CACHE_ENTRIES checked: unset or empty is the default; else an integer 256-1000000, or the stack stops at start. */
export function temporalHistoryCacheEntries(raw: string | undefined): number {
  const v = raw?.trim();
  if (!v) return TEMPORAL_HISTORY_CACHE_ENTRIES;
  if (!/^\d{3,7}$/.test(v) || Number(v) < 256 || Number(v) > 1_000_000)
    throw new Error(`SVC_TEMPORAL_HISTORY_CACHE_ENTRIES must be an integer 256-1000000, got ${JSON.stringify(raw)}`);
  return Number(v);
}

/**
 * The Temporal dev server's command line (after the binary). `extra`: further flags, split on
 * white space (SVC_TEMPORAL_EXTRA_ARGS; benches only, e.g. bench/temporal-growth.ts tries a
 * `--sqlite-pragma` or a `--dynamic-config-value` with it; nothing else: temporalExtraArgs); a
 * dynamic-config value there overrides the stack's own (the dev server keeps the last).
 */
export function temporalServerArgs(
  ports: StackPorts,
  dbFile: string,
  extra = '',
  historyCacheEntries = TEMPORAL_HISTORY_CACHE_ENTRIES,
): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(ports.temporal),
    // The UI listens inside; its public port is the read-only gate's (infra/temporal-ui-gate.ts).
    '--ui-port',
    String(temporalUiUpstreamPort(ports)),
    '--db-filename',
    dbFile,
    '--namespace',
    'default',
    '--log-level',
    'warn',
    // WAL with synchronous=NORMAL: crash-safe for process crashes, far fewer fsyncs per workflow step.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    // Searchable batch metadata (docs/operations.md shows the UI filters).
    '--search-attribute',
    'SvcOrgId=Keyword',
    '--search-attribute',
    'SvcEngine=Keyword',
    '--search-attribute',
    'SvcItemCount=Int',
    '--search-attribute',
    'SvcBatchStatus=Keyword',
    // Finished executions' state is not kept in memory by the thousand (TEMPORAL_HISTORY_CACHE_ENTRIES).
    '--dynamic-config-value',
    `history.hostLevelCacheMaxSize=${historyCacheEntries}`,
    // The UI decodes payloads through the codec server (operators only; others see ciphertext).
    '--ui-codec-endpoint',
    `http://127.0.0.1:${codecServerPort(ports)}`,
    ...temporalExtraArgs(extra),
  ];
}

/**
 * FerretDB's command line (after the binary). Its debug listener (pprof, metrics) is off unless a
 * benchmark asks for it with `debugPort` (session 22: bench/data-scale.ts --store-pprof); it is
 * loopback-only and never on in a dev or test stack.
 */
export function ferretServerArgs(ports: StackPorts, dataDir: string, sync: StoreSync, debugPort?: number): string[] {
  if (debugPort !== undefined && !(Number.isSafeInteger(debugPort) && debugPort > 0 && debugPort < 65536))
    throw new Error(`the store's debug port must be an integer port number (got ${debugPort})`);
  return [
    '--handler=sqlite',
    `--sqlite-url=${ferretSqliteUrl(path.join(dataDir, 'ferretdb'), sync)}`,
    `--listen-addr=127.0.0.1:${ports.ferret}`,
    debugPort === undefined ? '--debug-addr=-' : `--debug-addr=127.0.0.1:${debugPort}`,
    '--telemetry=disable',
    `--state-dir=${path.join(dataDir, 'ferretdb-state')}`,
    '--log-level=warn',
  ];
}

/**
 * SVC_TEMPORAL_EXTRA_ARGS checked (session 20 review): only `--sqlite-pragma <key=value>` and
 * `--dynamic-config-value <key=value>` pairs, and no pragma the stack sets for its guarantees
 * (journal_mode, synchronous: crash safety). Anything else (a second `--db-filename`, `--ip
 * 0.0.0.0`, `--ui-codec-endpoint`, ...) would have overridden the flags above: it stops the stack
 * at start, as a bad SVC_STORE_SYNC does.
 */
function temporalExtraArgs(extra: string): string[] {
  const words = extra.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i += 2) {
    const [flag, value] = [words[i], words[i + 1]];
    const key = value?.split('=')[0]?.trim().toLowerCase() ?? '';
    const ok =
      value !== undefined &&
      /^[\w.-]+=\S*$/.test(value) &&
      (flag === '--dynamic-config-value' ||
        (flag === '--sqlite-pragma' && key !== 'journal_mode' && key !== 'synchronous'));
    if (!ok)
      throw new Error(
        `SVC_TEMPORAL_EXTRA_ARGS takes only "--sqlite-pragma key=value" (not journal_mode or synchronous) and "--dynamic-config-value key=value" pairs, got ${JSON.stringify(extra)}`,
      );
  }
  return words;
}

/** The codec server's port (dev 8234, tests 14000 + offset; infra/ports.ts). */
export function codecServerPort(ports: StackPorts): number {
  return ports.codec;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A worker for a handful of requests (the test suite's extra workers, bench/startup.ts): one
 * engine slot, one Z3 thread and no PGlite (the postgresql SQL check). Its start costs about
 * 9 s of CPU instead of 16 s with the default pools (docs/performance.md, "Process start-up").
 */
export const LEAN_WORKER_ENV: Readonly<Record<string, string>> = {
  SVC_ENGINE_POOL_SIZE: '1',
  SVC_Z3_POOL_SIZE: '1',
  SVC_SQL_PG_CHECK: '0',
};

/** A port nothing listens on right now (the kernel's pick), for a process started next. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
    sock.setTimeout(1000, () => {
      sock.destroy();
      resolve(false);
    });
  });
}

function tailOf(file: string, bytes = 4000): string {
  try {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    const buf = Buffer.alloc(Math.min(bytes, size));
    readSync(fd, buf, 0, buf.length, Math.max(0, size - buf.length));
    closeSync(fd);
    return buf.toString('utf8');
  } catch {
    return '';
  }
}

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Resolves true once the process serves; polled until `readyTimeoutMs`. */
  ready: (proc: ManagedProcess) => Promise<boolean>;
  readyTimeoutMs: number;
}

/** Restart delays of a supervised process that keeps crashing: 0.5 s doubling to 30 s; reset after 60 s up. */
export const RESTART_BACKOFF = { initialMs: 500, maxMs: 30_000, stableMs: 60_000 };

export class ManagedProcess {
  child: ChildProcess | null = null;
  readonly logFile: string;
  private readonly pidFile: string;
  /** Log size when the current child started: readiness markers are looked for after it only. */
  private logOffset = 0;
  /** Restart after an unexpected exit (set by supervise()). */
  private supervised = false;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private backoffMs = RESTART_BACKOFF.initialMs;
  /** Unexpected exits seen while supervised, and restarts done. */
  crashes = 0;
  restarts = 0;

  constructor(
    readonly spec: ProcessSpec,
    dataDir: string,
  ) {
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
    mkdirSync(path.join(dataDir, 'pids'), { recursive: true });
    this.logFile = path.join(dataDir, 'logs', `${spec.name}.log`);
    this.pidFile = path.join(dataDir, 'pids', `${spec.name}.pid`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Whether the current child's log output contains `text`. The log file is appended across
   * restarts, so only what was written since this child started counts (an old ready marker
   * must not make a restarted process look ready).
   */
  logContains(text: string): boolean {
    try {
      const size = statSync(this.logFile).size;
      if (size <= this.logOffset) return false;
      const fd = openSync(this.logFile, 'r');
      try {
        const buf = Buffer.alloc(size - this.logOffset);
        readSync(fd, buf, 0, buf.length, this.logOffset);
        return buf.toString('utf8').includes(text);
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  /**
   * Keeps the process running: after an exit nobody asked for (a crash, an OOM kill), starts it
   * again after a backoff that doubles per crash (RESTART_BACKOFF) and resets once it has run
   * for a minute. stop() and kill9() are asked-for exits and end supervision until the next start().
   */
  supervise(onEvent: (msg: string) => void = () => undefined): void {
    this.supervised = true;
    this.onSupervisorEvent = onEvent;
  }

  private onSupervisorEvent: (msg: string) => void = () => undefined;

  private scheduleRestart(startedAt: number): void {
    if (!this.supervised || this.stopping || this.restartTimer) return;
    this.crashes++;
    if (Date.now() - startedAt >= RESTART_BACKOFF.stableMs) this.backoffMs = RESTART_BACKOFF.initialMs;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(RESTART_BACKOFF.maxMs, this.backoffMs * 2);
    this.onSupervisorEvent(`${this.spec.name} exited unexpectedly; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.child = null;
      this.start()
        .then(() => {
          this.restarts++;
          this.onSupervisorEvent(`${this.spec.name} restarted (pid ${this.pid})`);
        })
        .catch((err: Error) => {
          this.onSupervisorEvent(`${this.spec.name} restart failed: ${err.message.split('\n')[0]}`);
          this.scheduleRestart(Date.now());
        });
    }, delay);
    this.restartTimer.unref();
  }

  /** Stops a process left behind by an earlier run of the same profile (from its pid file). */
  reapStale(): void {
    if (!existsSync(this.pidFile)) return;
    const pid = Number(readFileSync(this.pidFile, 'utf8'));
    if (pid > 0) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    unlinkSync(this.pidFile);
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
    if (this.running) return; // idempotent: never orphan a running process by starting a second one
    this.stopping = false;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    try {
      this.logOffset = statSync(this.logFile).size;
    } catch {
      this.logOffset = 0;
    }
    const out = createWriteStream(this.logFile, { flags: 'a' });
    await new Promise((r) => out.once('open', r));
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: ROOT,
      env: { ...this.spec.env, ...extraEnv },
      stdio: ['ignore', out, out],
      detached: true, // own process group, so stop() reaches grandchildren too
    });
    this.child = child;
    writeFileSync(this.pidFile, String(child.pid));
    let exited = false;
    const startedAt = Date.now();
    child.once('exit', () => {
      exited = true;
      // A crash after start-up: the supervisor (if any) brings it back. During start-up the
      // caller gets the error instead (and a supervised restart schedules the next attempt).
      if (this.child === child && ready) this.scheduleRestart(startedAt);
    });
    let ready = false;
    const deadline = Date.now() + this.spec.readyTimeoutMs;
    while (Date.now() < deadline) {
      if (exited) {
        throw new Error(`${this.spec.name} exited during start-up; log tail:\n${tailOf(this.logFile)}`);
      }
      if (await this.spec.ready(this).catch(() => false)) {
        ready = true;
        if (exited)
          throw new Error(`${this.spec.name} exited right after start-up; log tail:\n${tailOf(this.logFile)}`);
        return;
      }
      await sleep(200);
    }
    await this.stop();
    throw new Error(
      `${this.spec.name} not ready within ${this.spec.readyTimeoutMs} ms; log tail:\n${tailOf(this.logFile)}`,
    );
  }

  /**
   * Stops the process: `signal` to its group, SIGKILL after `graceMs`. Resolves how it ended:
   * 'exited' on the signal (or already gone), 'killed' when it needed the SIGKILL.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 8000): Promise<'exited' | 'killed'> {
    this.stopping = true;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.child = null;
      return 'exited';
    }
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      /* gone */
    }
    const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
    }
    this.child = null;
    if (existsSync(this.pidFile)) unlinkSync(this.pidFile);
    return timedOut ? 'killed' : 'exited';
  }

  /** Crash simulation for durability tests. */
  async kill9(): Promise<void> {
    await this.stop('SIGKILL', 5000);
  }
}

export interface StackOptions {
  profile: string; // 'dev', 'test', 'bench', or a variant such as 'test-100'
  ports: StackPorts;
  /** Remove the profile's data folder first (tests start from an empty store and history). */
  fresh?: boolean;
  /** Extra environment for worker and API (e.g. short time-outs in tests). */
  env?: NodeJS.ProcessEnv;
  /** Use an external MongoDB instead of the embedded FerretDB. */
  mongodbUri?: string;
  /** Restart crashed processes with backoff (npm run dev). Tests crash processes on purpose: off by default. */
  supervise?: boolean;
  /** Worker processes (default SVC_WORKER_PROCESSES, else 1) and API processes behind the one port (default SVC_API_PROCESSES, else 1). */
  workerProcesses?: number;
  apiProcesses?: number;
  /** Operator user ids for the codec server only (the test stack's browser row), added to SVC_METRICS_OPERATOR_USER_IDS there. */
  codecOperatorIds?: readonly string[];
  /** Benchmarks only (session 22): FerretDB's debug listener (pprof) on this loopback port; off by default. */
  storeDebugPort?: number;
}

function processCount(explicit: number | undefined, raw: string | undefined, name: string): number {
  const n = explicit ?? (raw === undefined || raw === '' ? 1 : Number(raw));
  if (!Number.isSafeInteger(n) || n < 1 || n > 64)
    throw new Error(`${name} must be an integer between 1 and 64 (got ${raw})`);
  return n;
}

export class Stack {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly temporal: ManagedProcess;
  readonly ferret: ManagedProcess | null;
  /** Indexes FerretDB's `_id` lookups while the embedded store runs (infra/ferret-id-index.ts). */
  readonly ferretIdIndex: FerretIdIndexKeeper | null;
  /** Checkpoints FerretDB's WAL files from a thread, off the commits (infra/ferret-checkpointer.ts). */
  readonly ferretCheckpointer: FerretCheckpointer | null;
  /** The first worker (tests crash and restart it by this name). */
  readonly worker: ManagedProcess;
  /** Every worker process: `worker`, `worker-2`, … (SVC_WORKER_PROCESSES). */
  readonly workers: ManagedProcess[];
  readonly api: ManagedProcess;
  readonly apiProcesses: number;
  readonly codec: ManagedProcess;
  /** The dev profile's generated platform operator (null elsewhere). */
  readonly devOperator: DevOperator | null;
  /** The Temporal UI's public port: reads pass, write actions are refused (infra/temporal-ui-gate.ts). */
  readonly uiGate: ManagedProcess;
  readonly mongodbUri: string;
  /** The local SMTP sink; null when the environment sets SVC_SMTP_URL (a real server). */
  readonly smtp: ManagedProcess | null;
  /** Where the sink stores each message as an .eml file. */
  readonly mailDir: string;

  constructor(readonly opts: StackOptions) {
    this.dataDir = path.join(ROOT, '.data', opts.profile);
    if (opts.fresh) {
      reapProfile(this.dataDir); // processes of an earlier run, before their pid files go
      rmSync(this.dataDir, { recursive: true, force: true });
    }
    mkdirSync(this.dataDir, { recursive: true });
    const secrets = opts.profile === 'dev' ? ensureSecretsFile(path.join(ROOT, '.env.local')) : generateSecrets();
    const { ports } = opts;
    this.mongodbUri = opts.mongodbUri ?? process.env.MONGODB_URI ?? `mongodb://127.0.0.1:${ports.ferret}/svc`;
    this.env = {
      ...process.env,
      ...secrets,
      ...opts.env,
      // npm run dev: every SVC_* variable set in its environment overrides the generated defaults.
      ...(opts.profile === 'dev' ? svcOverrides(process.env) : {}),
      // glibc gives each thread a malloc arena of its own; two per process hold the API's and the
      // worker's resident memory 75-190 MB lower (docs/performance.md, "Memory"). Overridable.
      MALLOC_ARENA_MAX: opts.env?.MALLOC_ARENA_MAX ?? process.env.MALLOC_ARENA_MAX ?? '2',
      MONGODB_URI: this.mongodbUri,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      PORT: String(ports.api),
      HOST: '127.0.0.1',
      // The codec server (docs/payload-encryption.md) answers the Temporal UI's origin.
      SVC_CODEC_SERVER_PORT: String(codecServerPort(ports)),
      SVC_CODEC_SERVER_CORS_ORIGINS:
        opts.env?.SVC_CODEC_SERVER_CORS_ORIGINS ??
        `http://127.0.0.1:${ports.temporalUi},http://localhost:${ports.temporalUi}`,
    };
    // npm run dev: the generated dev operator may read payloads through the codec server (infra/dev-operator.ts).
    this.devOperator = opts.profile === 'dev' ? devOperatorFrom(secrets) : null;
    if (this.devOperator)
      this.env.SVC_METRICS_OPERATOR_USER_IDS = withDevOperator(
        this.env.SVC_METRICS_OPERATOR_USER_IDS,
        this.devOperator,
      );
    // Only the stack itself needs the password (to seed and print it); no service process gets it.
    delete this.env.SVC_DEV_OPERATOR_PASSWORD;
    // E-mail (leaked-key notices): the local sink unless the environment names a real server.
    const smtpPort = ports.smtp;
    this.mailDir = path.join(this.dataDir, 'mail');
    const externalSmtp = Boolean(this.env.SVC_SMTP_URL);
    if (!externalSmtp) this.env.SVC_SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;

    const node = process.execPath;
    // The service's processes run its compiled twin (infra/service-build.ts), built here once.
    const service = (entry: string) => serviceArgs(entry, this.env);
    // V8 flags of the API and worker processes (command line only: node refuses most V8 flags in
    // NODE_OPTIONS). SVC_API_V8_FLAGS / SVC_WORKER_V8_FLAGS replace the defaults (bench/pool-memory.ts).
    const flags = (value: string) => value.split(/\s+/).filter(Boolean);
    const apiService = (entry: string) => [...flags(this.env.SVC_API_V8_FLAGS ?? API_V8_FLAGS), ...service(entry)];
    const workerService = (entry: string) => [
      ...flags(this.env.SVC_WORKER_V8_FLAGS ?? WORKER_V8_FLAGS),
      ...service(entry),
    ];
    this.temporal = new ManagedProcess(
      {
        name: 'temporal',
        command: path.join(TOOLS_BIN, 'temporal'),
        args: temporalServerArgs(
          ports,
          path.join(this.dataDir, 'temporal.sqlite'),
          this.env.SVC_TEMPORAL_EXTRA_ARGS,
          temporalHistoryCacheEntries(this.env.SVC_TEMPORAL_HISTORY_CACHE_ENTRIES),
        ),
        // GOMAXPROCS, GOGC, GOMEMLIMIT from SVC_TEMPORAL_GO* (infra/go-runtime.ts, session 21).
        env: goRuntimeEnv('temporal', this.env, process.env),
        ready: async () => (await portOpen(ports.temporal)) && (await temporalServes(ports.temporal)),
        readyTimeoutMs: 60_000,
      },
      this.dataDir,
    );
    this.ferret =
      opts.mongodbUri || process.env.MONGODB_URI
        ? null
        : new ManagedProcess(
            {
              name: 'ferretdb',
              command: path.join(TOOLS_BIN, 'ferretdb'),
              args: ferretServerArgs(
                ports,
                this.dataDir,
                // synchronous(normal) unless SVC_STORE_SYNC=full (infra/ferret-sqlite.ts, docs/store-access.md §10).
                storeSync(opts.env?.SVC_STORE_SYNC ?? process.env.SVC_STORE_SYNC),
                opts.storeDebugPort,
              ),
              // GOMAXPROCS, GOGC, GOMEMLIMIT from SVC_STORE_GO* (infra/go-runtime.ts, session 21).
              env: goRuntimeEnv('store', this.env, process.env),
              ready: () => portOpen(ports.ferret),
              readyTimeoutMs: 30_000,
            },
            this.dataDir,
          );
    this.smtp = externalSmtp
      ? null
      : new ManagedProcess(
          {
            name: 'smtp-sink',
            command: node,
            args: [...service('infra/smtp-sink.ts'), '--port', String(smtpPort), '--dir', this.mailDir],
            // Not the service: none of its settings or secrets (core/child-env.ts, session 22).
            env: auxiliaryEnv(process.env),
            ready: async (p) => p.logContains('SVC_SMTP_SINK_READY') && (await portOpen(smtpPort)),
            readyTimeoutMs: 60_000,
          },
          this.dataDir,
        );
    mkdirSync(path.join(this.dataDir, 'ferretdb'), { recursive: true });
    this.ferretIdIndex = this.ferret
      ? new FerretIdIndexKeeper(path.join(this.dataDir, 'ferretdb'), 5_000, (msg) => console.log(`[store] ${msg}`))
      : null;
    this.ferretCheckpointer = this.ferret ? new FerretCheckpointer(path.join(this.dataDir, 'ferretdb')) : null;
    mkdirSync(path.join(this.dataDir, 'ferretdb-state'), { recursive: true });
    const workerCount = processCount(
      opts.workerProcesses,
      opts.env?.SVC_WORKER_PROCESSES ?? process.env.SVC_WORKER_PROCESSES,
      'SVC_WORKER_PROCESSES',
    );
    this.apiProcesses = processCount(
      opts.apiProcesses,
      opts.env?.SVC_API_PROCESSES ?? process.env.SVC_API_PROCESSES,
      'SVC_API_PROCESSES',
    );
    // Workers are interchangeable pollers of the same task queues: Temporal spreads the work.
    this.workers = Array.from(
      { length: workerCount },
      (_, i) =>
        new ManagedProcess(
          {
            name: i === 0 ? 'worker' : `worker-${i + 1}`,
            command: node,
            args: workerService('workers/verification-worker.ts'),
            // SVC_WORKER_METRICS=1: each worker serves the SDK's Prometheus metrics on its own port.
            env:
              this.env.SVC_WORKER_METRICS === '1'
                ? { ...this.env, SVC_WORKER_METRICS_ADDRESS: `127.0.0.1:${workerMetricsPort(ports, i + 1)}` }
                : this.env,
            ready: async (p) => p.logContains('SVC_WORKER_READY'),
            // Bundling the workflows and warming the engine threads took over 3 minutes on the
            // shared 2-core machine at load 40.
            readyTimeoutMs: 300_000,
          },
          this.dataDir,
        ),
    );
    this.worker = this.workers[0] as ManagedProcess;
    const apiHealthy = async () => {
      const res = await fetch(`http://127.0.0.1:${ports.api}/health`).catch(() => null);
      return res?.status === 200;
    };
    this.api = new ManagedProcess(
      this.apiProcesses > 1
        ? {
            // Several API processes sharing the port (infra/api-cluster.ts supervises them).
            name: 'api',
            command: node,
            args: apiService('infra/api-cluster.ts'),
            env: { ...this.env, SVC_API_PROCESSES: String(this.apiProcesses) },
            ready: async (p) => p.logContains('SVC_API_CLUSTER_READY') && (await apiHealthy()),
            readyTimeoutMs: 180_000,
          }
        : {
            name: 'api',
            command: node,
            // The API process with its in-process worker for eager starts (SVC_API_WORKER=off: the plain API).
            args: apiService('workers/api-process.ts'),
            env: this.env,
            ready: apiHealthy,
            readyTimeoutMs: 120_000,
          },
      this.dataDir,
    );
    this.uiGate = new ManagedProcess(
      {
        name: 'temporal-ui-gate',
        command: node,
        args: [...service('infra/temporal-ui-gate.ts')],
        env: auxiliaryEnv(process.env, {
          SVC_TEMPORAL_UI_GATE_PORT: String(ports.temporalUi),
          SVC_TEMPORAL_UI_UPSTREAM_PORT: String(temporalUiUpstreamPort(ports)),
        }),
        ready: () => portOpen(ports.temporalUi),
        readyTimeoutMs: 60_000,
      },
      this.dataDir,
    );
    this.codec = new ManagedProcess(
      {
        name: 'codec-server',
        command: node,
        args: [...service('api/codec-server.ts')],
        // Operators encode through it: it must never hold the key that proves the API made a
        // workflow input (core/workflow-input-auth.ts), or an encoded input would pass as the API's.
        env: {
          ...withoutWorkflowInputKey(this.env),
          ...(opts.codecOperatorIds?.length
            ? {
                SVC_METRICS_OPERATOR_USER_IDS: [this.env.SVC_METRICS_OPERATOR_USER_IDS, ...opts.codecOperatorIds]
                  .filter(Boolean)
                  .join(','),
              }
            : {}),
        },
        ready: async () => {
          const res = await fetch(`http://127.0.0.1:${codecServerPort(ports)}/health`).catch(() => null);
          return res?.status === 200;
        },
        readyTimeoutMs: 120_000,
      },
      this.dataDir,
    );
  }

  get processes(): ManagedProcess[] {
    return [
      this.temporal,
      this.uiGate,
      ...(this.ferret ? [this.ferret] : []),
      ...(this.smtp ? [this.smtp] : []),
      ...this.workers,
      this.api,
      this.codec,
    ];
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.opts.ports.api}`;
  }

  get urls(): Record<string, string> {
    return {
      api: this.apiUrl,
      temporal_ui: `http://127.0.0.1:${this.opts.ports.temporalUi}`,
      temporal_grpc: `127.0.0.1:${this.opts.ports.temporal}`,
      codec_server: `http://127.0.0.1:${codecServerPort(this.opts.ports)}`,
      store: this.mongodbUri,
    };
  }

  async up(): Promise<void> {
    for (const p of this.processes) p.reapStale();
    for (const p of this.processes) {
      const { ports } = this.opts;
      // Every fixed port the process listens on (infra/ports.ts); session 22 review: Temporal's
      // internal UI port and the workers' metrics ports too (their own bands since session 22).
      const worker = this.workers.indexOf(p);
      const needed =
        p === this.temporal
          ? [ports.temporal, temporalUiUpstreamPort(ports)]
          : p === this.uiGate
            ? [ports.temporalUi]
            : p === this.ferret
              ? [ports.ferret]
              : p === this.api
                ? [ports.api]
                : p === this.codec
                  ? [codecServerPort(ports)]
                  : p === this.smtp
                    ? [ports.smtp]
                    : worker >= 0 && this.env.SVC_WORKER_METRICS === '1'
                      ? [workerMetricsPort(ports, worker + 1)]
                      : [];
      for (const port of needed)
        if (await portOpen(port))
          throw new Error(
            `port ${port} needed by ${p.spec.name} is already in use (is another stack running? try: npm run stack -- down)`,
          );
    }
    // Infrastructure first, in parallel; then the worker and the API. On any failure, stop
    // whatever did start, so a failed start leaves nothing behind.
    try {
      // An existing store's `_id` indexes are converted before FerretDB opens it (no writer waits; infra/ferret-id-index.ts).
      this.ferretIdIndex?.sweep();
      // The workflow bundle is built (or found in dist/) beside the infrastructure's start, so no
      // worker process runs webpack on its own start (workers/workflow-bundle.ts).
      await Promise.all([
        this.temporal.start(),
        this.uiGate.start(),
        this.ferret?.start(),
        this.smtp?.start(),
        workflowBundlePath(),
        this.preparePgTemplate(),
      ]);
      this.ferretCheckpointer?.start();
      await Promise.all([...this.workers.map((w) => w.start()), this.api.start(), this.codec.start()]);
      // The services have created their collections by now; later ones are picked up by the next sweep.
      this.ferretIdIndex?.start();
    } catch (err) {
      await this.down();
      throw err;
    }
    if (this.opts.supervise) {
      for (const p of this.processes) p.supervise((msg) => console.log(`[supervisor] ${msg}`));
    }
  }

  /**
   * Session 20: PGlite's template (engines/sql/pg-template.ts) built before the worker and the API
   * start, in a child of this process (outside their process groups), when the worker's cache
   * folder has none: a fresh clone's first postgresql check otherwise ran initdb inside whatever
   * load was running (PGlite's process 661 MB; docs/performance.md, "Session 20: memory margin").
   * Shared with every stack of the checkout; present, it costs one `existsSync`. Never fails the
   * start: a failure is logged and the worker builds on demand, as before.
   */
  async preparePgTemplate(): Promise<PgTemplateResult> {
    const logFile = path.join(this.dataDir, 'logs', 'pglite-template.log');
    const note = (line: string) => {
      try {
        mkdirSync(path.dirname(logFile), { recursive: true });
        writeFileSync(logFile, `${new Date().toISOString()} ${line}\n`, { flag: 'a' });
      } catch {
        // the log folder is the stack's own: nothing else to tell
      }
    };
    let result: PgTemplateResult;
    // SVC_SQL_PG_TEMPLATE_AT_START=0: not here (the worker's first postgresql check builds it, as until session 20).
    if (this.env.SVC_SQL_PG_TEMPLATE_AT_START === '0') return { outcome: 'skipped', ms: 0 };
    try {
      // The worker resolves a relative cache folder against its working directory, ROOT.
      const raw = this.env.SVC_SQL_PG_DATADIR_CACHE?.trim();
      const env =
        raw === '0' ? this.env : { ...this.env, SVC_SQL_PG_DATADIR_CACHE: path.resolve(ROOT, raw || '.data/pglite') };
      // Loaded here, inside up() beside the other starts (28-57 ms of tsx's transform on a cold cache).
      const { ensurePgTemplate } = await import('../engines/sql/pg-template.js');
      result = await ensurePgTemplate(loadSqlEngineConfig(env).pgCheck);
    } catch (err) {
      result = { outcome: 'failed', ms: 0, reason: (err as Error).message };
    }
    note(JSON.stringify(result));
    if (result.outcome === 'failed')
      console.warn(
        `[stack] PGlite's template was not built (${result.reason}); the worker builds it on its first postgresql check`,
      );
    else if (result.outcome === 'built' || result.outcome === 'waited')
      console.log(
        `[stack] PGlite's template ${result.outcome === 'built' ? `built (${result.source})` : 'built by another stack'} in ${result.ms} ms`,
      );
    return result;
  }

  async down(): Promise<void> {
    this.ferretIdIndex?.stop();
    await this.ferretCheckpointer?.stop();
    for (const p of [...this.processes].reverse()) await p.stop();
  }
}

/** The SVC_* variables of an environment (set and non-empty): they win over .env.local in the dev stack. */
export function svcOverrides(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('SVC_') && typeof v === 'string' && v !== '') out[k] = v;
  return out;
}

/** SIGKILLs every process group recorded in a profile's pid files. */
function reapProfile(dataDir: string): void {
  const dir = path.join(dataDir, 'pids');
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir)) {
    const pid = Number(readFileSync(path.join(dir, f), 'utf8'));
    if (pid > 0) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

/** An environment without SVC_WORKFLOW_INPUT_KEY (the codec server's). */
export function withoutWorkflowInputKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { SVC_WORKFLOW_INPUT_KEY: _dropped, ...rest } = env;
  return rest;
}

async function temporalServes(port: number): Promise<boolean> {
  const { Connection } = await import('@temporalio/client');
  const conn = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 });
  try {
    await conn.withDeadline(Date.now() + 2000, () => conn.workflowService.getSystemInfo({}));
    await conn.withDeadline(Date.now() + 2000, () => conn.workflowService.describeNamespace({ namespace: 'default' }));
    return true;
  } finally {
    await conn.close();
  }
}

// CLI: `tsx infra/stack.ts up` (foreground; Ctrl-C stops everything) or `down`.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cmd = process.argv[2] ?? 'up';
  const stack = new Stack({ profile: 'dev', ports: devPorts(), supervise: cmd === 'up' });
  if (cmd === 'down') {
    for (const p of stack.processes) p.reapStale();
    reapProfile(stack.dataDir); // every pid file, whatever SVC_WORKER_PROCESSES was when it started
    console.log('dev stack stopped');
  } else if (cmd === 'up') {
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      console.log('\nstopping the dev stack…');
      await stack.down();
      process.exit(0);
    };
    const onSignal = () => {
      stop().catch((err: unknown) => {
        console.error('stopping the dev stack failed:', err);
        process.exit(1);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let devOperatorState = '';
    stack
      .up()
      .then(async () => {
        if (stack.devOperator)
          devOperatorState = `${await seedDevOperator(stack.mongodbUri, stack.devOperator)}, in .env.local`;
        const u = stack.urls;
        console.log('\nThe verification service is running:');
        console.log(
          `  API          ${u.api}   (also under ${u.api}/v1; ${stack.apiProcesses} process(es), ${stack.workers.length} worker(s))`,
        );
        console.log(`  Temporal UI  ${u.temporal_ui}`);
        console.log(`  Temporal     ${u.temporal_grpc}`);
        console.log(`  Codec server ${u.codec_server}   (operators: sign in there so the UI decrypts payloads)`);
        if (stack.devOperator)
          console.log(
            `  Dev operator ${stack.devOperator.email} / ${stack.devOperator.password}   (${devOperatorState}; reads payloads in the UI: docs/payload-encryption.md)`,
          );
        console.log(`  Store        ${u.store}`);
        console.log(`  Logs         ${path.join(stack.dataDir, 'logs')}`);
        if (stack.smtp)
          console.log(
            `  Mail sink    ${stack.env.SVC_SMTP_URL}   (each message stored as .eml under ${stack.mailDir})`,
          );
        const demoA2aKey = Object.keys(
          JSON.parse(String(stack.env.SVC_A2A_API_KEYS ?? '{}')) as Record<string, string>,
        )[0];
        if (demoA2aKey)
          console.log(`  A2A demo key ${demoA2aKey}   (X-API-Key for POST /a2a/intercept; docs/a2a-gateway.md)`);
        console.log('Press Ctrl-C to stop.');
      })
      .catch(async (err) => {
        console.error(String(err?.message ?? err));
        await stack.down();
        process.exit(1);
      });
  } else {
    console.error('usage: tsx infra/stack.ts [up|down]');
    process.exit(2);
  }
}
