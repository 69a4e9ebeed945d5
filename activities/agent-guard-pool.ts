// The worker-thread pool that runs the agent guards (engines/agent-guards) off the event loop
// (docs/isolation.md, "Agent guard pool"):
//   - Admission is fair across organizations (core/fair-slots.ts), like the engine pool: one
//     organization holds at most `perOrgCap` of the `size` guard threads, and waiters are served
//     round-robin across organizations, so a tenant's backlog of maximum-size requests never
//     sits in front of another tenant's request (issue 28 item 7: B's trivial request went from
//     0.12 s to a 503 after 5.7 s behind A's eight).
//   - Each scan has one deadline, queueing included; an organization waits only behind its own
//     scans (or behind organizations at their own share), so its deadline is spent on its own
//     load. At the deadline a queued scan gives up and a running one is aborted: piscina
//     terminates its thread, and a spare thread serves meanwhile.
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { FairSlots, defaultPerOrgCap } from '../core/fair-slots.js';
import { positiveIntEnv as envInt } from '../core/config.js';
import type { GuardReport, GuardTask } from '../engines/agent-guards/index.js';

const WORKER_URL = new URL('../engines/agent-guards/guard-worker.mjs', import.meta.url);

export class GuardUnavailableError extends Error {
  constructor(
    message: string,
    /** `queue`: the deadline passed while waiting for a thread; `run`: the scan was aborted; `failed`: the thread died. */
    readonly phase: 'queue' | 'run' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'GuardUnavailableError';
  }
}

export interface GuardPoolOptions {
  /** Scans admitted at once (threads, plus one spare). Default: SVC_GUARD_POOL_SIZE, else 2. */
  size?: number;
  /** Scans one organization may run at once. Default: SVC_GUARD_ORG_CONCURRENCY, else half the size, rounded up. */
  perOrgCap?: number;
}

export interface GuardRun {
  report: GuardReport;
  /** Time spent waiting for a guard slot. */
  queueMs: number;
  runMs: number;
}

export class GuardPool {
  readonly size: number;
  readonly slots: FairSlots;
  private readonly piscina: Piscina;

  constructor(options: GuardPoolOptions = {}) {
    this.size = options.size ?? envInt('SVC_GUARD_POOL_SIZE') ?? 2;
    const perOrgCap = options.perOrgCap ?? envInt('SVC_GUARD_ORG_CONCURRENCY') ?? defaultPerOrgCap(this.size);
    this.slots = new FairSlots({ capacity: this.size, perOrgCap });
    this.piscina = new Piscina({
      filename: WORKER_URL.href,
      // One spare beyond the admitted scans: a thread terminated at a deadline is replaced while
      // the spare serves, so a kill never reduces what the other organizations get.
      minThreads: 1,
      maxThreads: this.size + 1,
      // Admission above lets at most `size` scans in; this queue only holds a scan whose thread is being replaced.
      maxQueue: this.size * 4,
      idleTimeout: 60_000,
    });
  }

  /** Runs one scan for `orgId` under `timeoutMs`, queueing included; GuardUnavailableError otherwise. */
  async run(task: GuardTask, opts: { orgId: string | null; timeoutMs: number }): Promise<GuardRun> {
    const started = performance.now();
    const slot = await this.slots.acquire(opts.orgId, Math.floor(opts.timeoutMs));
    if (!slot.ok) {
      const why =
        slot.reason === 'deadline'
          ? 'deadline passed while waiting for a guard thread (the organization is at its share)'
          : `guard queue refused the scan (${slot.reason})`;
      throw new GuardUnavailableError(`guard scan failed: ${why}`, 'queue');
    }
    const dispatched = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error('guard deadline')),
      Math.max(0, started + opts.timeoutMs - dispatched),
    );
    try {
      const report = (await this.piscina.run(task, { signal: controller.signal })) as GuardReport;
      return { report, queueMs: dispatched - started, runMs: performance.now() - dispatched };
    } catch (err) {
      if (controller.signal.aborted)
        throw new GuardUnavailableError('guard scan failed: deadline passed while scanning', 'run');
      throw new GuardUnavailableError(`guard scan failed: ${String((err as Error)?.name ?? 'Error')}`, 'failed');
    } finally {
      clearTimeout(timer);
      slot.release();
    }
  }

  stats() {
    return { size: this.size, threads: this.piscina.threads.length, ...this.slots.stats() };
  }

  async shutdown(): Promise<void> {
    await this.piscina.destroy();
  }
}
