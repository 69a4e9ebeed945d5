// What each thread pool of the worker costs in resident memory (issue 22's memory goal): one
// child process per configuration, each loading the compiled service tree (as the stack runs
// it), warming only the named pool(s), then reporting its RSS once the heap has settled.
//
//   npx tsx bench/pool-memory.ts [dist/service/<hash>]
//
// Prints one row per configuration: RSS and the difference to the bare process.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');

function newestServiceTree(): string {
  const base = path.join(ROOT, 'dist/service');
  const dirs = readdirSync(base)
    .map((d) => path.join(base, d))
    .filter((d) => statSync(d).isDirectory());
  dirs.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!dirs[0]) throw new Error('no compiled service tree: start the stack once (infra/service-build.ts)');
  return dirs[0];
}

const CONFIGS: Record<string, string[]> = {
  bare: [],
  'engine pool (size 2, 3 threads)': ['engine:2'],
  'engine pool (size 4, 5 threads)': ['engine:4'],
  'engine pool (size 1, 2 threads)': ['engine:1'],
  'engine pool (size 2), eager engines only (math, process, RAG): the API process': ['engine:2:math,process,rag'],
  'Z3 pool (2 threads)': ['logic:2'],
  'Z3 pool (1 thread)': ['logic:1'],
  'guard pool (1 thread, one scan)': ['guard'],
  'PGlite (1 thread)': ['pglite'],
  'worker, stack defaults (engine 2, Z3 2, guard, PGlite)': ['engine:2', 'logic:2', 'guard', 'pglite'],
};

async function child(tree: string, pools: string[]): Promise<void> {
  const url = (p: string) => pathToFileURL(path.join(tree, p)).href;
  const closers: Array<() => Promise<unknown>> = [];
  for (const p of pools) {
    const [name, n, preload] = p.split(':');
    if (name === 'engine') {
      const { EnginePool } = await import(url('activities/isolation/engine-pool.js'));
      const pool = new EnginePool({ size: Number(n), ...(preload ? { preload: preload.split(',') } : {}) });
      await pool.warmUp();
      closers.push(() => pool.shutdown());
    } else if (name === 'logic') {
      const { LogicPool } = await import(url('engines/logic/pool.js'));
      const pool = new LogicPool({ size: Number(n) });
      await pool.warmUp();
      closers.push(() => pool.shutdown());
    } else if (name === 'guard') {
      const { GuardPool } = await import(url('activities/agent-guard-pool.js'));
      const pool = new GuardPool({ size: 2 });
      await pool.run({ op: 'verify', query: 'what is 2+2?', allowed_domains: [] }, { orgId: null, timeoutMs: 60_000 });
      closers.push(() => pool.shutdown());
    } else if (name === 'pglite') {
      const m = await import(url('engines/sql/index.js'));
      await m.warmUpPgCheck();
      closers.push(() => m.shutdownPgCheck());
    }
  }
  await new Promise((r) => setTimeout(r, 3000));
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
  process.stdout.write(JSON.stringify({ rss: process.memoryUsage().rss }) + '\n');
  for (const c of closers) await c();
  process.exit(0);
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, process.argv.slice(4));
} else {
  const tree = process.argv[2] ? path.resolve(process.argv[2]) : newestServiceTree();
  const mb = (b: number) => Math.round(b / 1e6);
  let bare = 0;
  console.log(`service tree: ${path.relative(ROOT, tree)}`);
  console.log('| configuration | RSS (MB) | over the bare process (MB) |\n|-|-|-|');
  for (const [label, pools] of Object.entries(CONFIGS)) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', import.meta.filename, '--child', tree, ...pools],
      { encoding: 'utf8', cwd: ROOT, timeout: 300_000 },
    );
    const rss = JSON.parse(out.trim().split('\n').pop()!).rss as number;
    if (label === 'bare') bare = rss;
    console.log(`| ${label} | ${mb(rss)} | ${label === 'bare' ? '—' : mb(rss - bare)} |`);
  }
}
