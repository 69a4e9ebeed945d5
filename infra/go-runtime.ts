// The Go runtime settings of the two Go processes the stack starts: the Temporal dev server and
// FerretDB (session 21, issue 22; docs/performance.md "Session 21: the Go runtimes",
// docs/configuration.md). Each is a named knob read by the stack's supervisor:
//   SVC_TEMPORAL_GOMAXPROCS / SVC_STORE_GOMAXPROCS  an integer 1-256, or `auto` (Go's own default:
//                                                  the CPUs the process may use)
//   SVC_TEMPORAL_GOGC       / SVC_STORE_GOGC        an integer 1-100000 (Go's default 100), or `off`
//   SVC_TEMPORAL_GOMEMLIMIT / SVC_STORE_GOMEMLIMIT  a size such as 512MiB, or `off` (Go's default)
// Unset or empty: the stack's default (GO_RUNTIME_DEFAULTS); a default of `undefined` leaves the
// variable as the supervisor's own environment has it. Any other value stops the stack at start,
// as a bad SVC_STORE_SYNC does. An external MONGODB_URI starts no FerretDB: its knobs do nothing.

import { auxiliaryEnv } from '../core/child-env.js';

export type GoProcess = 'temporal' | 'store';

type GoVar = 'GOMAXPROCS' | 'GOGC' | 'GOMEMLIMIT';
const GO_VARS: readonly GoVar[] = ['GOMAXPROCS', 'GOGC', 'GOMEMLIMIT'];

/** The knob's prefix per process: SVC_TEMPORAL_GOGC, SVC_STORE_GOMAXPROCS, ... */
const PREFIX: Record<GoProcess, string> = { temporal: 'SVC_TEMPORAL_', store: 'SVC_STORE_' };

/**
 * What the stack sets when a knob is unset (undefined: the inherited environment decides).
 * FerretDB: a collection per 4x heap growth (GOGC=400; its live heap is 2-5 MiB, so Go's default
 * collected every few MiB allocated: 86 collections per 1,000 verifications, 11 with 400), under a
 * soft 2 GiB ceiling: its CPU per verification -11 to -14 %, per batch item -23 to -25 %, no
 * throughput or p95 change beyond noise, +16-26 MB of its RSS. Not 256 MiB (session 21's first
 * choice): a command FerretDB answers in Go over a whole table (countDocuments on 236,000 audit
 * entries) holds ~1 GB live, and under a 256 MiB ceiling the collector ran without pause: 60.6 s
 * and 113 s of CPU against Go's defaults' 20.0 s and 31 s; under 2 GiB 17.4 s and 24 s, peak RSS
 * 1.99 against 1.93 GB. Past a 2 GiB live heap it collects more often than Go's default would. Not GOMAXPROCS=1: it halves FerretDB's context
 * switches but serialises its commands (point reads beside a long scan: 0.33x the rate, p50 x7).
 * Temporal: Go's defaults (GOGC=200 cost ~95 MB of its RSS for a CPU gain not seen beyond noise;
 * GOMAXPROCS=1 caps it at one core). docs/performance.md "Session 21: the Go runtimes".
 */
export const GO_RUNTIME_DEFAULTS: Readonly<Record<GoProcess, Readonly<Partial<Record<GoVar, string>>>>> = {
  temporal: {},
  store: { GOGC: '400', GOMEMLIMIT: '2GiB' },
};

const VALID: Record<GoVar, (v: string) => boolean> = {
  GOMAXPROCS: (v) => v === 'auto' || (/^\d{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= 256),
  GOGC: (v) => v === 'off' || (/^\d{1,6}$/.test(v) && Number(v) >= 1 && Number(v) <= 100_000),
  GOMEMLIMIT: (v) => v === 'off' || (/^[1-9]\d{0,12}(B|KiB|MiB|GiB|TiB)?$/.test(v) && memLimitBytes(v) <= MAX_INT64),
};

const MAX_INT64 = 2n ** 63n - 1n;
/**
 * The smallest GOMEMLIMIT taken (session 22): below a process's live heap a soft ceiling makes Go's
 * collector run without pause (session 21: FerretDB under 256 MiB ran a whole-table count 3x as
 * long), and both processes' live heaps exceed a few MiB at rest (FerretDB 2-5 MiB idle, ~1 GB in a
 * whole-table scan; Temporal hundreds of MiB), so a value such as `64` (bytes) or `1MiB` is a
 * mistake, not a tuning: it stops the stack at start with the knob's own message.
 */
export const MIN_GOMEMLIMIT_BYTES = 64n * 1024n ** 2n;
const UNIT_POWER: Record<string, bigint> = { B: 0n, KiB: 1n, MiB: 2n, GiB: 3n, TiB: 4n };

/** A GOMEMLIMIT size in bytes: Go refuses one past 2^63-1 by aborting the process at start ("malformed GOMEMLIMIT"). */
function memLimitBytes(v: string): bigint {
  const [, digits, unit] = /^(\d+)([A-Za-z]*)$/.exec(v)!;
  return BigInt(digits) * 1024n ** UNIT_POWER[unit || 'B']!;
}

/** The knob's name for one process and variable (SVC_TEMPORAL_GOMAXPROCS, ...). */
export const goRuntimeKnob = (proc: GoProcess, v: GoVar): string => `${PREFIX[proc]}${v}`;

/**
 * The environment a Go process of the stack starts with: `base` (the supervisor's own
 * environment: Temporal and FerretDB never get the service's secrets) with GOMAXPROCS, GOGC and
 * GOMEMLIMIT set from the knobs in `knobs` (the stack's environment), else from the defaults.
 * GOMAXPROCS=auto removes the variable, so that Go picks the CPU count.
 */
export function goRuntimeEnv(proc: GoProcess, knobs: NodeJS.ProcessEnv, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // Neither Go process reads the service's settings and secrets (session 21 review; the one
  // builder of every auxiliary process's environment since session 22: core/child-env.ts).
  const env = auxiliaryEnv(base);
  for (const v of GO_VARS) {
    const knob = goRuntimeKnob(proc, v);
    const raw = knobs[knob]?.trim();
    const value = raw ? raw : GO_RUNTIME_DEFAULTS[proc][v];
    if (value === undefined) continue;
    if (!VALID[v](value))
      throw new Error(
        `${knob} must be ${v === 'GOMAXPROCS' ? 'an integer 1-256 or auto' : v === 'GOGC' ? 'an integer 1-100000 or off' : 'a size such as 512MiB (B, KiB, MiB, GiB, TiB) or off'}, got ${JSON.stringify(raw)}`,
      );
    if (v === 'GOMEMLIMIT' && value !== 'off' && memLimitBytes(value) < MIN_GOMEMLIMIT_BYTES)
      throw new Error(
        `${knob} must be at least 64MiB (a ceiling below the process's live heap keeps Go's collector running without pause), or off; got ${JSON.stringify(raw)}`,
      );
    if (v === 'GOMAXPROCS' && value === 'auto') delete env.GOMAXPROCS;
    else env[v] = value;
  }
  return env;
}
