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
//   - Only `size` threads load their engines at start (session 19): the spares start without
//     them (mathjs and the math engine are ~30 MB a thread) and rarely run. Tasks go to loaded
//     idle threads first; when a loaded thread is lost (cut at a deadline, or died), an idle
//     unloaded thread is sent the `load` task at once, so it has its engines before it serves
//     in its place (else the replacement loads them at its start); an unloaded thread that gets a
//     task loads them first. SVC_ENGINE_SPARE_LAZY=0 loads every thread at start.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { FairSlots, defaultPerOrgCap } from '../../core/fair-slots.js';
import { positiveIntEnv as envInt, processEnv } from '../../core/config.js';
import { ENGINES_LOADED_MESSAGE, type EngineModuleName, type EngineTask, type WarmAnswer } from './engine-tasks.js';

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
  /**
   * Whether the spares start without their engines (default: SVC_ENGINE_SPARE_LAZY, else on):
   * only `size` threads load them at start, and a spare loads them when a loaded thread is lost
   * or on its first task. Off: every thread loads them at start (until session 19).
   */
  lazySpare?: boolean;
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

type Balancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>;
type PiscinaTask = Parameters<Balancer>[0];
type PiscinaWorker = Parameters<Balancer>[1][number];

/** Marks the pool's own `load` task for the balancer (piscina's queue-options symbol). */
const LOAD_TASK_MARK = 'svcLoadEngines';
interface LoadTaskMark {
  mark: typeof LOAD_TASK_MARK;
  /** Set by the balancer: the thread it gave the task to. */
  thread: number | null;
}

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
  /**
   * Start-up loads not yet taken, shared with the threads (engine-worker.mjs): `size` at first
   * (all threads without lazy spares); one is given back when a loaded thread is lost and no idle
   * unloaded thread takes the `load` task, so the replacement loads at its start.
   */
  private readonly loadAtStart = new Int32Array(new SharedArrayBuffer(4));
  /** Threads that have loaded their engines (their ENGINES_LOADED_MESSAGE), by thread id. */
  private readonly loaded = new Set<number>();
  /** Threads sent the `load` task that have not answered yet. */
  private readonly loading = new Set<number>();
  private readonly loadTotals = { spareLoads: 0 };

  constructor(options: EnginePoolOptions = {}) {
    this.size = options.size ?? envInt('SVC_ENGINE_POOL_SIZE') ?? defaultEnginePoolSize();
    const perOrgCap = options.perOrgCap ?? envInt('SVC_ENGINE_ORG_CONCURRENCY') ?? defaultPerOrgCap(this.size);
    this.slots = new FairSlots({ capacity: this.size, perOrgCap });
    this.spare = options.spare ?? 1;
    const lazySpare = options.lazySpare ?? processEnv().SVC_ENGINE_SPARE_LAZY !== '0';
    Atomics.store(this.loadAtStart, 0, lazySpare ? this.size : this.size + this.spare);
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
      workerData: { preload: options.preload, loadAtStart: this.loadAtStart.buffer },
      // Loaded idle threads first, so an unloaded spare serves only when no loaded thread is free.
      loadBalancer: (task, workers) => this.pickThread(task, workers),
    });
    this.piscina.on('message', (message: unknown) => {
      const id = (message as Record<string, unknown> | null)?.[ENGINES_LOADED_MESSAGE];
      if (typeof id === 'number') this.loaded.add(id);
    });
    // Piscina destroys a thread synchronously when it aborts the thread's task (or the thread
    // dies), before the run's promise rejects; it emits workerCreate for a replacement once the
    // thread has loaded its module (engine-worker.mjs: the preloaded engines).
    this.piscina.on('workerDestroy', (worker: PiscinaWorker) => {
      if (this.closed) return;
      this.unclaimedDestroyed++;
      // A loaded thread is lost: its start-up load goes back to the counter now (before the
      // replacement's thread reads it), and is taken back if an idle spare takes the load task.
      const wasLoading = this.loading.delete(worker.id);
      if (this.loaded.delete(worker.id) || wasLoading) {
        Atomics.add(this.loadAtStart, 0, 1);
        // Outside piscina's own removal of the thread (this event is emitted inside it).
        queueMicrotask(() => this.loadASpare());
      }
    });
    this.piscina.on('workerCreate', () => {
      if (this.replacing > 0) this.replacing--;
      this.heldForReplacement.shift()?.();
    });
  }

  /** The balancer: an idle loaded thread, else an idle unloaded one (the pool's load task: an unloaded one only). */
  private pickThread(task: PiscinaTask, workers: PiscinaWorker[]): PiscinaWorker | null {
    const load = (task as unknown as Record<symbol, LoadTaskMark | null>)[Piscina.queueOptionsSymbol];
    let loadedIdle: PiscinaWorker | null = null;
    let unloadedIdle: PiscinaWorker | null = null;
    for (const w of workers) {
      if (w.currentUsage !== 0 || w.terminating || w.destroyed) continue;
      if (this.loaded.has(w.id)) loadedIdle ??= w;
      else unloadedIdle ??= w;
    }
    if (load?.mark !== LOAD_TASK_MARK) return loadedIdle ?? unloadedIdle;
    if (unloadedIdle) load.thread = unloadedIdle.id;
    return unloadedIdle;
  }

  /**
   * Sends the `load` task to an idle thread without its engines, taking back the start-up load
   * the lost thread gave back. When none is idle the task is withdrawn at once (never left in
   * the queue) and the load stays with the counter: the replacement thread loads at its start.
   */
  private loadASpare(): void {
    if (this.closed) return;
    const left = Atomics.load(this.loadAtStart, 0);
    if (left <= 0 || Atomics.compareExchange(this.loadAtStart, 0, left, left - 1) !== left) return;
    const mark: LoadTaskMark = { mark: LOAD_TASK_MARK, thread: null };
    const withdraw = new AbortController();
    // The balancer runs inside run() when nothing is queued; with a queue the task is not placed.
    const run = this.piscina.run({ engine: 'load', [Piscina.queueOptionsSymbol]: mark }, { signal: withdraw.signal });
    const thread = mark.thread;
    if (thread !== null) {
      this.loadTotals.spareLoads++;
      this.loading.add(thread);
      run.then(
        () => {
          if (this.loading.delete(thread)) this.loaded.add(thread);
        },
        () => undefined, // the thread died while loading: its destroy event gave the load back
      );
      return;
    }
    withdraw.abort();
    run.catch(() => undefined);
    Atomics.add(this.loadAtStart, 0, 1);
  }

  /**
   * Waits until every thread has started (and the threads that load at start have loaded their
   * engines; optional: runs otherwise wait inside their deadline). Piscina gives tasks to started
   * threads only, so rounds of concurrent warm-up tasks are sent until each thread has answered
   * one. Resolves with each thread's last answer: its id and whether it has its engines.
   */
  async warmUp(): Promise<WarmAnswer[]> {
    const seen = new Map<number, WarmAnswer>();
    while (!this.closed && seen.size < this.size + this.spare) {
      const answers = await Promise.all(
        Array.from(
          { length: this.size + this.spare },
          () => this.piscina.run({ engine: 'warm' } satisfies EngineTask) as Promise<WarmAnswer>,
        ),
      );
      for (const a of answers) {
        seen.set(a.id, a);
        if (a.loaded) this.loaded.add(a.id);
      }
    }
    return [...seen.values()];
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
      /** Live threads that have loaded their engines (the others are spares that have not served). */
      loadedThreads: this.piscina.threads.filter((t) => this.loaded.has(t.threadId)).length,
      totals: { ...this.totals, ...this.loadTotals },
    };
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const release of [...this.heldForReplacement]) release();
    await this.piscina.destroy();
  }
}
