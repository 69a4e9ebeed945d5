// Runs one whitelisted statistical operation on a CSV in the Docker sandbox (pandas), and
// turns what happened into a plain value. Sandbox infrastructure errors (unavailable, at
// capacity) are thrown unchanged for the caller to map; everything else is a result.
import { readFileSync } from 'node:fs';
import { runPython, type SandboxResult } from '../sandbox/runner.js';
import type { SlotPool } from '../sandbox/slots.js';
import type { StatsSpec } from '../../engines/stats/query.js';

const PROGRAM = readFileSync(new URL('./stats_query.py', import.meta.url), 'utf8');

/** pandas import (~2.5 s cold) plus reading up to 10 MB of CSV, with room to spare. */
export const STATS_PYTHON_TIMEOUT_MS = 20_000;
/** A 10 MB CSV read as text cells needs more than the sandbox's default 256 MiB. */
export const STATS_MEMORY_BYTES = 768 * 1024 * 1024;
/** The file name the program reads (in the sandbox's working directory). */
export const STATS_DATA_FILE = 'data.csv';

export type StatsRun =
  | { kind: 'ok'; observed: number; holds: boolean | null; rows: number; usedValues: number; durationMs: number }
  | { kind: 'validation'; message: string; durationMs: number }
  | { kind: 'execution'; message: string; durationMs: number }
  /** The sandbox ran but its Python lacks what the program needs (pandas). */
  | { kind: 'runtime'; message: string; durationMs: number };

export interface StatsRunOptions {
  timeoutMs?: number;
  slots?: SlotPool;
}

/** Throws SandboxUnavailableError / SandboxCapacityError; every other outcome is a StatsRun. */
export async function runStatsProgram(csv: Buffer, spec: StatsSpec, opts: StatsRunOptions = {}): Promise<StatsRun> {
  const result = await runPython(PROGRAM, {
    files: [{ name: STATS_DATA_FILE, content: csv }],
    stdin: JSON.stringify(spec),
    timeoutMs: opts.timeoutMs ?? STATS_PYTHON_TIMEOUT_MS,
    memoryBytes: STATS_MEMORY_BYTES,
    slots: opts.slots,
  });
  return interpret(result);
}

export function interpret(r: SandboxResult): StatsRun {
  const durationMs = r.durationMs;
  if (r.timedOut)
    return { kind: 'execution', message: 'The computation did not finish within its time limit.', durationMs };
  if (r.oomKilled) return { kind: 'execution', message: 'The computation ran out of memory.', durationMs };
  if (r.outputTruncated) return { kind: 'execution', message: 'The computation produced too much output.', durationMs };
  if (r.exitCode === 3 && r.stderr.startsWith('runtime_unavailable')) {
    return { kind: 'runtime', message: 'The sandbox runtime lacks the statistics library (pandas).', durationMs };
  }
  if (r.exitCode !== 0)
    return { kind: 'execution', message: `The computation failed (exit status ${r.exitCode}).`, durationMs };
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    return { kind: 'execution', message: 'The computation returned no readable result.', durationMs };
  }
  if (out.ok === true && typeof out.observed === 'number' && Number.isFinite(out.observed)) {
    return {
      kind: 'ok',
      observed: out.observed,
      holds: typeof out.holds === 'boolean' ? out.holds : null,
      rows: Number(out.rows ?? 0),
      usedValues: Number(out.used_values ?? 0),
      durationMs,
    };
  }
  const message = typeof out.message === 'string' ? out.message.slice(0, 300) : 'The computation failed.';
  return { kind: out.kind === 'validation' ? 'validation' : 'execution', message, durationMs };
}
