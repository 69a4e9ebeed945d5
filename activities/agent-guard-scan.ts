// The agent guards (engines/agent-guards: exfiltration on the query, the DDL and tool arguments;
// tool poisoning on the definition) run off the event loop as one task of the engine pool,
// `ENGINE_TASKS.guard` (activities/isolation/engine-tasks.ts), not in a pool of their own
// (docs/isolation.md, "Agent guards"; docs/performance.md, memory: one pool fewer per worker):
//   - admission is the engine pool's (core/fair-slots.ts): one organization holds at most
//     `perOrgCap` of its threads, guard scans and engine runs together, and waiters are served
//     round-robin across organizations, so a tenant's backlog of maximum-size requests never sits
//     in front of another tenant's request (issue 28 item 7);
//   - each scan has one deadline, queueing included: at the deadline a queued scan gives up and a
//     running one is aborted (its thread terminated, the pool's spare serves meanwhile).
// Either way the scan fails closed with GuardUnavailableError (the agent activity's 503).
import type { EnginePool } from './isolation/engine-pool.js';
import type { EngineTaskResult } from './isolation/engine-tasks.js';
import type { GuardReport, GuardTask } from '../engines/agent-guards/index.js';

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

export interface GuardRun {
  report: GuardReport;
  /** Time spent waiting for an engine thread. */
  queueMs: number;
  runMs: number;
}

/** Runs the guards of one request of `orgId` in `pool` under `timeoutMs`, queueing included; GuardUnavailableError otherwise. */
export async function scanWithGuards(
  pool: EnginePool,
  task: GuardTask,
  opts: { orgId: string | null; timeoutMs: number },
): Promise<GuardRun> {
  const r = await pool.run<EngineTaskResult<'guard'>>({ engine: 'guard', input: task }, opts);
  if (r.kind === 'ok') return { report: r.value, queueMs: r.queueMs, runMs: r.runMs };
  if (r.kind === 'timeout')
    throw r.phase === 'queue'
      ? new GuardUnavailableError(
          'guard scan failed: deadline passed while waiting for a guard thread (the organization is at its share)',
          'queue',
        )
      : new GuardUnavailableError('guard scan failed: deadline passed while scanning', 'run');
  // The thread died, the pool is shut down or its queue refused the scan: never the scan's text.
  throw new GuardUnavailableError(`guard scan failed: ${r.detail.split(':')[0]}`, 'failed');
}
