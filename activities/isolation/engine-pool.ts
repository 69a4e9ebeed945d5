// The engine pool: warm worker threads that run the CPU-bound engines seeing user input (math,
// process, RAG, SQL, code, the stats query parser), so the worker's event loop never runs
// user-controlled work and an engine's deadline is a hard bound (docs/isolation.md).
//
//   - Admission is fair across organizations (core/fair-slots.ts): at most `perOrgCap` of the
//     `size` threads per organization; waiters are served round-robin across organizations.
//   - Each run has one deadline, queueing included. At the deadline a queued run gives up and a
//     running one is aborted: piscina terminates its thread and starts a replacement.
//   - Threads are started at construction and stay up (min = max = `size` + `spare` threads), so
//     a call costs a message round trip, not a thread start.
//   - A run whose thread is gone (terminated at its deadline, or died) while more threads are
//     being replaced than there are spares keeps its slot, charged to its organization, until a
//     replacement thread has loaded its engines: the slots never outnumber the ready threads, so
//     the other organizations keep theirs and the organization whose run was cut waits for its
//     own replacement. The API's pool runs without a spare this way (session 15, ~one thread of
//     memory less); the worker's keeps one, so its own tenants' cut SQL and code runs do not
//     wait for replacements (docs/isolation.md).
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { FairSlots, defaultPerOrgCap } from '../../core/fair-slots.js';
import { positiveIntEnv as envInt } from '../../core/config.js';
import type { EngineModuleName, EngineTask } from './engine-tasks.js';

export interface EnginePoolOptions {
  /** Worker threads. Default: SVC_ENGINE_POOL_SIZE, else min(4, max(2, cores)). */
  size?: number;
  /** Threads one organization may use at once. Default: SVC_ENGINE_ORG_CONCURRENCY, else half the threads. */
  perOrgCap?: number;
  /** V8 old-generation limit of each thread, in MB. Default 512. */
  maxOldGenerationMb?: number;
  /**
   * V8 young-generation limit of each thread, in MB. Default 8: V8's own sizing let each thread's
   * young generation grow to tens of MB while mathjs and the SQL parser load and run (about
   * 30 MB of resident memory per thread; docs/performance.md, memory).
   */
  maxYoungGenerationMb?: number;
  /**
   * The engines each thread loads at start (engine-tasks.ts ENGINE_MODULES; default all). An API
   * process's pool runs only the eager engines: loading the code scanners and the SQL parser
   * there cost memory for nothing (docs/performance.md, memory).
   */
  preload?: readonly EngineModuleName[];
  /**
   * Pre-started threads beyond `size` (default 1): a thread terminated at a deadline is replaced
   * while a spare serves. With 0, a cut run's slot waits for the replacement instead (above).
   */
  spare?: number;
}

export type EngineRunOutcome<T> =
  | { kind: 'ok'; value: T; queueMs: number; runMs: number }
  /** The deadline passed while queued or running (a running thread was terminated). */
  | { kind: 'timeout'; phase: 'queue' | 'run' }
  /** The thread died (out of memory, crash) or the pool is shut down. */
  | { kind: 'failed'; detail: string };

const WORKER_URL = new URL('./engine-worker.mjs', import.meta.url);

/**
 * How long a slot is held for a replacement thread at most: a replacement that never becomes
 * ready (its engines fail to load) must not take the slot for good. Runs then wait in piscina's
 * queue within their own deadline and fail closed, as without the hold. The warm-up's bound.
 */
const REPLACEMENT_HOLD_MAX_MS = 60_000;

/** The young generation of an engine thread (EnginePoolOptions.maxYoungGenerationMb). */
export const ENGINE_THREAD_YOUNG_GENERATION_MB = 8;

export function defaultEnginePoolSize(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

export class EnginePool {
  readonly size: number;
  readonly slots: FairSlots;
  private readonly piscina: Piscina;
  private closed = false;
  private readonly totals = { runs: 0, timeouts: 0, killed: 0, failures: 0 };
  /** Threads destroyed (terminated or died) that no ended run has claimed yet. */
  private unclaimedDestroyed = 0;
  /** Threads destroyed and not replaced yet (claimed by a run). */
  private replacing = 0;
  private readonly spare: number;
  /** Slots of runs whose thread is gone, released in order as replacement threads become ready. */
  private readonly heldForReplacement: Array<() => void> = [];

  constructor(options: EnginePoolOptions = {}) {
    this.size = options.size ?? envInt('SVC_ENGINE_POOL_SIZE') ?? defaultEnginePoolSize();
    const perOrgCap = options.perOrgCap ?? envInt('SVC_ENGINE_ORG_CONCURRENCY') ?? defaultPerOrgCap(this.size);
    this.slots = new FairSlots({ capacity: this.size, perOrgCap });
    this.spare = options.spare ?? 1;
    // One thread per admitted run and the spares: a thread terminated at a deadline is replaced
    // while a spare serves, and beyond the spares its run's slot waits for the replacement
    // (holdUntilReplaced), so a kill never leaves another organization's admitted run without a thread.
    this.piscina = new Piscina({
      filename: WORKER_URL.href,
      minThreads: this.size + this.spare,
      maxThreads: this.size + this.spare,
      idleTimeout: 60_000,
      // Admission above never lets more than `size` tasks in, and never more than the ready
      // threads; a queue here is only a safety net.
      maxQueue: this.size * 4,
      resourceLimits: {
        maxOldGenerationSizeMb: options.maxOldGenerationMb ?? 512,
        maxYoungGenerationSizeMb:
          options.maxYoungGenerationMb ?? envInt('SVC_ENGINE_YOUNG_GENERATION_MB') ?? ENGINE_THREAD_YOUNG_GENERATION_MB,
      },
      workerData: { preload: options.preload },
    });
    // Piscina destroys a thread synchronously when it aborts the thread's task (or the thread
    // dies), before the run's promise rejects; it emits workerCreate for a replacement once the
    // thread has loaded its module (engine-worker.mjs: the preloaded engines).
    this.piscina.on('workerDestroy', () => {
      if (!this.closed) this.unclaimedDestroyed++;
    });
    this.piscina.on('workerCreate', () => {
      if (this.replacing > 0) this.replacing--;
      this.heldForReplacement.shift()?.();
    });
  }

  /**
   * Waits until every thread has loaded the engines (optional: runs otherwise wait inside their
   * deadline). Piscina gives tasks to loaded threads only, so rounds of concurrent warm-up tasks
   * are sent until each thread has answered one.
   */
  async warmUp(): Promise<void> {
    const seen = new Set<number>();
    while (!this.closed && seen.size < this.size + this.spare) {
      const ids = await Promise.all(
        Array.from(
          { length: this.size + this.spare },
          () => this.piscina.run({ engine: 'warm' } satisfies EngineTask) as Promise<number>,
        ),
      );
      for (const id of ids) seen.add(id);
    }
  }

  /** Runs one task for `orgId` under `timeoutMs` (queueing included). Never rejects. */
  async run<T>(task: EngineTask, opts: { orgId: string | null; timeoutMs: number }): Promise<EngineRunOutcome<T>> {
    if (this.closed) return { kind: 'failed', detail: 'the engine pool is shut down' };
    const started = performance.now();
    const deadline = started + opts.timeoutMs;
    const slot = await this.slots.acquire(opts.orgId, Math.floor(opts.timeoutMs));
    if (!slot.ok) {
      this.totals.timeouts++;
      return slot.reason === 'deadline'
        ? { kind: 'timeout', phase: 'queue' }
        : { kind: 'failed', detail: `engine queue refused the run (${slot.reason})` };
    }
    const remaining = deadline - performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('engine deadline')), Math.max(0, remaining));
    const dispatched = performance.now();
    this.totals.runs++;
    try {
      const value = (await this.piscina.run(task, { signal: controller.signal })) as T;
      const now = performance.now();
      slot.release();
      return { kind: 'ok', value, queueMs: dispatched - started, runMs: now - dispatched };
    } catch (err) {
      // The run's thread is gone if piscina destroyed one meanwhile (an abort of a running task
      // does it before this catch runs; an abort of a task still in piscina's queue does not).
      // Beyond the spares, its slot waits for the replacement thread.
      if (this.unclaimedDestroyed > 0) {
        this.unclaimedDestroyed--;
        this.replacing++;
        if (this.replacing > this.spare) this.holdUntilReplaced(slot.release);
        else slot.release();
      } else slot.release();
      if (controller.signal.aborted) {
        this.totals.timeouts++;
        this.totals.killed++;
        return { kind: 'timeout', phase: 'run' };
      }
      this.totals.failures++;
      return {
        kind: 'failed',
        detail: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : String(err),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps a slot until a replacement thread is ready (or REPLACEMENT_HOLD_MAX_MS, or shutdown). */
  private holdUntilReplaced(release: () => void): void {
    let done = false;
    const once = () => {
      if (done) return;
      done = true;
      clearTimeout(safety);
      const i = this.heldForReplacement.indexOf(once);
      if (i >= 0) this.heldForReplacement.splice(i, 1);
      release();
    };
    const safety = setTimeout(once, REPLACEMENT_HOLD_MAX_MS);
    safety.unref();
    if (this.closed) once();
    else this.heldForReplacement.push(once);
  }

  stats() {
    return {
      size: this.size,
      threads: this.piscina.threads.length,
      ...this.slots.stats(),
      heldForReplacement: this.heldForReplacement.length,
      totals: { ...this.totals },
    };
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const release of [...this.heldForReplacement]) release();
    await this.piscina.destroy();
  }
}
