// A pool of worker threads running Z3 (z3-worker.mjs).
//
// Why a pool of threads: the z3-solver WASM build serializes async calls per module
// instance (one "lock" per process), has a fixed 2 GiB heap and hangs when that heap is
// exhausted. Each worker has its own Z3 instance and heap, so one pathological query only
// occupies its own worker; the others keep serving the queue.
//
// Each job has an absolute deadline (timeoutMs after submission, queue time included):
//   - the Z3 `timeout` parameter is set to the remaining time minus a grace period, so Z3
//     normally answers `unknown` before the deadline;
//   - at the deadline a still-running worker is terminated and replaced (hard kill);
//   - a worker is also replaced after it reports unknown/failure, after maxSolvesPerWorker
//     solves, or when its Z3 allocation or JS heap grows past a bound (leak guard).

import { Worker } from 'node:worker_threads';
import { DEFAULT_POOL_SIZE, DEFAULT_Z3_TIMEOUT_MS, defaultOrgConcurrency } from './config.js';
import type { SortName } from './operators.js';
import type {
  WorkerInit,
  WorkerMemory,
  WorkerMessage,
  WorkerModelValue,
  WorkerSolveRequest,
} from './worker-protocol.js';

export interface LogicPoolOptions {
  /** Worker threads. Default: SVC_Z3_POOL_SIZE, else 2. */
  size?: number;
  /** Deadline of a solve when the caller gives none. Default: SVC_Z3_TIMEOUT, else 15 s. */
  defaultTimeoutMs?: number;
  /** Time between the Z3 timeout and the hard kill. Default: timeoutMs/5 clamped to [250, 1500] ms. */
  graceMs?: number;
  /** Overrides the Z3 timeout for a dispatch (tests use it to force the hard-kill path). */
  solverTimeoutMs?: (remainingMs: number, graceMs: number) => number;
  /** Replace a worker after this many solves (0 = never). Default 1000. */
  maxSolvesPerWorker?: number;
  /** Replace a worker whose Z3 allocation estimate after a solve exceeds this. Default 64 MiB. */
  maxZ3AllocBytes?: number;
  /** Replace a worker whose JS heap after a solve exceeds this. Default 192 MiB. */
  maxWorkerHeapBytes?: number;
  /** Jobs waiting for a worker beyond this are refused (queue_full). Default 1000. */
  maxQueue?: number;
  /** Z3 `memory_max_size` in MB, below the 2 GiB WASM heap. Default 1024. */
  z3MemoryMaxMb?: number;
  /** V8 old-generation limit of each worker (resourceLimits). Default 256 MB. */
  workerOldGenerationMb?: number;
  /** A worker that is not ready within this is terminated. Default 30 s. */
  startupTimeoutMs?: number;
  /** Workers one organization may occupy at once. Default: SVC_Z3_ORG_CONCURRENCY, else half the pool. */
  perOrgCap?: number;
  /**
   * Workers started by warmUp() and kept while idle. Default: `size` (all). The others start
   * when a solve that may run finds no idle worker, and stop after `idleReleaseMs` without one
   * (docs/performance.md, memory: a Z3 worker is ~75 MB).
   */
  warmWorkers?: number;
  /** A worker beyond `warmWorkers` is stopped after this long idle (0 = never). Default 0. */
  idleReleaseMs?: number;
  /**
   * The warm workers too are stopped after this long without a solve (0 = kept; default 0). A
   * later solve starts one on demand, as beyond the warm ones: its cold start (the WASM module's
   * instantiation, Z3's pthreads and the warm-up solves) comes out of that solve's deadline.
   */
  warmIdleReleaseMs?: number;
  /** Told when an idle worker is stopped (the worker's composition root logs it). */
  onIdleRelease?: (detail: { idleMs: number; workersLeft: number }) => void;
}

export interface LogicSolveRequest {
  smtlib: string;
  variables: Array<{ symbol: string; sort: SortName }>;
  /** Optional unsat-core request (see WorkerSolveRequest.coreSmtlib). */
  coreSmtlib?: string;
  coreCount?: number;
}

export type PoolFailureReason =
  'deadline_exceeded' | 'worker_crashed' | 'worker_start_failed' | 'solver_failure' | 'queue_full' | 'pool_shut_down';

export type PoolOutcome =
  | {
      kind: 'result';
      status: 'sat' | 'unsat' | 'unknown';
      reasonUnknown: string | null;
      model: Record<string, WorkerModelValue> | null;
      z3Version: string;
      solverTimeoutMs: number;
      solveMs: number;
      queueMs: number;
      workerId: number;
      /** 0-based assert indices of coreSmtlib in the unsat core (unsat only), else null/absent. */
      unsatCore?: number[] | null;
    }
  | { kind: 'failure'; reason: PoolFailureReason; detail: string };

export interface LogicPoolStats {
  size: number;
  queued: number;
  z3Version: string | null;
  workers: Array<{ id: number; state: SlotState; solves: number; memory: WorkerMemory | null }>;
  totals: {
    spawned: number;
    completed: number;
    recycled: number;
    killed: number;
    crashed: number;
    startFailures: number;
  };
}

export type WorkerSlotState = 'starting' | 'idle' | 'busy' | 'retired';
type SlotState = WorkerSlotState;

interface Slot {
  id: number;
  worker: Worker;
  state: SlotState;
  solves: number;
  job: Job | null;
  memory: WorkerMemory | null;
  startTimer: NodeJS.Timeout | null;
  /** Set while an idle worker may be released: stops it at idleReleaseMs (warmIdleReleaseMs for a warm one). */
  idleTimer: NodeJS.Timeout | null;
  /** When the worker last became idle (Date.now()). */
  idleSince: number;
  ready: Promise<void>;
  onReady: () => void;
  onStartFailed: (e: Error) => void;
}

interface Job {
  id: number;
  /** Fairness key: the organization (null: anonymous callers share one key). */
  org: string | null;
  request: LogicSolveRequest;
  timeoutMs: number;
  graceMs: number;
  enqueuedAt: number;
  deadlineAt: number;
  timer: NodeJS.Timeout | null;
  slot: Slot | null;
  dispatchedAt: number;
  solverTimeoutMs: number;
  settled: boolean;
  resolve: (o: PoolOutcome) => void;
}

const WORKER_URL = new URL('./z3-worker.mjs', import.meta.url);
/** Below this the Z3 timeout is meaningless; the job fails as deadline_exceeded instead. */
const MIN_SOLVER_TIMEOUT_MS = 10;
const MAX_TIMEOUT_MS = 600_000;
const MAX_CONSECUTIVE_START_FAILURES = 3;

/** Margin between Z3's own timeout and the hard kill: a fifth of the deadline, 250 ms to 1.5 s. */
export function defaultGraceMs(timeoutMs: number): number {
  return Math.min(1500, Math.max(250, Math.floor(timeoutMs / 5)));
}

export class LogicPool {
  readonly size: number;
  readonly defaultTimeoutMs: number;
  /** Workers one organization may occupy at once (fairness, docs/isolation.md). */
  readonly perOrgCap: number;
  /** Workers kept while idle (LogicPoolOptions.warmWorkers). */
  readonly warmWorkers: number;
  private readonly idleReleaseMs: number;
  private readonly warmIdleReleaseMs: number;
  private readonly onIdleRelease: NonNullable<LogicPoolOptions['onIdleRelease']>;
  private readonly opts: Required<
    Omit<
      LogicPoolOptions,
      | 'size'
      | 'defaultTimeoutMs'
      | 'graceMs'
      | 'solverTimeoutMs'
      | 'perOrgCap'
      | 'warmWorkers'
      | 'idleReleaseMs'
      | 'warmIdleReleaseMs'
      | 'onIdleRelease'
    >
  > &
    Pick<LogicPoolOptions, 'graceMs' | 'solverTimeoutMs'>;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly terminations = new Set<Promise<unknown>>();
  private nextSlotId = 1;
  private nextJobId = 1;
  private closed = false;
  private consecutiveStartFailures = 0;
  private z3Version: string | null = null;
  private readonly totals = { spawned: 0, completed: 0, recycled: 0, killed: 0, crashed: 0, startFailures: 0 };

  constructor(options: LogicPoolOptions = {}) {
    this.size = options.size ?? DEFAULT_POOL_SIZE;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_Z3_TIMEOUT_MS;
    if (!Number.isInteger(this.size) || this.size < 1)
      throw new RangeError(`pool size must be a positive integer, got ${this.size}`);
    checkTimeout(this.defaultTimeoutMs);
    this.perOrgCap = Math.min(this.size, options.perOrgCap ?? defaultOrgConcurrency(this.size));
    if (!Number.isInteger(this.perOrgCap) || this.perOrgCap < 1)
      throw new RangeError(`perOrgCap must be a positive integer, got ${options.perOrgCap}`);
    this.warmWorkers = Math.min(this.size, options.warmWorkers ?? this.size);
    if (!Number.isInteger(this.warmWorkers) || this.warmWorkers < 1)
      throw new RangeError(`warmWorkers must be a positive integer, got ${options.warmWorkers}`);
    this.idleReleaseMs = options.idleReleaseMs ?? 0;
    this.warmIdleReleaseMs = options.warmIdleReleaseMs ?? 0;
    this.onIdleRelease = options.onIdleRelease ?? (() => undefined);
    this.opts = {
      graceMs: options.graceMs,
      solverTimeoutMs: options.solverTimeoutMs,
      maxSolvesPerWorker: options.maxSolvesPerWorker ?? 1000,
      maxZ3AllocBytes: options.maxZ3AllocBytes ?? 64 * 1024 * 1024,
      maxWorkerHeapBytes: options.maxWorkerHeapBytes ?? 192 * 1024 * 1024,
      maxQueue: options.maxQueue ?? 1000,
      z3MemoryMaxMb: options.z3MemoryMaxMb ?? 1024,
      workerOldGenerationMb: options.workerOldGenerationMb ?? 256,
      startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
    };
  }

  /** Solves one SMT-LIB problem. Never rejects: every failure is a `failure` outcome. */
  solve(request: LogicSolveRequest, options: { timeoutMs?: number; orgId?: string | null } = {}): Promise<PoolOutcome> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    checkTimeout(timeoutMs);
    if (this.closed)
      return Promise.resolve({ kind: 'failure', reason: 'pool_shut_down', detail: 'the logic pool is shut down' });
    if (this.queue.length >= this.opts.maxQueue) {
      return Promise.resolve({
        kind: 'failure',
        reason: 'queue_full',
        detail: `more than ${this.opts.maxQueue} solves waiting`,
      });
    }
    return new Promise<PoolOutcome>((resolve) => {
      const now = Date.now();
      const job: Job = {
        id: this.nextJobId++,
        org: options.orgId ?? null,
        request,
        timeoutMs,
        graceMs: this.opts.graceMs ?? defaultGraceMs(timeoutMs),
        enqueuedAt: now,
        deadlineAt: now + timeoutMs,
        timer: null,
        slot: null,
        dispatchedAt: 0,
        solverTimeoutMs: 0,
        settled: false,
        resolve,
      };
      job.timer = setTimeout(() => this.onDeadline(job), timeoutMs);
      this.queue.push(job);
      this.pump();
    });
  }

  /** Starts the warm workers and waits until they are ready (optional; workers otherwise start on demand). */
  async warmUp(): Promise<void> {
    if (this.closed) throw new Error('the logic pool is shut down');
    while (this.slots.length < this.warmWorkers) this.spawn();
    await Promise.all(this.slots.map((s) => s.ready));
  }

  stats(): LogicPoolStats {
    return {
      size: this.size,
      queued: this.queue.length,
      z3Version: this.z3Version,
      workers: this.slots.map((s) => ({ id: s.id, state: s.state, solves: s.solves, memory: s.memory })),
      totals: { ...this.totals },
    };
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queue])
      this.settle(job, { kind: 'failure', reason: 'pool_shut_down', detail: 'the logic pool was shut down' });
    for (const slot of [...this.slots]) {
      if (slot.job)
        this.settle(slot.job, { kind: 'failure', reason: 'pool_shut_down', detail: 'the logic pool was shut down' });
      this.retire(slot);
    }
    await Promise.all([...this.terminations]);
  }

  private spawn(): Slot {
    const init: WorkerInit = { z3MemoryMaxMb: this.opts.z3MemoryMaxMb };
    const worker = new Worker(WORKER_URL, {
      workerData: init,
      resourceLimits: { maxOldGenerationSizeMb: this.opts.workerOldGenerationMb },
    });
    let onReady!: () => void;
    let onStartFailed!: (e: Error) => void;
    const ready = new Promise<void>((res, rej) => {
      onReady = res;
      onStartFailed = rej;
    });
    ready.catch(() => undefined); // observed through warmUp or the jobs' outcomes
    const slot: Slot = {
      id: this.nextSlotId++,
      worker,
      state: 'starting',
      solves: 0,
      job: null,
      memory: null,
      startTimer: null,
      idleTimer: null,
      idleSince: 0,
      ready,
      onReady,
      onStartFailed,
    };
    slot.startTimer = setTimeout(
      () => this.onSlotDown(slot, `not ready after ${this.opts.startupTimeoutMs} ms`),
      this.opts.startupTimeoutMs,
    );
    slot.startTimer.unref();
    worker.on('message', (msg: WorkerMessage) => this.onMessage(slot, msg));
    worker.on('error', (err) => this.onSlotDown(slot, `worker error: ${err.message}`));
    worker.on('exit', (code) => this.onSlotDown(slot, `worker exited with code ${code}`));
    this.slots.push(slot);
    this.totals.spawned++;
    return slot;
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const idle = this.slots.find((s) => s.state === 'idle');
      if (idle === undefined) {
        // Start workers only for solves that could run now: an organization at its cap waits
        // for its own worker, it does not start another (which it could not use).
        const starting = this.slots.filter((s) => s.state === 'starting').length;
        const wanted = Math.min(this.runnableJobs() - starting, this.size - this.slots.length);
        for (let i = 0; i < wanted; i++) this.spawn();
        return;
      }
      const job = this.nextFairJob();
      if (job === null) return; // every waiting organization is at its cap
      this.queue.splice(this.queue.indexOf(job), 1);
      this.dispatch(idle, job);
    }
  }

  /** How many queued solves could run at once if workers were free (organization caps applied). */
  private runnableJobs(): number {
    const busy = new Map<string | null, number>();
    for (const s of this.slots) if (s.job) busy.set(s.job.org, (busy.get(s.job.org) ?? 0) + 1);
    let n = 0;
    for (const job of this.queue) {
      const b = busy.get(job.org) ?? 0;
      if (job.org !== null && b >= this.perOrgCap) continue;
      busy.set(job.org, b + 1);
      n++;
    }
    return n;
  }

  /**
   * An idle worker beyond the warm ones is stopped after idleReleaseMs unless a solve takes it; a
   * warm one after warmIdleReleaseMs (when set).
   */
  private markIdle(slot: Slot): void {
    slot.state = 'idle';
    slot.worker.unref(); // idle workers must not keep the process alive; ref'd while solving
    slot.idleSince = Date.now();
    this.scheduleRelease(slot);
  }

  /** The idle period after which `slot` may be stopped now (0: never): beyond the warm ones or not. */
  private releaseAfterMs(): number {
    return this.slots.length > this.warmWorkers ? this.idleReleaseMs : this.warmIdleReleaseMs;
  }

  private scheduleRelease(slot: Slot): void {
    const after = this.releaseAfterMs();
    if (after <= 0 || slot.idleTimer || slot.state !== 'idle') return;
    slot.idleTimer = setTimeout(
      () => {
        slot.idleTimer = null;
        if (slot.state !== 'idle') return;
        // Another worker may have stopped meanwhile, making this one warm (a longer period, or never).
        const limit = this.releaseAfterMs();
        const idleMs = Date.now() - slot.idleSince;
        if (limit > 0 && idleMs >= limit) {
          this.retire(slot);
          this.onIdleRelease({ idleMs, workersLeft: this.slots.length });
        } else this.scheduleRelease(slot);
      },
      Math.max(0, slot.idleSince + after - Date.now()),
    );
    slot.idleTimer.unref();
  }

  /**
   * The next job to dispatch: among organizations below their cap (jobs without an
   * organization have none), the one with the fewest
   * busy workers, and within it the oldest job. So one organization's backlog never holds
   * another's first query behind it.
   */
  private nextFairJob(): Job | null {
    const busy = new Map<string | null, number>();
    for (const s of this.slots) if (s.job) busy.set(s.job.org, (busy.get(s.job.org) ?? 0) + 1);
    let best: Job | null = null;
    let bestBusy = Infinity;
    for (const job of this.queue) {
      const n = busy.get(job.org) ?? 0;
      // Solves without an organization (internal callers, a private pool) are not capped.
      if (job.org !== null && n >= this.perOrgCap) continue;
      if (n < bestBusy) {
        best = job;
        bestBusy = n;
      }
    }
    return best;
  }

  private dispatch(slot: Slot, job: Job): void {
    const now = Date.now();
    const remaining = job.deadlineAt - now;
    const solverTimeoutMs = Math.floor(
      this.opts.solverTimeoutMs ? this.opts.solverTimeoutMs(remaining, job.graceMs) : remaining - job.graceMs,
    );
    if (solverTimeoutMs < MIN_SOLVER_TIMEOUT_MS) {
      this.settle(job, {
        kind: 'failure',
        reason: 'deadline_exceeded',
        detail: `only ${remaining} ms left when a worker became free`,
      });
      return;
    }
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slot.state = 'busy';
    slot.job = job;
    job.slot = slot;
    job.dispatchedAt = now;
    job.solverTimeoutMs = solverTimeoutMs;
    slot.worker.ref();
    const msg: WorkerSolveRequest = {
      type: 'solve',
      id: job.id,
      smtlib: job.request.smtlib,
      variables: job.request.variables,
      solverTimeoutMs,
    };
    if (job.request.coreSmtlib !== undefined) {
      msg.coreSmtlib = job.request.coreSmtlib;
      msg.coreCount = job.request.coreCount;
    }
    slot.worker.postMessage(msg);
  }

  private onMessage(slot: Slot, msg: WorkerMessage): void {
    if (slot.state === 'retired') return;
    if (msg.type === 'ready') {
      if (slot.startTimer) clearTimeout(slot.startTimer);
      slot.startTimer = null;
      this.markIdle(slot);
      this.z3Version = msg.z3Version;
      this.consecutiveStartFailures = 0;
      slot.onReady();
      this.pump();
      return;
    }
    const job = slot.job;
    if (job === null || job.id !== msg.id) return; // stale answer for a job already settled
    slot.job = null;
    slot.solves++;
    this.totals.completed++;
    let recycle: boolean;
    if (msg.type === 'failure') {
      recycle = true;
      this.settle(job, { kind: 'failure', reason: 'solver_failure', detail: msg.message });
    } else {
      slot.memory = { z3AllocBytes: msg.z3AllocBytes, heapUsedBytes: msg.heapUsedBytes, pthreads: msg.pthreads };
      recycle =
        msg.recycle ||
        (this.opts.maxSolvesPerWorker > 0 && slot.solves >= this.opts.maxSolvesPerWorker) ||
        msg.z3AllocBytes > this.opts.maxZ3AllocBytes ||
        msg.heapUsedBytes > this.opts.maxWorkerHeapBytes;
      this.settle(job, {
        kind: 'result',
        status: msg.status,
        reasonUnknown: msg.reasonUnknown,
        model: msg.model,
        z3Version: this.z3Version ?? 'unknown',
        solverTimeoutMs: job.solverTimeoutMs,
        solveMs: msg.solveMs,
        queueMs: job.dispatchedAt - job.enqueuedAt,
        workerId: slot.id,
        unsatCore: msg.unsatCore ?? null,
      });
    }
    if (recycle) {
      this.totals.recycled++;
      this.replace(slot);
    } else {
      this.markIdle(slot);
    }
    this.pump();
  }

  private onDeadline(job: Job): void {
    job.timer = null;
    if (job.settled) return;
    const slot = job.slot;
    if (slot === null) {
      this.settle(job, {
        kind: 'failure',
        reason: 'deadline_exceeded',
        detail: `no worker became free within ${job.timeoutMs} ms`,
      });
      return;
    }
    this.totals.killed++;
    this.settle(job, {
      kind: 'failure',
      reason: 'deadline_exceeded',
      detail: `solve exceeded the ${job.timeoutMs} ms deadline; worker terminated`,
    });
    this.replace(slot);
    this.pump();
  }

  private onSlotDown(slot: Slot, detail: string): void {
    if (slot.state === 'retired') return;
    const wasStarting = slot.state === 'starting';
    if (slot.job) this.settle(slot.job, { kind: 'failure', reason: 'worker_crashed', detail });
    this.retire(slot);
    if (wasStarting) {
      this.totals.startFailures++;
      slot.onStartFailed(new Error(`Z3 worker failed to start: ${detail}`));
      if (++this.consecutiveStartFailures >= MAX_CONSECUTIVE_START_FAILURES) {
        // Do not spin on a broken installation: fail what waits, try again on the next solve.
        this.consecutiveStartFailures = 0;
        for (const job of [...this.queue]) this.settle(job, { kind: 'failure', reason: 'worker_start_failed', detail });
      }
    } else {
      this.totals.crashed++;
    }
    this.pump();
  }

  /** Retires a worker and, if it had been healthy, starts its replacement right away. */
  private replace(slot: Slot): void {
    this.retire(slot);
    if (!this.closed && this.slots.length < this.size) this.spawn();
  }

  private retire(slot: Slot): void {
    if (slot.state === 'retired') return;
    const wasStarting = slot.state === 'starting';
    slot.state = 'retired';
    slot.job = null;
    if (slot.startTimer) clearTimeout(slot.startTimer);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    if (wasStarting) slot.onStartFailed(new Error('Z3 worker retired before it was ready'));
    const t = slot.worker.terminate().catch(() => undefined);
    this.terminations.add(t);
    void t.finally(() => this.terminations.delete(t));
  }

  private settle(job: Job, outcome: PoolOutcome): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.timer = null;
    if (job.slot === null) {
      const i = this.queue.indexOf(job);
      if (i >= 0) this.queue.splice(i, 1);
    }
    job.resolve(outcome);
  }
}

function checkTimeout(ms: number): void {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw new RangeError(`timeoutMs must be in (0, ${MAX_TIMEOUT_MS}], got ${ms}`);
  }
}

let singleton: LogicPool | null = null;

/**
 * The process-wide pool. The worker's composition root creates it first, with its limits from
 * SVC_Z3_TIMEOUT / SVC_Z3_POOL_SIZE / SVC_Z3_ORG_CONCURRENCY (logicPoolOptions); `options` of a
 * later call are ignored.
 */
export function getLogicPool(options?: LogicPoolOptions): LogicPool {
  if (singleton === null) singleton = new LogicPool(options);
  return singleton;
}

/** Terminates the process-wide pool's workers; a later getLogicPool() starts a new pool. */
export async function shutdownLogicPool(): Promise<void> {
  const p = singleton;
  singleton = null;
  if (p) await p.shutdown();
}
