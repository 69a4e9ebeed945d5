// Runs untrusted Python in a throw-away Docker container (the sandbox of /verify/stats and of
// the Python engine of /verify/consensus). Isolation, and why, is in docs/sandbox.md:
// no network, read-only root, no host mounts, small noexec tmpfs, memory/CPU/pids limits,
// all capabilities dropped, no-new-privileges, non-root user, wall-clock kill, output cap,
// and the container is always removed.
//
// Infrastructure failures never look like a program result: they throw
// SandboxUnavailableError (HTTP 503) or SandboxCapacityError (503, retryable).

import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import type { Duplex, Readable } from 'node:stream';
// Types only: dockerode (with its BuildKit session: gRPC, protobufjs, ssh2; ~16 MB of resident memory)
// is loaded on the sandbox's first use (dockerClient), never at the worker's start (issue 22, memory).
import type Docker from 'dockerode';
import { sandboxSlots, type SlotPool } from './slots.js';
import { processEnv } from '../../core/config.js';
import { logger } from '../../core/logger.js';

const log = logger('sandbox');

export { SandboxCapacityError, SANDBOX_CAPACITY_MESSAGE } from './slots.js';

const RECIPE_DIR = new URL('../../infra/sandbox/', import.meta.url);
/** The files whose content pins the image tag; setup.sh hashes the same files in the same order. */
const RECIPE_FILES = ['packages.txt', 'recipe.sh'] as const;
export const SANDBOX_IMAGE_REPOSITORY = 'svc-sandbox';
/** What /verify/stats reports as developer_fields.sandbox_type. */
export const SANDBOX_TYPE = 'docker';
/** Every sandbox container carries this label (value "1"), for cleanup and leak checks. */
export const SANDBOX_LABEL = 'svc.sandbox';
const DEADLINE_LABEL = 'svc.sandbox.deadline';
const OWNER_LABEL = 'svc.sandbox.owner';
/** The image's unprivileged user (created by recipe.sh). */
export const SANDBOX_USER = '10001:10001';
const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

export const SANDBOX_DEFAULTS = {
  memoryBytes: 256 * 1024 * 1024,
  cpus: 1,
  pidsLimit: 64,
  tmpfsBytes: 16 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  pythonTimeoutMs: 10_000,
} as const;
const MAX_TIMEOUT_MS = 5 * 60_000;
const MAX_INPUT_BYTES = 32 * 1024 * 1024;
/** The container kills itself this long after the host deadline, should the host kill never land. */
const SELF_KILL_GRACE_S = 2;
/** After the deadline, how long the daemon gets to report the exit before the run is abandoned. */
const STOP_GRACE_MS = 15_000;

import { SANDBOX_UNAVAILABLE_MESSAGE } from '../../contract/common.js';

export { SANDBOX_UNAVAILABLE_MESSAGE };

/** Docker is absent, unreachable, or the image is missing or broken. The HTTP layer maps it to 503. */
export class SandboxUnavailableError extends Error {
  readonly code = 'SANDBOX_UNAVAILABLE';
  readonly httpStatus = 503;
  /** What went wrong, for logs only (never shown to clients). */
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(SANDBOX_UNAVAILABLE_MESSAGE, options);
    this.name = 'SandboxUnavailableError';
    this.reason = reason;
  }
}

export interface SandboxFile {
  /** A plain file name (letters, digits, '.', '_', '-'), written to the working directory. */
  name: string;
  content: Buffer;
}

export interface SandboxRunOptions {
  /** Python source, run as __main__ in /tmp/work (where `files` are). */
  code: string;
  /** What the program reads from sys.stdin. */
  stdin?: string | Buffer;
  files?: SandboxFile[];
  /** Wall-clock limit from container start; the container is killed when it passes. */
  timeoutMs: number;
  memoryBytes?: number;
  /** CPU quota in cores (NanoCpus). */
  cpus?: number;
  pidsLimit?: number;
  /** Size of the /tmp tmpfs; defaults to 16 MiB plus the size of `files`. */
  tmpfsBytes?: number;
  /** Cap per output stream; beyond it the output is cut, flagged, and the container killed. */
  maxOutputBytes?: number;
  /** Overrides sandboxImage(). */
  image?: string;
  /** Overrides the process-wide slot pool (tests, or a caller with its own budget). */
  slots?: SlotPool;
}

export interface SandboxResult {
  /** The container's exit status (137 when killed: deadline, OOM or output cap). */
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  oomKilled: boolean;
  outputTruncated: boolean;
  /** From container start to its exit. */
  durationMs: number;
  /** The (already removed) container, for logs and tracing. */
  containerId: string;
}

// ---------------------------------------------------------------------------------------------
// Image tag

let recipeHashCache: string | undefined;

/**
 * Content hash of the image recipe, identical to setup.sh's `sha256sum packages.txt recipe.sh |
 * sha256sum | cut -c1-16`: SHA-256 over the lines "<sha256 hex>  <name>\n", first 16 hex digits.
 */
export function recipeHash(): string {
  if (recipeHashCache === undefined) {
    const listing = RECIPE_FILES.map((name) => {
      const digest = createHash('sha256')
        .update(readFileSync(new URL(name, RECIPE_DIR)))
        .digest('hex');
      return `${digest}  ${name}\n`;
    }).join('');
    recipeHashCache = createHash('sha256').update(listing).digest('hex').slice(0, 16);
  }
  return recipeHashCache;
}

/** The image to run: SVC_SANDBOX_IMAGE when set, else svc-sandbox:<recipe hash> (built by setup.sh). */
export function sandboxImage(): string {
  const fromEnv = processEnv().SVC_SANDBOX_IMAGE?.trim();
  return fromEnv ? fromEnv : `${SANDBOX_IMAGE_REPOSITORY}:${recipeHash()}`;
}

let bootstrapSource: string | undefined;
function bootstrap(): string {
  bootstrapSource ??= readFileSync(new URL('runner-entry.py', RECIPE_DIR), 'utf8');
  return bootstrapSource;
}

// ---------------------------------------------------------------------------------------------
// Docker client

const clients = new Map<string, Docker>();
let dockerode: Promise<typeof Docker> | undefined;

/**
 * One client per DOCKER_HOST value (read on every call, so a changed environment takes effect).
 * The first call loads dockerode, and it stays loaded: a process that never runs the sandbox
 * (math, logic, SQL, code, ...) never pays for it. A dockerode that cannot be loaded is the
 * sandbox being unavailable (503), as a Docker that does not answer is.
 */
async function dockerClient(): Promise<Docker> {
  const host = processEnv().DOCKER_HOST?.trim() ?? '';
  let client = clients.get(host);
  if (!client) {
    let Docker: typeof import('dockerode');
    try {
      Docker = await (dockerode ??= import('dockerode').then((m) => m.default));
    } catch (err) {
      throw new SandboxUnavailableError(`dockerode not loaded: ${errorText(err)}`, { cause: err });
    }
    if (clients.has(host)) return clients.get(host)!;
    try {
      // Unset: the standard socket. Set: docker-modem parses DOCKER_HOST (unix://, tcp://, TLS vars).
      client = host === '' ? new Docker({ socketPath: DEFAULT_DOCKER_SOCKET }) : new Docker();
    } catch (err) {
      throw new SandboxUnavailableError(`invalid DOCKER_HOST: ${errorText(err)}`, { cause: err });
    }
    clients.set(host, client);
  }
  return client;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** True when the daemon answers and the sandbox image is present. Never throws. */
export async function sandboxAvailable(timeoutMs = 3000): Promise<boolean> {
  try {
    const docker = await dockerClient();
    await withTimeout(docker.ping(), timeoutMs, 'docker ping');
    await withTimeout(docker.getImage(sandboxImage()).inspect(), timeoutMs, 'image inspect');
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Input

const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

function validate(opts: SandboxRunOptions): void {
  if (typeof opts.code !== 'string') throw new TypeError('code must be a string');
  if (!Number.isInteger(opts.timeoutMs) || opts.timeoutMs < 1 || opts.timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(`timeoutMs must be an integer in [1, ${MAX_TIMEOUT_MS}]`);
  }
  const positiveInt = (v: number | undefined, name: string) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new RangeError(`${name} must be a positive integer`);
  };
  positiveInt(opts.memoryBytes, 'memoryBytes');
  positiveInt(opts.pidsLimit, 'pidsLimit');
  positiveInt(opts.tmpfsBytes, 'tmpfsBytes');
  positiveInt(opts.maxOutputBytes, 'maxOutputBytes');
  if (opts.cpus !== undefined && !(opts.cpus > 0 && opts.cpus <= 64)) throw new RangeError('cpus must be in (0, 64]');
  const seen = new Set<string>();
  for (const file of opts.files ?? []) {
    if (!FILE_NAME.test(file.name)) throw new TypeError(`invalid sandbox file name: ${JSON.stringify(file.name)}`);
    if (seen.has(file.name)) throw new TypeError(`duplicate sandbox file name: ${file.name}`);
    if (!Buffer.isBuffer(file.content)) throw new TypeError(`content of ${file.name} must be a Buffer`);
    seen.add(file.name);
  }
}

/** The JSON envelope read by runner-entry.py from stdin. */
function envelope(opts: SandboxRunOptions): Buffer {
  const stdin = opts.stdin === undefined ? Buffer.alloc(0) : Buffer.from(opts.stdin);
  const body = Buffer.from(
    JSON.stringify({
      code: opts.code,
      stdin: stdin.toString('base64'),
      files: (opts.files ?? []).map((f) => ({ name: f.name, content: f.content.toString('base64') })),
    }),
    'utf8',
  );
  if (body.length > MAX_INPUT_BYTES) throw new RangeError(`sandbox input exceeds ${MAX_INPUT_BYTES} bytes`);
  return body;
}

// ---------------------------------------------------------------------------------------------
// Output

/** Collects one output stream up to `cap` bytes; the first byte past it calls `onOverflow`. */
class CappedSink extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(
    private readonly cap: number,
    private readonly onOverflow: () => void,
  ) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    const room = this.cap - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.cap;
      if (!this.truncated) {
        this.truncated = true;
        this.onOverflow();
      }
    } else {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Splits Docker's multiplexed attach stream (8-byte frame headers) into stdout and stderr. */
function demux(source: Readable, stdout: Writable, stderr: Writable): void {
  let pending: Buffer = Buffer.alloc(0);
  source.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(4);
      if (pending.length < 8 + length) break;
      const payload = pending.subarray(8, 8 + length);
      (pending[0] === 2 ? stderr : stdout).write(payload);
      pending = pending.subarray(8 + length);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Events: OOM detection that survives AutoRemove (inspect can race the removal)

interface ContainerEvents {
  sawOom(): boolean;
  /** Resolves when the container's `die` event arrived, or after `ms`. */
  settled(ms: number): Promise<void>;
  close(): void;
}

async function watchEvents(docker: Docker, id: string): Promise<ContainerEvents> {
  const stream = (await docker.getEvents({
    filters: { type: ['container'], container: [id], event: ['oom', 'die'] },
  })) as unknown as Readable;
  let oom = false;
  let died!: () => void;
  const diePromise = new Promise<void>((resolve) => (died = resolve));
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      try {
        const event = JSON.parse(line) as { Action?: string; status?: string };
        const action = event.Action ?? event.status;
        if (action === 'oom') oom = true;
        if (action === 'die') died();
      } catch {
        // A malformed line cannot be an event we wait for.
      }
    }
  });
  stream.on('error', () => died());
  stream.on('end', () => died());
  return {
    sawOom: () => oom,
    settled: async (ms) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([diePromise, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    },
    close: () => stream.destroy(),
  };
}

// ---------------------------------------------------------------------------------------------
// Run

const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * Runs `opts.code` in a fresh container and returns what it did. A slot is held for the whole run.
 * Throws SandboxCapacityError (no slot in time), SandboxUnavailableError (Docker/image problem),
 * TypeError/RangeError (invalid options). The container is removed before this settles.
 */
export async function runInSandbox(opts: SandboxRunOptions): Promise<SandboxResult> {
  validate(opts);
  const input = envelope(opts);
  const release = await (opts.slots ?? sandboxSlots()).acquire();
  try {
    return await runContainer(opts, input);
  } finally {
    release();
  }
}

/** Python helper for the engines: `code` reads its data files from the working directory. */
export function runPython(
  code: string,
  options: { files?: SandboxFile[]; stdin?: string; timeoutMs?: number; memoryBytes?: number; slots?: SlotPool } = {},
): Promise<SandboxResult> {
  return runInSandbox({
    code,
    files: options.files,
    stdin: options.stdin,
    timeoutMs: options.timeoutMs ?? SANDBOX_DEFAULTS.pythonTimeoutMs,
    memoryBytes: options.memoryBytes,
    slots: options.slots,
  });
}

async function runContainer(opts: SandboxRunOptions, input: Buffer): Promise<SandboxResult> {
  const docker = await dockerClient();
  reapOnce();
  const image = opts.image ?? sandboxImage();
  const memoryBytes = opts.memoryBytes ?? SANDBOX_DEFAULTS.memoryBytes;
  const filesBytes = (opts.files ?? []).reduce((n, f) => n + f.content.length, 0);
  const tmpfsBytes = opts.tmpfsBytes ?? SANDBOX_DEFAULTS.tmpfsBytes + filesBytes;
  const maxOutputBytes = opts.maxOutputBytes ?? SANDBOX_DEFAULTS.maxOutputBytes;
  const selfKillSeconds = Math.ceil(opts.timeoutMs / 1000) + SELF_KILL_GRACE_S;

  let container: Docker.Container;
  try {
    container = await docker.createContainer({
      Image: image,
      // `timeout` as PID 1 is the container's own deadline: should this process die mid-run,
      // the container still exits (and AutoRemove deletes it).
      Cmd: [
        '/usr/bin/timeout',
        '-s',
        'KILL',
        String(selfKillSeconds),
        '/usr/bin/python3',
        '-s',
        '-P',
        '-B',
        '-c',
        bootstrap(),
      ],
      Entrypoint: [],
      User: SANDBOX_USER,
      WorkingDir: '/tmp',
      Hostname: 'sandbox',
      Env: [
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'LANG=C.UTF-8',
        'HOME=/tmp',
        'PYTHONHASHSEED=0',
        'PYTHONIOENCODING=utf-8',
        'PYTHONDONTWRITEBYTECODE=1',
        // BLAS/OpenMP would start one thread per host core and run into the pids limit.
        'OPENBLAS_NUM_THREADS=1',
        'OMP_NUM_THREADS=1',
        'MKL_NUM_THREADS=1',
      ],
      Labels: {
        [SANDBOX_LABEL]: '1',
        [OWNER_LABEL]: owner,
        [DEADLINE_LABEL]: String(Date.now() + (selfKillSeconds + 60) * 1000),
      },
      Tty: false,
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      NetworkDisabled: true,
      HostConfig: hostConfig({
        AutoRemove: true,
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': `rw,noexec,nosuid,nodev,size=${tmpfsBytes},mode=1777` },
        Memory: memoryBytes,
        MemorySwap: memoryBytes,
        NanoCpus: Math.round((opts.cpus ?? SANDBOX_DEFAULTS.cpus) * 1e9),
        PidsLimit: opts.pidsLimit ?? SANDBOX_DEFAULTS.pidsLimit,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        IpcMode: 'none',
        CgroupnsMode: 'private',
        Privileged: false,
        Ulimits: [
          { Name: 'nofile', Soft: 256, Hard: 256 },
          { Name: 'core', Soft: 0, Hard: 0 },
        ],
        LogConfig: { Type: 'none', Config: {} },
      }),
    });
  } catch (err) {
    throw unavailable('create', err);
  }

  let attach: Duplex | undefined;
  let events: ContainerEvents | undefined;
  let deadline: NodeJS.Timeout | undefined;
  try {
    let stopped = false;
    const kill = () => {
      if (!stopped) container.kill().catch(() => undefined);
    };
    const stdout = new CappedSink(maxOutputBytes, kill);
    const stderr = new CappedSink(maxOutputBytes, kill);
    try {
      events = await watchEvents(docker, container.id);
      attach = (await container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as unknown as Duplex;
    } catch (err) {
      throw unavailable('attach', err);
    }
    const attached = attach;
    const outputDone = new Promise<void>((resolve) => {
      attached.on('end', resolve);
      attached.on('close', resolve);
      attached.on('error', resolve); // EPIPE/ECONNRESET when the program exits before reading all input
    });
    demux(attached, stdout, stderr);

    let startedAt: number;
    try {
      startedAt = performance.now();
      await container.start();
    } catch (err) {
      throw unavailable('start', err);
    }
    let timedOut = false;
    deadline = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    attached.end(input);

    let exit: { StatusCode: number };
    try {
      exit = (await withTimeout(container.wait(), opts.timeoutMs + STOP_GRACE_MS, 'container wait')) as {
        StatusCode: number;
      };
    } catch (err) {
      throw unavailable('wait', err);
    }
    const durationMs = Math.round(performance.now() - startedAt);
    stopped = true;
    clearTimeout(deadline);
    // The attach stream can still hold the last frames; the die event decides OOM.
    await Promise.all([withTimeout(outputDone, 2000, 'output drain').catch(() => undefined), events.settled(2000)]);
    return {
      exitCode: exit.StatusCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut,
      oomKilled: events.sawOom(),
      outputTruncated: stdout.truncated || stderr.truncated,
      durationMs,
      containerId: container.id,
    };
  } finally {
    clearTimeout(deadline);
    attach?.destroy();
    events?.close();
    await removeContainer(container);
  }
}

/** @types/dockerode lacks CgroupnsMode (API 1.41). */
function hostConfig(config: Docker.HostConfig & { CgroupnsMode: 'private' | 'host' }): Docker.HostConfig {
  return config;
}

function unavailable(step: string, err: unknown): SandboxUnavailableError {
  if (err instanceof SandboxUnavailableError) return err;
  const code = statusCode(err);
  const detail = code === 404 && step === 'create' ? `image ${sandboxImage()} not found` : errorText(err);
  return new SandboxUnavailableError(`docker ${step} failed: ${detail}`, { cause: err });
}

/** Force-removes the container and returns once it is gone (AutoRemove may be removing it already). */
async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true });
    return;
  } catch (err) {
    const code = statusCode(err);
    if (code === 404) return;
    if (code !== 409) {
      // The daemon is in trouble; AutoRemove, the in-container deadline and reapSandboxContainers remain.
      return;
    }
  }
  // 409: removal already in progress; wait for it to finish.
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    try {
      await container.inspect();
    } catch (err) {
      if (statusCode(err) === 404) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

let reaped = false;

/**
 * The reap of a process: once, in the background, on its first sandbox run (not at start-up, which
 * would load dockerode in every worker). A leftover is a container created and never started: it
 * runs nothing and holds no memory, so it can wait for the next process that uses the daemon.
 */
function reapOnce(): void {
  if (reaped) return;
  reaped = true;
  reapSandboxContainers()
    .then((n) => n > 0 && log.info('removed leftover sandbox containers', { count: n }))
    .catch((err: Error) =>
      log.warn('sandbox reaping skipped: Docker unavailable', { error: String(err?.message ?? err) }),
    );
}

/**
 * Removes sandbox containers (of any process) whose deadline label lies in the past: leftovers
 * of a crash between create and start, which AutoRemove never sees. Returns how many it removed.
 * Run once per process by its first sandbox run (reapOnce); it is also safe to call at any time.
 */
export async function reapSandboxContainers(now = Date.now()): Promise<number> {
  const docker = await dockerClient();
  const list = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } });
  let removed = 0;
  for (const info of list) {
    const deadlineAt = Number(info.Labels?.[DEADLINE_LABEL]);
    if (Number.isFinite(deadlineAt) && deadlineAt > now) continue;
    await removeContainer(docker.getContainer(info.Id));
    removed++;
  }
  return removed;
}

/**
 * Ids of the sandbox containers that exist now: by default those this process created, with
 * 'all' those of every process using the daemon (for tests and health checks).
 */
export async function listSandboxContainers(scope: 'process' | 'all' = 'process'): Promise<string[]> {
  const docker = await dockerClient();
  const label = [`${SANDBOX_LABEL}=1`];
  if (scope === 'process') label.push(`${OWNER_LABEL}=${owner}`);
  const list = await docker.listContainers({ all: true, filters: { label } });
  return list.map((c) => c.Id);
}
