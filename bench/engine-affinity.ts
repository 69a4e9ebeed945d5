// The worker's engine pool under the mixed load's engine runs, two compiled trees side by side
// (session 21: engine-module affinity, measured with it and reverted: docs/performance.md "Session
// 21: memory margin"). Each run is a fresh node
// process (the worker's V8 flags and malloc arenas) that builds the worker's pool (size 2, its
// spare, math preloaded), then sends a fixed number of rounds of the runs a mixed load gives the
// worker's threads (SQL in both dialects, a code scan, an agent guard scan, a math run), from
// `--orgs` organizations at once, and prints the process's resident memory before and after, the
// latency p95 per engine and (on a tree that reports them) which modules each thread imported.
// Memory is counted after a fixed amount of work, not during a timed load, so the machine's
// load changes the latencies, not what is loaded.
//
//   npx tsx bench/engine-affinity.ts --a /work/wt-base21 --b . [--runs 3] [--rounds 40] [--orgs 1,3]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The tree's compiled service (built by the tree's own infra/service-build.ts, as its stack runs it). */
function compiledTree(tree: string): string {
  return execFileSync(
    process.execPath,
    ['--import', 'tsx', '-e', "import('./infra/service-build.ts').then((m) => console.log(m.compiledServiceDir()))"],
    { cwd: tree, encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .pop()!;
}

const CHILD = `
const [dir, rounds, orgs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const { EnginePool } = await import(dir + '/activities/isolation/engine-pool.js');
const rss = () => Math.round(Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\\s+(\\d+)/)[1]) / 1024);
const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text, w_city text); CREATE TABLE item (i_item_sk integer, i_item_id text, i_price numeric(7,2));';
const kinds = {
  'sql postgresql': (i) => ({ engine: 'sql', input: { request: { query: 'SELECT w_state, count(*) FROM warehouse WHERE w_warehouse_sk > ' + i + ' GROUP BY w_state', schema_ddl: DDL, dialect: 'postgresql' } } }),
  'sql sqlite': () => ({ engine: 'sql', input: { request: { query: 'SELECT i_item_id FROM item WHERE i_price > 10', schema_ddl: DDL } } }),
  code: () => ({ engine: 'code', input: { code: 'import os\\nprint(os.getcwd())\\n', language: 'python', timeoutMs: 9000 } }),
  guard: () => ({ engine: 'guard', input: { op: 'verify', query: '(x+1)^2 = x^2 + 2*x + 1', allowed_domains: ['example.com'] } }),
  math: () => ({ engine: 'math', input: { expression: '(x+1)^2 = x^2 + 2*x + 1' } }),
};
const pool = new EnginePool({ preload: ['math'] });
const warm = await pool.warmUp();
await new Promise((r) => setTimeout(r, 500));
const before = rss();
const ms = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
let bad = 0;
const names = Object.keys(kinds);
for (let round = 0; round < rounds; round++) {
  await Promise.all(Array.from({ length: orgs }, async (_, o) => {
    // Each organization sends the kinds in its own rotation, one after the other (as one client).
    for (let j = 0; j < names.length; j++) {
      const k = names[(j + o + round) % names.length];
      const t0 = performance.now();
      const r = await pool.run(kinds[k](round), { orgId: 'org_' + o, timeoutMs: 10000 });
      ms[k].push(performance.now() - t0);
      if (r.kind !== 'ok') bad++;
    }
  }));
}
await new Promise((r) => setTimeout(r, 500));
const after = rss();
const answers = await pool.warmUp();
const p95 = (l) => { const s = [...l].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]; };
const stats = pool.stats();
console.log(JSON.stringify({
  threads: warm.length, before, after, bad,
  p95: Object.fromEntries(Object.entries(ms).map(([k, l]) => [k, Math.round(p95(l))])),
  modules: answers.filter((a) => a.loaded).map((a) => a.modules ?? null),
  totals: stats.totals,
}));
await pool.shutdown();
process.exit(0);
`;

const trees = { A: path.resolve(arg('a', '/work/wt-base21')), B: path.resolve(arg('b', '.')) };
const compiled = { A: compiledTree(trees.A), B: compiledTree(trees.B) };
const runs = Number(arg('runs', '3'));
const rounds = Number(arg('rounds', '40'));
const orgsList = arg('orgs', '1,3').split(',').map(Number);
const script = path.join(tmpdir(), `engine-affinity-${process.pid}.mjs`);
writeFileSync(script, `import { readFileSync } from 'node:fs';\n${CHILD}`);
console.log(
  `A = ${trees.A} (${compiled.A}), B = ${trees.B} (${compiled.B}); ${rounds} rounds of 5 runs per organization`,
);
for (const orgs of orgsList) {
  console.log(`\n### ${orgs} organization(s) at once\n`);
  console.log(
    '| run | side | RSS before → after (MB) | growth | failed | p95 ms per engine | modules per loaded thread | load |',
  );
  console.log('|-|-|-|-|-|-|-|-|');
  for (let r = 0; r < runs; r++) {
    for (const side of r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const out = execFileSync(
        process.execPath,
        ['--optimize-for-size', script, compiled[side], String(rounds), String(orgs)],
        { cwd: trees[side], encoding: 'utf8', env: { ...process.env, MALLOC_ARENA_MAX: '2' }, timeout: 900_000 },
      );
      const j = JSON.parse(out.trim().split('\n').pop()!) as {
        before: number;
        after: number;
        bad: number;
        p95: Record<string, number>;
        modules: Array<string[] | null>;
      };
      const mods = j.modules.map((m) => (m ? m.filter((x) => x !== 'math').join('+') || '-' : '?')).join(' / ');
      const p95 = Object.entries(j.p95)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      console.log(
        `| ${r + 1} | ${side} | ${j.before} → ${j.after} | **${j.after - j.before}** | ${j.bad} | ${p95} | ${mods} | ${loadAverage()} |`,
      );
    }
  }
}
