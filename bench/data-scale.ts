// Benchmark (issue 22): is the service flat with data? Measures, on an empty store and then on a
// seeded one, in the same run and on the same stack:
//   - one 100-item math batch job, submit → completed (median of --runs);
//   - --concurrent-jobs (10) such jobs submitted at once: wall time, items/s, failed items, and
//     the POST /verify/batch latency (p95, max) while they are submitted;
//   - POST /verify/math at --clients (8) for --seconds: req/s, p50/p95, and CPU per
//     verification by process (API with its in-process worker, worker, store, Temporal);
//   - API + worker resident memory after the load;
//   - the audit lists, the export and the reports (/audit/logs, /logs, /audit/export,
//     /metrics/{org_id}, SOC 2 report, threat summary, a finished job);
//   - what the store itself pays for estimatedDocumentCount / countDocuments and one audit page.
// The seed is written directly, in bulk, in the shapes the service writes, built with the
// service's own modules: --verifications (100,000) /verify/math verifications and --jobs
// (1,000) finished batch jobs of --job-items (100) math items, over --orgs (20) organizations
// (the benchmark tenant is one of them). Every verification and every batch item has its proof
// (the math engine's own artifact), its signed attestation record and its audit entry (the
// audit log's own group-committed append, with position index and head); every job has its
// slot, claim, job audit entry and the completed job document with all its item views.
//   npx tsx bench/data-scale.ts [--verifications 100000] [--jobs 1000] [--orgs 20] [--job-items 100]
//        [--runs 9] [--concurrent-jobs 10] [--rounds 12] [--poll-ms 100] [--seconds 12] [--clients 8] [--list-calls 6]
//        [--warm-seconds 4] [--batch-only] [--no-count-probes] [--capture <dir>] [--profile bench-scale]
//        [--max-jobs N]   (session 17: SVC_BATCH_MAX_JOBS of the stack; by default the empty phase's jobs + the seed + one burst,
//                          so the seeded phase runs at the limit and each admission evicts a finished job)
//        [--post-trace]   (session 18: each burst's POSTs broken down; with --capture, their store commands)
//        [--interleave 8] [--slice-seconds 5]   (session 20: an empty stack beside the seeded one, measured
//                          in alternation; 0 = off)
//        [--burst-wait both|poll|wait] [--aa]   (session 23: the bursts' polls apart; the A/A noise floor)
// Both phases get the same warm-up before they are measured, and it is excluded from every
// figure (session 12): a short /verify/math load, one job, and one burst of --concurrent-jobs
// submissions (the first burst of a process opens driver connections and takes new slots; it
// made the empty phase's POST p95 look 300 ms). The batch figures are medians of --runs single
// jobs and of --rounds bursts, printed with their spread (min-max); the figures outside 10 % are
// listed at the end, with whether the two phases' ranges overlap (noise) or not.
// Session 20: the two phases run minutes apart, and on a machine shared with other work the
// load moves between them (one run here: the same code's POSTs 200-900 ms in the empty phase,
// 30-200 ms in the seeded one, the load falling from 15 to 7). More repeats (--runs 9, --rounds
// 12), the p95 of every POST pooled beside the median of the bursts' p95s, and --interleave: an
// empty stack started beside the seeded one after the seeded phase, the two measured in
// alternation (bursts and /verify/math slices), so that the load weighs on both alike.
// Session 16: the batch figures' headline is submit → completed as the stack stored it (the
// job's completed_at from the epoch ms the POST was sent; one machine, one clock): the client's
// poll (--poll-ms for single jobs, 500 ms in bursts) rounded the seen time up to the next poll,
// a whole interval's difference between two phases for one poll's phase shift. The client-seen
// figures are printed beside them. With --capture, each phase's store commands per single job
// and per burst are counted by process, collection and kind, empty beside seeded.
// Session 23 (docs/performance.md "Session 23: what the figures measure"): a polled burst's "CPU
// per item" includes its clients' GETs every 500 ms, so a side whose bursts run longer is charged
// more reads. --burst-wait both (the default) runs each interleaved side's bursts twice per pair:
// polled (today's rows, unchanged) and waited (each client waits for its workflow through
// Temporal's long poll, which sends the store nothing, then reads its job once), and prints the
// GETs per burst, a finished job's GET priced alone (100 GETs on a quiet stack per side and pair)
// and the polled figure with its extra polls priced out. --aa: two stacks of the same state
// measured by the same interleave (the noise floor of its paired ratios).
// Session 24 (docs/performance.md "Session 24: deciding the goal figures"): the pooled POST p95
// with a pair bootstrap interval (printed, not judged: one slow burst sets it), the phases' bursts
// by --burst-wait and their /verify/math load in --phase-slices (7) slices spread between the
// bursts, unrounded CPU per verification in the interleave, --aa --at-limit (both stacks evict on
// every measured admission; each side's slots printed), and a closing table: every goal figure
// with its interval, the A/A's beside it (--aa-floor <an --aa run's --figures-json>), within 10 %
// yes / no / undecided, and the stage times.
// The full run (the defaults) is for a quiet machine: it seeds 200,000 audit entries and signs
// as many attestations. Validate with small numbers (--verifications 3000 --jobs 30).
// Ports: a private stack on the test ports shifted by SVC_BENCH_PORT_OFFSET (default 930).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBenchStack, percentile } from './bench-stack.js';
import { Client, Connection } from '@temporalio/client';
import { freePort, testPorts, type Stack } from '../infra/stack.js';
import { Store } from '../core/store.js';
import { AuditLog, sweepOldAuditClaims, type AuditHeadDoc } from '../persistence/audit.js';
import { sha256Ref } from '../core/canonical-json.js';
import { AttestationSigner, loadSigningKey } from '../core/attestation.js';
import { attestationRecords, type AttestationRecord } from '../persistence/proofs.js';
import { buildDiagnostic, type EngineOutcome } from '../core/diagnostic.js';
import { BATCH_CONCURRENCY, batchCounters, batchUnits, itemViews, type BatchItemOutcome } from '../core/batch.js';
import {
  BatchJobStore,
  resultId,
  type BatchJobDoc,
  type BatchResultDoc,
  packRequestDoc,
  packResultDoc,
  type StoredRequestDoc,
  type StoredResultDoc,
  type BatchSlotClaimDoc,
} from '../persistence/batch.js';
import { mathBatchOutcome } from '../engines/math.js';
import { auditFields, auditLogId } from '../activities/audit.js';
import { batchItemAuditLogId } from '../activities/verify-batch.js';
import { batchWorkflowId, newJobId } from '../api/batch-jobs.js';
import { requestDigest } from '../api/temporal.js';
import { captureEnv } from '../test/store-commands/env.js';
import { classify, label, readCapture, summarize, type Captured } from '../test/store-commands/classify.js';
import { groupSample, type ProcSample } from './proc-sample.js';
import { MATH_ITEM_MIX } from './math-items.js';
import {
  abba,
  bootstrapRatio,
  burstKinds,
  closingRows,
  compareFigures,
  medianOf,
  pairedRatio,
  phaseMedianRatio,
  pollsPricedOut,
  pooledP95Ratio,
  postFigures,
  probePerCall,
  p95Of,
  pooledPerVerification,
  sliceAfterRound,
  type BurstKind,
  type GoalFigure,
} from './round-stats.js';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  // Session 16: `--help` used to start the full run (100,000 verifications) on the default ports.
  console.log(
    [
      'npx tsx bench/data-scale.ts [--verifications 100000] [--jobs 1000] [--orgs 20] [--job-items 100]',
      '     [--runs 9] [--concurrent-jobs 10] [--rounds 12] [--poll-ms 100] [--seconds 12] [--clients 8]',
      '     [--list-calls 6] [--warm-seconds 4] [--batch-only] [--no-count-probes] [--capture <dir>] [--profile bench-scale]',
      'A small run for development: --verifications 3000 --jobs 30 --batch-only (ports: SVC_BENCH_PORT_OFFSET, default 930).',
      '--capture <dir>: store commands per single job and per burst, empty beside seeded.',
      "--max-jobs N: the stack's SVC_BATCH_MAX_JOBS (default: the empty phase's jobs + the seed + one burst, so the seeded phase evicts a job per admission).",
      '--post-trace: every burst POST broken down (before the handler, admission, start, answer, event-loop lag; with --capture its store commands).',
      '--interleave N (default 8; 0 = off): after the seeded phase, an empty stack beside the seeded one (ports +25), N pairs of bursts and',
      '     --slice-seconds (5) /verify/math slices in alternation (ABBA), both stores quiet before each: the figures the load weighs on alike.',
      "--store-pprof <dir> [--pprof-burst-seconds 4]: FerretDB CPU profiles of every interleaved burst and slice, and of each phase's",
      '     /verify/math load, per side (<dir>/<side>-<burst|slice|load>-<i>.pprof; merge with go tool pprof -top <files>).',
      '     With --post-trace the interleaved bursts are broken down too, span by span, empty beside seeded (paired per burst).',
      "--restart-seeded-api: restart the seeded stack's API halfway through the interleave (pairs before and after printed apart); --empty-max-jobs N: the empty stack's job limit there.",
      '--phase-slices K (default 7; 0 = one load of --seconds after the bursts, as before session 24) --phase-slice-seconds S (default --slice-seconds):',
      "     each phase's /verify/math load in K slices spread between its bursts, pooled for the phase's rows, their median in the closing table.",
      "--figures-json <file>: the closing table written as JSON; --aa-floor <file>: an --aa run's JSON, its ratios printed beside as the noise floor.",
      "--burst-wait both|poll|wait (default both): the bursts (session 24: the phases' too) poll each job every 500 ms (poll, the figures before session 23),",
      '     or wait for its workflow through Temporal and read it once (wait: no poll in the CPU per item), or one of each per pair',
      "     (both: the waited rows, the GETs per burst, a finished job's GET priced alone and the polled rows with their extra GETs priced out).",
      "     For a figure compared with session 22's, run --burst-wait poll: both runs two bursts per side and pair (twice the jobs and evictions).",
      '--aa: the noise floor: two stacks of the same state (both seeded by --verifications/--jobs, 0 0 = both empty; --max-jobs',
      '     default 100000: neither evicts) measured by the same interleave, no phases; its paired ratios B/A are chance alone.',
      '     For the POST p95 floor at the limit (the seeded side of a goal run evicts), add --at-limit (session 24: --max-jobs',
      "     = the seed's jobs + the warm-up's, so both stacks evict on every measured admission; the run prints each side's slots).",
    ].join('\n'),
  );
  process.exit(0);
}
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const VERIFICATIONS = Number(arg('verifications', '100000'));
const JOBS = Number(arg('jobs', '1000'));
const ORGS = Math.max(1, Number(arg('orgs', '20')));
const JOB_ITEMS = Number(arg('job-items', '100'));
/** Single jobs per phase (session 20: 9, was 5; each costs ~0.1-0.5 s). */
const RUNS = Number(arg('runs', '9'));
const CONCURRENT_JOBS = Number(arg('concurrent-jobs', '10'));
/**
 * Bursts of CONCURRENT_JOBS submissions per phase (each one's POST p95 and items/s; the median is
 * printed with the range). Session 20: 12, was 5. A burst's p95 of 10 POSTs is its slowest POST,
 * so one slow POST sets a round's figure; with 5 rounds, three such rounds set the median.
 */
const ROUNDS = Math.max(1, Number(arg('rounds', '12')));
/** The single jobs' poll interval (ms): the client-seen figure is rounded up to it; the stored figure is not. */
const POLL_MS = Math.max(5, Number(arg('poll-ms', '100')));
/** Seconds of /verify/math load in each phase's warm-up (excluded from the figures). */
const WARM_SECONDS = Number(arg('warm-seconds', '4'));
const SECONDS = Number(arg('seconds', '12'));
const CLIENTS = Number(arg('clients', '8'));
/** Calls per list endpoint (the first is a warm-up; the median of the rest is printed). */
const LIST_CALLS = Math.max(2, Number(arg('list-calls', '6')));
/** --capture <dir>: the API and worker record their store commands (test/store-commands/capture.mjs); the single-job runs are classified at the end. */
const CAPTURE = arg('capture', '');
/**
 * --post-trace (session 18): the API traces every POST /verify/batch (api/batch-post-trace.ts, debug
 * level) and each burst's POSTs are broken down: before the handler, admission, workflow start,
 * answer, the API's event-loop lag, and (with --capture) the store commands each POST issued.
 */
const POST_TRACE = args.includes('--post-trace');
/** --profile <name>: the stack's data folder (.data/<name>), so that two runs can go side by side (session 14: SVC_STORE_SYNC=normal against full). */
const PROFILE = arg('profile', 'bench-scale');
/**
 * --interleave <pairs> (session 20; 0 = off): after the seeded phase, a second stack with an empty
 * store starts beside the seeded one (ports shifted by INTERLEAVE_PORT_SHIFT more) and the two are
 * measured in alternation, in an ABBA order: per pair, one burst of CONCURRENT_JOBS on each, then
 * (unless --batch-only) --slice-seconds of the /verify/math load on each, each after a wait for
 * both stores to be quiet. The machine's load (other work on it) then weighs on both alike, which
 * the two phases, minutes apart, cannot promise.
 */
const INTERLEAVE = Math.max(0, Number(arg('interleave', '8')));
const SLICE_SECONDS = Number(arg('slice-seconds', '5'));
/**
 * Session 24 (docs/performance.md "Session 24: deciding the goal figures"): each phase's
 * /verify/math load as --phase-slices slices of --phase-slice-seconds, spread between the phase's
 * bursts (sliceAfterRound), each after a wait for a quiet store. Today's figures are the slices
 * pooled; the closing table takes the median of the slices with a bootstrap interval, which one
 * slice that a background task landed in does not move. 0: one load of --seconds after the
 * bursts, as before.
 */
const PHASE_SLICES = Math.max(0, Number(arg('phase-slices', '7')));
const PHASE_SLICE_SECONDS = Number(arg('phase-slice-seconds', String(SLICE_SECONDS)));
const INTERLEAVE_PORT_SHIFT = 25;
/**
 * Session 22 (the POST at the limit; docs/performance.md "Session 22: the POST at the limit"):
 * --restart-seeded-api restarts the seeded stack's API process (with its in-process worker) halfway
 * through the interleaved pairs and warms it up again: the pairs before (the seeded API served both
 * phases) and after (as fresh as the empty stack's) are printed apart; --empty-max-jobs N gives the interleave's empty stack its own job limit (a small one
 * puts it at the limit too, so that both sides evict on every admission).
 */
const RESTART_SEEDED_API = args.includes('--restart-seeded-api');
/** The pair before which --restart-seeded-api restarts the seeded API (an even pair: ABBA stays balanced on both halves). */
const restartAt = (pairs: number) => 2 * Math.floor(pairs / 4);

/** Session 22: one side's interleaved figures of pairs [from, to) only. */
function sliceSide(x: Side, from: number, to: number): Side {
  const per = (m: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.slice(from, to)]));
  return {
    ...x,
    p95: x.p95.slice(from, to),
    posts: x.posts.slice(from * CONCURRENT_JOBS, to * CONCURRENT_JOBS),
    itemsPerS: x.itemsPerS.slice(from, to),
    cpuItem: per(x.cpuItem),
    rps: x.rps.slice(from, to),
    cpuVer: per(x.cpuVer),
    ioVer: per(x.ioVer),
    settleCpu: x.settleCpu.slice(from, to),
    runs: x.runs.slice(from, to),
    spans: x.spans.slice(from, to),
    polls: x.polls.slice(from, to),
    getCpu: per(x.getCpu),
    waited: {
      p95: x.waited.p95.slice(from, to),
      itemsPerS: x.waited.itemsPerS.slice(from, to),
      cpuItem: per(x.waited.cpuItem),
      writtenKiB: x.waited.writtenKiB.slice(from, to),
      polls: x.waited.polls.slice(from, to),
      posts: x.waited.posts.slice(from, to),
    },
  };
}
const EMPTY_MAX_JOBS = arg('empty-max-jobs', '');
/**
 * --burst-wait both|poll|wait (session 23; default both): how the interleaved bursts' clients learn
 * that their jobs completed. `poll` is sessions 15-22's burst: a GET of each job every 500 ms, so
 * its "CPU per item" includes the polls, and a burst that runs longer (the seeded side's) is
 * charged more of them (docs/store-access.md §15 "One more confound"). `wait`: each client waits
 * for its job's workflow to close through Temporal, then reads the job once (one GET per job
 * however long the burst runs). `both`: each side runs one of each per pair, in an order that
 * reverses every pair; the polled figures keep their rows (runs compare), the waited ones are
 * printed beside them with the GETs per burst and a finished job's GET priced alone (getProbe).
 * For a figure compared with session 22's, run `poll`: `both` runs two bursts per side and pair
 * (twice the jobs, evictions and held deletions of sessions 20-22's pairs; review D4).
 */
const BURST_WAIT = arg('burst-wait', 'both');
if (!['both', 'poll', 'wait'].includes(BURST_WAIT)) {
  console.error(`--burst-wait must be both, poll or wait, got ${JSON.stringify(BURST_WAIT)}`);
  process.exit(2);
}
const BURST_KINDS: BurstKind[] = BURST_WAIT === 'both' ? ['poll', 'wait'] : [BURST_WAIT as BurstKind];
/**
 * --aa (session 23): the noise floor of the interleaved ratios. Instead of the phases and an empty
 * stack beside the seeded one, two stacks of the same state (both seeded alike by --verifications
 * and --jobs, 0 and 0 for two empty ones; the same job limit, --max-jobs, by default one no burst
 * reaches) are measured in alternation exactly as the interleave measures empty against seeded.
 * Their paired ratios (B/A) are what chance alone moves a ratio by on this machine at this load.
 * Its POST p95 floor is then that of stacks below the limit: for the floor at the limit, pass
 * --max-jobs <the seeded limit> (review D4).
 */
const AA = args.includes('--aa');
/** --batch-only: the batch figures only (no /verify/math load, lists, reports or store probes): the batch path's own run. */
const BATCH_ONLY = args.includes('--batch-only');
/**
 * --store-pprof <dir> (session 22, docs/store-access.md §15): each stack's FerretDB gets a debug
 * port, and a CPU profile of it is taken over every interleaved burst (--pprof-burst-seconds from
 * its first POST) and slice, and over each phase's /verify/math load: what the seeded store's
 * FerretDB does that the empty one does not, the same work on both sides.
 */
const STORE_PPROF = arg('store-pprof', '');
const PPROF_BURST_SECONDS = Math.max(1, Number(arg('pprof-burst-seconds', '4')));
const storeDebugPorts = new WeakMap<Stack, number>();
/** A CPU profile of the stack's FerretDB over the next `seconds` (nothing without --store-pprof). */
async function storeProfile(stack: Stack, name: string, seconds: number): Promise<void> {
  const port = storeDebugPorts.get(stack);
  if (!STORE_PPROF || port === undefined) return;
  const res = await fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=${Math.ceil(seconds)}`).catch(
    (err: Error) => {
      console.error(`[store-pprof] ${name}: ${err.message}`);
      return null;
    },
  );
  if (!res?.ok) return;
  mkdirSync(STORE_PPROF, { recursive: true });
  writeFileSync(path.join(STORE_PPROF, `${name}.pprof`), Buffer.from(await res.arrayBuffer()));
}
/** Starts a bench stack, with FerretDB's debug port under --store-pprof. */
async function benchStack(profile: string, offset: number, env: Record<string, string>, ports = testPorts(offset)) {
  const storeDebugPort = STORE_PPROF ? await freePort() : undefined;
  const b = await startBenchStack(profile, offset, env, { ports, ...(storeDebugPort ? { storeDebugPort } : {}) });
  if (storeDebugPort) storeDebugPorts.set(b.stack, storeDebugPort);
  return b;
}
/** --no-count-probes: skip the whole-collection counts among the store probes (on the full seed each reads 100,000+ documents, up to the driver's time-out). */
const COUNT_PROBES = !args.includes('--no-count-probes');
/** Verifications prepared and written per step (one insertMany per collection, appends group-committed). */
const CHUNK = 500;
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });
const DAY_MS = 86_400_000;

const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
};

// ---------------------------------------------------------------------------------------------
// Process CPU and memory (by process group: each stack process is started in its own group)
// ---------------------------------------------------------------------------------------------

function stackSample(stack: Stack): Record<string, ProcSample> {
  return {
    api: groupSample(stack.api.pid),
    worker: stack.workers.reduce(
      (acc, w) => {
        const s = groupSample(w.pid);
        return { cpuMs: acc.cpuMs + s.cpuMs, rssMb: acc.rssMb + s.rssMb };
      },
      { cpuMs: 0, rssMb: 0 },
    ),
    store: groupSample(stack.ferret?.pid),
    temporal: groupSample(stack.temporal.pid),
  };
}

/**
 * Session 19: waits until the store is quiet (FerretDB under 5 % of a core over 500 ms, at most
 * 20 s) before the /verify/math load, so that what the batch figures left behind (an evicted
 * job's deletion held past the last burst, the bursts' WAL checkpoint) is not counted per
 * verification. Returns how long it waited, the store CPU spent meanwhile, and the window.
 */
async function settleStore(stack: Stack): Promise<{ ms: number; storeCpuMs: number; window: [number, number] }> {
  const w0 = Date.now();
  const first = stackSample(stack).store as ProcSample;
  let last = first;
  while (Date.now() - w0 < 20_000) {
    await sleep(500);
    const now = stackSample(stack).store as ProcSample;
    const quiet = now.cpuMs - last.cpuMs < 25;
    last = now;
    if (quiet) break;
  }
  return { ms: Date.now() - w0, storeCpuMs: last.cpuMs - first.cpuMs, window: [w0, Date.now()] };
}

// ---------------------------------------------------------------------------------------------
// /verify/math under load
// ---------------------------------------------------------------------------------------------

interface Load {
  rps: number;
  p50: number;
  p95: number;
  errors: number;
  /** CPU ms per successful verification, by process. */
  cpu: Record<string, number>;
  rssMb: Record<string, number>;
  /** Session 19: when the load ran (epoch ms, for the capture) and how many verifications answered 200. */
  window?: [number, number];
  ok?: number;
  /** Session 19: the wait for a quiet store before the load (settleStore). */
  settle?: { ms: number; storeCpuMs: number; window: [number, number] };
  /** Session 23: the store's read syscalls, KiB read and KiB written per verification (/proc/<pid>/io; counts the load does not change). */
  storeIo?: { reads: number; kibRead: number; kibWritten: number };
  /** Session 24: the load's raw sums (a phase's slices are pooled from them): CPU ms by process, wall ms, latencies, store I/O deltas. */
  raw?: {
    cpuMs: Record<string, number>;
    wallMs: number;
    lat: number[];
    io: { syscr: number; rchar: number; wchar: number };
  };
  /** Session 24: when each slice of a phase's load ran (the capture's windows). */
  windows?: Array<[number, number]>;
}

async function load(stack: Stack, base: string, key: string, seconds = SECONDS): Promise<Load> {
  const lat: number[] = [];
  let errors = 0;
  const w0 = Date.now();
  const before = stackSample(stack);
  const io0 = storeIo(stack);
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const res = await fetch(`${base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: BODY,
        }).catch(() => null);
        if (res?.status === 200) {
          await res.arrayBuffer();
          lat.push(performance.now() - s);
        } else {
          errors++;
          await res?.arrayBuffer();
        }
      }
    }),
  );
  const wall = performance.now() - t0;
  const after = stackSample(stack);
  const io1 = storeIo(stack);
  lat.sort((a, b) => a - b);
  const n = Math.max(1, lat.length);
  const cpu: Record<string, number> = {};
  const rssMb: Record<string, number> = {};
  for (const k of Object.keys(after)) {
    cpu[k] = round(((after[k] as ProcSample).cpuMs - (before[k] as ProcSample).cpuMs) / n);
    rssMb[k] = (after[k] as ProcSample).rssMb;
  }
  cpu.total = round(Object.values(cpu).reduce((a, b) => a + b, 0));
  const cpuMs: Record<string, number> = {};
  for (const k of Object.keys(after)) cpuMs[k] = (after[k] as ProcSample).cpuMs - (before[k] as ProcSample).cpuMs;
  return {
    raw: {
      cpuMs,
      wallMs: wall,
      lat,
      io: { syscr: io1.syscr - io0.syscr, rchar: io1.rchar - io0.rchar, wchar: io1.wchar - io0.wchar },
    },
    window: [w0, Date.now()],
    ok: lat.length,
    rps: round((lat.length / wall) * 1000),
    p50: round(percentile(lat, 50)),
    p95: round(percentile(lat, 95)),
    errors,
    cpu,
    rssMb,
    storeIo: {
      reads: round((io1.syscr - io0.syscr) / n),
      kibRead: round2((io1.rchar - io0.rchar) / 1024 / n),
      kibWritten: round2((io1.wchar - io0.wchar) / 1024 / n),
    },
  };
}

/**
 * Session 24: CPU ms per verification by process (and `total`), unrounded, from a load's raw sums:
 * /proc counts in 10 ms ticks, so a 5 s slice of ~400 verifications resolves ~0.03 ms, where the
 * printed figure is rounded to 0.1 ms (about 9 % of the store's ~1.1 ms).
 */
function perVerification(l: Load): Record<string, number> {
  if (!l.raw) return l.cpu;
  const n = Math.max(1, l.ok ?? 0);
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(l.raw.cpuMs)) out[k] = v / n;
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

/**
 * Session 24: a phase's /verify/math load taken in slices spread over the phase (--phase-slices;
 * 7 by default: an odd count, so that the median is a slice and one slice a background task
 * landed in moves neither it nor its bootstrap interval; test/unit/data-scale-decide-s24),
 * pooled into the figure the single load printed before: CPU per verification over every slice's
 * verifications, req/s over their wall time, the latencies of all of them. Memory is the last
 * slice's.
 */
function pooledLoad(slices: Load[]): Load {
  const ok = slices.reduce((a, l) => a + (l.ok ?? 0), 0);
  const n = Math.max(1, ok);
  const wall = slices.reduce((a, l) => a + (l.raw?.wallMs ?? 0), 0);
  const lat = slices.flatMap((l) => l.raw?.lat ?? []).sort((a, b) => a - b);
  const pooled = pooledPerVerification(slices.map((l) => ({ ok: l.ok ?? 0, cpuMs: l.raw?.cpuMs ?? {} })));
  const cpu = Object.fromEntries(Object.entries(pooled).map(([k, v]) => [k, round(v)]));
  const io = (k: 'syscr' | 'rchar' | 'wchar') => slices.reduce((a, l) => a + (l.raw?.io[k] ?? 0), 0);
  const settles = slices.flatMap((l) => (l.settle ? [l.settle] : []));
  return {
    windows: slices.flatMap((l) => (l.window ? [l.window] : [])),
    window: [slices[0]?.window?.[0] ?? 0, slices.at(-1)?.window?.[1] ?? 0],
    ok,
    rps: round((ok / Math.max(1, wall)) * 1000),
    p50: round(percentile(lat, 50)),
    p95: round(percentile(lat, 95)),
    errors: slices.reduce((a, l) => a + l.errors, 0),
    cpu,
    rssMb: slices.at(-1)?.rssMb ?? {},
    ...(settles.length
      ? {
          settle: {
            ms: settles.reduce((a, x) => a + x.ms, 0),
            storeCpuMs: settles.reduce((a, x) => a + x.storeCpuMs, 0),
            window: (settles[0] as { window: [number, number] }).window,
          },
        }
      : {}),
    storeIo: {
      reads: round(io('syscr') / n),
      kibRead: round2(io('rchar') / 1024 / n),
      kibWritten: round2(io('wchar') / 1024 / n),
    },
  };
}

/** Session 23: the store process's read syscalls (its socket reads and SQLite's page reads from the OS) and bytes read and written so far. */
function storeIo(stack: Stack): { syscr: number; rchar: number; wchar: number } {
  const pid = stack.ferret?.pid;
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const get = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(io)?.[1] ?? NaN);
    return { syscr: get('syscr'), rchar: get('rchar'), wchar: get('wchar') };
  } catch {
    return { syscr: NaN, rchar: NaN, wchar: NaN };
  }
}

// ---------------------------------------------------------------------------------------------
// Batch jobs (the stack answers POST /verify/batch at once: SVC_BATCH_WAIT_SECONDS=0)
// ---------------------------------------------------------------------------------------------

const MIX = MATH_ITEM_MIX;
const batchItems = (salt: number) =>
  Array.from({ length: 100 }, (_, i) => ({
    type: 'math',
    query:
      i % 2 === 0
        ? `(q+${salt * 100 + i})^2 = q^2 + ${2 * (salt * 100 + i)}*q + ${(salt * 100 + i) ** 2}`
        : (MIX[i % MIX.length] as string),
  }));

interface JobRun {
  postMs: number;
  doneMs: number;
  failed: number;
  jobId: string;
  /** Epoch ms just before the POST was sent. */
  sentAt: number;
  /** 503 answers before the submission was accepted. */
  refused: number;
  /** When the stack stored the job completed (its completed_at, epoch ms; same machine's clock). */
  completedAt: number;
  /**
   * Session 16: submit → completed as the stack stored it (completed_at minus the epoch ms just
   * before the POST was sent): the same definition as doneMs without the client's poll interval,
   * which rounds doneMs up to the next poll (a job stored completed at 130 ms was seen at ~220 ms).
   */
  storedMs: number;
  /** Session 23: the GETs of the job the client sent (the polls while it ran and the one that read it completed). */
  polls: number;
}

let jobSalt = 1;

/**
 * Session 23: waits for a workflow to close through Temporal's long poll of its history (the
 * client's `result()`): one call per job however long it runs, and no store command (Temporal's
 * history is its own SQLite file). The service offers no wait on GET /verify/batch/{id} (the
 * contract names none; the POST's SVC_BATCH_WAIT_SECONDS is the stack's, and the bench sets it to 0
 * to measure the POST itself), so the benchmark asks Temporal. A workflow that fails is closed too.
 */
type Waiter = (workflowId: string) => Promise<void>;
const temporalClients = new WeakMap<Stack, { client: Client; close: () => Promise<void> }>();
async function temporalWaiter(stack: Stack): Promise<Waiter> {
  let c = temporalClients.get(stack);
  if (!c) {
    const connection = await Connection.connect({ address: stack.urls.temporal_grpc as string });
    c = { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
    temporalClients.set(stack, c);
  }
  const client = c.client;
  return (workflowId) =>
    client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => undefined,
        () => undefined,
      );
}

async function runJob(base: string, key: string, pollMs: number, wait?: Waiter): Promise<JobRun> {
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const items = JSON.stringify({ items: batchItems(jobSalt++) });
  const sentAt = Date.now();
  const t0 = performance.now();
  let res = await fetch(`${base}/verify/batch`, { method: 'POST', headers, body: items });
  const postMs = performance.now() - t0;
  // A 503 (store or capacity) is counted and the submission retried, as a client would.
  let refused = 0;
  while (res.status === 503 && refused < 20) {
    refused++;
    console.error(`POST /verify/batch: 503 ${(await res.text()).slice(0, 120)} (retrying)`);
    await sleep(1000);
    res = await fetch(`${base}/verify/batch`, { method: 'POST', headers, body: items });
  }
  let body = (await res.json()) as {
    job_id: string;
    workflow_id?: string;
    status: string;
    failed_items: number;
    completed_at: string | null;
  };
  if (res.status !== 202 && res.status !== 200)
    throw new Error(`POST /verify/batch: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  let polls = 0;
  // Session 23: with a waiter, the workflow's close first, then the GETs (one, unless the store
  // has not shown the completion yet: the job is stored completed before its workflow closes).
  if (wait && body.status !== 'completed') await wait(body.workflow_id ?? res.headers.get('x-workflow-id') ?? '');
  while (body.status !== 'completed') {
    if (!wait || polls > 0) await sleep(pollMs);
    polls++;
    const r = await fetch(`${base}/verify/batch/${body.job_id}`, { headers });
    if (r.status !== 200) throw new Error(`GET /verify/batch: ${r.status} ${(await r.text()).slice(0, 200)}`);
    body = (await r.json()) as typeof body;
  }
  return {
    postMs,
    doneMs: performance.now() - t0,
    failed: body.failed_items,
    jobId: body.job_id,
    sentAt,
    refused,
    completedAt: Date.parse(body.completed_at ?? ''),
    storedMs: Date.parse(body.completed_at ?? '') - sentAt,
    polls,
  };
}

/** Median, min and max of a list of figures. */
interface Spread {
  median: number;
  min: number;
  max: number;
}
const spread = (xs: number[], r: (n: number) => number = round): Spread => ({
  median: r(median(xs)),
  min: r(Math.min(...xs)),
  max: r(Math.max(...xs)),
});
const round2 = (n: number) => Math.round(n * 100) / 100;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

interface BatchFigures {
  /** Spreads of the figures measured more than once (single jobs: --runs; bursts: --rounds). */
  spreads: Record<string, Spread>;
  single_ms: number;
  single_failed: number;
  concurrent_wall_ms: number;
  concurrent_items_per_s: number;
  concurrent_failed: number;
  post_p95_ms: number;
  /** Session 20: the p95 of every measured POST of the phase pooled (ROUNDS x CONCURRENT_JOBS of them), and how many. */
  post_p95_pooled_ms: number;
  post_n: number;
  post_max_ms: number;
  post_503: number;
  lastJobId: string;
  /** When the single-job runs started and ended (to cut the command capture). */
  window: [number, number];
  /** When each single job started and ended (the capture per job). */
  singleWindows: Array<[number, number]>;
  /** When each measured burst started and ended (to cut the command capture per burst). */
  burstWindows: Array<[number, number]>;
  /**
   * Session 24: the phase's repeated figures themselves (the closing table bootstraps their
   * medians): each single job's stored ms, and per burst kind (polled as before; waited with
   * --burst-wait both or wait) each burst's POSTs, items/s to the last stored completion and CPU
   * ms per item by process.
   */
  raw: { singleStored: number[]; kinds: Partial<Record<BurstKind, PhaseBursts>> };
}

/** Session 24: one burst kind's figures in a phase, burst by burst. */
interface PhaseBursts {
  posts: number[][];
  p95: number[];
  itemsPerS: number[];
  cpuItem: Record<string, number[]>;
}

/** Bytes the store process passed to write syscalls (session 22: its WAL frames, temporary files and answers; a count the load does not change). */
function storeWritten(stack: Stack): number {
  return storeIo(stack).wchar;
}

/**
 * One burst: CONCURRENT_JOBS jobs submitted at once, each polled until completed (`poll`, every
 * 500 ms), or (session 23, `wait`) each waited for through Temporal and then read once.
 */
async function burst(stack: Stack, base: string, key: string, kind: BurstKind = 'poll') {
  const wait = kind === 'wait' ? await temporalWaiter(stack) : undefined;
  const written0 = storeWritten(stack);
  const before = stackSample(stack);
  const t0 = performance.now();
  const from = Date.now();
  const many = await Promise.all(Array.from({ length: CONCURRENT_JOBS }, () => runJob(base, key, 500, wait)));
  const wall = performance.now() - t0;
  // Session 15: the last job stored completed, from the first POST (the stack's own completed_at):
  // the burst's work without the clients' poll interval (500 ms), which rounds the wall up.
  const storedWall = Math.max(...many.map((m) => m.completedAt)) - from;
  const after = stackSample(stack);
  const writtenKiB = (storeWritten(stack) - written0) / 1024 / (CONCURRENT_JOBS * 100);
  // CPU ms per batch item by process (load does not inflate it; the clients' polls are included).
  const cpu: Record<string, number> = {};
  for (const k of Object.keys(after))
    cpu[k] = ((after[k] as ProcSample).cpuMs - (before[k] as ProcSample).cpuMs) / (CONCURRENT_JOBS * 100);
  cpu.total = Object.values(cpu).reduce((a, b) => a + b, 0);
  const posts = many.map((m) => m.postMs).sort((a, b) => a - b);
  // Session 17: the store's TRUNCATE checkpoints (infra/ferret-checkpointer.ts) that began during
  // the POSTs (the first 400 ms): each holds SQLite's writer lock while it runs. [ms after the first POST, length ms].
  const truncates = (stack.ferretCheckpointer?.reports ?? [])
    .flatMap((r) => r.spans)
    .filter(([at]) => at >= from - 100 && at <= from + 400)
    .map(([at, ms]) => [at - from, Math.round(ms)] as const);
  return {
    wall,
    posts,
    truncates,
    itemsPerS: (CONCURRENT_JOBS * 100) / (wall / 1000),
    storedWall,
    storedItemsPerS: (CONCURRENT_JOBS * 100) / (storedWall / 1000),
    p95: percentile(posts, 95),
    failed: many.reduce((a, m) => a + m.failed, 0),
    refused: many.reduce((a, m) => a + m.refused, 0),
    polls: many.reduce((a, m) => a + m.polls, 0),
    cpu,
    writtenKiB,
    window: [from, Date.now()] as [number, number],
    runs: many,
  };
}

async function batchFigures(
  stack: Stack,
  base: string,
  key: string,
  phase: string,
  afterRound?: (round: number) => Promise<void>,
): Promise<BatchFigures> {
  const singles: JobRun[] = [];
  const from = Date.now();
  // Polled every POLL_MS (100): each poll is a GET of the job (a point read since session 15);
  // the headline figure is the stored completion, which the poll does not round.
  const singleWindows: Array<[number, number]> = [];
  for (let i = 0; i < RUNS; i++) {
    const w0 = Date.now();
    singles.push(await runJob(base, key, POLL_MS));
    singleWindows.push([w0, Date.now()]);
  }
  const window: [number, number] = [from, Date.now()];
  console.error(
    `[${phase}] one 100-item job: stored completed at ${singles.map((s) => Math.round(s.storedMs)).join(', ')} ms; seen completed at ${singles.map((s) => Math.round(s.doneMs)).join(', ')} ms (poll ${POLL_MS} ms)`,
  );
  // Session 24: the phase's bursts follow --burst-wait as the interleave's do (both: each round
  // runs one of each kind, in an order that reverses every round). Today's rows are the polled
  // bursts' (the waited ones' when --burst-wait wait); the waited ones get rows of their own.
  const byKind: Record<BurstKind, Array<Awaited<ReturnType<typeof burst>>>> = { poll: [], wait: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of burstKinds(r, BURST_KINDS)) {
      const b = await burst(stack, base, key, kind);
      byKind[kind].push(b);
      console.error(
        `[${phase}] ${CONCURRENT_JOBS} jobs at once (round ${r + 1}/${ROUNDS}, ${kind === 'poll' ? 'polled' : 'waited'}): ${Math.round(b.wall)} ms (last stored completed at ${Math.round(b.storedWall)} ms); ${b.polls} GETs; POST ms ${b.posts.map(Math.round).join(', ')}; store TRUNCATE checkpoints begun meanwhile [at ms, length ms]: ${JSON.stringify(b.truncates)}`,
      );
    }
    await afterRound?.(r);
  }
  const bursts = byKind.poll.length ? byKind.poll : byKind.wait;
  const kindFigures = (bs: typeof bursts): PhaseBursts => ({
    posts: bs.map((b) => b.posts),
    p95: bs.map((b) => b.p95),
    itemsPerS: bs.map((b) => b.storedItemsPerS),
    cpuItem: Object.fromEntries(Object.keys(bs[0]?.cpu ?? {}).map((k) => [k, bs.map((b) => b.cpu[k] ?? NaN)])),
  });
  const waited = BURST_KINDS.length > 1 ? byKind.wait : [];
  if (POST_TRACE) postBreakdown(stack, phase, bursts);
  const spreads = {
    single_ms: spread(singles.map((s) => s.doneMs)),
    single_stored_ms: spread(singles.map((s) => s.storedMs)),
    concurrent_items_per_s: spread(bursts.map((b) => b.itemsPerS)),
    concurrent_stored_items_per_s: spread(bursts.map((b) => b.storedItemsPerS)),
    concurrent_wall_ms: spread(bursts.map((b) => b.wall)),
    concurrent_stored_wall_ms: spread(bursts.map((b) => b.storedWall)),
    post_p95_ms: spread(bursts.map((b) => b.p95)),
    // Session 23: the clients' GETs per burst (polled every 500 ms; counted in its CPU per item).
    concurrent_gets: spread(bursts.map((b) => b.polls)),
    // Session 24: the waited bursts of the phase (--burst-wait both), apart.
    ...(waited.length
      ? {
          waited_concurrent_stored_items_per_s: spread(waited.map((b) => b.storedItemsPerS)),
          waited_post_p95_ms: spread(waited.map((b) => b.p95)),
          waited_concurrent_gets: spread(waited.map((b) => b.polls)),
          ...Object.fromEntries(
            Object.keys(waited[0]?.cpu ?? {}).map((k) => [
              `waited_cpu_per_item_${k}`,
              spread(
                waited.map((b) => b.cpu[k] ?? 0),
                round2,
              ),
            ]),
          ),
        }
      : {}),
    ...Object.fromEntries(
      Object.keys(bursts[0]?.cpu ?? {}).map((k) => [
        `cpu_per_item_${k}`,
        spread(
          bursts.map((b) => b.cpu[k] ?? 0),
          round2,
        ),
      ]),
    ),
  };
  return {
    spreads,
    single_ms: spreads.single_ms.median,
    single_failed: singles.reduce((a, s) => a + s.failed, 0),
    concurrent_wall_ms: spreads.concurrent_wall_ms.median,
    concurrent_items_per_s: spreads.concurrent_items_per_s.median,
    concurrent_failed: bursts.reduce((a, b) => a + b.failed, 0),
    post_p95_ms: spreads.post_p95_ms.median,
    post_p95_pooled_ms: postFigures(bursts.map((b) => b.posts)).pooled,
    post_n: postFigures(bursts.map((b) => b.posts)).posts,
    post_max_ms: round(Math.max(...bursts.flatMap((b) => b.posts))),
    post_503: [...byKind.poll, ...byKind.wait].reduce((a, b) => a + b.refused, 0),
    lastJobId: (singles[0] as JobRun).jobId,
    window,
    singleWindows,
    burstWindows: bursts.map((b) => b.window),
    raw: {
      singleStored: singles.map((s) => s.storedMs),
      kinds: Object.fromEntries(
        (['poll', 'wait'] as const).filter((k) => byKind[k].length).map((k) => [k, kindFigures(byKind[k])]),
      ),
    },
  };
}

interface PostTraceLine {
  job_id: string;
  at: number;
  total_ms: number;
  admitted_ms?: number;
  started_ms?: number;
  lag_max_ms: number;
  eager?: boolean;
  evicted?: boolean;
  submitting?: number;
  /** Session 22: the API's collections during the POST, and its heap when it answered. */
  gc_n?: number;
  gc_ms?: number;
  heap_mb?: number;
}

/** Session 22: the API's `batch post trace` lines by job id (api/batch-post-trace.ts). */
function postTraces(stack: Stack): Map<string, PostTraceLine> {
  const traces = new Map<string, PostTraceLine>();
  for (const line of readFileSync(stack.api.logFile, 'utf8').split('\n')) {
    if (!line.includes('"batch post trace"')) continue;
    try {
      const t = JSON.parse(line) as PostTraceLine;
      traces.set(t.job_id, t);
    } catch {
      /* a partial line */
    }
  }
  return traces;
}

/** Session 22: one POST's parts (ms): the client's total, before the handler, admission, start, answer, after the handler; lag and GC. */
interface PostSpan {
  client_ms: number;
  pre_ms: number;
  admit_ms: number;
  start_ms: number;
  answer_ms: number;
  post_ms: number;
  lag_max_ms: number;
  gc_ms: number;
  gc_n: number;
  heap_mb: number;
  evicted: number;
  /** With --capture: the store commands the POST issued (collection.command, ms after the handler began, driver ms). */
  cmds: Array<{ k: string; at: number; ms: number }>;
}
const SPAN_KEYS = [
  'client_ms',
  'pre_ms',
  'admit_ms',
  'start_ms',
  'answer_ms',
  'post_ms',
  'lag_max_ms',
  'gc_ms',
  'gc_n',
  'heap_mb',
  'evicted',
] as const;

function postSpans(
  run: JobRun,
  traces: Map<string, PostTraceLine>,
  tagged = new Map<string, Captured[]>(),
): PostSpan[] {
  const t = traces.get(run.jobId);
  if (!t) return [];
  const cmds = (tagged.get(run.jobId) ?? [])
    .filter((c) => c.t <= t.at + t.total_ms + 1)
    .map((c) => ({ k: `${c.coll ?? '-'}.${c.cmd}`, at: round(c.t - t.at), ms: round(c.ms ?? 0) }));
  const pre = t.at - run.sentAt;
  return [
    {
      client_ms: round(run.postMs),
      pre_ms: round(pre),
      admit_ms: round(t.admitted_ms ?? NaN),
      start_ms: round((t.started_ms ?? NaN) - (t.admitted_ms ?? NaN)),
      answer_ms: round(t.total_ms - (t.started_ms ?? NaN)),
      post_ms: round(run.postMs - pre - t.total_ms),
      lag_max_ms: t.lag_max_ms,
      gc_ms: t.gc_ms ?? NaN,
      gc_n: t.gc_n ?? NaN,
      heap_mb: t.heap_mb ?? NaN,
      evicted: t.evicted ? 1 : 0,
      cmds,
    },
  ];
}

/**
 * Session 22: the interleaved bursts' POSTs, span by span, empty beside seeded. Per span: the
 * median over every traced POST of each side, the median of the bursts' slowest POSTs (the burst's
 * p95 is its slowest POST) with that POST's spans, and the median of the per-pair ratios of the
 * bursts' medians (each pair ran under the same load).
 */
function printSpans([E, S]: Side[]) {
  const e = E as Side;
  const s = S as Side;
  const slowest = (b: PostSpan[]) =>
    b.reduce<PostSpan | null>((m, x) => (!m || x.client_ms > m.client_ms ? x : m), null);
  const med = (xs: number[]) => round(median(xs.filter(Number.isFinite)));
  const rows = SPAN_KEYS.map((k) => {
    const pe = e.spans.map((b) => med(b.map((x) => x[k])));
    const ps = s.spans.map((b) => med(b.map((x) => x[k])));
    const p = pairedRatio(pe, ps);
    const se = e.spans.map((b) => slowest(b)?.[k] ?? NaN);
    const ss = s.spans.map((b) => slowest(b)?.[k] ?? NaN);
    const ps2 = pairedRatio(se, ss);
    return {
      span: k,
      'empty, every POST': med(e.spans.flat().map((x) => x[k])),
      'seeded, every POST': med(s.spans.flat().map((x) => x[k])),
      'paired ratio of burst medians': `${p.median} (${p.min}-${p.max})`,
      'empty, slowest POST of a burst': med(se),
      'seeded, slowest POST of a burst': med(ss),
      'paired ratio of slowest POSTs': `${ps2.median} (${ps2.min}-${ps2.max})`,
    };
  });
  console.log(
    `\ninterleaved POST /verify/batch spans (session 22; ${e.spans.flat().length} / ${s.spans.flat().length} POSTs traced, ${e.spans.length} / ${s.spans.length} bursts; medians, ms):`,
  );
  console.table(rows);
  // With --capture: each store command kind the POSTs issued, per POST, its start and its driver-seen time.
  const kinds = [...new Set([...e.spans.flat(), ...s.spans.flat()].flatMap((x) => x.cmds.map((c) => c.k)))].sort();
  if (kinds.length === 0) return;
  const per = (x: Side, k: string) => {
    const posts = x.spans.flat();
    const cs = posts.flatMap((p) => p.cmds.filter((c) => c.k === k));
    return {
      n: round(cs.length / Math.max(1, posts.length)),
      at: med(cs.map((c) => c.at)),
      ms: med(cs.map((c) => c.ms)),
    };
  };
  console.log(
    "interleaved POSTs' store commands (capture; per POST, median start ms after the handler began, median driver ms):",
  );
  console.table(
    kinds.map((k) => {
      const a = per(e, k);
      const b = per(s, k);
      return {
        command: k,
        'empty n/POST': a.n,
        'seeded n/POST': b.n,
        'empty at': a.at,
        'seeded at': b.at,
        'empty ms': a.ms,
        'seeded ms': b.ms,
      };
    }),
  );
}

/**
 * Session 18: each measured burst's POSTs, broken down (--post-trace). Per POST: ms before the
 * handler (connection, auth, body), admission, workflow start, answer (view and the rest of
 * submit), after the handler (response), the API's longest event-loop lag meanwhile, and (with
 * --capture) the store commands the POST issued, each with its start (ms after the handler) and
 * duration, and how many write commands other processes had in flight meanwhile.
 */
function postBreakdown(stack: Stack, phase: string, bursts: Array<{ runs: JobRun[] }>) {
  const traces = postTraces(stack);
  const all = CAPTURE ? readCapture(path.resolve(CAPTURE)) : [];
  const tagged = new Map<string, typeof all>();
  for (const c of all) if (c.tag) tagged.set(c.tag, [...(tagged.get(c.tag) ?? []), c]);
  // Writes no POST issued (the running jobs' chunks, audit commits and completions; any process).
  const writes = all.filter((c) => !c.tag && ['insert', 'update', 'delete'].includes(c.cmd));
  const rows: Array<Record<string, string | number>> = [];
  const sums = { fast: new Map<string, number[]>(), slow: new Map<string, number[]>() };
  bursts.forEach((b, r) => {
    for (const run of b.runs) {
      const t = traces.get(run.jobId);
      if (!t) continue;
      const pre = t.at - run.sentAt;
      const admit = t.admitted_ms ?? NaN;
      const start = (t.started_ms ?? NaN) - admit;
      const answer = t.total_ms - (t.started_ms ?? NaN);
      const post = run.postMs - pre - t.total_ms;
      const cmds = (tagged.get(run.jobId) ?? []).filter((c) => c.t <= t.at + t.total_ms + 1);
      const store = cmds
        .map((c) => `${c.coll ?? c.cmd}.${c.cmd}@${Math.round(c.t - t.at)}+${Math.round(c.ms ?? 0)}`)
        .join(' ');
      const busy = writes.filter((w) => w.t <= t.at + t.total_ms && w.t + (w.ms ?? 0) >= t.at);
      const busyAudit = busy.filter((w) => w.coll === 'audit_logs' && w.cmd === 'insert');
      const jobWrites = busy
        .map(
          (w) =>
            `${w.role === 'api-process' ? 'api:' : ''}${w.coll}.${w.cmd}(${w.n ?? 1})@${Math.round(w.t - t.at)}+${Math.round(w.ms ?? 0)}`,
        )
        .join(' ');
      const row = {
        round: r + 1,
        client_ms: Math.round(run.postMs),
        pre_ms: round(pre),
        admit_ms: round(admit),
        start_ms: round(start),
        answer_ms: round(answer),
        post_ms: round(post),
        lag_max_ms: t.lag_max_ms,
        eager: t.eager ? 'yes' : '',
        evicted: t.evicted ? 'yes' : '',
        other_writes: busy.length,
        audit_inserts_max_ms: Math.round(Math.max(0, ...busyAudit.map((w) => w.ms ?? 0))),
        store_max_ms: Math.round(Math.max(0, ...cmds.map((c) => c.ms ?? 0))),
        store: store.slice(0, 200),
        job_writes: jobWrites.slice(0, 200),
      };
      rows.push(row);
      const k = run.postMs > 100 ? 'slow' : 'fast';
      for (const f of [
        'client_ms',
        'pre_ms',
        'admit_ms',
        'start_ms',
        'answer_ms',
        'post_ms',
        'lag_max_ms',
        'store_max_ms',
        'other_writes',
      ] as const) {
        const xs = sums[k].get(f) ?? [];
        xs.push(Number(row[f]));
        sums[k].set(f, xs);
      }
    }
  });
  console.error(
    `[${phase}] POST /verify/batch breakdown (${rows.length} POSTs traced; ms; store: collection.cmd@start+duration):`,
  );
  console.table(rows.sort((a, b) => Number(b.client_ms) - Number(a.client_ms)));
  const summary = (['slow', 'fast'] as const).map((k) => ({
    posts: `${k} (${k === 'slow' ? '> 100' : '<= 100'} ms): ${sums[k].get('client_ms')?.length ?? 0}`,
    ...Object.fromEntries([...sums[k]].map(([f, xs]) => [`${f} median`, round(median(xs))])),
  }));
  console.table(summary);
}

/**
 * The same warm-up before each phase, excluded from the figures: a short /verify/math load, one
 * job, one burst of CONCURRENT_JOBS submissions (connections, slots, JIT of every path measured).
 */
async function warmUp(stack: Stack, base: string, key: string, phase: string) {
  const t0 = performance.now();
  if (!BATCH_ONLY && WARM_SECONDS > 0) await load(stack, base, key, WARM_SECONDS).catch(() => undefined);
  await runJob(base, key, 100).catch(() => undefined);
  const b = await burst(stack, base, key).catch(() => null);
  console.error(
    `[${phase}] warm-up ${Math.round(performance.now() - t0)} ms (excluded)${b ? `; its burst's POST ms ${b.posts.map(Math.round).join(', ')}` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Lists and reports
// ---------------------------------------------------------------------------------------------

/** Per call: an endpoint slower than this is reported as such instead of waited for. */
const CALL_TIMEOUT_MS = 120_000;

/** Median of LIST_CALLS - 1 calls of each list endpoint (after one warm-up call); reports are timed once. */
/** Per list endpoint: wall ms (median), its spread, and the stack's CPU ms per call (API + store + Temporal + worker: load does not inflate it). */
interface ListFigures {
  ms: Record<string, number | string>;
  spreads: Record<string, Spread>;
  cpu: Record<string, number>;
}

async function lists(
  stack: Stack,
  base: string,
  key: string,
  token: string,
  orgId: string,
  jobId: string,
  phase: string,
): Promise<ListFigures> {
  const bearer = { authorization: `Bearer ${token}` };
  const apiKey = { 'x-api-key': key };
  const n = LIST_CALLS;
  const endpoints: Array<[string, string, Record<string, string>, number]> = [
    ['GET /audit/logs (limit 50)', '/audit/logs', bearer, n],
    ['GET /audit/logs?limit=200', '/audit/logs?limit=200', bearer, n],
    ['GET /audit/logs?status=blocked', '/audit/logs?status=blocked', bearer, n],
    ['GET /logs?limit=50 + next page', '/logs?limit=50', apiKey, n],
    ['GET /audit/export (1,000 rows)', '/audit/export', bearer, n],
    ['GET /auth/api-keys', '/auth/api-keys', bearer, n],
    ['GET /verify/batch/{job_id} (finished)', `/verify/batch/${jobId}`, apiKey, n],
    // Reports aggregate the organization's entries: timed once each.
    ['GET /metrics/{org_id} (1 call)', `/metrics/${orgId}`, apiKey, 1],
    ['GET /admin/compliance/report/soc2/{org_id} (1 call)', `/admin/compliance/report/soc2/${orgId}`, apiKey, 1],
    ['GET /admin/security/threats/{org_id} (1 call)', `/admin/security/threats/${orgId}`, apiKey, 1],
  ];
  const out: Record<string, number | string> = {};
  const spreads: Record<string, Spread> = {};
  const cpu: Record<string, number> = {};
  const cpuOf = (x: Record<string, ProcSample>) => Object.values(x).reduce((a, p) => a + p.cpuMs, 0);
  for (const [label, path, headers, calls] of endpoints) {
    const times: number[] = [];
    let cpu0 = 0;
    for (let i = 0; i < calls; i++) {
      if (i === (calls > 1 ? 1 : 0)) cpu0 = cpuOf(stackSample(stack)); // after the warm-up call
      const s = performance.now();
      const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }).catch(
        () => null,
      );
      if (!res) {
        out[label] = `> ${CALL_TIMEOUT_MS}`;
        break;
      }
      const body = await res.text();
      if (res.status !== 200) {
        // A refusal (503 when the store does not answer in time) is a figure too: printed, not fatal.
        console.error(`${path}: ${res.status} ${body.slice(0, 200)}`);
        out[label] = `HTTP ${res.status} after ${round(performance.now() - s)} ms`;
        break;
      }
      if (path.startsWith('/logs')) {
        const next = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        if (next) await (await fetch(`${base}/logs?limit=50&cursor=${next}`, { headers })).text();
      }
      if (i > 0 || calls === 1) times.push(performance.now() - s);
    }
    if (out[label] === undefined) {
      out[label] = round(median(times));
      spreads[label] = spread(times);
      cpu[label] = round((cpuOf(stackSample(stack)) - cpu0) / times.length);
    }
    console.error(`[${phase}] ${label}: ${out[label]} ms; stack CPU ${cpu[label] ?? '-'} ms per call`);
  }
  return { ms: out, spreads, cpu };
}

/** What the store pays for counts and one audit page, measured from here with the service's modules. */
async function storeProbes(uri: string, orgId: string): Promise<Record<string, number>> {
  const store = await Store.connect(uri);
  const out: Record<string, number> = {};
  // A probe that fails (a whole-collection count past the driver's socket time-out on a big
  // store) is printed as NaN with its error, and the other figures are still taken.
  const time = async (label: string, fn: () => Promise<unknown>) => {
    const s = performance.now();
    try {
      await fn();
      out[label] = round(performance.now() - s);
    } catch (err) {
      out[label] = NaN;
      console.error(`store probe ${label} failed after ${round(performance.now() - s)} ms: ${(err as Error).message}`);
    }
  };
  try {
    // Point lookups first: FerretDB goes on scanning after a count's client has timed out, which
    // would charge the lookups that follow with a scan still running.
    const log = new AuditLog(store);
    await time('AuditLog.page(org, limit 50) (point lookups)', () => log.page(orgId, { limit: 50 }));
    const head = await log.heads.findOne({ _id: orgId });
    const someLog = head ? await log.entryAt(orgId, Math.max(1, Math.floor(head.seq / 2))) : null;
    await time('audit_logs.findOne({_id})', () => log.logs.findOne({ _id: someLog?._id ?? 'none' }));
    await time('AuditLog.find (GET /audit/logs/{id}: findOne({_id}), organization checked in code)', () =>
      log.find(orgId, someLog?._id ?? 'none'),
    );
    // Whole-collection counts (no request path issues them; each reads the collection): skipped with --no-count-probes.
    if (COUNT_PROBES) {
      for (const coll of ['audit_logs', 'proofs', 'attestations', 'batch_jobs']) {
        await time(`${coll}.estimatedDocumentCount()`, () => store.collection(coll).estimatedDocumentCount());
      }
      await time('audit_logs.countDocuments({})', () => store.collection('audit_logs').countDocuments({}));
      await time('audit_logs.countDocuments({organization_id})', () =>
        store.collection('audit_logs').countDocuments({ organization_id: orgId }),
      );
      await time('attestations.countDocuments({org_id})', () =>
        attestationRecords(store).countDocuments({ org_id: orgId }),
      );
    }
  } finally {
    await store.close();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------

interface SeedContext {
  store: Store;
  auditLog: AuditLog;
  signer: AttestationSigner;
  secret: string;
  /** The benchmark tenant's user and key, for its own entries; other organizations get made-up ids. */
  userId: string;
  keyId: string;
}

interface Verified {
  result: Record<string, unknown>;
  proof: Record<string, unknown> | null;
  attestation: AttestationRecord | null;
}

/**
 * One math claim as the service verifies it: the engine's outcome; for a proven identity the
 * proof record under its proof_ref and a signed attestation record; the result the caller gets.
 */
async function verifyClaim(ctx: SeedContext, orgId: string, query: string, at: Date): Promise<Verified> {
  const outcome: EngineOutcome = mathBatchOutcome(query);
  if (outcome.kind !== 'proven') {
    const status = outcome.kind === 'blocked' ? 'BLOCKED' : 'UNVERIFIABLE';
    return {
      result: buildDiagnostic({
        status,
        agentMessage: outcome.agentMessage,
        developerFields: outcome.developerFields,
        withAdmission: false,
      }) as unknown as Record<string, unknown>,
      proof: null,
      attestation: null,
    };
  }
  const proofRef = sha256Ref(outcome.proof);
  const evaluated = typeof outcome.proof.expression === 'string' ? outcome.proof.expression : query;
  const att = await ctx.signer.sign({
    evaluatedExpression: evaluated,
    status: 'VERIFIED',
    verified: true,
    engine: 'math',
    confidence: 1,
    proofRef,
  });
  const diagnostic = buildDiagnostic({
    status: 'VERIFIED',
    agentMessage: outcome.agentMessage,
    developerFields: outcome.developerFields,
    proofRef,
    withAdmission: false,
  });
  return {
    result: { ...diagnostic, attestation: { id: att.jti, token: att.token, status: att.status } },
    proof: { _id: proofRef, artifact: outcome.proof, engine: 'math', org_id: orgId, created_at: at },
    attestation: {
      _id: att.jti,
      org_id: orgId,
      token: att.token,
      claims: att.claims,
      status: att.status,
      engine: 'math',
      proof_ref: proofRef,
      created_at: at,
    },
  };
}

async function writeRecords(ctx: SeedContext, verified: Verified[]): Promise<void> {
  const proofs = new Map<string, Record<string, unknown>>();
  for (const v of verified) if (v.proof) proofs.set(v.proof._id as string, v.proof);
  const atts = verified.flatMap((v) => (v.attestation ? [v.attestation] : []));
  await Promise.all([
    proofs.size
      ? ctx.store
          .collection('proofs')
          .insertMany([...proofs.values()] as never[], { ordered: false })
          .catch(ignoreDuplicates)
      : null,
    atts.length ? attestationRecords(ctx.store).insertMany(atts, { ordered: false }) : null,
  ]);
}

/** A proof already stored (the same identity verified before) is the same document: keep the first. */
function ignoreDuplicates(err: unknown): void {
  if ((err as { code?: number }).code !== 11000) throw err;
}

let claimNo = 0;

/** `n` single /verify/math verifications of `orgId`, spread over the last 30 days. */
async function seedVerifications(
  ctx: SeedContext,
  orgId: string,
  n: number,
  audit: { user_id: string; key_id: string },
): Promise<void> {
  const start = Date.now() - 30 * DAY_MS;
  for (let done = 0; done < n; done += CHUNK) {
    const size = Math.min(CHUNK, n - done);
    const verified: Verified[] = [];
    const appends: Array<Promise<unknown>> = [];
    for (let i = 0; i < size; i++) {
      const k = ++claimNo;
      const at = new Date(start + ((done + i) / n) * 29 * DAY_MS);
      // Mostly identities (VERIFIED), every tenth a bare expression (UNVERIFIABLE): the status filters have something to skip.
      const expression = k % 10 === 0 ? `${k} + ${k % 97}` : `(x+${k})^2 = x^2 + ${2 * k}*x + ${k * k}`;
      const v = await verifyClaim(ctx, orgId, expression, at);
      verified.push(v);
      const workflowId = `verify-math-${orgId}-seed${k}`;
      appends.push(
        ctx.auditLog.append(
          auditFields(
            {
              org_id: orgId,
              workflow_id: workflowId,
              engine: 'math',
              input: { expression },
              result: v.result,
              audit: { ...audit, request_digest: requestDigest({ expression }) },
            },
            at,
          ),
          { logId: auditLogId(orgId, workflowId), secret: ctx.secret, budgetMs: 600_000 },
        ),
      );
    }
    await writeRecords(ctx, verified);
    await Promise.all(appends);
  }
}

/** `jobs` finished batch jobs of `orgId` (items, their proofs, attestations and audit entries, the job, its slot and claim). */
async function seedJobs(
  ctx: SeedContext,
  orgId: string,
  jobs: number,
  firstSlot: number,
  audit: { user_id: string; key_id: string },
): Promise<void> {
  const start = Date.now() - 30 * DAY_MS;
  for (let j = 0; j < jobs; j++) {
    const jobId = newJobId();
    const workflowId = batchWorkflowId(orgId, jobId);
    const createdAt = new Date(start + (j / Math.max(1, jobs)) * 29 * DAY_MS);
    const completedAt = new Date(createdAt.getTime() + 1500);
    const requestItems = Array.from({ length: JOB_ITEMS }, (_, i) => {
      const k = ++claimNo;
      return { query: i % 10 === 9 ? `${k} * 3` : `(y+${k})*(y-${k}) = y^2 - ${k * k}`, type: 'math' as const };
    });
    const verified: Verified[] = [];
    const outcomes: BatchItemOutcome[] = [];
    for (let i = 0; i < requestItems.length; i++) {
      const v = await verifyClaim(ctx, orgId, (requestItems[i] as { query: string }).query, createdAt);
      verified.push(v);
      outcomes.push({ index: i, status: 'completed', result: v.result, latency_ms: 1.5 });
    }
    await writeRecords(ctx, verified);
    const digest = requestDigest({ items: requestItems.map((r) => ({ ...r, params: {} })) });
    const auditCtx = { ...audit, request_digest: digest };
    // The workflow's last activity: the job's entry, then one per completed item (group-committed).
    await ctx.auditLog.append(
      auditFields(
        {
          org_id: orgId,
          workflow_id: workflowId,
          engine: 'batch',
          input: { query: `batch ${jobId}: ${JOB_ITEMS} items` },
          result: { status: 'completed' },
          audit: auditCtx,
        },
        completedAt,
      ),
      { logId: auditLogId(orgId, workflowId), secret: ctx.secret, budgetMs: 600_000 },
    );
    await Promise.all(
      outcomes.map((o) =>
        ctx.auditLog.append(
          auditFields(
            {
              org_id: orgId,
              workflow_id: workflowId,
              engine: 'math',
              input: { query: requestItems[o.index]?.query ?? '' },
              result: o.result,
              audit: auditCtx,
            },
            completedAt,
          ),
          { logId: batchItemAuditLogId(orgId, workflowId, o.index), secret: ctx.secret, budgetMs: 600_000 },
        ),
      ),
    );
    const slot = firstSlot + j;
    // The service's shapes (persistence/batch.ts): a small job, one result document per unit, the request.
    const units = batchUnits(requestItems, BATCH_CONCURRENCY);
    const views = itemViews(jobId, requestItems, outcomes);
    const results: BatchResultDoc[] = units.map((unit, u) => {
      const indices = unit.kind === 'math' ? unit.indices : [unit.index];
      return {
        _id: resultId(jobId, u),
        job_id: jobId,
        org_id: orgId,
        unit: u,
        items: indices.map((index) => ({ index, view: views[index]! })),
      };
    });
    const job: BatchJobDoc = {
      _id: jobId,
      org_id: orgId,
      slot,
      status: 'completed',
      workflow_id: workflowId,
      ...batchCounters(JOB_ITEMS, outcomes),
      units: units.length,
      created_at: createdAt,
      completed_at: completedAt,
      started: true,
      submitted_by: { user_id: audit.user_id, key_id: audit.key_id },
    };
    await ctx.store.collection<StoredResultDoc>('batch_results').insertMany(results.map(packResultDoc));
    // In the form the service writes (session 23: packed).
    await ctx.store
      .collection<StoredRequestDoc>('batch_requests')
      .insertOne(packRequestDoc({ _id: jobId, items: requestItems }));
    await ctx.store.collection<BatchJobDoc>('batch_jobs').insertOne(job);
    await ctx.store
      .collection<BatchSlotClaimDoc>('batch_slot_claims')
      .insertOne({ _id: `${slot}:1`, slot, gen: 1, job_id: jobId, created_at: createdAt });
    // Through the store's own slot collection (stored under the number's string: persistence/number-keyed.ts).
    await new BatchJobStore(ctx.store).slots.insert({
      _id: slot,
      gen: 1,
      state: 'finished',
      job_id: jobId,
      claimed_at: createdAt,
      finished_at: completedAt,
      units: job.units, // as the service's completion writes it (session 15: the eviction reads no job)
    });
  }
}

async function seed(stack: Stack, orgId: string, userId: string, keyId: string): Promise<Record<string, number>> {
  const store = await Store.connect(stack.mongodbUri);
  const signer = new AttestationSigner(
    await loadSigningKey(stack.env.SVC_ATTESTATION_SIGNING_KEY_PEM),
    stack.env.SVC_DEPLOYMENT_ID ?? 'svc',
  );
  const ctx: SeedContext = {
    store,
    auditLog: new AuditLog(store),
    signer,
    secret: stack.env.SVC_AUDIT_SECRET_KEY as string,
    userId,
    keyId,
  };
  try {
    // Slots the benchmark's own jobs took (bounded: at most SVC_BATCH_MAX_JOBS documents).
    const directory = new BatchJobStore(store);
    const usedSlots = (await directory.slots.all()).reduce((m, s) => Math.max(m, s._id + 1), 0);
    const orgs = [orgId, ...Array.from({ length: ORGS - 1 }, (_, i) => `org_seed${i}_${Date.now().toString(36)}`)];
    let slot = usedSlots;
    for (let o = 0; o < orgs.length; o++) {
      const org = orgs[o] as string;
      const audit =
        o === 0 ? { user_id: userId, key_id: keyId } : { user_id: `usr_seed_${o}`, key_id: `key_seed_${o}` };
      const n = Math.floor(VERIFICATIONS / ORGS) + (o < VERIFICATIONS % ORGS ? 1 : 0);
      const m = Math.floor(JOBS / ORGS) + (o < JOBS % ORGS ? 1 : 0);
      const t0 = performance.now();
      await seedVerifications(ctx, org, n, audit);
      await seedJobs(ctx, org, m, slot, audit);
      slot += m;
      console.error(`seeded ${org}: ${n} verifications, ${m} jobs in ${Math.round(performance.now() - t0)} ms`);
    }
    // The slot directory as the service keeps it (persistence/batch.ts): `next` past the seeded
    // slots, and their releases queued in the order they finished.
    await directory.moveCursor('next', slot);
    await directory.releaseMany(
      (await directory.slots.all())
        .filter((s) => s.state === 'finished')
        .sort((a, b) => (a.finished_at?.getTime() ?? 0) - (b.finished_at?.getTime() ?? 0)),
    );
    // Session 16: the audit log writes each organization's head document once its appends pause
    // (600 ms, a timer); closing the store before that left the last organizations' documents a
    // few positions behind ("audit head document not written"), a seeded-only difference the
    // service itself never leaves. Wait for those writes.
    await sleep(1500);
    // Session 24: a store kept by session 24's code holds no claims of old group commits (their
    // writers retire them; the API's pass deletes the rest: persistence/audit.ts). The seed's
    // writer did not live long enough to retire its own, and the seeded API's first pass (135 s
    // after its start) would then delete thousands inside the measured rounds: a one-time upgrade
    // cost, not the filled store's steady state. Swept here, before the stack is measured.
    const auditClaimsSwept = await sweepOldAuditClaims(store, { maxPositions: Number.MAX_SAFE_INTEGER, pauseMaxMs: 0 });
    const head = await ctx.auditLog.heads.findOne({ _id: orgId });
    return {
      organizations: orgs.length,
      verifications: VERIFICATIONS,
      jobs: JOBS,
      batch_items: JOBS * JOB_ITEMS,
      bench_org_audit_entries: (head as AuditHeadDoc | null)?.seq ?? 0,
      audit_claims_swept: auditClaimsSwept,
    };
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Operations per window (a single job or a burst) by process, collection, command and class,
 * empty phase beside seeded (admin and getMore left out), sorted by the absolute difference.
 */
function commandsPerWindow(
  all: ReturnType<typeof readCapture>,
  empty: Array<[number, number]>,
  seeded: Array<[number, number]>,
): Array<{ op: string; empty: number; seeded: number; diff: number }> {
  const count = (ws: Array<[number, number]>) => {
    const m = new Map<string, number>();
    for (const c of all) {
      if (!ws.some(([a, b]) => c.t >= a && c.t <= b)) continue;
      for (const o of classify(c)) {
        if (o.cls === 'admin' || o.cls === 'getMore') continue;
        const k = `${o.role} ${o.coll} ${o.cmd} ${label(o)}`;
        m.set(k, (m.get(k) ?? 0) + 1);
      }
    }
    return m;
  };
  const e = count(empty);
  const f = count(seeded);
  return [...new Set([...e.keys(), ...f.keys()])]
    .map((op) => {
      const a = round((e.get(op) ?? 0) / Math.max(1, empty.length));
      const b = round((f.get(op) ?? 0) / Math.max(1, seeded.length));
      return { op, empty: a, seeded: b, diff: round(b - a) };
    })
    .sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff) || y.seeded - x.seeded);
}

interface Phase {
  batch: BatchFigures;
  /** The phase's /verify/math load: session 24, its slices pooled (the figure the single load printed). */
  load: Load;
  /** Session 24: each slice of the load on its own (--phase-slices; empty with 0: one load as before). */
  slices: Load[];
  lists: ListFigures;
  probes: Record<string, number>;
}

async function measure(
  stack: Stack,
  base: string,
  key: string,
  token: string,
  orgId: string,
  phase: string,
): Promise<Phase> {
  const slices: Load[] = [];
  // Session 24: one slice of the phase's load (after a wait for a quiet store, as the interleave's).
  const slice = async (seconds: number) => {
    const settled = await settleStore(stack);
    const j = slices.length;
    const [l] = await Promise.all([
      load(stack, base, key, seconds),
      storeProfile(stack, `${phase}-load${PHASE_SLICES ? `-${j}` : ''}`, seconds),
    ]);
    l.settle = settled;
    slices.push(l);
    const { raw: _raw, ...shown } = l;
    console.error(
      `[${phase}] /verify/math${PHASE_SLICES ? ` slice ${j + 1}/${PHASE_SLICES}` : ''} (store quiet ${settled.ms} ms before, store CPU meanwhile ${settled.storeCpuMs} ms) ${JSON.stringify(shown)}`,
    );
  };
  const afterRound =
    BATCH_ONLY || PHASE_SLICES === 0
      ? undefined
      : async (r: number) => {
          while (slices.length < PHASE_SLICES && sliceAfterRound(slices.length, PHASE_SLICES, ROUNDS) === r)
            await slice(PHASE_SLICE_SECONDS);
        };
  const batch = await batchFigures(stack, base, key, phase, afterRound);
  if (BATCH_ONLY)
    return {
      batch,
      load: { rps: 0, p50: 0, p95: 0, errors: 0, cpu: {}, rssMb: {} },
      slices: [],
      lists: { ms: {}, spreads: {}, cpu: {} },
      probes: {},
    };
  if (PHASE_SLICES === 0) await slice(SECONDS); // the load as before session 24: once, after the bursts
  const l = PHASE_SLICES === 0 ? (slices[0] as Load) : pooledLoad(slices);
  const ls = await lists(stack, base, key, token, orgId, batch.lastJobId, phase);
  const probes = await storeProbes(stack.mongodbUri, orgId);
  console.error(`[${phase}] store probes ${JSON.stringify(probes)}`);
  return { batch, load: l, slices: PHASE_SLICES === 0 ? [] : slices, lists: ls, probes };
}

const BENCH_OFFSET = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 930);

/** The stack's environment (both stacks of --interleave; the store-command capture only on the first). */
function stackEnv(maxJobs: number): Record<string, string> {
  return {
    SVC_BATCH_WAIT_SECONDS: '0',
    SVC_BATCH_MAX_JOBS: String(maxJobs),
    // SVC_BENCH_LOG_LEVEL=debug: the API logs each POST /verify/batch's admit / start / read times.
    ...(process.env.SVC_BENCH_LOG_LEVEL ? { SVC_LOG_LEVEL: process.env.SVC_BENCH_LOG_LEVEL } : {}),
    ...(POST_TRACE ? { SVC_BATCH_POST_TRACE: 'on', SVC_LOG_LEVEL: 'debug' } : {}),
  };
}

/** The figures of one kind of interleaved burst (session 23: polled, today's; or waited through Temporal). */
interface BurstSeries {
  p95: number[];
  itemsPerS: number[];
  cpuItem: Record<string, number[]>;
  writtenKiB: number[];
  /** Per burst: the GETs of the jobs its clients sent (polls and the final read). */
  polls: number[];
  /** Session 24: per burst, its POSTs (ms): the pooled p95 and its pair bootstrap. */
  posts: number[][];
}
const burstSeries = (): BurstSeries => ({
  p95: [],
  itemsPerS: [],
  cpuItem: {},
  writtenKiB: [],
  polls: [],
  posts: [],
});

/** One side of the interleaved measure: its stack and every slice's figures. */
interface Side {
  /** 'empty' and 'seeded'; session 23's --aa: 'A' and 'B' (two stacks of the same state). */
  name: string;
  stack: Stack;
  base: string;
  key: string;
  /** Per burst: its POST p95 (its slowest of CONCURRENT_JOBS), items/s to the last stored completion, CPU ms per item by process. */
  p95: number[];
  posts: number[];
  itemsPerS: number[];
  cpuItem: Record<string, number[]>;
  /** Per burst (session 22): KiB the store wrote per item (WAL frames, temporary files). */
  writtenKiB: number[];
  /** Per /verify/math slice: req/s and CPU ms per verification by process. */
  rps: number[];
  cpuVer: Record<string, number[]>;
  /** Per slice (session 23): the store's read syscalls, KiB read and KiB written per verification. */
  ioVer: Record<string, number[]>;
  /** Store CPU waited out before each slice (held deletions and the like), ms. */
  settleCpu: number[];
  /** Session 22: each burst's jobs (the POST trace's spans are matched to them by job id). */
  runs: JobRun[][];
  /** Session 22 (--post-trace): each burst's POSTs broken down (postSpans), read before the empty stack stops. */
  spans: PostSpan[][];
  /** Session 23: the polled bursts' GETs per burst, and the waited bursts' figures (--burst-wait). */
  polls: number[];
  waited: BurstSeries;
  /** Session 23: per pair, CPU ms per GET of a finished job by process (getProbe, on a quiet stack). */
  getCpu: Record<string, number[]>;
}

const push = (m: Record<string, number[]>, k: string, v: number) => (m[k] ??= []).push(v);

/**
 * Session 20 (--interleave): an empty stack beside the seeded one, measured in alternation (ABBA:
 * pair i runs empty then seeded when i is even, seeded then empty when odd). Before every burst
 * and every slice both stores are waited quiet (settleStore), so that neither side's held
 * deletions or checkpoints land in the other's measurement.
 */
async function interleaved(seeded: { stack: Stack; base: string; key: string }, maxJobs: number): Promise<Side[]> {
  const offset = BENCH_OFFSET + INTERLEAVE_PORT_SHIFT;
  const t0 = performance.now();
  // Session 22: with --capture and --post-trace the empty stack records its store commands too (the
  // same folder: a POST's commands are found by its job id; the phases' windows end before it starts).
  const env = {
    ...stackEnv(EMPTY_MAX_JOBS ? Number(EMPTY_MAX_JOBS) : maxJobs),
    ...(CAPTURE && POST_TRACE ? captureEnv(path.resolve(CAPTURE)) : {}),
  };
  const e = await benchStack(`${PROFILE}-empty`, offset, env);
  try {
    const E = side('empty', e);
    const S = side('seeded', seeded);
    if (!BATCH_ONLY) await load(E.stack, E.base, E.key).catch(() => undefined); // the first load's warm-up, as the main phases
    return await interleavePairs(E, S, t0);
  } finally {
    await closeTemporal(e.stack);
    await e.stack.down();
  }
}

const side = (name: Side['name'], x: { stack: Stack; base: string; key: string }): Side => ({
  name,
  ...x,
  p95: [],
  posts: [],
  itemsPerS: [],
  cpuItem: {},
  writtenKiB: [],
  rps: [],
  cpuVer: {},
  ioVer: {},
  settleCpu: [],
  runs: [],
  spans: [],
  polls: [],
  waited: burstSeries(),
  getCpu: {},
});

/** GETs per probe (getProbe): the last burst's jobs in turn (/proc counts CPU in 10 ms ticks: 100 calls price one to 0.1 ms). */
const GET_PROBE_CALLS = 100;
/**
 * Session 23: what one GET /verify/batch/{id} of a finished job costs each process: GET_PROBE_CALLS
 * sequential GETs of the last burst's jobs on a quiet stack, CPU ms per GET from /proc. A poll of a
 * running job reads about as much from the store (the job, then the units stored so far instead
 * of the slot and the cached final units) and also describes and queries its workflow through
 * Temporal and the worker, so across all processes this prices a poll from below.
 */
async function getProbe(x: Side, jobIds: string[]): Promise<Record<string, number>> {
  const headers = { 'x-api-key': x.key };
  const before = stackSample(x.stack);
  let non200 = 0;
  for (let i = 0; i < GET_PROBE_CALLS; i++) {
    const r = await fetch(`${x.base}/verify/batch/${jobIds[i % jobIds.length]}`, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) non200++;
  }
  const after = stackSample(x.stack);
  // A 404 (the probed job evicted at the limit) or a 429 is not a finished job's GET: the probe is dropped (NaN).
  if (non200 > 0) console.log(`${x.name}: GET probe dropped: ${non200} of ${GET_PROBE_CALLS} answers not 200`);
  return probePerCall(procCpuMs(before), procCpuMs(after), GET_PROBE_CALLS, non200);
}

/** Each process's CPU ms of a sample (the keys of a GET probe). */
const procCpuMs = (m: Record<string, ProcSample>) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.cpuMs]));

/** Closes the benchmark's Temporal connection to a stack (session 23's waited bursts), if it opened one. */
async function closeTemporal(stack: Stack): Promise<void> {
  const c = temporalClients.get(stack);
  temporalClients.delete(stack);
  await c?.close().catch(() => undefined);
}

/** The interleaved pairs on two running stacks (both warmed up here first): session 20's loop. */
async function interleavePairs(E: Side, S: Side, t0: number): Promise<Side[]> {
  await warmUp(E.stack, E.base, E.key, `interleaved, ${E.name} stack`);
  await warmUp(S.stack, S.base, S.key, `interleaved, ${S.name} stack`);
  const quiet = () => Promise.all([settleStore(E.stack), settleStore(S.stack)]);
  for (let i = 0; i < INTERLEAVE; i++) {
    if (RESTART_SEEDED_API && i === restartAt(INTERLEAVE)) {
      // Session 22: the seeded API (and its in-process worker) restarted halfway, as fresh as the
      // empty stack's, then warmed up as before: the pairs before and after are printed apart.
      const r0 = performance.now();
      await S.stack.api.stop();
      await S.stack.api.start();
      console.error(`[interleaved] seeded API restarted after pair ${i} in ${Math.round(performance.now() - r0)} ms`);
      await warmUp(S.stack, S.base, S.key, 'interleaved, seeded stack, restarted API');
    }
    const order = abba(i, E, S);
    for (const x of order)
      for (const kind of burstKinds(i, BURST_KINDS)) {
        await quiet();
        const [b] = await Promise.all([
          burst(x.stack, x.base, x.key, kind),
          kind === 'poll' ? storeProfile(x.stack, `${x.name}-burst-${i}`, PPROF_BURST_SECONDS) : Promise.resolve(),
        ]);
        if (kind === 'wait') {
          // Session 23: the waited burst's figures apart (its POSTs are not among the POST figures).
          x.waited.p95.push(b.p95);
          x.waited.itemsPerS.push(b.storedItemsPerS);
          for (const [k, v] of Object.entries(b.cpu)) push(x.waited.cpuItem, k, v);
          x.waited.writtenKiB.push(b.writtenKiB);
          x.waited.polls.push(b.polls);
          x.waited.posts.push(b.posts);
          continue;
        }
        x.p95.push(b.p95);
        x.posts.push(...b.posts);
        x.itemsPerS.push(b.storedItemsPerS);
        x.runs.push(b.runs);
        for (const [k, v] of Object.entries(b.cpu)) push(x.cpuItem, k, v);
        x.writtenKiB.push(b.writtenKiB);
        x.polls.push(b.polls);
      }
    // Session 23: one GET probe per side and pair, both stores quiet, after the pair's bursts.
    if (BURST_KINDS.includes('poll'))
      for (const x of order) {
        await quiet();
        const jobs = (x.runs.at(-1) ?? []).map((r) => r.jobId);
        // No job to probe: the pair's probe dropped (NaN), so the later pairs keep their places.
        const probe =
          jobs.length === 0 ? probePerCall({}, procCpuMs(stackSample(x.stack)), 1, 1) : await getProbe(x, jobs);
        for (const [k, v] of Object.entries(probe)) push(x.getCpu, k, v);
      }
    if (!BATCH_ONLY)
      for (const x of order) {
        const [se, ss] = await quiet();
        x.settleCpu.push((x === E ? se : ss).storeCpuMs);
        const [l] = await Promise.all([
          load(x.stack, x.base, x.key, SLICE_SECONDS),
          storeProfile(x.stack, `${x.name}-slice-${i}`, SLICE_SECONDS),
        ]);
        x.rps.push(l.rps);
        // Session 24: unrounded (the slice's CPU ticks over its verifications): rounded to 0.1 ms,
        // a store figure of ~1.1 ms moved its per-pair ratios in steps of ~9 % (0.91, 1.00, 1.09).
        for (const [k, v] of Object.entries(perVerification(l))) push(x.cpuVer, k, v);
        for (const [k, v] of Object.entries(l.storeIo ?? {})) push(x.ioVer, k, v);
      }
    console.error(
      `[interleaved ${i + 1}/${INTERLEAVE}] ${order.map((x) => `${x.name}: POST p95 ${Math.round(x.p95.at(-1) as number)} ms, ${Math.round(x.itemsPerS.at(-1) as number)} items/s, ${x.polls.at(-1)} GETs, store ${x.cpuItem.store?.at(-1)?.toFixed(3)} ms/item${x.waited.polls.length ? `; waited: ${x.waited.polls.at(-1)} GETs, store ${x.waited.cpuItem.store?.at(-1)?.toFixed(3)} ms/item` : ''}${BATCH_ONLY ? '' : `, ${x.cpuVer.total?.at(-1)?.toFixed(1)} ms CPU per verification (store ${x.cpuVer.store?.at(-1)?.toFixed(2)})`}`).join('; ')}`,
    );
  }
  console.error(`interleaved measure: ${round((performance.now() - t0) / 1000)} s with the empty stack's start`);
  // Session 24: whether each side was at its job limit (an --aa at the limit: both).
  for (const x of [E, S]) console.log(`interleaved, ${await limitReport(x)}`);
  if (POST_TRACE) {
    const tagged = new Map<string, Captured[]>();
    for (const c of CAPTURE ? readCapture(path.resolve(CAPTURE)) : [])
      if (c.tag) tagged.set(c.tag, [...(tagged.get(c.tag) ?? []), c]);
    for (const x of [E, S]) {
      const traces = postTraces(x.stack);
      x.spans = x.runs.map((runs) => runs.flatMap((run) => postSpans(run, traces, tagged)));
    }
  }
  return [E, S];
}

/**
 * The interleaved measure's table: per figure, the median of its slices on each side with their
 * range, and how many. Session 24: returns the goal figures among its rows, each with its ratio
 * and interval, for the closing table.
 */
function printInterleaved([E, S]: Side[], label: string): GoalFigure[] {
  const goals: GoalFigure[] = [];
  // Session 23 (--aa): two stacks of the same state, A and B, in the columns of empty and seeded.
  const [colA, colRatio] = AA ? ['A', 'B/A'] : ['empty', 'seeded/empty'];
  const rows: Array<Record<string, string | number>> = [];
  const outside: string[] = [];
  // Within 10 % is judged on the median of the per-pair ratios (each pair ran under the same load);
  // the ratio of the two sides' medians is printed beside it.
  const row = (
    figure: string,
    a: number[],
    b: number[],
    higherIsBetter = false,
    r: (n: number) => number = round,
    goal = '',
  ) => {
    if (a.length === 0 || b.length === 0) return;
    const c = compareFigures(a, b, higherIsBetter, r);
    const p = pairedRatio(a, b);
    const within = p.within(higherIsBetter);
    // Session 24: a goal figure (`goal` names it in the closing table) with its sign-test interval.
    if (goal)
      goals.push({
        figure: goal,
        how: `interleaved, median of ${p.n} pair ratios, sign test${p.interval ? ` ${Math.round(p.interval.coverage * 100)} %` : ''}`,
        empty: c.empty.median,
        seeded: c.seeded.median,
        ratio: p.n ? p.median : NaN,
        lo: p.interval?.lo ?? null,
        hi: p.interval?.hi ?? null,
        higherIsBetter,
      });
    rows.push({
      figure,
      n: `${c.empty.n} / ${c.seeded.n}`,
      [colA]: c.empty.median,
      [label]: c.seeded.median,
      [colRatio]: Number.isNaN(c.ratio) ? '-' : round2(c.ratio),
      'paired ratio (range)': `${p.median} (${p.min}-${p.max})`,
      // Session 23: where the median of the pairs' ratios could lie by chance (sign-test interval, >= 90 %),
      // with the coverage it really has (93 % at 8 pairs, 96 % at 12; review D3).
      'median interval (coverage >= 90 %)': p.interval
        ? `${round2(p.interval.lo)}-${round2(p.interval.hi)} (${Math.round(p.interval.coverage * 100)} %)`
        : '-',
      'within 10 %': within ? 'yes' : 'NO',
      [`range ${colA}`]: `${c.empty.min}-${c.empty.max}`,
      [`range ${AA ? 'B' : 'seeded'}`]: `${c.seeded.min}-${c.seeded.max}`,
    });
    if (!within)
      outside.push(
        `${figure}: ${c.empty.median} -> ${c.seeded.median}, paired ratio ${p.median} (${p.min}-${p.max}), ranges ${c.overlap ? 'overlap' : 'apart'}`,
      );
  };
  const e = E as Side;
  const s = S as Side;
  row(
    `POST /verify/batch p95 while ${CONCURRENT_JOBS} submitted (ms, median of the bursts)`,
    e.p95,
    s.p95,
    false,
    round,
    'POST p95 at the limit, polled: median of the bursts',
  );
  // Session 24: every POST of a side's bursts in one sample, its p95 ratio with an interval that
  // resamples whole pairs of bursts (a burst's POSTs come back together: a slow burst is slow
  // throughout, so one slow burst of 8-12 can set the pooled p95; resampling POSTs alone would
  // hide that). Printed for the polled and the waited bursts alike.
  const pooledRow = (what: string, goal: string, a: number[][], b: number[][]) => {
    if (a.length === 0 || b.length === 0) return;
    const pe = round(p95Of(a.flat()));
    const ps = round(p95Of(b.flat()));
    const q = pooledP95Ratio(a, b);
    const g: GoalFigure = {
      figure: goal,
      how: `interleaved, pooled ${a.flat().length} / ${b.flat().length} POSTs, pair bootstrap 95 %${q ? '' : ' (none below 8 pairs)'}`,
      empty: pe,
      seeded: ps,
      ratio: ps / pe,
      lo: q?.lo ?? null,
      hi: q?.hi ?? null,
      higherIsBetter: false,
      decisive: false,
    };
    goals.push(g);
    rows.push({
      figure: what,
      n: `${a.flat().length} / ${b.flat().length}`,
      [colA]: pe,
      [label]: ps,
      [colRatio]: round2(ps / pe),
      // Review D3: not a median's interval: the pooled p95's pair bootstrap (nominal level), and
      // no verdict (an A/A at the limit read 0.26 and 2.02: one slow burst sets it).
      'median interval (coverage >= 90 %)': q
        ? `not a median: ${round2(q.lo)}-${round2(q.hi)} (pair bootstrap, nominal ${Math.round(q.level * 100)} %)`
        : '-',
      'within 10 %': 'not judged',
    });
  };
  pooledRow(
    'POST /verify/batch p95 of every POST pooled (ms)',
    'POST p95 at the limit, polled: every POST pooled',
    e.runs.map((rs) => rs.map((r) => r.postMs)),
    s.runs.map((rs) => rs.map((r) => r.postMs)),
  );
  row(
    `${CONCURRENT_JOBS} jobs at once: items/s to the last stored completion`,
    e.itemsPerS,
    s.itemsPerS,
    true,
    round,
    '10 jobs at once: items/s, polled',
  );
  for (const k of Object.keys(e.cpuItem))
    row(
      `${CONCURRENT_JOBS} jobs at once: CPU ms per item, ${k}`,
      e.cpuItem[k] ?? [],
      s.cpuItem[k] ?? [],
      false,
      round2,
      k === 'store' || k === 'total' ? `CPU per batch item, ${k === 'total' ? 'all processes' : k}, polled` : '',
    );
  row(`${CONCURRENT_JOBS} jobs at once: KiB the store wrote per item`, e.writtenKiB, s.writtenKiB);
  // Session 23: the clients' GETs per polled burst (every 500 ms while a job runs, and the read that
  // saw it completed): a side whose bursts run longer is charged more of them in the rows above.
  row(`${CONCURRENT_JOBS} jobs at once: GETs of the jobs per burst (polled every 500 ms)`, e.polls, s.polls);
  // Session 23: a finished job's GET alone (getProbe), and the polled rows with the polls priced at it.
  for (const k of Object.keys(e.getCpu))
    row(
      `GET /verify/batch/{id} of a finished job: CPU ms per call, ${k}`,
      e.getCpu[k] ?? [],
      s.getCpu[k] ?? [],
      false,
      round3,
    );
  const pollsApart = (x: Side, k: string) =>
    pollsPricedOut(x.cpuItem[k] ?? [], x.polls, x.getCpu[k] ?? [], CONCURRENT_JOBS, CONCURRENT_JOBS * 100);
  for (const k of Object.keys(e.getCpu))
    row(
      `${CONCURRENT_JOBS} jobs at once: CPU ms per item, ${k}, polls beyond one per job priced at a finished GET and taken out`,
      pollsApart(e, k),
      pollsApart(s, k),
      false,
      round3,
    );
  // Session 23: the same bursts with each client waiting for its job through Temporal and reading
  // it once (--burst-wait): CPU per item without the polls (a fixed CONCURRENT_JOBS GETs per burst).
  const w = (what: string) => `${CONCURRENT_JOBS} jobs at once, waited (1 GET per job): ${what}`;
  row(
    w('items/s to the last stored completion'),
    e.waited.itemsPerS,
    s.waited.itemsPerS,
    true,
    round,
    '10 jobs at once: items/s, waited',
  );
  // Review D3: the wait is the benchmark's own result() long poll of each job's workflow (one per
  // job and burst), served by Temporal: its CPU is in the Temporal and all-process rows.
  const ownPolls = ` (includes the benchmark's own result() long polls, ${CONCURRENT_JOBS} per burst)`;
  for (const k of Object.keys(e.waited.cpuItem))
    row(
      w(`CPU ms per item, ${k}${k === 'temporal' || k === 'total' ? ownPolls : ''}`),
      e.waited.cpuItem[k] ?? [],
      s.waited.cpuItem[k] ?? [],
      false,
      round2,
      k === 'store' ? 'CPU per batch item, store, waited' : '',
    );
  row(w('KiB the store wrote per item'), e.waited.writtenKiB, s.waited.writtenKiB);
  row(
    w('POST /verify/batch p95 (ms)'),
    e.waited.p95,
    s.waited.p95,
    false,
    round,
    'POST p95 at the limit, waited: median of the bursts',
  );
  pooledRow(
    w('POST /verify/batch p95 of every POST pooled (ms)'),
    'POST p95 at the limit, waited: every POST pooled',
    e.waited.posts,
    s.waited.posts,
  );
  row(w('GETs of the jobs per burst'), e.waited.polls, s.waited.polls);
  row(
    `/verify/math req/s at ${CLIENTS} clients (${SLICE_SECONDS} s slices)`,
    e.rps,
    s.rps,
    true,
    round,
    '/verify/math req/s',
  );
  for (const k of Object.keys(e.cpuVer))
    row(
      `CPU ms per verification: ${k}`,
      e.cpuVer[k] ?? [],
      s.cpuVer[k] ?? [],
      false,
      round2,
      k === 'store' || k === 'total' ? `CPU per verification, ${k === 'total' ? 'all processes' : k}` : '',
    );
  // Session 23: counted, not timed (store CPU per verification moves in 0.1 ms steps).
  const ioLabel: Record<string, string> = {
    reads: 'store read syscalls per verification',
    kibRead: 'KiB the store read per verification',
    kibWritten: 'KiB the store wrote per verification',
  };
  for (const k of Object.keys(e.ioVer)) row(ioLabel[k] ?? k, e.ioVer[k] ?? [], s.ioVer[k] ?? [], false, round2);
  console.log(
    `\ninterleaved (session 20): ${AA ? 'A/A (session 23, --aa): two stacks of the same state' : 'an empty stack and the seeded one'} measured in alternation, ${INTERLEAVE} pairs (ABBA; bursts: ${BURST_WAIT}), both stores waited quiet before each burst and slice; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.table(rows);
  console.log(
    outside.length
      ? `interleaved, outside 10 % (${outside.length}):\n  ${outside.join('\n  ')}`
      : 'interleaved: every figure within 10 %',
  );
  if (!BATCH_ONLY)
    console.log(
      `interleaved: store CPU waited out before the slices (median ms): ${e.name} ${median(e.settleCpu)}, ${s.name} ${median(s.settleCpu)}`,
    );
  return goals;
}

/** The bench tenant's user and API key ids (the seed's audit entries name them). */
async function tenantIds(base: string, token: string): Promise<{ userId: string; keyId: string }> {
  const me = (await (await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    id?: string;
    user?: { id: string };
  };
  const keys = (await (
    await fetch(`${base}/auth/api-keys`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { keys?: Array<{ id: string }> } | Array<{ id: string }>;
  return {
    userId: me.user?.id ?? me.id ?? 'usr_bench',
    keyId: (Array.isArray(keys) ? keys[0]?.id : keys.keys?.[0]?.id) ?? 'key_bench',
  };
}

/**
 * Session 24: the stack's job limit and the slots its jobs hold at the end of the measure (a
 * bounded collection: at most the limit). Slots = limit: the stack was at its limit, and every
 * admission of its last bursts evicted a finished job; fewer: it never reached it.
 */
async function limitReport(x: { name: string; stack: Stack }): Promise<string> {
  const limit = Number(x.stack.env.SVC_BATCH_MAX_JOBS ?? NaN);
  const store = await Store.connect(x.stack.mongodbUri);
  try {
    const slots = (await new BatchJobStore(store).slots.all()).length;
    return `${x.name}: ${slots} slots taken of a job limit of ${limit} (${slots >= limit ? 'at the limit: each admission evicts' : 'below the limit: no eviction'})`;
  } catch (err) {
    return `${x.name}: slots not read (${(err as Error).message})`;
  } finally {
    await store.close();
  }
}

/** Session 24: the goal figures of the phases (empty phase, then seeded), each a ratio of two medians with an unpaired bootstrap interval. */
function phaseGoals(e: Phase, s: Phase): GoalFigure[] {
  const goals: GoalFigure[] = [];
  const add = (figure: string, a: number[], b: number[], higherIsBetter = false, r: (n: number) => number = round) => {
    const fa = a.filter(Number.isFinite);
    const fb = b.filter(Number.isFinite);
    if (!fa.length || !fb.length) return;
    const q = phaseMedianRatio(fa, fb);
    goals.push({
      figure: `phases: ${figure}`,
      how: `phases minutes apart, medians of ${fa.length} / ${fb.length}, unpaired bootstrap 95 %`,
      empty: r(medianOf(fa)),
      seeded: r(medianOf(fb)),
      ratio: medianOf(fb) / medianOf(fa),
      lo: q?.lo ?? null,
      hi: q?.hi ?? null,
      higherIsBetter,
      // Review D1: the two phases run minutes apart on one stack (before and after the seed): a
      // change of load between them moves every slice of one side and is not in the interval.
      decisive: false,
      notJudgedWhy:
        'unpaired: the phases run minutes apart, load drift between them is not in the interval; read the interleave',
    });
  };
  add('one 100-item job, stored completed (ms)', e.batch.raw.singleStored, s.batch.raw.singleStored);
  for (const kind of ['poll', 'wait'] as const) {
    const ke = e.batch.raw.kinds[kind];
    const ks = s.batch.raw.kinds[kind];
    if (!ke || !ks) continue;
    const w = kind === 'poll' ? 'polled' : 'waited';
    add(`10 jobs at once: items/s, ${w}`, ke.itemsPerS, ks.itemsPerS, true);
    add(`CPU per batch item, store, ${w}`, ke.cpuItem.store ?? [], ks.cpuItem.store ?? [], false, round3);
    add(`POST p95 at the limit, ${w}: median of the bursts`, ke.p95, ks.p95);
    const q = bootstrapRatio(ke.posts, ks.posts, p95Of, false, { level: 0.95, minGroups: 8 });
    const [pe, ps] = [p95Of(ke.posts.flat()), p95Of(ks.posts.flat())];
    goals.push({
      figure: `phases: POST p95 at the limit, ${w}: every POST pooled`,
      how: `phases, pooled ${ke.posts.flat().length} / ${ks.posts.flat().length} POSTs, burst bootstrap 95 %`,
      empty: round(pe),
      seeded: round(ps),
      ratio: ps / pe,
      lo: q?.lo ?? null,
      hi: q?.hi ?? null,
      higherIsBetter: false,
      decisive: false,
    });
  }
  const per = (p: Phase, k: string) => p.slices.map((l) => perVerification(l)[k] ?? NaN);
  if (e.slices.length && s.slices.length) {
    add('CPU per verification, store (ms; median of the slices)', per(e, 'store'), per(s, 'store'), false, round3);
    add(
      'CPU per verification, all processes (ms; median of the slices)',
      per(e, 'total'),
      per(s, 'total'),
      false,
      round2,
    );
    add(
      '/verify/math req/s (median of the slices)',
      e.slices.map((l) => l.rps),
      s.slices.map((l) => l.rps),
      true,
    );
  }
  return goals;
}

/** Session 24: --figures-json <file> writes the closing table's figures; --aa-floor <file> reads an --aa run's, printed beside. */
const FIGURES_JSON = arg('figures-json', '');
const AA_FLOOR = arg('aa-floor', '');

/**
 * Session 24: the closing table. Every goal figure with its two sides, its ratio and interval, the
 * A/A run's ratio and interval of the same figure when --aa-floor names one, and the verdict:
 * within 10 % yes (the whole interval inside the line), no (wholly outside), or undecided (the
 * interval spans the line, or there is none).
 */
function printClosing(goals: GoalFigure[], stages: Array<[string, number]>) {
  let floor: GoalFigure[] = [];
  if (AA_FLOOR)
    try {
      floor = (JSON.parse(readFileSync(AA_FLOOR, 'utf8')) as { figures: GoalFigure[] }).figures;
    } catch (err) {
      console.error(`--aa-floor ${AA_FLOOR}: not read (${(err as Error).message})`);
    }
  console.log(
    `\nclosing table (session 24): every goal figure, ${AA ? 'B/A (an A/A run: two stacks of the same state)' : 'seeded/empty'}, its interval and whether it is within 10 %${floor.length ? `; A/A from ${AA_FLOOR}` : ''}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.table(closingRows(goals, floor, AA ? ['A', 'B'] : ['empty', 'seeded']));
  // A verdict is its word alone or its word and a reason in brackets ('no' is not 'not judged').
  const count = (v: string) =>
    closingRows(goals).filter((r) => {
      const t = String(r['within 10 %']);
      return t === v || t.startsWith(`${v} (`);
    }).length;
  console.log(
    `within 10 %: ${count('yes')} yes, ${count('no')} no, ${count('undecided')} undecided, ${count('not judged')} not judged`,
  );
  const total = stages.reduce((a, [, t]) => a + t, 0);
  console.log(
    `stage times (s): ${stages.map(([n, t]) => `${n} ${t}`).join('; ')}; total ${round(total)} s (${round(total / 60)} min)`,
  );
  if (FIGURES_JSON)
    writeFileSync(
      FIGURES_JSON,
      JSON.stringify(
        { run: AA ? 'aa' : 'goal', at: new Date().toISOString(), loadavg: os.loadavg(), args, stages, figures: goals },
        null,
        2,
      ),
    );
}

/** Session 24: the stage clock of a run (each stage's seconds since the one before). */
function stageClock() {
  const stages: Array<[string, number]> = [];
  let t = performance.now();
  return {
    stages,
    mark(name: string) {
      const now = performance.now();
      stages.push([name, round((now - t) / 1000)]);
      t = now;
    },
  };
}

/**
 * Session 23 (--aa): the interleave's noise floor. Two stacks of the same state side by side (each
 * seeded alike when --verifications or --jobs is above 0; the same job limit), no phases, then the
 * interleaved pairs exactly as the empty-against-seeded run measures them; B/A in the columns.
 */
async function mainAA() {
  // By default a limit no burst reaches (neither side evicts); --max-jobs puts both at one limit.
  // Session 24: --at-limit sets it to the seed's jobs and the warm-up's (one job and one burst),
  // so that the warm-up fills both stacks and every measured admission evicts, as the goal run's
  // seeded side does.
  const atLimit = JOBS + 1 + CONCURRENT_JOBS;
  const maxJobs = Number(arg('max-jobs', args.includes('--at-limit') ? String(atLimit) : '100000'));
  if (maxJobs < JOBS)
    console.error(
      `--max-jobs ${maxJobs} is below the seed's ${JOBS} jobs: seeded slots past the limit are never taken again; use --at-limit (${atLimit})`,
    );
  const clock = stageClock();
  const stacks: Array<Awaited<ReturnType<typeof benchStack>>> = [];
  try {
    stacks.push(await benchStack(`${PROFILE}-aa-a`, BENCH_OFFSET, stackEnv(maxJobs)));
    stacks.push(await benchStack(`${PROFILE}-aa-b`, BENCH_OFFSET + INTERLEAVE_PORT_SHIFT, stackEnv(maxJobs)));
    clock.mark('two stacks up');
    const seeded: Array<Record<string, number>> = [];
    if (VERIFICATIONS > 0 || JOBS > 0)
      for (const x of stacks) {
        const { userId, keyId } = await tenantIds(x.base, x.token);
        const t0 = performance.now();
        seeded.push(await seed(x.stack, x.orgId, userId, keyId));
        console.error(`[aa] seeded in ${round((performance.now() - t0) / 1000)} s`);
      }
    clock.mark('seed of both');
    const [a, b] = stacks as [(typeof stacks)[0], (typeof stacks)[0]];
    const A = side('A', a);
    const B = side('B', b);
    const t0 = performance.now();
    if (!BATCH_ONLY) for (const x of [A, B]) await load(x.stack, x.base, x.key).catch(() => undefined); // the first load's warm-up
    const inter = await interleavePairs(A, B, t0);
    clock.mark(`interleave (${INTERLEAVE} pairs, warm-ups)`);
    const label = `B (both ${VERIFICATIONS.toLocaleString('en')} verif. + ${JOBS.toLocaleString('en')} jobs)`;
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' ',
        )} on ${os.cpus().length} CPUs; A/A, each stack seeded: ${JSON.stringify(seeded[0] ?? {})}; job limit ${maxJobs}`,
    );
    const goals = printInterleaved(inter, label);
    if (POST_TRACE) printSpans(inter);
    printClosing(goals, clock.stages);
  } finally {
    for (const x of stacks) {
      await closeTemporal(x.stack);
      await x.stack.down();
    }
  }
}

async function main() {
  if (AA) return mainAA();
  // By default the seeded phase runs at the limit (a full job store: each admission evicts the job
  // that finished first); --max-jobs above the seed and both phases' jobs runs it without evictions.
  // Session 20: exactly the empty phase's jobs (warm-up, singles, bursts) + the seed + one burst, so
  // that every seeded slot is below the limit (a slot above it is never taken again: with a seed
  // past the limit, as small runs had under Math.max(1000, ...) or more rounds, the release queue
  // held such slots) and the seeded phase's warm-up fills the rest: each measured admission evicts.
  // Session 24: the phases' bursts follow --burst-wait (both: two bursts per round).
  const emptyJobs = 1 + CONCURRENT_JOBS + RUNS + ROUNDS * CONCURRENT_JOBS * BURST_KINDS.length;
  const maxJobs = Number(arg('max-jobs', String(emptyJobs + JOBS + CONCURRENT_JOBS)));
  const clock = stageClock();
  const { stack, base, key, token, orgId } = await benchStack(PROFILE, BENCH_OFFSET, {
    ...stackEnv(maxJobs),
    ...(CAPTURE ? captureEnv(path.resolve(CAPTURE)) : {}),
  });
  clock.mark('stack up');
  try {
    const { userId, keyId } = await tenantIds(base, token);
    // Warm-up (workflow bundle, JIT, connections): the first one longer, then the same one before each phase.
    if (!BATCH_ONLY) await load(stack, base, key).catch(() => undefined);
    await warmUp(stack, base, key, 'empty');
    const empty = await measure(stack, base, key, token, orgId, 'empty');
    clock.mark('empty phase (warm-ups included)');

    const t0 = performance.now();
    const seeded = await seed(stack, orgId, userId, keyId);
    const seedS = (performance.now() - t0) / 1000;
    console.error(`seeded in ${round(seedS)} s: ${JSON.stringify(seeded)}`);
    clock.mark('seed');
    await warmUp(stack, base, key, 'seeded'); // the same warm-up as before the empty phase
    const full = await measure(stack, base, key, token, orgId, 'seeded');
    clock.mark('seeded phase (warm-up included)');
    console.log(await limitReport({ name: 'seeded stack after its phase', stack }));
    // Session 20: the same figures again, an empty stack and this one in alternation (--interleave).
    const inter =
      INTERLEAVE > 0
        ? await interleaved({ stack, base, key }, maxJobs).catch((err: Error) => {
            console.error(`interleaved measure failed: ${err.stack ?? err.message}`);
            return null;
          })
        : null;
    if (inter) clock.mark(`interleave (empty stack's start, warm-ups, ${INTERLEAVE} pairs)`);

    const label = `${VERIFICATIONS.toLocaleString('en')} verif. + ${JOBS.toLocaleString('en')} jobs x ${JOB_ITEMS}`;
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs; seeded in ${round(seedS)} s: ${JSON.stringify(seeded)}`,
    );
    const rows: Array<Record<string, string | number>> = [];
    const outside: string[] = [];
    const range = (r: Spread | undefined) => (r ? `${r.min}-${r.max}` : '');
    const row = (
      figure: string,
      a: number | string,
      b: number | string,
      higherIsBetter = false,
      spreads?: [Spread, Spread],
    ) => {
      const ratio = typeof a === 'number' && typeof b === 'number' && a > 0 ? b / a : NaN;
      const flat = Number.isNaN(ratio) ? '?' : (higherIsBetter ? ratio >= 0.9 : ratio <= 1.1) ? 'yes' : 'NO';
      // Ranges that overlap: the difference is within the run's own spread.
      const overlap = spreads ? spreads[0].max >= spreads[1].min && spreads[1].max >= spreads[0].min : undefined;
      rows.push({
        figure,
        empty: a,
        [label]: b,
        'seeded/empty': Number.isNaN(ratio) ? '-' : Math.round(ratio * 100) / 100,
        'within 10 %': flat,
        'range empty': range(spreads?.[0]),
        'range seeded': range(spreads?.[1]),
      });
      if (flat === 'NO')
        outside.push(
          `${figure}: ${a} -> ${b} (${Math.round(ratio * 100) / 100})${overlap === undefined ? '' : overlap ? ', ranges overlap' : ', ranges apart'}`,
        );
    };
    const sp = (k: string): [Spread, Spread] => [empty.batch.spreads[k] as Spread, full.batch.spreads[k] as Spread];
    const med = (f: Phase, k: string) => f.batch.spreads[k]?.median ?? NaN;
    row(
      `one 100-item math job, submit → stored completed (ms, median of ${RUNS})`,
      med(empty, 'single_stored_ms'),
      med(full, 'single_stored_ms'),
      false,
      sp('single_stored_ms'),
    );
    row(
      `one 100-item math job, submit → seen completed (ms, poll ${POLL_MS} ms, median of ${RUNS})`,
      empty.batch.single_ms,
      full.batch.single_ms,
      false,
      sp('single_ms'),
    );
    row(
      `${CONCURRENT_JOBS} jobs at once: items/s to the last stored completion (median of ${ROUNDS})`,
      med(empty, 'concurrent_stored_items_per_s'),
      med(full, 'concurrent_stored_items_per_s'),
      true,
      sp('concurrent_stored_items_per_s'),
    );
    row(
      `${CONCURRENT_JOBS} jobs at once: items/s to the last seen completion (poll 500 ms, median of ${ROUNDS})`,
      empty.batch.concurrent_items_per_s,
      full.batch.concurrent_items_per_s,
      true,
      sp('concurrent_items_per_s'),
    );
    row(
      `${CONCURRENT_JOBS} jobs at once: wall (ms)`,
      empty.batch.concurrent_wall_ms,
      full.batch.concurrent_wall_ms,
      false,
      sp('concurrent_wall_ms'),
    );
    row(
      `${CONCURRENT_JOBS} jobs at once: last job stored completed (ms after the first POST)`,
      empty.batch.spreads.concurrent_stored_wall_ms?.median ?? NaN,
      full.batch.spreads.concurrent_stored_wall_ms?.median ?? NaN,
      false,
      sp('concurrent_stored_wall_ms'),
    );
    for (const k of Object.keys(empty.batch.spreads).filter((x) => x.startsWith('cpu_per_item_')))
      row(
        `${CONCURRENT_JOBS} jobs at once: CPU ms per item, ${k.slice('cpu_per_item_'.length)} (median of ${ROUNDS})`,
        (empty.batch.spreads[k] as Spread).median,
        (full.batch.spreads[k] as Spread | undefined)?.median ?? NaN,
        false,
        full.batch.spreads[k] ? sp(k) : undefined,
      );
    row(
      `${CONCURRENT_JOBS} jobs at once: GETs of the jobs per burst (polled every 500 ms; in the CPU per item above)`,
      med(empty, 'concurrent_gets'),
      med(full, 'concurrent_gets'),
      false,
      sp('concurrent_gets'),
    );
    // Session 24: the phases' waited bursts (--burst-wait both), apart from today's polled rows.
    for (const k of Object.keys(empty.batch.spreads).filter((x) => x.startsWith('waited_')))
      row(
        `${CONCURRENT_JOBS} jobs at once, waited (1 GET per job): ${k.slice('waited_'.length).replace(/_/g, ' ')} (median of ${ROUNDS})`,
        (empty.batch.spreads[k] as Spread).median,
        (full.batch.spreads[k] as Spread | undefined)?.median ?? NaN,
        k.includes('items_per_s'),
        full.batch.spreads[k] ? sp(k) : undefined,
      );
    row(`${CONCURRENT_JOBS} jobs at once: failed items`, empty.batch.concurrent_failed, full.batch.concurrent_failed);
    row(
      `POST /verify/batch p95 while ${CONCURRENT_JOBS} submitted (ms, median of ${ROUNDS})`,
      empty.batch.post_p95_ms,
      full.batch.post_p95_ms,
      false,
      sp('post_p95_ms'),
    );
    row(
      `POST /verify/batch p95 of every POST pooled (ms; ${empty.batch.post_n} / ${full.batch.post_n} POSTs)`,
      empty.batch.post_p95_pooled_ms,
      full.batch.post_p95_pooled_ms,
    );
    row(`POST /verify/batch max (ms)`, empty.batch.post_max_ms, full.batch.post_max_ms);
    row(`POST /verify/batch 503 answers while ${CONCURRENT_JOBS} submitted`, empty.batch.post_503, full.batch.post_503);
    if (!BATCH_ONLY) {
      row(`/verify/math req/s at ${CLIENTS} clients`, empty.load.rps, full.load.rps, true);
      row('/verify/math p95 (ms)', empty.load.p95, full.load.p95);
    }
    for (const k of Object.keys(empty.load.cpu))
      row(`CPU ms per verification: ${k}`, empty.load.cpu[k] as number, full.load.cpu[k] as number);
    for (const k of Object.keys(empty.load.rssMb))
      row(`resident MB after load: ${k}`, empty.load.rssMb[k] as number, full.load.rssMb[k] as number);
    for (const k of Object.keys(empty.lists.ms)) {
      const both = empty.lists.spreads[k] && full.lists.spreads[k];
      row(
        `${k} (ms)`,
        empty.lists.ms[k] as number,
        full.lists.ms[k] as number,
        false,
        both ? [empty.lists.spreads[k] as Spread, full.lists.spreads[k] as Spread] : undefined,
      );
    }
    // CPU per call by the whole stack: the list figure a loaded machine does not distort.
    for (const k of Object.keys(empty.lists.cpu))
      row(`CPU ms per call (stack): ${k}`, empty.lists.cpu[k] as number, full.lists.cpu[k] as number);
    for (const k of Object.keys(empty.probes))
      row(`store: ${k} (ms)`, empty.probes[k] as number, full.probes[k] as number);
    console.table(rows);
    console.log(
      outside.length ? `outside 10 % (${outside.length}):\n  ${outside.join('\n  ')}` : 'every figure within 10 %',
    );
    console.log(
      `POST /verify/batch p95 while ${CONCURRENT_JOBS} submitted, goal <= 200 ms: empty ${empty.batch.post_p95_ms} (${range(empty.batch.spreads.post_p95_ms)}), seeded ${full.batch.post_p95_ms} (${range(full.batch.spreads.post_p95_ms)})`,
    );
    console.log(
      `errors: /verify/math ${empty.load.errors} / ${full.load.errors}; failed items (single jobs) ${empty.batch.single_failed} / ${full.batch.single_failed}`,
    );
    const goals = [...phaseGoals(empty, full), ...(inter ? printInterleaved(inter, label) : [])];
    if (inter && POST_TRACE) printSpans(inter);
    if (inter && RESTART_SEEDED_API) {
      // Session 22: the pairs before the seeded API's restart and after it, apart.
      const k = restartAt(INTERLEAVE);
      for (const [what, a, b] of [
        ['before the seeded API restart', 0, k],
        ['after the seeded API restart', k, INTERLEAVE],
      ] as const) {
        console.log(`\n=== interleaved pairs ${a + 1}-${b}, ${what} ===`);
        const half = inter.map((x) => sliceSide(x, a, b));
        printInterleaved(half, label);
        if (POST_TRACE) printSpans(half);
      }
    }
    // Session 19: what the batch figures left for the store (e.g. held deletions of evicted jobs), waited out before the load.
    if (empty.load.settle && full.load.settle)
      console.log(
        `store CPU left by the batch figures, waited out before the /verify/math load (not counted per verification): empty ${empty.load.settle.storeCpuMs} ms in ${empty.load.settle.ms} ms, seeded ${full.load.settle.storeCpuMs} ms in ${full.load.settle.ms} ms`,
      );
    if (CAPTURE) {
      // What the store was asked during the single 100-item jobs, empty against seeded: the slowest sites first.
      const all = readCapture(path.resolve(CAPTURE));
      for (const [name, w] of [
        ['empty', empty.batch.window],
        ['seeded', full.batch.window],
      ] as const) {
        const ops = all
          .filter((c) => c.t >= w[0] && c.t <= w[1])
          .flatMap(classify)
          .filter((o) => o.cls !== 'admin' && o.cls !== 'getMore');
        console.log(`store operations during the ${RUNS} single jobs, ${name} store: ${ops.length}`);
        console.table(
          summarize(ops)
            .bySite.sort((a, b) => b.ms_total - a.ms_total)
            .slice(0, 15),
        );
      }
      // What the API sent while the bursts were submitted (session 14: the admissions' commands
      // and their durations as the driver saw them, queueing included), per burst, slowest first.
      for (const [name, ws] of [
        ['empty', empty.batch.burstWindows],
        ['seeded', full.batch.burstWindows],
      ] as const) {
        const bySite = new Map<string, { n: number; ms: number[] }>();
        for (const c of all.filter((x) => x.role === 'api-process' && ws.some(([a, b]) => x.t >= a && x.t <= b))) {
          const k = `${c.site} ${c.cmd} ${c.coll ?? ''}${c.error ? ` (${c.error})` : ''}`;
          const e = bySite.get(k) ?? { n: 0, ms: [] };
          e.n++;
          e.ms.push(c.ms ?? 0);
          bySite.set(k, e);
        }
        console.log(
          `API store commands during the ${ws.length} bursts, ${name} store (per burst; driver ms incl. queueing):`,
        );
        console.table(
          [...bySite]
            .map(([site, e]) => ({
              site,
              per_burst: round(e.n / Math.max(1, ws.length)),
              ms_median: round(median(e.ms)),
              ms_p95: round(
                percentile(
                  [...e.ms].sort((a, b) => a - b),
                  95,
                ),
              ),
              ms_total_per_burst: Math.round(e.ms.reduce((a, b) => a + b, 0) / Math.max(1, ws.length)),
            }))
            .sort((a, b) => b.ms_total_per_burst - a.ms_total_per_burst)
            .slice(0, 15),
        );
      }
      // Session 16: which commands grow with the store? Every process's operations per single job
      // and per burst, by process, collection and kind (classify), empty beside seeded, the
      // largest differences first. Counts, not times: load does not distort them.
      for (const [what, e, f] of [
        ['single job', empty.batch.singleWindows, full.batch.singleWindows],
        ['burst', empty.batch.burstWindows, full.batch.burstWindows],
      ] as const) {
        const rows = commandsPerWindow(all, e, f);
        console.log(
          `store operations per ${what} by process, collection and kind (${e.length} empty, ${f.length} seeded; largest differences first):`,
        );
        console.table(rows.slice(0, 25));
      }
      // Session 19: store operations per /verify/math verification during each phase's load (all
      // processes: a batch job's deletion held past the bursts lands here too), empty beside seeded.
      if (empty.load.window && full.load.window) {
        const r3 = (n: number) => Math.round(n * 1000) / 1000;
        const perVerification = commandsPerWindow(
          all,
          empty.load.windows ?? [empty.load.window],
          full.load.windows ?? [full.load.window],
        ).map((r) => {
          const a = r3(r.empty / Math.max(1, empty.load.ok ?? 0));
          const b = r3(r.seeded / Math.max(1, full.load.ok ?? 0));
          return { op: r.op, empty: a, seeded: b, diff: r3(b - a), per_load: `${r.empty} / ${r.seeded}` };
        });
        console.log(
          `store operations per /verify/math verification by process, collection and kind (${empty.load.ok} empty, ${full.load.ok} seeded verifications; per_load: the whole load's count; largest differences first):`,
        );
        console.table(perVerification.sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff)).slice(0, 25));
      }
      // ... and what the store was still doing for the batch figures when the load would have started (settleStore's wait).
      if (empty.load.settle && full.load.settle) {
        console.log(
          `store operations while waiting for a quiet store before the load (empty ${empty.load.settle.ms} ms, store CPU ${empty.load.settle.storeCpuMs} ms; seeded ${full.load.settle.ms} ms, store CPU ${full.load.settle.storeCpuMs} ms):`,
        );
        console.table(commandsPerWindow(all, [empty.load.settle.window], [full.load.settle.window]).slice(0, 15));
      }
    }
    printClosing(goals, clock.stages);
  } finally {
    await closeTemporal(stack);
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
