// Where the API process's CPU per `/verify/math` goes, by subtraction (issue 22): one fresh bench
// stack, 8 clients, and the API's CPU per request (/proc, its process group, threads included) for
// requests that stop at successive points of the path, interleaved in short slices:
//   - `health`: GET /health (HTTP, Koa and the middleware common to every route);
//   - `refused`: POST /verify/math with a body the contract refuses (adds the key lookup, plan
//     limit, body read and zod validation, and a 400 error body; no workflow);
//   - `math`: a valid POST /verify/math (adds the workflow, engine thread, proof, attestation and
//     audit entry).
// With `--floor`, the eager empty workflow (bench/eager-floor.ts) on the same stack too.
//   npx tsx bench/cpu-split-math.ts [--slices 4] [--slice 5] [--clients 8]   (ports: SVC_DEV_PORT_OFFSET)
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBenchStack } from './bench-stack.js';
import { groupCpuMs } from './proc-sample.js';
import { devPorts, ROOT } from '../infra/stack.js';
import { selfCpuMs, startEagerFloor } from './eager-floor.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const SLICES = Number(arg('slices', '4'));
const SLICE_S = Number(arg('slice', '5'));
const CLIENTS = Number(arg('clients', '8'));
const BY_THREAD = args.includes('--by-thread');

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * CPU ms of process `pid` by thread kind (/proc/<pid>/task): `main`, and the other threads by
 * their name (`V8 DefaultWorke`: V8's platform workers, i.e. concurrent and parallel GC and
 * compilation; `libuv-worker`; `tokio-runtime-w`: the Temporal core; `node`: worker threads such
 * as the workflow thread and the engine threads). A thread that ended meanwhile is not counted.
 */
function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // `--by-thread`: every thread on its own (`node#<tid>`), to tell the workflow thread, the
      // engine threads and V8's helpers apart by their CPU.
      const name = Number(tid) === pid ? 'main' : BY_THREAD ? `${comm}#${tid}` : comm;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

type GcTotals = Record<string, { n: number; ms: number }>;
/** The API's running GC totals (bench/cpu-gc-hook.cjs writes them at a SIGWINCH). */
async function apiGc(pid: number, dir: string): Promise<{ totals: GcTotals; usedHeapMb: number }> {
  process.kill(pid, 'SIGWINCH');
  await new Promise((r) => setTimeout(r, 300));
  return JSON.parse(readFileSync(path.join(dir, `${pid}.json`), 'utf8')) as { totals: GcTotals; usedHeapMb: number };
}
/** This process's GC totals (the floor's client and worker). */
const selfGc: GcTotals = {};
function observeSelfGc(): void {
  const kinds: Record<number, string> = {
    [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const k = kinds[(e as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const t = (selfGc[k] ??= { n: 0, ms: 0 });
      t.n++;
      t.ms += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
}
const gcDiff = (a: GcTotals, b: GcTotals): GcTotals =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, { n: v.n - (a[k]?.n ?? 0), ms: v.ms - (a[k]?.ms ?? 0) }]));

const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys(b).map((k) => [k, (b[k] as number) - (a[k] ?? 0)]));

async function main() {
  // `--node-options '<flags>'`: NODE_OPTIONS of the stack's processes (e.g. a V8 heap setting to try).
  // `--gc`: the API's main-thread garbage collections per request (bench/cpu-gc-hook.cjs), and this process's for the floor.
  const GC = args.includes('--gc');
  const gcDir = path.join(ROOT, '.data', `cpu-split-gc-${process.env.SVC_DEV_PORT_OFFSET ?? 0}`);
  if (GC) mkdirSync(gcDir, { recursive: true });
  const nodeOptions = [arg('node-options', ''), GC ? `--require ${path.join(ROOT, 'bench', 'cpu-gc-hook.cjs')}` : '']
    .filter(Boolean)
    .join(' ');
  const b = await startBenchStack(
    `bench-cpu-split-${process.env.SVC_DEV_PORT_OFFSET ?? 0}`,
    0,
    {
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...(GC ? { SVC_GC_STATS_DIR: gcDir, SVC_GC_TRACE: args.includes('--gc-trace') ? '1' : '0' } : {}),
    },
    { ports: devPorts(Number(process.env.SVC_DEV_PORT_OFFSET ?? 0)) },
  );
  const floor = args.includes('--floor')
    ? await startEagerFloor(ROOT, b.stack.urls.temporal_grpc as string, b.stack.env)
    : null;
  const read = (n: string) => Number(readFileSync(path.join(b.stack.dataDir, 'pids', `${n}.pid`), 'utf8'));
  const pids = { api: read('api'), temporal: read('temporal'), store: read('ferretdb') };
  const headers = { 'content-type': 'application/json', 'x-api-key': b.key };
  const kinds: Record<string, () => Promise<boolean>> = {
    health: async () => (await fetch(`${b.base}/health`).then((r) => r.arrayBuffer().then(() => r.status))) === 200,
    refused: async () =>
      (await fetch(`${b.base}/verify/math`, { method: 'POST', headers, body: '{"expression":7}' }).then((r) =>
        r.arrayBuffer().then(() => r.status),
      )) === 400,
    math: async () => {
      const r = await fetch(`${b.base}/verify/math`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' }),
      });
      return r.status === 200 && (await r.text()).includes('"VERIFIED"');
    },
    ...(floor ? { floor: floor.noop } : {}),
  };
  // By thread, for the API process (every kind) and this process (the floor's client and worker).
  const threads: Record<string, Record<string, number>> = {};
  const gcs: Record<string, { gc: GcTotals; heapMb: number }> = {};
  if (GC) observeSelfGc();
  const totals = Object.fromEntries(
    Object.keys(kinds).map((k) => [k, { n: 0, failed: 0, cpu: { api: 0, temporal: 0, store: 0, floor: 0 } }]),
  );
  try {
    await new Promise((r) => setTimeout(r, 10_000));
    for (const f of Object.values(kinds)) for (let i = 0; i < 20; i++) await f(); // warm-up
    for (let s = 0; s < SLICES; s++) {
      const order = s % 2 === 0 ? Object.keys(kinds) : Object.keys(kinds).reverse();
      for (const k of order) {
        const t = totals[k]!;
        const before = Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, groupCpuMs(p)]));
        const self0 = selfCpuMs();
        const apiThreads0 = threadCpuMs(pids.api);
        const gc0 = GC ? (k === 'floor' ? structuredClone(selfGc) : (await apiGc(pids.api, gcDir)).totals) : {};
        const selfThreads0 = k === 'floor' ? threadCpuMs(process.pid) : {};
        const end = performance.now() + SLICE_S * 1000;
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (performance.now() < end) {
              if (await kinds[k]!().catch(() => false)) t.n++;
              else t.failed++;
            }
          }),
        );
        for (const [n, p] of Object.entries(pids)) t.cpu[n as 'api'] += groupCpuMs(p) - (before[n] as number);
        if (k === 'floor') t.cpu.floor += selfCpuMs() - self0;
        const add = (key: string, d: Record<string, number>) => {
          const acc = (threads[key] ??= {});
          for (const [n, v] of Object.entries(d)) acc[n] = (acc[n] ?? 0) + v;
        };
        add(`api: ${k}`, diff(apiThreads0, threadCpuMs(pids.api)));
        if (GC && (k === 'math' || k === 'floor')) {
          const after = k === 'floor' ? { totals: selfGc, usedHeapMb: 0 } : await apiGc(pids.api, gcDir);
          const d = gcDiff(gc0, after.totals);
          const acc = (gcs[k === 'floor' ? 'floor process: floor' : 'api: math'] ??= { gc: {}, heapMb: 0 });
          for (const [g, v] of Object.entries(d)) {
            const t = (acc.gc[g] ??= { n: 0, ms: 0 });
            t.n += v.n;
            t.ms += v.ms;
          }
          acc.heapMb = k === 'floor' ? process.memoryUsage().heapUsed / 2 ** 20 : after.usedHeapMb;
        }
        if (k === 'floor') add('floor process: floor', diff(selfThreads0, threadCpuMs(process.pid)));
      }
    }
  } finally {
    await floor?.close();
    await b.stack.down();
  }
  const per = (v: number, n: number) => +(v / Math.max(1, n)).toFixed(2);
  console.log(`${SLICES} slices of ${SLICE_S} s per kind, ${CLIENTS} clients; CPU ms per request by process:`);
  console.table(
    Object.fromEntries(
      Object.entries(totals).map(([k, t]) => [
        k,
        {
          n: t.n,
          failed: t.failed,
          api: per(t.cpu.api, t.n + t.failed),
          temporal: per(t.cpu.temporal, t.n + t.failed),
          store: per(t.cpu.store, t.n + t.failed),
          'floor process': per(t.cpu.floor, t.n + t.failed),
        },
      ]),
    ),
  );
  if (GC) {
    console.log('Main-thread garbage collections per 100 requests (count, pause ms) and the heap in use at the end:');
    console.table(
      Object.fromEntries(
        Object.entries(gcs).map(([key, g]) => {
          const t = totals[key.endsWith('floor') ? 'floor' : 'math']!;
          const n = Math.max(1, t.n + t.failed) / 100;
          return [
            key,
            {
              ...Object.fromEntries(
                Object.entries(g.gc).map(([kind, v]) => [kind, `${(v.n / n).toFixed(1)} / ${(v.ms / n).toFixed(1)}`]),
              ),
              'heap MB': +g.heapMb.toFixed(0),
            },
          ];
        }),
      ),
    );
  }
  console.log('CPU ms per request by thread kind (the API process for each kind; this process for the floor):');
  // The busiest thread kinds (all of them unless --by-thread lists each thread: then the top 14).
  const busiest = new Map<string, number>();
  for (const r of Object.values(threads))
    for (const [n, v] of Object.entries(r)) busiest.set(n, (busiest.get(n) ?? 0) + v);
  const names = [...busiest.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, BY_THREAD ? 14 : undefined)
    .map(([n]) => n);
  console.table(
    Object.fromEntries(
      Object.entries(threads).map(([key, r]) => {
        const kind = key.slice(key.indexOf(': ') + 2);
        const t = totals[kind]!;
        return [key, Object.fromEntries(names.map((n) => [n, per(r[n] ?? 0, t.n + t.failed)]))];
      }),
    ),
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
