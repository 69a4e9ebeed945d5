// Start-up cost of the service's processes: the compiled tree (infra/service-build.ts, what the
// stack runs) against the TypeScript sources through tsx. For each entry, N starts one after
// another against a private stack; per start the wall time until the process is ready and the
// CPU it used by then (every thread of it: engine and Z3 threads, tsx's loader threads).
//   npx tsx bench/startup.ts [--runs 3] [--only <part of a variant's name>]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startBenchStack } from './bench-stack.js';
import { serviceArgs } from '../infra/service-build.js';
import { freePort, LEAN_WORKER_ENV } from '../infra/stack.js';

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1] || 3) || 3;

interface Variant {
  name: string;
  entry: string;
  env: Record<string, string>;
  kind: 'api' | 'worker';
}

const ALL_VARIANTS: Variant[] = [
  { name: 'API (api/server)', entry: 'api/server.ts', env: {}, kind: 'api' },
  { name: 'API + in-process worker (workers/api-process)', entry: 'workers/api-process.ts', env: {}, kind: 'api' },
  { name: 'worker, default pools', entry: 'workers/verification-worker.ts', env: {}, kind: 'worker' },
  {
    name: 'worker, lean (1 engine slot, 1 Z3, no PGlite)',
    entry: 'workers/verification-worker.ts',
    env: { ...LEAN_WORKER_ENV },
    kind: 'worker',
  },
];
/** --only <text>: the variants whose name contains it. */
const ONLY = process.argv.includes('--only') ? (process.argv[process.argv.indexOf('--only') + 1] ?? '') : '';
const VARIANTS = ALL_VARIANTS.filter((v) => v.name.includes(ONLY));

/** CPU seconds of a live process (all its threads), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startOnce(
  v: Variant,
  compiled: boolean,
  baseEnv: NodeJS.ProcessEnv,
): Promise<{ wall: number; cpu: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    ...v.env,
    PORT: String(port),
    SVC_TASK_QUEUE: `startup-${port}`,
    SVC_RUN_FROM_SOURCE: compiled ? '' : '1',
  };
  const t0 = performance.now();
  const child = spawn(process.execPath, serviceArgs(v.entry, env), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${v.entry} exited: ${out.slice(-500)}`);
      const ready =
        v.kind === 'worker'
          ? out.includes('SVC_WORKER_READY')
          : (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200;
      if (ready) break;
      if (performance.now() - t0 > 180_000) throw new Error(`${v.entry} not ready in 180 s: ${out.slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { wall: (performance.now() - t0) / 1000, cpu: cpuSeconds(child.pid!) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const { stack } = await startBenchStack('bench-startup', 930);
try {
  const rows: string[] = [];
  for (const v of VARIANTS) {
    const res: Record<string, { wall: number; cpu: number }> = {};
    for (const compiled of [true, false]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await startOnce(v, compiled, stack.env);
        console.log(
          `${v.name} (${compiled ? 'compiled' : 'tsx'}) #${i + 1}: ready ${r.wall.toFixed(1)} s, ${r.cpu.toFixed(1)} s CPU`,
        );
        runs.push(r);
      }
      res[compiled ? 'compiled' : 'tsx'] = {
        wall: median(runs.map((r) => r.wall)),
        cpu: median(runs.map((r) => r.cpu)),
      };
    }
    const c = res.compiled!;
    const s = res.tsx!;
    rows.push(
      `| ${v.name} | ${c.wall.toFixed(1)} s | ${c.cpu.toFixed(1)} s | ${s.wall.toFixed(1)} s | ${s.cpu.toFixed(1)} s | ${(c.cpu / s.cpu).toFixed(2)} |`,
    );
  }
  console.log(
    `\nStart-up to ready, median of ${RUNS} (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  console.log('| process | compiled: wall | compiled: CPU | tsx: wall | tsx: CPU | CPU compiled/tsx |');
  console.log('|-|-|-|-|-|-|');
  for (const r of rows) console.log(r);
} finally {
  await stack.down();
}
