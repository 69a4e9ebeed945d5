// Benchmark (issue 22, session 10): two checkouts of the service side by side, interleaved, for
// bisecting the batch path. Each root gets its own fresh stack (its own compiled tree, ports
// shifted by --offset + 1000 per root) with SVC_BATCH_WAIT_SECONDS=0 (POST answers at
// admission, as in bench/data-scale.ts), the store-command capture on, and an enterprise tenant.
// Then, for --rounds rounds, in the order A, B, A, B ...:
//   - one 100-item math job submit → completed (polled every 100 ms), --singles times;
//   - --jobs (10) 100-item jobs submitted at once: POST latencies, wall time, items/s;
// and for each phase the CPU per item by process group (API, worker, store, Temporal; read from
// /proc utime+stime) and the store commands per item by process and collection (capture), which
// a loaded machine does not distort. Wall-clock figures compare only within this run.
//   npx tsx bench/batch-ab.ts --root A=/tmp/bisect-a --root B=/work/wt-a [--rounds 3] [--singles 3]
//        [--jobs 10] [--offset 150] [--commands] [--api-flags A='<V8 flags>']
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { groupCpuMs } from './proc-sample.js';
import { MATH_ITEM_MIX } from './math-items.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const ROOTS = args.flatMap((a, i) => (a === '--root' && args[i + 1] ? [args[i + 1] as string] : []));
const ROUNDS = Number(arg('rounds', '3'));
const SINGLES = Number(arg('singles', '3'));
const JOBS = Number(arg('jobs', '10'));
const OFFSET = Number(arg('offset', '150'));
const COMMANDS = args.includes('--commands');
// --api-flags NAME='<V8 flags>': that root's API process V8 flags (SVC_API_V8_FLAGS; session 17), e.g. one tree against itself.
const API_FLAGS: Record<string, string> = Object.fromEntries(
  args.flatMap((a, i) => (a === '--api-flags' && args[i + 1] ? [(args[i + 1] as string).split(/=(.*)/s, 2)] : [])),
);
/** --debug: the API logs at debug level; the POST's own split (admission, workflow start) is printed per target. */
const DEBUG = args.includes('--debug');

const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
};
const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(0.95 * s.length))] as number;
};

const MIX = MATH_ITEM_MIX;
let salt = 1;
const items = () => {
  const s = salt++;
  return Array.from({ length: 100 }, (_, i) => ({
    type: 'math',
    query: i % 2 === 0 ? `(q+${s * 100 + i})^2 = q^2 + ${2 * (s * 100 + i)}*q + ${(s * 100 + i) ** 2}` : MIX[i % 6],
  }));
};

interface StackLike {
  api: { pid?: number };
  workers: Array<{ pid?: number }>;
  ferret?: { pid?: number };
  temporal: { pid?: number };
  dataDir?: string;
  down(): Promise<void>;
}

const cpu = (s: StackLike) => ({
  api: groupCpuMs(s.api.pid),
  worker: s.workers.reduce((a, w) => a + groupCpuMs(w.pid), 0),
  store: groupCpuMs(s.ferret?.pid),
  temporal: groupCpuMs(s.temporal.pid),
});

interface Target {
  name: string;
  root: string;
  stack: StackLike;
  base: string;
  key: string;
  capture: string;
  single: number[];
  singleCpu: Record<string, number>;
  singleItems: number;
  singleWindows: Array<[number, number]>;
  posts: number[];
  rates: number[];
  manyCpu: Record<string, number>;
  manyItems: number;
  manyWindows: Array<[number, number]>;
  failed: number;
}

async function job(t: Target, pollMs: number): Promise<{ postMs: number; doneMs: number; failed: number }> {
  const headers = { 'content-type': 'application/json', 'x-api-key': t.key };
  const body = JSON.stringify({ items: items() });
  const t0 = performance.now();
  let res = await fetch(`${t.base}/verify/batch`, { method: 'POST', headers, body });
  const postMs = performance.now() - t0;
  for (let tries = 0; res.status === 503 && tries < 20; tries++) {
    await res.arrayBuffer();
    await sleep(1000);
    res = await fetch(`${t.base}/verify/batch`, { method: 'POST', headers, body });
  }
  let b = (await res.json()) as { job_id: string; status: string; failed_items: number };
  if (res.status !== 200 && res.status !== 202) throw new Error(`${t.name}: POST ${res.status} ${JSON.stringify(b)}`);
  while (b.status !== 'completed') {
    await sleep(pollMs);
    const r = await fetch(`${t.base}/verify/batch/${b.job_id}`, { headers });
    b = (await r.json()) as typeof b;
  }
  return { postMs, doneMs: performance.now() - t0, failed: b.failed_items };
}

const add = (acc: Record<string, number>, a: Record<string, number>, b: Record<string, number>) => {
  for (const k of Object.keys(a)) acc[k] = (acc[k] ?? 0) + ((b[k] ?? 0) - (a[k] ?? 0));
};

async function singles(t: Target) {
  const from = Date.now();
  const c0 = cpu(t.stack);
  for (let i = 0; i < SINGLES; i++) {
    const r = await job(t, 100);
    t.single.push(r.doneMs);
    t.failed += r.failed;
  }
  add(t.singleCpu, c0, cpu(t.stack));
  t.singleItems += SINGLES * 100;
  t.singleWindows.push([from, Date.now()]);
}

async function many(t: Target) {
  const from = Date.now();
  const c0 = cpu(t.stack);
  const s = performance.now();
  const rs = await Promise.all(Array.from({ length: JOBS }, () => job(t, 500)));
  const wall = performance.now() - s;
  add(t.manyCpu, c0, cpu(t.stack));
  t.manyItems += JOBS * 100;
  t.manyWindows.push([from, Date.now()]);
  t.posts.push(...rs.map((r) => r.postMs));
  t.rates.push((JOBS * 100) / (wall / 1000));
  t.failed += rs.reduce((a, r) => a + r.failed, 0);
}

interface Cap {
  t: number;
  cmd: string;
  coll: string | null;
  role?: string;
  site?: string;
}
function readCaptures(dir: string): Cap[] {
  const out: Cap[] = [];
  for (const f of readdirSync(dir)) {
    const role = f.replace(/-\d+\.jsonl$/, '').replace(/\.jsonl$/, '');
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      try {
        out.push({ ...(JSON.parse(line) as Cap), role });
      } catch {
        /* a line cut by the stop */
      }
    }
  }
  return out;
}
function commandsPerItem(caps: Cap[], windows: Array<[number, number]>, itemsN: number) {
  const inW = caps.filter((c) => windows.some(([a, b]) => c.t >= a && c.t <= b));
  const by = new Map<string, number>();
  for (const c of inW) {
    if (
      ['hello', 'isMaster', 'ismaster', 'ping', 'endSessions', 'getMore', 'saslStart', 'saslContinue'].includes(c.cmd)
    )
      continue;
    const k = `${c.role} ${c.cmd} ${c.coll ?? '-'}`;
    by.set(k, (by.get(k) ?? 0) + 1);
  }
  const total = [...by.values()].reduce((a, b) => a + b, 0);
  return {
    total: round((total / itemsN) * 100) / 100,
    rows: [...by.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => ({ what: k, per_100_items: round((n / itemsN) * 100) })),
  };
}

async function main() {
  if (ROOTS.length < 1) throw new Error('--root NAME=/path (one or more)');
  const targets: Target[] = [];
  try {
    let i = 0;
    for (const spec of ROOTS) {
      const [name, root] = spec.split('=') as [string, string];
      const bs = (await import(path.join(root, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
      const ce = (await import(
        path.join(root, 'test', 'store-commands', 'env.ts')
      )) as typeof import('../test/store-commands/env.js');
      const capture = `/tmp/batch-ab-capture-${OFFSET}-${name}`;
      rmSync(capture, { recursive: true, force: true });
      mkdirSync(capture, { recursive: true });
      process.env.SVC_BENCH_PORT_OFFSET = String(OFFSET + 20 * i++);
      console.error(`[${name}] starting a stack from ${root} on offset ${process.env.SVC_BENCH_PORT_OFFSET}`);
      const { stack, base, key } = await bs.startBenchStack(`bench-ab-${name}`, 0, {
        SVC_BATCH_WAIT_SECONDS: '0',
        ...(name in API_FLAGS ? { SVC_API_V8_FLAGS: API_FLAGS[name] ?? '' } : {}),
        ...(DEBUG ? { SVC_LOG_LEVEL: 'debug' } : {}),
        ...(COMMANDS ? ce.captureEnv(capture) : {}),
      });
      targets.push({
        name,
        root,
        stack: stack as unknown as StackLike,
        base,
        key,
        capture,
        single: [],
        singleCpu: {},
        singleItems: 0,
        singleWindows: [],
        posts: [],
        rates: [],
        manyCpu: {},
        manyItems: 0,
        manyWindows: [],
        failed: 0,
      });
    }
    // Warm-up: bundles, JIT, connections.
    for (const t of targets) {
      await job(t, 100);
      await job(t, 100);
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of targets) await singles(t);
      for (const t of targets) await many(t);
      console.error(
        `round ${r + 1}: ` +
          targets
            .map(
              (t) =>
                `${t.name} single ${t.single.slice(-SINGLES).map(Math.round).join('/')} ms, ${Math.round(t.rates.at(-1) ?? 0)} items/s`,
            )
            .join('; '),
      );
    }
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const table = targets.map((t) => {
      const per = (c: Record<string, number>, n: number) =>
        Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(v / n)]));
      const sc = per(t.singleCpu, t.singleItems);
      const mc = per(t.manyCpu, t.manyItems);
      return {
        target: t.name,
        'single ms (median)': round(median(t.single)),
        [`${JOBS} jobs items/s (median)`]: round(median(t.rates)),
        'POST p95 ms': round(p95(t.posts)),
        'POST median ms': round(median(t.posts)),
        'single CPU ms/item api/worker/store/temporal': `${sc.api}/${sc.worker}/${sc.store}/${sc.temporal}`,
        'single CPU ms/item total': round(Object.values(sc).reduce((a, b) => a + b, 0)),
        'many CPU ms/item api/worker/store/temporal': `${mc.api}/${mc.worker}/${mc.store}/${mc.temporal}`,
        'many CPU ms/item total': round(Object.values(mc).reduce((a, b) => a + b, 0)),
        failed: t.failed,
      };
    });
    console.table(table);
    if (DEBUG) {
      for (const t of targets) {
        const dir = path.join(t.stack.dataDir ?? '', 'logs');
        const admit: number[] = [];
        const start: number[] = [];
        for (const f of readdirSync(dir))
          for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
            if (!line.includes('batch job answered')) continue;
            const a = /"admi(?:t|tted)_ms":(\d+)/.exec(line);
            const b = /"started_ms":(\d+)/.exec(line);
            if (a) admit.push(Number(a[1]));
            if (b) start.push(Number(b[1]));
          }
        console.log(
          `[${t.name}] POST split over ${admit.length} submissions: admission median ${median(admit)} p95 ${p95(admit)} ms; workflow start median ${median(start)} p95 ${p95(start)} ms`,
        );
      }
    }
    if (COMMANDS) {
      for (const t of targets) {
        const caps = readCaptures(t.capture);
        const s = commandsPerItem(caps, t.singleWindows, t.singleItems);
        const m = commandsPerItem(caps, t.manyWindows, t.manyItems);
        console.log(`[${t.name}] store commands per item: single jobs ${s.total}, ${JOBS} at once ${m.total}`);
        console.log('single jobs:');
        console.table(s.rows.slice(0, 30));
        console.log(`${JOBS} at once:`);
        console.table(m.rows.slice(0, 30));
      }
    }
  } finally {
    for (const t of targets) await t.stack.down().catch(() => undefined);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
