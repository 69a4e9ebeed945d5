// The statistics engine of a consensus (advisory: never VERIFIED): the /verify/stats program
// (pandas, in the sandbox) run on the literal list as a one-column CSV. pandas computes in
// IEEE doubles, so its answers compare with the float tolerance.
import { SandboxCapacityError, SandboxUnavailableError, SANDBOX_CAPACITY_MESSAGE } from '../sandbox/runner.js';
import type { SlotPool } from '../sandbox/slots.js';
import { runStatsProgram } from '../stats/run.js';
import type { StatsSpec } from '../../engines/stats/query.js';
import type { StatisticalClaim } from './query.js';
import type { EngineRun } from './types.js';

/** Decimal text of a double, without exponent noise for ordinary values. */
function doubleText(x: number): string {
  return Number.isInteger(x) ? x.toFixed(0) : String(x);
}

export async function runStatsEngine(
  s: StatisticalClaim,
  opts: { timeoutMs: number; slots?: SlotPool },
): Promise<EngineRun> {
  const base = { engine: 'stats' as const, advisory: true, method: 'pandas' };
  const csv = Buffer.from(`x\n${s.values.map((v) => v.replace(/^\+/, '')).join('\n')}\n`, 'utf8');
  const spec: StatsSpec = { op: s.fn, columns: ['x'], comparator: s.claimed === null ? null : '==', value: s.claimed };
  let run;
  try {
    run = await runStatsProgram(csv, spec, { timeoutMs: opts.timeoutMs, slots: opts.slots });
  } catch (err) {
    if (err instanceof SandboxCapacityError)
      return {
        ...base,
        status: 'BLOCKED',
        answer: null,
        message: SANDBOX_CAPACITY_MESSAGE,
        sandboxFailure: 'capacity',
      };
    if (err instanceof SandboxUnavailableError) {
      return {
        ...base,
        status: 'BLOCKED',
        answer: null,
        message: 'The code-execution sandbox is unavailable.',
        sandboxFailure: 'unavailable',
      };
    }
    throw err;
  }
  if (run.kind !== 'ok') return { ...base, status: 'BLOCKED', answer: null, message: run.message };
  const detail = { observed: run.observed, sandbox_ms: run.durationMs };
  if (run.holds !== null) {
    return {
      ...base,
      status: 'UNVERIFIABLE',
      answer: { kind: 'boolean', text: run.holds ? 'true' : 'false', precision: 'float' },
      message: `pandas computed ${s.fn} = ${run.observed} (double precision; a claimed value within 1e-9 relative counts as equal).`,
      detail,
    };
  }
  return {
    ...base,
    status: 'UNVERIFIABLE',
    answer: { kind: 'number', text: doubleText(run.observed), precision: 'float' },
    message: `pandas computed ${s.fn} in double precision.`,
    detail,
  };
}
