// What an engine thread without its engines costs the run that meets it (session 19, helper E:
// the worker's spare starts without mathjs, activities/isolation/engine-pool.ts). Prints:
//   1. a math run on a loaded thread, and the first math run on a thread that has not loaded
//      the math engine (a pool whose threads load nothing at start): the import inside the run;
//   2. right after a run is cut at its deadline, two other organizations' math runs, with the
//      spare loading its engines at that moment (lazySpare on) or loaded since start (off),
//      interleaved, `--rounds` times each.
//   npx tsx bench/engine-cold-thread.ts [--rounds 6] [--compiled dist/service/<hash>]
// --compiled runs the pool of a compiled tree (infra/service-build.ts: what the stack runs; its
// threads load JavaScript, not TypeScript through tsx, so loads are cheaper).
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { EnginePool as Pool } from '../activities/isolation/engine-pool.js';
import type { EngineTask } from '../activities/isolation/engine-tasks.js';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const rounds = Number(opt('rounds') ?? 6) || 6;
const compiled = opt('compiled');
const { EnginePool } = (await import(
  compiled
    ? pathToFileURL(path.resolve(compiled, 'activities/isolation/engine-pool.js')).href
    : '../activities/isolation/engine-pool.js'
)) as { EnginePool: typeof Pool };
type EnginePool = Pool;
const MATH = { engine: 'math', input: { expression: '(x+1)^2 = x^2 + 2*x + 1' } } as EngineTask;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const f = (ms: number) => `${ms.toFixed(1)} ms`;

async function timed(pool: EnginePool, org: string): Promise<number> {
  const t0 = performance.now();
  const r = await pool.run(MATH, { orgId: org, timeoutMs: 60_000 });
  if (r.kind !== 'ok') throw new Error(`math run: ${JSON.stringify(r)}`);
  return performance.now() - t0;
}

// 1. The first math run on a thread without the engine, against later runs.
const first: number[] = [];
const later: number[] = [];
for (let i = 0; i < rounds; i++) {
  const pool = new EnginePool({ size: 1, perOrgCap: 1, preload: [], spare: 0 });
  await pool.warmUp();
  first.push(await timed(pool, 'org_a'));
  for (let j = 0; j < 5; j++) later.push(await timed(pool, 'org_a'));
  await pool.shutdown();
}
console.log(
  `${compiled ? `compiled tree ${compiled}` : 'sources (threads load TypeScript through tsx)'}; load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `1. math run on a loaded thread: median ${f(median(later))}; the first on a thread without the engine: median ${f(median(first))} (${first.map((x) => x.toFixed(0)).join(', ')})`,
);

// 2. Two other organizations' math runs right after a cut, lazy spare against the spare loaded at start.
const after: Record<'lazy' | 'eager', number[]> = { lazy: [], eager: [] };
for (let i = 0; i < rounds; i++) {
  for (const kind of ['lazy', 'eager'] as const) {
    const pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'], lazySpare: kind === 'lazy' });
    await pool.warmUp();
    for (let j = 0; j < 3; j++) await Promise.all([timed(pool, 'org_b'), timed(pool, 'org_c')]);
    // One organization's run is cut: of the next two runs, one needs the spare (or waits for a loaded thread).
    const cut = await pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 200 });
    if (cut.kind !== 'timeout') throw new Error('the spin was not cut');
    after[kind].push(...(await Promise.all([timed(pool, 'org_c'), timed(pool, 'org_d')])));
    await pool.shutdown();
  }
}
console.log(
  `2. two math runs right after a cut (${rounds} rounds, interleaved): spare without its engines (default) median ${f(median(after.lazy))}, max ${f(Math.max(...after.lazy))}; spare loaded at start median ${f(median(after.eager))}, max ${f(Math.max(...after.eager))}`,
);
