// A/B of CPU per `/verify/math` between two source trees, interleaved in short slices so that a
// loaded machine's drift falls on both alike (a whole-run A/B on the shared 2-core machine moved
// the same code's figure by ±25 %). Both stacks run at once on their own ports (fresh data,
// compiled trees); each slice drives one of them at `--clients` for `--slice` seconds and charges
// the CPU its processes used in that slice (/proc, process groups, threads included) to it. Every
// other round also drives each side's empty workflow: the floor as issue 22 defines it
// (bench/eager-floor.ts: noopWorkflow with eager start, client and worker in this process, on the
// side's own Temporal, in the same run), and each side's ratio to it.
//   npx tsx bench/cpu-ab-math.ts --a <tree> --b <tree> [--slices 8] [--slice 6] [--clients 8]
//   (ports: SVC_DEV_PORT_OFFSET for A, +50 for B; a tree is a checkout with node_modules)
//   [--a-api-flags '<V8 flags>'] [--b-api-flags '<V8 flags>']: the API process's V8 flags of a side
//   (SVC_API_V8_FLAGS; session 16), e.g. one tree against itself with a flag; each side's API
//   resident memory is sampled at the end of every slice (its peak and last are printed).
//   [--a-env K=V,...] [--b-env K=V,...]: more environment of a side's stack (session 19).
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { groupCpuMs } from './proc-sample.js';
import { selfCpuMs, startEagerFloor } from './eager-floor.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const TREES = { A: path.resolve(arg('a', '.')), B: path.resolve(arg('b', '.')) };
const SLICES = Number(arg('slices', '8'));
const SLICE_S = Number(arg('slice', '6'));
const CLIENTS = Number(arg('clients', '8'));
const OFFSET = Number(process.env.SVC_DEV_PORT_OFFSET ?? 0);
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });

interface Side {
  name: 'A' | 'B';
  /** One empty workflow (noopWorkflow, signed, encrypted), started eagerly by a client and worker of this process on the side's Temporal. */
  noop: () => Promise<boolean>;
  floorCounts: () => { started: number; eager: number };
  closeNoop: () => Promise<void>;
  floor: Record<string, number>;
  floorN: number;
  base: string;
  key: string;
  pids: Record<string, number>;
  down: () => Promise<void>;
  cpu: Record<string, number>;
  n: number;
  failed: number;
  /** The API's RSS at the end of each of this side's slices (MB). */
  apiRss: number[];
  /** The API's RSS sampled every 250 ms while its slices ran: the highest, with its V8 pages then (MB; session 17). */
  apiPeak: { rss: number; v8: number };
}

/** Resident MB of a process's V8 heap pages (anonymous mappings in multiples of 256 KiB; bench/pool-memory.ts memoryClasses). */
function v8PagesMb(pid: number): number {
  let kb = 0;
  let size = 0;
  let named = false;
  try {
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (m) {
        size = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 1024;
        named = (m[3] ?? '') !== '';
        continue;
      }
      const r = /^Rss:\s+(\d+) kB/.exec(line);
      if (r && !named && size % 256 === 0) kb += Number(r[1]);
    }
  } catch {
    // ended meanwhile
  }
  return Math.round(kb / 1024);
}

/** The API's resident memory (its process group), MB. */
function apiRssMb(pid: number): number {
  let kb = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pid) continue;
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // ended meanwhile
    }
  }
  return Math.round(kb / 1024);
}

async function startSide(name: 'A' | 'B', tree: string, offset: number): Promise<Side> {
  // Each tree's own supervisor and compiled service (dynamic import: the tree's ROOT is its own).
  const bench = (await import(path.join(tree, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
  const infra = (await import(path.join(tree, 'infra', 'stack.ts'))) as typeof import('../infra/stack.js');
  const apiFlags: Record<string, string> = args.includes(`--${name.toLowerCase()}-api-flags`)
    ? { SVC_API_V8_FLAGS: arg(`${name.toLowerCase()}-api-flags`, '') }
    : {};
  // `--a-env K=V,K2=V2`: environment of a side's stack (session 19), e.g. one tree against itself with a knob.
  for (const kv of arg(`${name.toLowerCase()}-env`, '').split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    if (i > 0) apiFlags[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const b = await bench.startBenchStack(`bench-ab-${name}-${offset}`, 0, apiFlags, { ports: infra.devPorts(offset) });
  const read = (n: string) => Number(readFileSync(path.join(b.stack.dataDir, 'pids', `${n}.pid`), 'utf8'));
  const pids = { api: read('api'), worker: read('worker'), temporal: read('temporal'), store: read('ferretdb') };
  // The floor as issue 22 defines it (bench/eager-floor.ts): the empty workflow started with eager
  // start by a client sharing its connection with a worker of this process, on the side's Temporal.
  const floor = await startEagerFloor(tree, b.stack.urls.temporal_grpc as string, b.stack.env);
  return {
    name,
    noop: floor.noop,
    floorCounts: floor.counts,
    closeNoop: floor.close,
    floor: Object.fromEntries([...Object.keys(pids), 'floor process'].map((k) => [k, 0])),
    floorN: 0,
    base: b.base,
    key: b.key,
    pids,
    down: () => b.stack.down(),
    cpu: Object.fromEntries(Object.keys(pids).map((k) => [k, 0])),
    n: 0,
    failed: 0,
    apiRss: [],
    apiPeak: { rss: 0, v8: 0 },
  };
}

async function drive(side: Side, seconds: number, floor = false): Promise<{ n: number; failed: number }> {
  let n = 0;
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  const sampler = floor
    ? null
    : setInterval(() => {
        const rss = apiRssMb(side.pids.api as number);
        if (rss > side.apiPeak.rss) side.apiPeak = { rss, v8: v8PagesMb(side.pids.api as number) };
      }, 250);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        if (floor) {
          if (await side.noop()) n++;
          else failed++;
          continue;
        }
        const res = await fetch(`${side.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': side.key },
          body: BODY,
        }).catch(() => null);
        const text = res ? await res.text() : '';
        if (res?.status === 200 && text.includes('"VERIFIED"')) n++;
        else failed++;
      }
    }),
  );
  if (sampler) clearInterval(sampler);
  return { n, failed };
}

async function main() {
  const load0 = loadavg();
  const sides: Side[] = [];
  try {
    sides.push(await startSide('A', TREES.A, OFFSET));
    sides.push(await startSide('B', TREES.B, OFFSET + 50));
    await new Promise((r) => setTimeout(r, Number(arg('settle', '15')) * 1000));
    for (const s of sides) await drive(s, 3); // warm-up, not counted
    for (const s of sides) await drive(s, 1, true);
    const perSlice: Array<{ side: string; n: number; total: number }> = [];
    for (let i = 0; i < SLICES; i++) {
      // A B, then B A: neither side always follows the other.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        const before = Object.fromEntries(Object.entries(s.pids).map(([k, p]) => [k, groupCpuMs(p)]));
        const r = await drive(s, SLICE_S);
        let total = 0;
        for (const [k, p] of Object.entries(s.pids)) {
          const d = groupCpuMs(p) - (before[k] as number);
          s.cpu[k] = (s.cpu[k] as number) + d;
          total += d;
        }
        s.n += r.n;
        s.failed += r.failed;
        s.apiRss.push(apiRssMb(s.pids.api as number));
        perSlice.push({ side: s.name, n: r.n, total: +(total / Math.max(1, r.n + r.failed)).toFixed(1) });
      }
      // The empty workflow, every other round, on each side (its CPU charged to that side's floor).
      if (i % 2 === 1)
        for (const s of order) {
          const before = Object.fromEntries(Object.entries(s.pids).map(([k, p]) => [k, groupCpuMs(p)]));
          const self0 = selfCpuMs();
          const r = await drive(s, SLICE_S, true);
          // This process is the floor's client and worker (its HTTP client is idle meanwhile).
          s.floor['floor process'] = (s.floor['floor process'] as number) + selfCpuMs() - self0;
          for (const [k, p] of Object.entries(s.pids))
            s.floor[k] = (s.floor[k] as number) + groupCpuMs(p) - (before[k] as number);
          s.floorN += r.n + r.failed;
        }
    }
    const load1 = loadavg();
    console.log(
      `A = ${TREES.A}\nB = ${TREES.B}\n${SLICES} slices of ${SLICE_S} s per side, ${CLIENTS} clients; load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, after ${load1.map((l) => l.toFixed(1)).join(' ')}`,
    );
    console.log('CPU ms per verification of each slice (all processes):');
    console.table(perSlice);
    const rows = Object.fromEntries(
      sides.map((s) => {
        const per = Object.fromEntries(
          Object.entries(s.cpu).map(([k, v]) => [k, +(v / Math.max(1, s.n + s.failed)).toFixed(1)]),
        );
        const total = Object.values(s.cpu).reduce((a, b) => a + b, 0) / Math.max(1, s.n + s.failed);
        return [
          s.name,
          {
            n: s.n,
            'req/s': +(s.n / (SLICES * SLICE_S)).toFixed(1),
            failed: s.failed,
            ...per,
            total: +total.toFixed(1),
            'API RSS peak MB': Math.max(...s.apiRss),
            'API RSS last': s.apiRss.at(-1),
            'API RSS peak (250 ms samples)': s.apiPeak.rss,
            'its V8 pages': s.apiPeak.v8,
          },
        ];
      }),
    );
    console.log('CPU ms per verification by process, all slices:');
    console.table(rows);
    const floors = Object.fromEntries(
      sides.map((s) => {
        const per = Object.fromEntries(
          Object.entries(s.floor).map(([k, v]) => [k, +(v / Math.max(1, s.floorN)).toFixed(1)]),
        );
        const total = Object.values(s.floor).reduce((a, b) => a + b, 0) / Math.max(1, s.floorN);
        const ours = Object.values(s.cpu).reduce((a, b) => a + b, 0) / Math.max(1, s.n + s.failed);
        const { eager } = s.floorCounts();
        return [s.name, { n: s.floorN, eager, ...per, total: +total.toFixed(1), ratio: +(ours / total).toFixed(2) }];
      }),
    );
    console.log(
      "The floor: the empty workflow, EAGER start (client + worker in this process, 'floor process'; 'eager' = runs the server started eagerly), CPU ms by process on each side, and /verify/math's ratio to it:",
    );
    console.table(floors);
  } finally {
    for (const s of sides) await s.closeNoop().catch(() => undefined);
    for (const s of sides) await s.down().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
