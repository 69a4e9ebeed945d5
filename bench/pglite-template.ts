// Session 20: what building PGlite's template at the stack's start costs (engines/sql/pg-template.ts,
// infra/stack.ts preparePgTemplate), and what it costs a start when the template is there.
//
//   npx tsx bench/pglite-template.ts [--builds 2] [--present 2000] [--stack-starts 3]
//
// 1. The import the stack now does (engines/sql/pg-template.ts with pg-check.ts and core/config.ts),
//    timed in a fresh tsx process, against the stack's import without it.
// 2. ensurePgTemplate when the template exists: microseconds per call (what every start after the
//    first pays).
// 3. Builds from an empty scratch folder: wall time, and the builder's PGlite process (a child of
//    this one): its peak resident memory (VmHWM) and CPU, sampled from /proc.
// 4. Two builders at once (in two processes) on one empty folder: how many PGlite builds ran.
// 5. --stack-starts N: a private stack (SVC_BENCH_PORT_OFFSET, default 650) started N times with the
//    template present, alternating SVC_SQL_PG_TEMPLATE_AT_START=0 (no look) and the default: up()'s time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_PG_CHECK_LIMITS } from '../engines/sql/pg-check.js';
import { ensurePgTemplate } from '../engines/sql/pg-template.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const limits = (dir: string) => ({ ...DEFAULT_PG_CHECK_LIMITS, dataDirCache: dir, dataDirOnDisk: true });
const scratch = () => mkdtempSync(path.join(tmpdir(), 'bench-pglite-template-'));

console.log(`# PGlite's template at the stack's start (load average ${loadAverage()})\n`);

// 1. Import cost, alternated (a fresh process each).
{
  const dir = scratch();
  const script = path.join(dir, 'import.mts');
  writeFileSync(
    script,
    `const t0 = performance.now();
await import(${JSON.stringify(path.join(ROOT, 'engines/sql/pg-template.ts'))});
await import(${JSON.stringify(path.join(ROOT, 'core/config.ts'))});
console.log(performance.now() - t0);`,
  );
  const times: number[] = [];
  for (let i = 0; i < 5; i++)
    times.push(
      Number(execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' }).trim()),
    );
  times.sort((a, b) => a - b);
  console.log(
    `- import of pg-template.ts + core/config.ts in a fresh tsx process: median ${times[2]!.toFixed(0)} ms (range ${times[0]!.toFixed(0)}–${times[4]!.toFixed(0)}; tsx's transform of each file included)`,
  );
  rmSync(dir, { recursive: true, force: true });
}

// 3 first (its folder then serves 2).
const builds = Number(arg('builds', '2'));
let present = '';
for (let i = 0; i < builds; i++) {
  const dir = scratch();
  let pid = 0;
  let hwm = 0;
  let cpu = 0;
  const sampler = setInterval(() => {
    if (!pid) return;
    try {
      const st = readFileSync(`/proc/${pid}/status`, 'utf8');
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(st)?.[1] ?? 0));
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpu = (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 10 ms
    } catch {
      // ended
    }
  }, 50);
  const r = await ensurePgTemplate(limits(dir), { onBuilder: (p) => (pid = p) });
  clearInterval(sampler);
  console.log(
    `- build ${i + 1} from an empty folder: ${r.outcome} (${r.source}) in ${r.ms} ms; the builder's PGlite process: peak ${Math.round(hwm / 1024)} MB resident, ${cpu.toFixed(2)} s CPU (last sample)`,
  );
  if (i === builds - 1) present = dir;
  else rmSync(dir, { recursive: true, force: true });
}

// 2. Present.
{
  const n = Number(arg('present', '2000'));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await ensurePgTemplate(limits(present));
  console.log(
    `- ensurePgTemplate with the template present: ${(((performance.now() - t0) / n) * 1000).toFixed(1)} µs per call (${n} calls)`,
  );
  rmSync(present, { recursive: true, force: true });
}

// 4. Two processes at once.
{
  const dir = scratch();
  const script = path.join(dir, 'build.mts');
  writeFileSync(
    script,
    `import { ensurePgTemplate } from ${JSON.stringify(path.join(ROOT, 'engines/sql/pg-template.ts'))};
import { DEFAULT_PG_CHECK_LIMITS } from ${JSON.stringify(path.join(ROOT, 'engines/sql/pg-check.ts'))};
console.log(JSON.stringify(await ensurePgTemplate({ ...DEFAULT_PG_CHECK_LIMITS, dataDirCache: process.argv[2], dataDirOnDisk: true })));`,
  );
  const cache = path.join(dir, 'cache');
  const { spawn } = await import('node:child_process');
  const run = () =>
    new Promise<string>((resolve) => {
      const c = spawn(process.execPath, ['--import', 'tsx', script, cache], { cwd: ROOT });
      let out = '';
      c.stdout.on('data', (b) => (out += b));
      c.on('exit', () => resolve(out.trim().split('\n').at(-1) ?? ''));
    });
  const [a, b] = await Promise.all([run(), run()]);
  console.log(`- two processes at once on one empty folder: ${a} / ${b}`);
  rmSync(dir, { recursive: true, force: true });
}
// 5. Stack starts with the template present, alternated.
const stackStarts = Number(arg('stack-starts', '0'));
if (stackStarts > 0) {
  const { Stack, testPorts } = await import('../infra/stack.js');
  const cache = scratch();
  await ensurePgTemplate(limits(cache));
  const times: Record<string, number[]> = { 'SVC_SQL_PG_TEMPLATE_AT_START=0': [], default: [] };
  for (let i = 0; i < stackStarts * 2; i++) {
    const which = i % 2 === 0 ? 'SVC_SQL_PG_TEMPLATE_AT_START=0' : 'default';
    const stack = new Stack({
      profile: 'bench-pglite-template',
      ports: testPorts(Number(process.env.SVC_BENCH_PORT_OFFSET ?? 650)),
      fresh: true,
      env: {
        SVC_LOG_LEVEL: 'warn',
        SVC_SQL_PG_DATADIR_CACHE: cache,
        ...(which === 'default' ? {} : { SVC_SQL_PG_TEMPLATE_AT_START: '0' }),
      },
    });
    const t0 = performance.now();
    await stack.up();
    times[which]!.push((performance.now() - t0) / 1000);
    const r = await stack.preparePgTemplate();
    if (which === 'default' && r.outcome !== 'present')
      throw new Error(`expected the template present, got ${r.outcome}`);
    await stack.down();
  }
  for (const [k, v] of Object.entries(times))
    console.log(`- stack up() with the template present, ${k}: ${v.map((t) => t.toFixed(1)).join(', ')} s`);
  rmSync(cache, { recursive: true, force: true });
}
console.log(`\n(load average at the end ${loadAverage()})`);
