// Where the CPU of one `/verify/math` goes, by process: a fresh bench stack whose Node processes
// run with `--cpu-prof`, 8 clients for a fixed time, then the profiles summed by package/file and
// by function (self time), per verification.
// With `--floor`, the eager empty workflow (bench/eager-floor.ts: client and worker in this
// process) is profiled the same way afterwards, on the same stack, and summed per empty workflow:
// what the API's main thread does beyond the floor's is the difference of the two tables.
// With `--heap`, V8's sampling heap profiler runs in the same window (collected objects counted
// too): bytes allocated per verification by package and by function, the garbage behind the
// API's scavenges (docs/performance.md).
//   npx tsx bench/cpu-profile-math.ts [--seconds 15] [--top 40] [--floor] [--heap]   (ports: SVC_DEV_PORT_OFFSET)
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBenchStack } from './bench-stack.js';
import { devPorts, ROOT } from '../infra/stack.js';
import { startEagerFloor } from './eager-floor.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const SECONDS = Number(arg('seconds', '15'));
const TOP = Number(arg('top', '40'));
const HEAP = args.includes('--heap');
if (HEAP) process.env.SVC_HEAP_PROFILE = '1'; // the floor's process too
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });
const dir = path.join(ROOT, '.data', 'cpu-prof');

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function where(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string);
  }
  if (url.startsWith('node:')) return url;
  const m = /dist\/service\/[^/]+\/(.+)$/.exec(url);
  return m ? (m[1] as string) : url.replace(/^file:\/\//, '');
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}

/** Bytes allocated per request by package and by function (self size of the sampled allocations). */
function summarizeHeap(file: string, requests: number): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const byWhere = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode) => {
    if (n.selfSize > 0) {
      total += n.selfSize;
      const w = where(n.callFrame.url);
      byWhere.set(w, (byWhere.get(w) ?? 0) + n.selfSize);
      const k = `${n.callFrame.functionName || '(anonymous)'} ${w}:${n.callFrame.lineNumber + 1}`;
      byFn.set(k, (byFn.get(k) ?? 0) + n.selfSize);
    }
    for (const c of n.children ?? []) walk(c);
  };
  walk(p.head);
  const per = (b: number) => +(b / 1024 / Math.max(1, requests)).toFixed(1);
  console.log(`\n${path.basename(file)}: ${per(total)} KiB allocated on the main thread per request (sampled)`);
  for (const m of [byWhere, byFn])
    console.table(
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP)
        .map(([k, b]) => ({ [m === byWhere ? 'where' : 'function']: k, 'KiB/request': per(b) })),
    );
}

function summarize(file: string, requests: number): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const byWhere = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const fn = n.callFrame.functionName || '(anonymous)';
    if (fn === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const w = where(n.callFrame.url);
    byWhere.set(w, (byWhere.get(w) ?? 0) + us);
    const k = `${fn} ${w}:${n.callFrame.lineNumber + 1}`;
    byFn.set(k, (byFn.get(k) ?? 0) + us);
  }
  const per = (us: number) => +(us / 1000 / Math.max(1, requests)).toFixed(2);
  console.log(`\n${path.basename(file)}: ${per(total)} ms of main-thread CPU per verification (idle excluded)`);
  console.table(
    [...byWhere.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([w, us]) => ({ where: w, 'ms/verification': per(us) })),
  );
  console.table(
    [...byFn.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([f, us]) => ({ function: f, 'ms/verification': per(us) })),
  );
  void idle;
}

async function main() {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const b = await startBenchStack(
    'bench-cpu-prof',
    0,
    {
      NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'cpu-profile-hook.cjs')}`,
      SVC_CPU_PROFILE_DIR: dir,
      ...(HEAP ? { SVC_HEAP_PROFILE: '1' } : {}),
    },
    { ports: devPorts(Number(process.env.SVC_DEV_PORT_OFFSET ?? 0)) },
  );
  let n = 0;
  let failed = 0;
  let firstFailure = '';
  let floorN = 0;
  try {
    await new Promise((r) => setTimeout(r, Number(arg('settle', '20')) * 1000));
    const once = async () => {
      const res = await fetch(`${b.base}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': b.key },
        body: BODY,
      });
      const text = await res.text();
      if (res.status !== 200) {
        failed++;
        if (!firstFailure) firstFailure = `${res.status} ${text.slice(0, 200)}`;
      }
    };
    for (let i = 0; i < 20; i++) await once(); // warm-up, not profiled
    const pids = ['api', 'worker'].map((n) =>
      Number(readFileSync(path.join(b.stack.dataDir, 'pids', `${n}.pid`), 'utf8')),
    );
    const signal = () => pids.forEach((pid) => process.kill(pid, 'SIGWINCH'));
    signal(); // start profiling
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < end) {
          await once();
          n++;
        }
      }),
    );
    signal(); // stop and write
    await new Promise((r) => setTimeout(r, 3000));
    if (args.includes('--floor')) {
      // This process runs the floor's client and worker: the same hook profiles its main thread.
      process.env.SVC_CPU_PROFILE_DIR = path.join(dir, 'floor');
      mkdirSync(process.env.SVC_CPU_PROFILE_DIR, { recursive: true });
      createRequire(import.meta.url)(path.join(ROOT, 'bench', 'cpu-profile-hook.cjs'));
      const floor = await startEagerFloor(ROOT, b.stack.urls.temporal_grpc as string, b.stack.env);
      try {
        for (let i = 0; i < 20; i++) await floor.noop();
        process.kill(process.pid, 'SIGWINCH');
        const end = performance.now() + SECONDS * 1000;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (performance.now() < end) if (await floor.noop()) floorN++;
          }),
        );
        process.kill(process.pid, 'SIGWINCH');
        await new Promise((r) => setTimeout(r, 3000));
      } finally {
        await floor.close();
      }
    }
  } finally {
    await b.stack.down();
  }
  if (failed) console.log(`${failed} failed; first: ${firstFailure}`);
  console.log(`${n} verifications in ${SECONDS} s at 8 clients (only samples of that window counted)`);
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) summarize(path.join(dir, f), n);
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.heapprofile'))) summarizeHeap(path.join(dir, f), n);
  if (floorN > 0) {
    console.log(
      `\nThe floor: ${floorN} empty workflows in ${SECONDS} s at 8 clients; this process's main thread, per empty workflow:`,
    );
    const fdir = path.join(dir, 'floor');
    for (const f of readdirSync(fdir).filter((f) => f.endsWith('.cpuprofile'))) summarize(path.join(fdir, f), floorN);
    for (const f of readdirSync(fdir).filter((f) => f.endsWith('.heapprofile')))
      summarizeHeap(path.join(fdir, f), floorN);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
