// Benchmark (issue 22, session 20): does Temporal's CPU per /verify/math grow as its history store
// (the dev server's SQLite file) fills with finished executions? data-scale read Temporal's share of
// CPU per verification 8.2 → 9.8 ms from its empty to its seeded phase; Temporal is not seeded
// there, its executions are the run's own. Here one stack per configuration runs the 8-client math
// load in rounds of --per-round verifications; each round is the load plus a --tail of idle
// seconds after it (a math run's execution time-out timer fires 10 s after its start, and Temporal
// validates it against the closed run then: that work belongs to the round that made it). Per round
// it prints CPU per verification by process (load window, and Temporal's tail), Temporal's
// resident memory, its SQLite file (+ WAL) size and rows of its main tables.
// With several --configs, the stacks run side by side and their rounds interleave (A1 B1 A2 B2 ...),
// so the machine's drift falls on all alike; a configuration is extra dev-server flags
// (SVC_TEMPORAL_EXTRA_ARGS of infra/stack.ts), e.g. a dynamic-config value, or (session 21) `env:`
// and the stack's environment as K=V pairs split by commas, e.g. `lim=env:SVC_TEMPORAL_GOMEMLIMIT=200MiB`
// (the Go runtime knobs, infra/go-runtime.ts). At the end, each Temporal's resident memory split
// into its binary's file pages and its anonymous memory (/proc/<pid>/smaps).
// Session 22: per round also what holds Temporal's heap (bench/temporal-metrics.ts, its /metrics):
// the host-level mutable-state cache's entries and capacity, its misses per verification (each a
// read of the execution from SQLite), the history service's Go heap in use and, with
// GODEBUG=gctrace=1 in the bench's environment, the live heap after the last collection. E.g.
//   --configs 'base=;c1k=--dynamic-config-value history.hostLevelCacheMaxSize=1024'
//   npx tsx bench/temporal-growth.ts [--rounds 6] [--per-round 2000] [--clients 8] [--tail 12] [--warm 200] [--rates 8,24] [--fill 0]
//        [--configs 'base=;c1k=--dynamic-config-value history.hostLevelCacheMaxSize=1024']
// Ports: SVC_BENCH_PORT_OFFSET (default 930) for the first configuration, +20 for each next one.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBenchStack, type BenchStack } from './bench-stack.js';
import { groupSample } from './proc-sample.js';
import { temporalMemory } from './temporal-metrics.js';
import { testPorts } from '../infra/stack.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    "npx tsx bench/temporal-growth.ts [--rounds 6] [--per-round 2000] [--clients 8] [--tail 12] [--warm 200] [--rates 8,24] [--fill 0] [--configs 'name=<temporal flags>;name2=env:K=V,K2=V2;...']",
  );
  process.exit(0);
}
const ROUNDS = Number(arg('rounds', '6'));
const PER_ROUND = Number(arg('per-round', '2000'));
const CLIENTS = Number(arg('clients', '8'));
const TAIL_S = Number(arg('tail', '12'));
const WARM = Number(arg('warm', '200'));
/**
 * --rates 8,24: each round measures --per-round verifications at each of these fixed rates (req/s,
 * open loop, at most --clients in flight) instead of as fast as 8 clients go. A closed-loop round
 * runs at whatever rate the shared machine allows, and Temporal's CPU per verification moves with
 * the rate (its Go runtime's idle spinning and per-second work are paid per second, not per
 * verification): a fixed rate compares rounds at the same rate. Empty: closed loop.
 */
const RATES = arg('rates', '').split(',').filter(Boolean).map(Number);
/** --fill N: N more verifications (closed loop, not measured) between rounds: the store fills faster. */
const FILL = Number(arg('fill', '0'));
const CONFIGS = arg('configs', 'base=')
  .split(';')
  .filter(Boolean)
  .map((c) => {
    const i = c.indexOf('=');
    return { name: i < 0 ? c : c.slice(0, i), flags: i < 0 ? '' : c.slice(i + 1).trim() };
  });
const OFFSET = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 930);
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });
/** Temporal's SQLite tables whose rows are counted after each round. */
const TABLES = ['executions', 'current_executions', 'history_node', 'executions_visibility', 'timer_tasks'];

const round1 = (n: number) => Math.round(n * 10) / 10;

/** `K=V,K2=V2` as an environment (a configuration's `env:` form). */
function envPairs(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of text.split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
  }
  return env;
}

/** A process's resident memory (MB): file-backed pages (its binary) and anonymous memory (/proc/<pid>/smaps_rollup). */
function rssSplit(pid: number | undefined): { file: number; anon: number } {
  try {
    const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? 0);
    return { file: round1((kb('Rss') - kb('Anonymous')) / 1024), anon: round1(kb('Anonymous') / 1024) };
  } catch {
    return { file: 0, anon: 0 };
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Side {
  name: string;
  b: BenchStack;
  sqlite: string;
  done: number;
  rows: Record<string, number>[];
}

function sample(b: BenchStack) {
  const s = b.stack;
  const worker = s.workers.map((w) => groupSample(w.pid)).reduce((a, x) => a + x.cpuMs, 0);
  const t = groupSample(s.temporal.pid);
  return {
    api: groupSample(s.api.pid).cpuMs,
    worker,
    store: groupSample(s.ferret?.pid).cpuMs,
    temporal: t.cpuMs,
    temporalRss: t.rssMb,
    temporalIo: procIo(s.temporal.pid),
  };
}

/** Read syscalls and bytes of a process (/proc/<pid>/io, all its threads): counted, not timed. */
function procIo(pid: number | undefined): { syscr: number; rchar: number; syscw: number } {
  const out = { syscr: 0, rchar: 0, syscw: 0 };
  try {
    for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').split('\n')) {
      const [k, v] = line.split(':');
      if (k === 'syscr' || k === 'rchar' || k === 'syscw') out[k] = Number(v);
    }
  } catch {
    /* gone */
  }
  return out;
}

const fileMb = (f: string) => (existsSync(f) ? statSync(f).size / 1048576 : 0);

function tableRows(file: string): Record<string, number> {
  const out: Record<string, number> = {};
  const sql = TABLES.map((t) => `select '${t}', count(*) from ${t};`).join('');
  try {
    const text = execFileSync('sqlite3', [`file:${file}?mode=ro`, sql], { encoding: 'utf8', timeout: 60_000 });
    for (const line of text.trim().split('\n')) {
      const [k, v] = line.split('|');
      if (k) out[k] = Number(v);
    }
  } catch (err) {
    out.error = 1;
    console.error(`sqlite3: ${(err as Error).message.split('\n')[0]}`);
  }
  return out;
}

/**
 * `n` /verify/math verifications at CLIENTS clients, as fast as they go or (rate > 0) each client
 * starting its next request at its own slot of a fixed schedule; returns the wall ms and the errors.
 */
async function drive(b: BenchStack, n: number, rate = 0): Promise<{ ms: number; ok: number; errors: number }> {
  let started = 0;
  let ok = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (started < n) {
        const slot = started++;
        if (rate > 0) {
          const wait = t0 + (slot * 1000) / rate - performance.now();
          if (wait > 0) await sleep(wait);
        }
        const res = await fetch(`${b.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': b.key },
          body: BODY,
        }).catch(() => null);
        if (res?.status === 200) ok++;
        else errors++;
        await res?.arrayBuffer().catch(() => undefined);
      }
    }),
  );
  return { ms: performance.now() - t0, ok, errors };
}

async function main() {
  const sides: Side[] = [];
  try {
    for (const [i, c] of CONFIGS.entries()) {
      const b = await startBenchStack(
        `temporal-growth-${c.name}`,
        OFFSET,
        c.flags.startsWith('env:') ? envPairs(c.flags.slice(4)) : { SVC_TEMPORAL_EXTRA_ARGS: c.flags },
        {
          ports: testPorts(OFFSET + 20 * i),
        },
      );
      sides.push({ name: c.name, b, sqlite: path.join(b.stack.dataDir, 'temporal.sqlite'), done: 0, rows: [] });
      console.error(`[${c.name}] up (temporal flags: ${c.flags || 'none'})`);
    }
    for (const s of sides) {
      await drive(s.b, WARM);
      s.done += WARM;
    }
    await sleep(TAIL_S * 1000);
    // Temporal's idle CPU (ms/s), subtracted from nothing: printed so that the tail can be read against it.
    const idle0 = sides.map((s) => sample(s.b).temporal);
    await sleep(5000);
    const idle = sides.map((s, i) => round1((sample(s.b).temporal - (idle0[i] as number)) / 5));
    console.log(
      `temporal-growth: ${ROUNDS} rounds of ${PER_ROUND} /verify/math at ${CLIENTS} clients${RATES.length ? ` at ${RATES.join(' and ')} req/s` : ''}, tail ${TAIL_S} s; warm-up ${WARM}; ${FILL} more (not measured) between rounds`,
    );
    console.log(`configs: ${CONFIGS.map((c) => `${c.name} [${c.flags || 'defaults'}]`).join('; ')}`);
    console.log(`Temporal idle CPU (ms per s): ${sides.map((s, i) => `${s.name} ${idle[i]}`).join(', ')}`);
    console.log(
      'config round executions_before req/s | CPU ms per verification: api worker store temporal(load) temporal(tail) temporal(sum) total | temporal RSS MB | temporal read syscalls, KiB read, write syscalls per verification | sqlite MB (+wal) | rows ' +
        TABLES.join(' ') +
        ' | mutable-state cache entries/size, misses per verification | heap in use, live MB | load',
    );
    for (let r = 1; r <= ROUNDS; r++) {
      for (const s of sides)
        for (const rate of RATES.length ? RATES : [0]) {
          const before = sample(s.b);
          const mem0 = await temporalMemory(s.b.stack.temporal.logFile);
          const res = await drive(s.b, PER_ROUND, rate);
          const mid = sample(s.b);
          await sleep(TAIL_S * 1000);
          const after = sample(s.b);
          const mem = await temporalMemory(s.b.stack.temporal.logFile);
          const n = Math.max(1, res.ok);
          const per = (k: 'api' | 'worker' | 'store' | 'temporal', a: typeof before, z: typeof before) =>
            round1((z[k] - a[k]) / n);
          const tLoad = per('temporal', before, mid);
          const tTail = per('temporal', mid, after);
          const total = round1(
            per('api', before, after) + per('worker', before, after) + per('store', before, after) + tLoad + tTail,
          );
          const rows = tableRows(s.sqlite);
          const io = (k: 'syscr' | 'rchar' | 'syscw') => after.temporalIo[k] - before.temporalIo[k];
          s.rows.push(rows);
          console.log(
            [
              s.name,
              rate ? `${r}@${rate}` : r,
              s.done,
              round1((res.ok / res.ms) * 1000),
              '|',
              per('api', before, after),
              per('worker', before, after),
              per('store', before, after),
              tLoad,
              tTail,
              round1(tLoad + tTail),
              total,
              '|',
              after.temporalRss,
              '|',
              round1(io('syscr') / n),
              round1(io('rchar') / n / 1024),
              round1(io('syscw') / n),
              '|',
              `${round1(fileMb(s.sqlite))} (+${round1(fileMb(`${s.sqlite}-wal`))})`,
              '|',
              TABLES.map((t) => rows[t] ?? '-').join(' '),
              '|',
              mem && mem0
                ? `${mem.cacheEntries}/${mem.cacheSize} ${round1((mem.cacheMisses - mem0.cacheMisses) / n)}`
                : '- -',
              '|',
              mem ? `${mem.heapInUseMb} ${mem.liveHeapMb}` : '- -',
              '|',
              loadavg()[0]?.toFixed(1),
              res.errors ? `errors ${res.errors}` : '',
            ].join(' '),
          );
          s.done += res.ok;
        }
      if (FILL > 0 && r < ROUNDS)
        for (const s of sides) {
          const f = await drive(s.b, FILL);
          s.done += f.ok;
        }
    }
    for (const s of sides) {
      const m = rssSplit(s.b.stack.temporal.pid);
      const mem = await temporalMemory(s.b.stack.temporal.logFile);
      console.log(
        `${s.name}: Temporal resident memory at the end: ${m.file} MB file-backed (its binary), ${m.anon} MB anonymous; ${s.done} executions; mutable-state cache ${mem ? `${mem.cacheEntries}/${mem.cacheSize}, ${round1(mem.cacheMisses / Math.max(1, s.done))} misses per execution, heap in use ${mem.heapInUseMb} MB, live ${mem.liveHeapMb} MB` : '-'}`,
      );
    }
  } finally {
    for (const s of sides) await s.b.stack.down().catch(() => undefined);
  }
}

// Exits when done: the esbuild service and fetch's kept-alive sockets would hold the process open.
main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
