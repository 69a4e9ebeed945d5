// Benchmark (issue 22, session 21): the Go runtime settings of the stack's two Go processes (the
// Temporal dev server and FerretDB; infra/go-runtime.ts). One stack per configuration, all of one
// tree, side by side; rounds interleave them (the order rotates every round, so no configuration
// always follows another), and each configuration's figures are compared with the first one's
// round by round: the median of the per-round ratios, with their range (a loaded machine's drift
// falls on both sides of a pair alike). Per round and configuration:
//   - math: `--clients` closed-loop clients of /verify/math for `--slice` seconds: CPU ms per
//     verification of each process group (temporal, store, api with its in-process worker, worker;
//     /proc, threads included), req/s, p50/p95 latency, and the Go processes' context switches per
//     verification (all their threads; counted, not timed);
//   - batch: `--jobs` jobs of `--items` math items posted at once: items/s (first POST to last
//     answer) and CPU ms per item by process;
//   - each process group's resident memory after the round (its peak over the rounds is printed).
// Before the rounds, every stack's idle CPU (ms per s) over `--idle` seconds: the Go runtimes'
// cost per second with nothing to do. Run it with GODEBUG=gctrace=1 in its environment (the Go
// processes inherit it and print a line per collection to their logs) and it also prints the
// collections and their CPU (the line's `ms cpu` sum) per verification / batch item of each.
//   npx tsx bench/go-runtime-ab.ts --configs 'base=;t1=SVC_TEMPORAL_GOMAXPROCS=1;s1=SVC_STORE_GOMAXPROCS=1'
//        [--rounds 8] [--slice 8] [--clients 8] [--jobs 10] [--items 100] [--idle 10] [--warm 3]
// A configuration is `name=K=V,K2=V2` (the stack's environment; empty: the defaults).
// Session 22: at the end, each Temporal's mutable-state cache (bench/temporal-metrics.ts): its
// entries and size, and its misses (each a read of an execution from SQLite) per execution the
// rounds started (verifications + jobs), counted from the first round to 12 s after the last (so
// that the runs' time-out timers have fired), e.g.
//   --configs 'd8k=SVC_TEMPORAL_HISTORY_CACHE_ENTRIES=8096;c2k=SVC_TEMPORAL_HISTORY_CACHE_ENTRIES=2048'
// Ports: SVC_BENCH_PORT_OFFSET (default 650) for the first configuration, +10 for each next one.
import { openSync, readSync, closeSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startBenchStack, type BenchStack } from './bench-stack.js';
import { groupSample } from './proc-sample.js';
import { MATH_ITEM_MIX } from './math-items.js';
import { medianInterval, medianOf, percentileOf } from './round-stats.js';
import { temporalMemory, type TemporalMemory } from './temporal-metrics.js';
import { testPorts } from '../infra/stack.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    "npx tsx bench/go-runtime-ab.ts --configs 'base=;t1=SVC_TEMPORAL_GOMAXPROCS=1' [--rounds 8] [--slice 8] [--clients 8] [--jobs 10] [--items 100] [--idle 10] [--warm 3]",
  );
  process.exit(0);
}
const ROUNDS = Number(arg('rounds', '8'));
const SLICE_S = Number(arg('slice', '8'));
const CLIENTS = Number(arg('clients', '8'));
const JOBS = Number(arg('jobs', '10'));
const ITEMS = Number(arg('items', '100'));
const IDLE_S = Number(arg('idle', '10'));
const WARM_S = Number(arg('warm', '3'));
const OFFSET = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 650);
const CONFIGS = arg('configs', 'base=')
  .split(';')
  .filter(Boolean)
  .map((c) => {
    const i = c.indexOf('=');
    const name = i < 0 ? c : c.slice(0, i);
    const env: Record<string, string> = {};
    for (const kv of (i < 0 ? '' : c.slice(i + 1)).split(',').filter(Boolean)) {
      const j = kv.indexOf('=');
      if (j > 0) env[kv.slice(0, j).trim()] = kv.slice(j + 1).trim();
    }
    return { name, env };
  });
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });
const BATCH_BODY = JSON.stringify({
  items: Array.from({ length: ITEMS }, (_, i) => ({ query: MATH_ITEM_MIX[i % MATH_ITEM_MIX.length], type: 'math' })),
});
const PROCS = ['temporal', 'store', 'api', 'worker'] as const;
type Proc = (typeof PROCS)[number];

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Side {
  name: string;
  env: Record<string, string>;
  b: BenchStack;
  pids: Record<Proc, number | undefined>;
  /** Per round: the math slice's and the burst's figures. */
  rounds: Array<Record<string, number>>;
  latencies: number[];
  rssPeak: Record<Proc, number>;
  idleMsPerS: Record<Proc, number>;
}

function pidsOf(b: BenchStack): Record<Proc, number | undefined> {
  const s = b.stack;
  return { temporal: s.temporal.pid, store: s.ferret?.pid, api: s.api.pid, worker: s.worker.pid };
}

const cpuOf = (side: Side) =>
  Object.fromEntries(PROCS.map((p) => [p, groupSample(side.pids[p]).cpuMs])) as Record<Proc, number>;

/** Voluntary + involuntary context switches of every thread of a process (its /proc/<pid>/task). */
function ctxSwitches(pid: number | undefined): number {
  if (!pid) return 0;
  let n = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        const s = readFileSync(`/proc/${pid}/task/${t}/status`, 'utf8');
        n += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(s)?.[1] ?? 0);
        n += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(s)?.[1] ?? 0);
      } catch {
        /* thread ended */
      }
    }
  } catch {
    /* process gone */
  }
  return n;
}

function threads(pid: number | undefined): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

/** The Go collections a log gained since `offset` (GODEBUG=gctrace=1 lines): their count and CPU ms. */
function gcSince(file: string, offset: number): { offset: number; cycles: number; cpuMs: number } {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    return { offset, cycles: 0, cpuMs: 0 };
  }
  if (size <= offset) return { offset: size, cycles: 0, cpuMs: 0 };
  const buf = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  readSync(fd, buf, 0, buf.length, offset);
  closeSync(fd);
  let cycles = 0;
  let cpuMs = 0;
  for (const m of buf
    .toString('utf8')
    .matchAll(/^gc \d+ .*?([\d.]+)\+([\d.]+)\/([\d.]+)\/([\d.]+)\+([\d.]+) ms cpu/gm)) {
    cycles++;
    for (let i = 1; i <= 5; i++) cpuMs += Number(m[i]);
  }
  return { offset: size, cycles, cpuMs };
}

const GO_PROCS = ['temporal', 'store'] as const;
const logOf = (side: Side, p: (typeof GO_PROCS)[number]) =>
  (p === 'temporal' ? side.b.stack.temporal : side.b.stack.ferret)?.logFile ?? '';

async function mathSlice(side: Side, seconds: number): Promise<{ ok: number; failed: number; ms: number[] }> {
  const end = performance.now() + seconds * 1000;
  const ms: number[] = [];
  let ok = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await fetch(`${side.b.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': side.b.key },
          body: BODY,
        }).catch(() => null);
        const text = res ? await res.text().catch(() => '') : '';
        if (res?.status === 200 && text.includes('"VERIFIED"')) {
          ok++;
          ms.push(performance.now() - t0);
        } else failed++;
      }
    }),
  );
  return { ok, failed, ms };
}

async function burst(side: Side): Promise<{ wallMs: number; items: number; failed: number }> {
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: JOBS }, async () => {
      const res = await fetch(`${side.b.base}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': side.b.key },
        body: BATCH_BODY,
      }).catch(() => null);
      const body = (res ? await res.json().catch(() => ({})) : {}) as { completed_items?: number };
      return res?.status === 200 ? (body.completed_items ?? 0) : 0;
    }),
  );
  const items = results.reduce((a, x) => a + x, 0);
  return { wallMs: performance.now() - t0, items, failed: JOBS * ITEMS - items };
}

async function measureRound(side: Side): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const gc0 = GO_PROCS.map((p) => gcSince(logOf(side, p), Number.MAX_SAFE_INTEGER).offset);
  const c0 = cpuOf(side);
  const x0 = { temporal: ctxSwitches(side.pids.temporal), store: ctxSwitches(side.pids.store) };
  const m = await mathSlice(side, SLICE_S);
  const c1 = cpuOf(side);
  const x1 = { temporal: ctxSwitches(side.pids.temporal), store: ctxSwitches(side.pids.store) };
  const n = Math.max(1, m.ok + m.failed);
  let total = 0;
  for (const p of PROCS) {
    out[`math ${p}`] = (c1[p] - c0[p]) / n;
    total += out[`math ${p}`] as number;
  }
  out['math total'] = total;
  out['math n'] = m.ok;
  out['math req/s'] = m.ok / SLICE_S;
  out['math failed'] = m.failed;
  const sorted = [...m.ms].sort((a, b) => a - b);
  out['math p50'] = percentileOf(sorted, 50);
  out['math p95'] = percentileOf(sorted, 95);
  out['math temporal cs'] = (x1.temporal - x0.temporal) / n;
  out['math store cs'] = (x1.store - x0.store) / n;
  side.latencies.push(...m.ms);
  const gc1 = GO_PROCS.map((p, i) => gcSince(logOf(side, p), gc0[i] as number));
  GO_PROCS.forEach((p, i) => {
    out[`math ${p} gc cycles/1000`] = ((gc1[i]?.cycles ?? 0) * 1000) / n;
    out[`math ${p} gc cpu`] = (gc1[i]?.cpuMs ?? 0) / n;
  });
  const b = await burst(side);
  const c2 = cpuOf(side);
  const items = Math.max(1, b.items);
  total = 0;
  for (const p of PROCS) {
    out[`batch ${p}`] = (c2[p] - c1[p]) / items;
    total += out[`batch ${p}`] as number;
  }
  out['batch total'] = total;
  out['batch items/s'] = b.items / (b.wallMs / 1000);
  GO_PROCS.forEach((p, i) => {
    const g = gcSince(logOf(side, p), gc1[i]?.offset as number);
    out[`batch ${p} gc cycles/1000`] = (g.cycles * 1000) / items;
    out[`batch ${p} gc cpu`] = g.cpuMs / items;
  });
  out['batch failed'] = b.failed;
  for (const p of PROCS) side.rssPeak[p] = Math.max(side.rssPeak[p], groupSample(side.pids[p]).rssMb);
  return out;
}

async function main() {
  const sides: Side[] = [];
  const load0 = loadavg();
  try {
    for (const [i, c] of CONFIGS.entries()) {
      const b = await startBenchStack(`go-runtime-${c.name}`, OFFSET, c.env, { ports: testPorts(OFFSET + 10 * i) });
      const side: Side = {
        name: c.name,
        env: c.env,
        b,
        pids: pidsOf(b),
        rounds: [],
        latencies: [],
        rssPeak: { temporal: 0, store: 0, api: 0, worker: 0 },
        idleMsPerS: { temporal: 0, store: 0, api: 0, worker: 0 },
      };
      sides.push(side);
      const environ = (pid: number | undefined) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8')
            .split('\0')
            .filter((kv) => /^GO(MAXPROCS|GC|MEMLIMIT)=/.test(kv))
            .join(' ');
        } catch {
          return '?';
        }
      };
      console.error(
        `[${c.name}] up; temporal env: ${environ(side.pids.temporal) || 'none'}; store env: ${environ(side.pids.store) || 'none'}`,
      );
    }
    for (const s of sides) {
      await mathSlice(s, WARM_S); // warm-up, not counted
      await burst(s);
    }
    await sleep(12_000); // the warm-up's time-out timers fire 10 s after their runs start
    // Idle cost: all stacks at once, nothing driven.
    const i0 = sides.map(cpuOf);
    await sleep(IDLE_S * 1000);
    sides.forEach((s, i) => {
      const now = cpuOf(s);
      for (const p of PROCS) s.idleMsPerS[p] = r1((now[p] - (i0[i] as Record<Proc, number>)[p]) / IDLE_S);
    });
    const mem0 = await Promise.all(sides.map((s) => temporalMemory(s.b.stack.temporal.logFile)));
    const loads: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = sides.map((_, i) => sides[(i + r) % sides.length] as Side);
      if (r % 2 === 1) order.reverse();
      for (const s of order) s.rounds[r] = await measureRound(s);
      loads.push(loadavg()[0] as number);
      console.error(`round ${r + 1}/${ROUNDS} done, load ${loads.at(-1)?.toFixed(1)}`);
    }
    const load1 = loadavg();
    await sleep(12_000); // the last round's time-out timers
    const mem1 = await Promise.all(sides.map((s) => temporalMemory(s.b.stack.temporal.logFile)));
    console.log(
      `go-runtime-ab: ${ROUNDS} rounds; math ${SLICE_S} s at ${CLIENTS} clients, then ${JOBS} jobs x ${ITEMS} items at once; per configuration, interleaved (order rotates)`,
    );
    console.log(
      `load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, per round ${loads.map((l) => l.toFixed(1)).join(' ')}, after ${load1.map((l) => l.toFixed(1)).join(' ')}`,
    );
    console.log(
      `configs: ${CONFIGS.map(
        (c) =>
          `${c.name} [${
            Object.entries(c.env)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ') || 'defaults'
          }]`,
      ).join('; ')}`,
    );
    const keys = Object.keys(sides[0]?.rounds[0] ?? {});
    console.log('Medians over the rounds (CPU ms per verification / per batch item; cs = context switches):');
    console.table(
      Object.fromEntries(
        keys.map((k) => [
          k,
          Object.fromEntries(sides.map((s) => [s.name, r2(medianOf(s.rounds.map((x) => x[k] as number)))])),
        ]),
      ),
    );
    console.log('Pooled math latency (ms), resident memory peak (MB) and threads after the rounds, idle CPU (ms/s):');
    console.table(
      Object.fromEntries(
        sides.map((s) => {
          const sorted = [...s.latencies].sort((a, b) => a - b);
          return [
            s.name,
            {
              p50: r1(percentileOf(sorted, 50)),
              p95: r1(percentileOf(sorted, 95)),
              ...Object.fromEntries(PROCS.map((p) => [`RSS ${p}`, s.rssPeak[p]])),
              'threads temporal': threads(s.pids.temporal),
              'threads store': threads(s.pids.store),
              ...Object.fromEntries(PROCS.map((p) => [`idle ${p}`, s.idleMsPerS[p]])),
            },
          ];
        }),
      ),
    );
    console.log(
      'Temporal mutable-state cache after the rounds: entries/size, misses and lookups per execution (verifications + jobs), history heap in use and live MB:',
    );
    console.table(
      Object.fromEntries(
        sides.map((s, i) => {
          const [a, z] = [mem0[i], mem1[i]] as [TemporalMemory | undefined, TemporalMemory | undefined];
          const runs = Math.max(
            1,
            s.rounds.reduce((n, x) => n + (x['math n'] ?? 0) + (x['math failed'] ?? 0), 0) + ROUNDS * JOBS,
          );
          return [
            s.name,
            a && z
              ? {
                  cache: `${z.cacheEntries}/${z.cacheSize}`,
                  'misses/execution': r2((z.cacheMisses - a.cacheMisses) / runs),
                  'lookups/execution': r2((z.cacheRequests - a.cacheRequests) / runs),
                  'heap in use MB': z.heapInUseMb,
                  'live MB': z.liveHeapMb,
                }
              : { cache: '-' },
          ];
        }),
      ),
    );
    const base = sides[0] as Side;
    const PAIRED = [
      'math total',
      'math temporal',
      'math store',
      'math api',
      'math worker',
      'math req/s',
      'math p95',
      'batch total',
      'batch temporal',
      'batch store',
      'batch items/s',
    ];
    console.log(
      `Paired against ${base.name}: the median of the per-round ratios [min-max] {its 90 % interval by chance} (${ROUNDS} rounds, each configuration's slice beside ${base.name}'s in the same round):`,
    );
    console.table(
      Object.fromEntries(
        sides.slice(1).map((s) => [
          s.name,
          Object.fromEntries(
            PAIRED.map((k) => {
              const ratios = s.rounds.map((x, i) => (x[k] as number) / (base.rounds[i]?.[k] as number));
              // Session 23: {lo-hi}, where the median could lie by chance (round-stats medianInterval, >= 90 %).
              const iv = medianInterval(ratios);
              return [
                k,
                `${r2(medianOf(ratios))} [${r2(Math.min(...ratios))}-${r2(Math.max(...ratios))}]${iv ? ` {${r2(iv.lo)}-${r2(iv.hi)}}` : ''}`,
              ];
            }),
          ),
        ]),
      ),
    );
  } finally {
    for (const s of sides) await s.b.stack.down().catch(() => undefined);
  }
}

// Exits when done: fetch's kept-alive sockets would hold the process open.
main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
