// Resident memory of the API and the worker, and what each thread pool of them costs (issue 22's
// memory goal: API + worker ≤ 800 MB under load).
//
//   npx tsx bench/pool-memory.ts                     # both parts below
//   npx tsx bench/pool-memory.ts --pools             # per pool only
//   npx tsx bench/pool-memory.ts --stack [--seconds 30] [--configs before,after] [--no-pools]
//   ... [--baseline-tree dist/service/<hash of a session 9 build>]  # session 9's guard pool rows too
//   ... [--rows <text>] [--plain]   # only the per-pool rows naming <text>; children without the stack's flags
//   ... [--isolates]   # the stack's rows also print each process's V8 isolates (node's diagnostic report), idle and in the mixed load
//   ... [--mixed-requests N]  # the mixed load ends after N requests, not after 2 × --seconds (session 21)
//   ... [--base-tree <checkout>]  # a configuration named `<name>@base` runs that checkout's stack (its own compiled
//                                 # service) with <name>'s settings, e.g. --configs after@base,after,after@base,after (session 21)
//
// 1. Per pool (printed by --stack too): one child process per configuration, loading the compiled
//    service tree (as the stack runs it) under node with the V8 flags and environment the stack
//    gives the pool's process (session 17; --plain: none, as sessions 9-16 measured), warming
//    only the named pool(s), then reporting its RSS once the heap has settled; one row per
//    configuration with the difference to the bare process.
// 2. The stack (private, on SVC_BENCH_PORT_OFFSET, default 200), once per sizing configuration:
//    the RSS of the API process and of the worker process (each with its process group) idle
//    after start, then /verify/math and /verify/logic at 8 clients (req/s, so a sizing that
//    saves memory cannot silently lose throughput), then a mixed load (math, logic, SQL in the
//    postgresql and sqlite dialects, code, agent verification) sampled every 250 ms (peak and
//    mean), then again once PGlite has been released after its idle period. Beside each summed
//    RSS (session 17): the distinct physical pages of both groups (a page the API, the worker and
//    PGlite's process all map, such as the node binary's text, counted once), from pagemap's
//    frame numbers when the bench runs privileged.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_V8_FLAGS, WORKER_V8_FLAGS } from '../infra/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const mb = (b: number) => Math.round(b / 1e6);
/** --plain: the per-pool children under node without the stack's flags and environment (sessions 9-16). */
const PLAIN = argv.includes('--plain');

function newestServiceTree(): string {
  const base = path.join(ROOT, 'dist/service');
  const dirs = readdirSync(base)
    .map((d) => path.join(base, d))
    .filter((d) => statSync(d).isDirectory());
  dirs.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!dirs[0]) throw new Error('no compiled service tree: start the stack once (infra/service-build.ts)');
  return dirs[0];
}

// ---- 1. per pool -----------------------------------------------------------------------------

// Each configuration names the pools its child process warms: `engine:<size>[:<modules>]` (the
// engine pool; modules as ENGINE_MODULES keys, all by default; `engine0`: without its spare thread), `logic:<threads>` (Z3),
// `guardpool` (session 9's agent guard pool, only in a tree that still has it), `guard` (one
// guard scan through the engine pool's task, ENGINE_TASKS.guard), `pglite`, `pglite-released`.
const CONFIGS: Record<string, string[]> = {
  bare: [],
  'engine pool (size 2, 3 threads), every engine: the worker until session 11': ['engine:2'],
  'engine pool (size 2, 3 threads), math preloaded, the rest on first use: the worker since session 12': [
    'engine:2:math',
  ],
  'engine pool (size 2), every engine but the guards: session 9 worker pool': [
    'engine:2:math,process,rag,code,sql,stats',
  ],
  'engine pool (size 1, 2 threads)': ['engine:1'],
  'engine pool (size 2), eager engines only (math, process, RAG): the API process until session 14': [
    'engine:2:math,process,rag',
  ],
  'engine pool (size 2, no spare thread), eager engines only: the API process since session 15': [
    'engine0:2:math,process,rag',
  ],
  'Z3 pool (2 threads)': ['logic:2'],
  'Z3 pool (1 thread)': ['logic:1'],
  "Z3 pool (size 2, one warm: the worker's default since session 11)": ['logic:2:1'],
  'Z3 pool (size 2, one warm), after 40 solves of one organization': ['logicwork:2:1:40'],
  'Z3 pool (size 2), after 40 solves of two organizations at once (both workers up)': ['logicwork:2:1:40:2'],
  'Z3 pool (size 2, one warm), its warm worker released after a quiet period (the worker since session 17)': [
    'logic-released:2:1',
  ],
  'PGlite (its child process, one check)': ['pglite'],
  'PGlite (its child process, 300 checks over 24 schemas)': ['pglite-300'],
  'PGlite with V8 defaults (until session 16), 300 checks over 24 schemas': ['pglite-300-v8defaults'],
  'PGlite started, then released (idle)': ['pglite-released'],
  // Session 18: as the stack starts it, from the worktree's .data/pglite (its dump, or its unpacked template).
  'PGlite, the cached dump unpacked into its memory (the stack until session 18), one check': ['pglite-cached'],
  'PGlite, its data directory a copy on disk (the stack since session 18), one check': ['pglite-disk'],
  'PGlite, the cached dump unpacked into its memory, 300 checks over 24 schemas': ['pglite-cached-300'],
  'PGlite, its data directory a copy on disk, 300 checks over 24 schemas': ['pglite-disk-300'],
  "the worker's pools until session 11, PGlite released (engine 2 with the guards, Z3 2 of which 1 warm)": [
    'engine:2',
    'logic:2:1',
  ],
  "the worker's pools at their defaults, PGlite released (engine 2, math preloaded, Z3 2 of which 1 warm)": [
    'engine:2:math',
    'logic:2:1',
  ],
  "the worker's pools after a quiet period since session 17: PGlite and the warm Z3 worker released (engine 2, math preloaded)":
    ['engine:2:math', 'logic-released:2:1'],
};
/** Session 9's rows, run on a tree built from 828cbda (--baseline-tree): its guard pool beside its engine pool. */
const BASELINE_CONFIGS: Record<string, string[]> = {
  bare: [],
  'guard pool (1 thread, one scan)': ['guardpool'],
  "the worker's pools at their defaults, PGlite released (engine 2, Z3 2, guard pool)": [
    'engine:2',
    'logic:2',
    'guardpool',
  ],
};

// The child runs under plain node, as the stack's processes do: `npx tsx` would load its loader
// into every worker thread too (threads inherit execArgv), about 20-60 MB per thread that the
// service never pays (session 9's per-pool rows were measured that way).
const CHILD = String.raw`
const [tree, ...pools] = process.argv.slice(2);
const url = (p) => new URL(p, 'file://' + tree + '/').href;
// As the worker's and the API's composition roots: every thread started later gets the capped
// young generation (workers/thread-young-generation.ts; absent in trees before session 14).
if (process.env.POOL_MEMORY_AS_RUN === '1') {
  const { existsSync } = await import('node:fs');
  const yg = new URL(url('workers/thread-young-generation.js'));
  if (existsSync(yg)) await import(yg.href);
}
const closers = [];
const after = [];
const notes = [];
const scan = { op: 'verify', query: 'what is 2+2?', allowed_domains: [] };
for (const p of pools) {
  const [name, n, preload] = p.split(':');
  if (name === 'engine' || name === 'engine0' || name === 'guard') {
    const { EnginePool } = await import(url('activities/isolation/engine-pool.js'));
    const pool = new EnginePool({
      size: Number(n ?? 2),
      ...(preload ? { preload: preload.split(',') } : {}),
      ...(name === 'engine0' ? { spare: 0 } : {}),
    });
    await pool.warmUp();
    if (name === 'guard') {
      const { scanWithGuards } = await import(url('activities/agent-guard-scan.js'));
      await scanWithGuards(pool, scan, { orgId: null, timeoutMs: 60000 });
    }
    closers.push(() => pool.shutdown());
  } else if (name === 'logic' || name === 'logicwork' || name === 'logic-released') {
    // logic:<size>[:<warm>]; logicwork:<size>:<warm>:<solves>[:<organizations at once>]: that many
    // solves (small LIA problems with a model, as /verify/logic's); logic-released:<size>:<warm>:
    // one solve, then idle until the warm worker is released (warmIdleReleaseMs, session 17).
    const { LogicPool } = await import(url('engines/logic/pool.js'));
    const [, , , solves, orgs] = p.split(':');
    const released = name === 'logic-released';
    const pool = new LogicPool({
      size: Number(n),
      warmWorkers: Number(preload ?? n),
      idleReleaseMs: released ? 500 : 0,
      ...(released ? { warmIdleReleaseMs: 1000 } : {}),
    });
    await pool.warmUp();
    const count = name === 'logicwork' ? Number(solves) : released ? 1 : 0;
    const at = Number(orgs ?? 1);
    for (let i = 0; i < count; i += at) {
      const vars = Array.from({ length: 3 + (i % 5) }, (_, j) => 'x' + j);
      const smtlib =
        vars.map((v) => '(declare-const ' + v + ' Int)').join('') +
        vars.map((v, j) => '(assert (> (+ ' + v + ' ' + j + ') (* 2 ' + vars[(j + 1) % vars.length] + ')))').join('') +
        '(assert (= (mod (+ ' + vars.join(' ') + ') 7) ' + (i % 7) + '))';
      const outs = await Promise.all(
        Array.from({ length: at }, (_, o) =>
          pool.solve({ smtlib, variables: vars.map((v) => ({ symbol: v, sort: 'Int' })) }, { timeoutMs: 60000, orgId: 'org-' + o }),
        ),
      );
      for (const o of outs) if (o.kind !== 'result') throw new Error('Z3 solve failed: ' + JSON.stringify(o));
    }
    if (released) {
      const t0 = Date.now();
      while (pool.stats().workers.length > 0 && Date.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 200));
      if (pool.stats().workers.length > 0) throw new Error('the warm Z3 worker was not released');
      // The price, after the RSS is taken: the next solve's wall time and the process's CPU, cold
      // (a worker started on demand) and then warm.
      after.push(async () => {
        const one = async () => {
          const c = process.cpuUsage();
          const t = performance.now();
          const o = await pool.solve({ smtlib: '(declare-const x Int)(assert (> x 5))(assert (< x 7))', variables: [{ symbol: 'x', sort: 'Int' }] }, { timeoutMs: 60000 });
          if (o.kind !== 'result' || o.status !== 'sat') throw new Error('Z3 solve failed: ' + JSON.stringify(o));
          const u = process.cpuUsage(c);
          return Math.round(performance.now() - t) + ' ms (CPU ' + Math.round((u.user + u.system) / 1000) + ' ms)';
        };
        const cold = await one();
        const warm = await one();
        notes.push('Z3 after its warm worker was released: the next solve ' + cold + ', the one after it ' + warm);
      });
    }
    closers.push(() => pool.shutdown());
  } else if (name === 'guardpool') {
    const { GuardPool } = await import(url('activities/agent-guard-pool.js'));
    const pool = new GuardPool({ size: 2 });
    await pool.run(scan, { orgId: null, timeoutMs: 60000 });
    closers.push(() => pool.shutdown());
  } else if (name.startsWith('pglite')) {
    const { PgCheck, DEFAULT_PG_CHECK_LIMITS } = await import(url('engines/sql/index.js'));
    // pglite-300[-v8defaults]: 300 checks over 24 schemas (the LRU keeps 16: creations and drops
    // too), as a mixed load leaves it; -v8defaults: without PG_PROCESS_V8_FLAGS (session 16);
    // pglite-cached / pglite-disk[-300]: with the stack's data directory cache, in memory or on disk (session 18).
    const cached = name.startsWith('pglite-cached') || name.startsWith('pglite-disk');
    const pg = new PgCheck({
      ...DEFAULT_PG_CHECK_LIMITS,
      bootWaitMs: 300000,
      timeoutMs: 60000,
      ...(name.endsWith('-v8defaults') ? { v8Flags: [] } : {}),
      ...(cached ? { dataDirCache: process.env.POOL_MEMORY_PG_CACHE, dataDirOnDisk: name.startsWith('pglite-disk') } : {}),
    });
    const n = name.includes('-300') ? 300 : 1;
    for (let i = 0; i < n; i++) {
      const s = i % 24;
      const cols = Array.from({ length: 8 + s }, (_, c) => 'c' + c + (c % 3 ? ' text' : ' int')).join(', ');
      const ddl = 'CREATE TABLE t (' + cols + '); CREATE TABLE u (a int, b text, p numeric(7,2));';
      const q = i % 2 ? 'SELECT c1, count(*) FROM t WHERE c0 > ' + i + ' GROUP BY c1' : 'SELECT b FROM u JOIN t ON c0 = a WHERE p > $1';
      const r = await pg.check(q, ddl, { budgetMs: 300000 });
      if (!r.ran || !r.ok) throw new Error('PGlite did not accept check ' + i + ': ' + JSON.stringify(r));
    }
    if (name === 'pglite-released') await pg.shutdown();
    else closers.push(() => pg.shutdown());
  }
}
await new Promise((r) => setTimeout(r, 3000));
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 500));
// This process and its children (PGlite runs in a child process of its own).
const { readdirSync, readFileSync } = await import('node:fs');
let children = 0;
for (const d of readdirSync('/proc')) {
  if (!/^\d+$/.test(d)) continue;
  try {
    const stat = readFileSync('/proc/' + d + '/stat', 'utf8');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    children += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/' + d + '/status', 'utf8'))?.[1] ?? 0) * 1024;
  } catch {}
}
const rss = process.memoryUsage().rss + children;
for (const a of after) await a();
process.stdout.write(JSON.stringify({ rss, notes }) + '\n');
for (const c of closers) await c();
process.exit(0);
`;

function perPoolRows(tree: string, configs: Record<string, string[]>, title: string): void {
  let bare = 0;
  console.log(
    `\n## Per pool, ${title} (service tree ${path.relative(ROOT, tree)}; ${PLAIN ? 'plain node, no flags (--plain)' : "under node as the stack runs the pool's process: its V8 flags, MALLOC_ARENA_MAX=2, the threads' young-generation cap"})\n`,
  );
  console.log('| configuration | RSS (MB) | over the bare process (MB) |\n|-|-|-|');
  // --rows <text>: only the rows whose label contains it (and the bare process).
  const only = arg('rows', '');
  const notes: string[] = [];
  // A file, not `-e`: threads inherit execArgv, and `--input-type` in a thread's would fail it.
  const script = path.join(mkdtempSync(path.join(tmpdir(), 'pool-memory-')), 'child.mjs');
  writeFileSync(script, CHILD);
  for (const [label, pools] of Object.entries(configs)) {
    if (only && label !== 'bare' && !label.includes(only)) continue;
    // Session 17: by default each child runs as the stack runs the process that holds the pool
    // (its V8 flags, MALLOC_ARENA_MAX=2, the threads' young-generation cap): the plain-node rows
    // of earlier sessions counted each Z3 thread's isolates with 16 MB semi-spaces and a malloc
    // arena per thread (--plain: as before, to compare with them).
    const api = label.includes('API process');
    const v8Flags = PLAIN ? [] : (api ? API_V8_FLAGS : WORKER_V8_FLAGS).split(/\s+/).filter(Boolean);
    const out = execFileSync(process.execPath, ['--expose-gc', ...v8Flags, script, path.resolve(tree), ...pools], {
      encoding: 'utf8',
      cwd: tree,
      timeout: 300_000,
      env: {
        ...(PLAIN ? process.env : { ...process.env, MALLOC_ARENA_MAX: '2', POOL_MEMORY_AS_RUN: '1' }),
        POOL_MEMORY_PG_CACHE: path.join(ROOT, '.data/pglite'),
      },
    });
    const row = JSON.parse(out.trim().split('\n').pop()!) as { rss: number; notes?: string[] };
    const rss = row.rss;
    if (label === 'bare') bare = rss;
    console.log(`| ${label} | ${mb(rss)} | ${label === 'bare' ? '—' : mb(rss - bare)} |`);
    notes.push(...(row.notes ?? []));
  }
  for (const n of new Set(notes)) console.log(`\n- ${n}`);
}

function perPool(): void {
  const tree = argv[0] && !argv[0].startsWith('--') ? path.resolve(argv[0]) : newestServiceTree();
  perPoolRows(tree, CONFIGS, 'this tree');
  const baseline = arg('baseline-tree', '');
  if (baseline) perPoolRows(path.resolve(baseline), BASELINE_CONFIGS, 'session 9 (828cbda)');
}

// ---- 2. the stack under load -----------------------------------------------------------------

/** RSS in bytes of every process in the process group `pgid` (a stack process and its children). */
function groupRss(pgid: number | undefined): number {
  return groupPids(pgid).reduce((total, pid) => total + rssOf(pid), 0);
}

/** VmRSS of `pid` in bytes (0 once it ended). */
function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // the process ended meanwhile
  }
}

/** The pids of the process group `pgid`. */
function groupPids(pgid: number | undefined): number[] {
  if (!pgid) return [];
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) out.push(Number(d));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * Bytes of distinct physical pages resident in `pids` (session 17): summed RSS counts a page
 * every process maps once per process (the node binary's ~40 MB of text in the API, the worker
 * and PGlite's process, shared libraries), this counts it once — what the processes together
 * hold of the machine's memory. From /proc/<pid>/pagemap's page frame numbers, which only a
 * privileged reader sees (null otherwise). Mappings over 16 GiB (V8's reservations) are skipped:
 * a reservation is never resident in full, and its resident part lies in smaller mappings.
 */
function distinctResident(pids: number[]): number | null {
  const frames = new Set<number>();
  for (const pid of pids) {
    let fd: number | null = null;
    try {
      fd = openSync(`/proc/${pid}/pagemap`, 'r');
      for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
        const m = /^([0-9a-f]+)-([0-9a-f]+)/.exec(line);
        if (!m) continue;
        const from = Number.parseInt(m[1]!, 16) / 4096;
        const pages = Number.parseInt(m[2]!, 16) / 4096 - from;
        if (pages <= 0 || pages > 2 ** 22) continue;
        const buf = Buffer.alloc(pages * 8);
        readSync(fd, buf, 0, buf.length, from * 8);
        for (let i = 0; i < pages; i++) {
          const hi = buf.readUInt32LE(i * 8 + 4);
          if (!(hi & 0x80000000)) continue; // bit 63: present
          const pfn = (hi & 0x7fffff) * 2 ** 32 + buf.readUInt32LE(i * 8); // bits 0-54
          if (pfn === 0) return null; // frame numbers hidden: not privileged
          frames.add(pfn);
        }
      }
    } catch {
      // the process ended meanwhile, or pagemap is not readable
      if (fd === null) return null;
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }
  return frames.size * 4096;
}

/** RSS in bytes of PGlite's process (engines/sql/pg-worker.mjs) in the process group `pgid`: 0 when it is not running. */
function pgliteRss(pgid: number | undefined): number {
  const isPglite = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pg-worker.mjs');
    } catch {
      return false; // the process ended meanwhile
    }
  };
  return groupPids(pgid)
    .filter(isPglite)
    .reduce((total, pid) => total + rssOf(pid), 0);
}

/**
 * What one process's resident memory is made of (its /proc/<pid>/smaps, MB), to tell which part
 * grows under load: V8's heap pages (anonymous mappings in multiples of 256 KiB: every isolate's
 * old, young and large-object spaces), glibc's main arena (`[heap]`), other anonymous memory
 * (the other malloc arena, thread stacks, WebAssembly memories such as Z3's) and mapped files
 * (node itself, native add-ons). Session 14: the API's V8 pages grew 156 -> 239-244 MB under
 * /verify/math while every other class stayed flat.
 */
function memoryClasses(pid: number | undefined): string {
  if (!pid) return '';
  const kb: Record<string, number> = { v8: 0, brk: 0, anon: 0, files: 0 };
  let size = 0;
  let name = '';
  try {
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (m) {
        size = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 1024;
        name = m[3] ?? '';
        continue;
      }
      const r = /^Rss:\s+(\d+) kB/.exec(line);
      if (!r) continue;
      const k = name.startsWith('/')
        ? 'files'
        : name === '[heap]'
          ? 'brk'
          : name === '' && size % 256 === 0
            ? 'v8'
            : 'anon';
      kb[k] = (kb[k] ?? 0) + Number(r[1]);
    }
  } catch {
    return '';
  }
  const m = (k: string) => Math.round((kb[k] ?? 0) / 1024);
  return `V8 pages ${m('v8')}, main arena ${m('brk')}, other anonymous ${m('anon')}, files ${m('files')}`;
}

/**
 * --isolates (session 20): the V8 heap of every isolate of a process (its main thread and each
 * worker thread, nested ones indented: the engine threads, the Temporal SDK's workflow thread, the
 * Z3 worker and Z3's pthreads), from node's diagnostic report, which the process writes on
 * SIGWINCH when started with the report flags below. Committed MB per isolate, with its new
 * (young) and old space: what the "V8 pages" class is made of.
 */
const ISOLATES = argv.includes('--isolates');
/** --mixed-requests N: the mixed load's length in requests (8 clients), not in time (session 21). */
const MIXED_REQUESTS = Number(arg('mixed-requests', '0'));
const REPORT_DIR = ISOLATES ? mkdtempSync(path.join(tmpdir(), 'pool-memory-reports-')) : '';
const REPORT_FLAGS = `--report-on-signal --report-signal=SIGWINCH --report-directory=${REPORT_DIR}`;

interface IsolateReport {
  header: { threadId: number };
  javascriptHeap: { totalMemory: number; heapSpaces: Record<string, { memorySize: number }> };
  workers?: IsolateReport[];
}

/** Asks `pid` for a diagnostic report and summarises its isolates ('' without --isolates or when none came within 10 s). */
async function isolates(pid: number | undefined): Promise<string> {
  if (!ISOLATES || !pid) return '';
  const before = new Set(readdirSync(REPORT_DIR));
  process.kill(pid, 'SIGWINCH');
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const f = readdirSync(REPORT_DIR).find((n) => !before.has(n) && n.includes(`.${pid}.`));
    if (!f) continue;
    let r: IsolateReport;
    try {
      r = JSON.parse(readFileSync(path.join(REPORT_DIR, f), 'utf8')) as IsolateReport;
    } catch {
      continue; // still being written
    }
    const one = (x: IsolateReport): string => {
      const sp = (k: string) => mb(x.javascriptHeap.heapSpaces[k]?.memorySize ?? 0);
      const own = `${mb(x.javascriptHeap.totalMemory)} (new ${sp('new_space')}, old ${sp('old_space')})`;
      const kids = (x.workers ?? []).map(one);
      return kids.length ? `${own} [${kids.join(', ')}]` : own;
    };
    const total = (x: IsolateReport): number =>
      x.javascriptHeap.totalMemory + (x.workers ?? []).reduce((t, w) => t + total(w), 0);
    return `${mb(total(r))} MB in all: main ${one(r)}`;
  }
  return 'no report within 10 s';
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface StackConfig {
  name: string;
  env: Record<string, string>;
  /** The old start-up started PGlite with the worker: a first postgresql request stands in for it. */
  warmPglite: boolean;
  /** How long PGlite stays up without a check, to wait for the release row (0: never released). */
  idleReleaseMs: number;
}

/** SVC_SQL_PG_DATADIR_CACHE's stand-in for a new, empty scratch folder per run (session 20). */
const SCRATCH = '<scratch>';

const STACK_CONFIGS: Record<string, StackConfig> = {
  // Session 8's sizing: engine pool min(4, max(2, cores)) = 2 (+1 spare) in both processes, Z3 2,
  // PGlite started with the worker and kept.
  before: {
    name: 'before (engine 2+1 in API and worker, Z3 2, PGlite at start, kept)',
    env: {
      SVC_ENGINE_POOL_SIZE: '2',
      SVC_Z3_POOL_SIZE: '2',
      SVC_SQL_PG_IDLE_RELEASE_MS: '0',
    },
    warmPglite: true,
    idleReleaseMs: 0,
  },
  // The defaults now; the idle release shortened from 300 s to 20 s so the bench can show it.
  // Session 17: the warm Z3 worker's release (300 s by default) is shortened the same way.
  after: {
    name: "after (defaults; PGlite on demand, its idle release and the warm Z3 worker's shortened to 20 s for the bench)",
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_Z3_WARM_IDLE_RELEASE_MS: '20000' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 18's A/B: the defaults with PostgreSQL's files in PGlite's memory, the cached dump
  // unpacked at every start (SVC_SQL_PG_DATADIR_ON_DISK=0, as until session 18).
  pgmem: {
    name: "after, PGlite's data directory in its memory (SVC_SQL_PG_DATADIR_ON_DISK=0, as until session 18; idle releases shortened to 20 s)",
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_Z3_WARM_IDLE_RELEASE_MS: '20000', SVC_SQL_PG_DATADIR_ON_DISK: '0' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 17's A/B: the defaults with the warm Z3 worker kept for the worker's life (as before).
  z3kept: {
    name: 'after, the warm Z3 worker kept (SVC_Z3_WARM_IDLE_RELEASE_MS=0, as before session 17; PGlite released at 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_Z3_WARM_IDLE_RELEASE_MS: '0' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The defaults with the worker's V8 heap grown by 20 % instead of V8's default factor (session 18:
  // the worker's V8 pages are most of what is left at the mixed peak; the API has had it since session 17).
  workerheap: {
    name: "after, the worker's heap grown by 20 % at a time (SVC_WORKER_V8_FLAGS='--optimize-for-size --heap-growing-percent=20'; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_WORKER_V8_FLAGS: '--optimize-for-size --heap-growing-percent=20',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 19: the workflow bundle's source map with the sources' text in it, as until session 19
  // (SVC_WORKFLOW_BUNDLE_SOURCES=on; the defaults drop `sourcesContent`, workers/workflow-bundle.ts).
  bundlesources: {
    name: "after, the workflow bundle's source map with the sources' text (SVC_WORKFLOW_BUNDLE_SOURCES=on, as until session 19; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_WORKFLOW_BUNDLE_SOURCES: 'on',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 19: a workflow thread per SDK Worker in the standalone worker (two), as until session 19
  // (the defaults share one between its two Workers, workers/shared-workflow-thread.ts).
  twothreads: {
    name: 'after, a workflow thread per Worker in the worker (SVC_WORKER_SHARED_WORKFLOW_THREAD=0, as until session 19; idle releases shortened to 20 s)',
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_WORKER_SHARED_WORKFLOW_THREAD: '0',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 19: the worker as until session 19 (both switches above back), beside the defaults.
  s18: {
    name: 'session 18 (the bundle with its sources and a workflow thread per Worker; idle releases shortened to 20 s)',
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_WORKFLOW_BUNDLE_SOURCES: 'on',
      SVC_WORKER_SHARED_WORKFLOW_THREAD: '0',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 19: the engine threads' young generation at 4 MB (SVC_ENGINE_YOUNG_GENERATION_MB; 8 until session 19).
  young4: {
    name: "after, the engine threads' young generation at 4 MB (SVC_ENGINE_YOUNG_GENERATION_MB=4; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_ENGINE_YOUNG_GENERATION_MB: '4',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 19 (helper E): every engine thread loads its engines at start, the worker's spare too
  // (SVC_ENGINE_SPARE_LAZY=0, as until session 19; the defaults load the spare's only when it serves).
  sparewarm: {
    name: "after, the worker's spare engine thread loads mathjs at start (SVC_ENGINE_SPARE_LAZY=0, as until session 19; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_ENGINE_SPARE_LAZY: '0',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The defaults with glibc's malloc arenas capped at 2 per process (each thread otherwise gets
  // an arena of its own, up to 8 per core): a setting of the supervisor, measured here only.
  arenas: {
    name: 'after, MALLOC_ARENA_MAX=2 (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', MALLOC_ARENA_MAX: '2' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // One malloc arena per process instead of the stack's two (session 14): every thread shares it.
  arena1: {
    name: 'after, MALLOC_ARENA_MAX=1 (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', MALLOC_ARENA_MAX: '1' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The defaults without the on-disk data directory (session 13): every process's first PGlite
  // start runs initdb (a ~700 MB peak of PGlite's process) instead of loading a first start's dump.
  nocache: {
    name: 'after, SVC_SQL_PG_DATADIR_CACHE=0: PGlite runs initdb at its first start (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_SQL_PG_DATADIR_CACHE: '0' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The defaults with glibc's dynamic mmap threshold turned off (session 13): freeing a large
  // mmapped block otherwise raises the mmap threshold up to 32 MB and the trim threshold to twice
  // that, so each arena may keep up to 64 MB of freed memory resident; fixed at 128 KiB, freed
  // blocks go back to the system. A setting of the supervisor, like MALLOC_ARENA_MAX.
  trim: {
    name: 'after, MALLOC_MMAP_THRESHOLD_=MALLOC_TRIM_THRESHOLD_=131072 (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // V8 flags of the API and worker processes (session 15, infra/stack.ts SVC_API_V8_FLAGS and
  // SVC_WORKER_V8_FLAGS; command line only, node refuses them in NODE_OPTIONS). The defaults give
  // the worker --optimize-for-size (code and heaps sized for memory over speed); this gives the API it too,
  optsize: {
    name: 'after, --optimize-for-size in the API too (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_API_V8_FLAGS: '--optimize-for-size' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // PGlite's process with V8's defaults (until session 16; the defaults give it
  // --liftoff-only --optimize-for-size, engines/sql/pg-check.ts PG_PROCESS_V8_FLAGS),
  pgv8defaults: {
    name: "after, PGlite's process with V8 defaults (as until session 16, its malloc thresholds aside; idle release shortened to 20 s)",
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_SQL_PG_V8_FLAGS: '' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // the API with V8's own old-generation growth (as until session 17; the defaults give it
  // --heap-growing-percent=20, infra/stack.ts API_V8_FLAGS),
  apiv8defaults: {
    name: "after, the API with V8's default heap growth (as until session 17; idle release shortened to 20 s)",
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_API_V8_FLAGS: '' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // this the worker without it (V8's defaults, as until session 15),
  v8defaults: {
    name: 'after, V8 defaults in the worker too (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', SVC_WORKER_V8_FLAGS: '' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // and this both with the old generation grown by 20 % per step instead of V8's dynamic factor.
  grow20: {
    name: 'after, --heap-growing-percent=20 in both (idle release shortened to 20 s)',
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_API_V8_FLAGS: '--heap-growing-percent=20',
      SVC_WORKER_V8_FLAGS: '--heap-growing-percent=20',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // Session 20: the API's main thread with V8's default semi-spaces (16 MB each), as until session 20
  // (the defaults cap them at 4 MB: infra/stack.ts API_V8_FLAGS), and with a cap of 8 MB between.
  // node's diagnostic report (--isolates) showed the API's main isolate committing 34 MB of new
  // space, idle and at the mixed peak, the largest single part of its V8 pages.
  apisemi16: {
    name: "after, the API's main thread with V8's default 16 MB semi-spaces (SVC_API_V8_FLAGS='--heap-growing-percent=20', as until session 20; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_API_V8_FLAGS: '--heap-growing-percent=20',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  apisemi8: {
    name: "after, the API's main thread at --max-semi-space-size=8 (SVC_API_V8_FLAGS='--heap-growing-percent=20 --max-semi-space-size=8'; idle releases shortened to 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_API_V8_FLAGS: '--heap-growing-percent=20 --max-semi-space-size=8',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The main threads' semi-spaces at 8 MB (V8's default 16): a milder cap than the 2 MB one
  // below, which cost ~20 % CPU per request (the CPU per request column says what this one costs).
  semi8: {
    name: 'after, --max-semi-space-size=8 (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', NODE_OPTIONS: '--max-semi-space-size=8' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  // The defaults with V8's semi-spaces capped at 2 MB in every isolate without limits of its own
  // (the main threads, the Temporal SDK's workflow threads; the engine threads set theirs): V8
  // otherwise lets each young generation grow to tens of MB under load.
  // Session 20: a fresh clone's first run: PGlite's cache folder empty (a new scratch folder per
  // run, removed after it). `fresh`: the stack builds the template at its start (the default);
  // `fresh-nostart`: it does not (SVC_SQL_PG_TEMPLATE_AT_START=0, as until session 20), so the
  // mixed load's first postgresql check runs initdb in the worker's process group.
  fresh: {
    name: "after, PGlite's cache folder empty at the stack's start (the stack builds the template; idle release 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_SQL_PG_DATADIR_CACHE: SCRATCH,
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  'fresh-nostart': {
    name: "after, PGlite's cache folder empty, no template at the stack's start (SVC_SQL_PG_TEMPLATE_AT_START=0, as until session 20; idle release 20 s)",
    env: {
      SVC_SQL_PG_IDLE_RELEASE_MS: '20000',
      SVC_Z3_WARM_IDLE_RELEASE_MS: '20000',
      SVC_SQL_PG_DATADIR_CACHE: SCRATCH,
      SVC_SQL_PG_TEMPLATE_AT_START: '0',
    },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
  semispace: {
    name: 'after, --max-semi-space-size=2 (idle release shortened to 20 s)',
    env: { SVC_SQL_PG_IDLE_RELEASE_MS: '20000', NODE_OPTIONS: '--max-semi-space-size=2' },
    warmPglite: false,
    idleReleaseMs: 20_000,
  },
};

const MATH = { expression: '(x+1)**2 = x**2 + 2*x + 1' };
const LOGIC = { query: '(AND (GT x 5) (LT x 10))' };
const SQL_DDL =
  'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text, w_city text); CREATE TABLE item (i_item_sk integer, i_item_id text, i_price numeric(7,2));';

async function runStack(
  cfg: StackConfig,
  seconds: number,
  tree: string | null = null,
): Promise<Record<string, string>> {
  // `<name>@base` (session 21): another checkout's supervisor and compiled service, for an A/B of two trees.
  const { startBenchStack } = (
    tree ? await import(path.join(tree, 'bench', 'bench-stack.ts')) : await import('./bench-stack.js')
  ) as typeof import('./bench-stack.js');
  const offset = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 200);
  // The stack builds the workflow bundle in this process before its services start: in the form this
  // configuration's services load (SVC_WORKFLOW_BUNDLE_SOURCES), so no service process bundles on its own start.
  process.env.SVC_WORKFLOW_BUNDLE_SOURCES = cfg.env.SVC_WORKFLOW_BUNDLE_SOURCES ?? '';
  // --isolates: the API and the worker write a diagnostic report on SIGWINCH (their flags otherwise as configured).
  const scratch =
    cfg.env.SVC_SQL_PG_DATADIR_CACHE === SCRATCH ? mkdtempSync(path.join(tmpdir(), 'pool-memory-pglite-')) : null;
  const cfgEnv = scratch ? { ...cfg.env, SVC_SQL_PG_DATADIR_CACHE: scratch } : cfg.env;
  const env = ISOLATES
    ? {
        ...cfgEnv,
        SVC_API_V8_FLAGS: `${cfg.env.SVC_API_V8_FLAGS ?? API_V8_FLAGS} ${REPORT_FLAGS}`,
        SVC_WORKER_V8_FLAGS: `${cfg.env.SVC_WORKER_V8_FLAGS ?? WORKER_V8_FLAGS} ${REPORT_FLAGS}`,
      }
    : cfgEnv;
  const upAt = performance.now();
  const { stack, base, key } = await startBenchStack(`bench-pool-memory`, offset, env);
  // Session 20: how long the start took, and what it did about PGlite's template.
  const upSeconds = ((performance.now() - upAt) / 1000).toFixed(1);
  let template = '';
  try {
    template = readFileSync(path.join(stack.dataDir, 'logs', 'pglite-template.log'), 'utf8').trim();
  } catch {
    template = 'none';
  }
  const json = { 'content-type': 'application/json' };
  const api = stack.api;
  const worker = stack.worker;
  const sample = () => {
    const a = groupRss(api.pid);
    const w = groupRss(worker.pid);
    return { api: a, worker: w, total: a + w, pglite: pgliteRss(worker.pid) };
  };
  const post = async (p: string, body: unknown, headers: Record<string, string> = { 'x-api-key': key }) => {
    const res = await fetch(`${base}${p}`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };
  /** `clients` loops for `secs` seconds; returns requests per second and the non-2xx count. */
  const drive = async (
    clients: number,
    secs: number,
    next: (i: number) => Promise<number>,
    kinds = 1,
    maxRequests = Infinity,
  ) => {
    const startedAt = performance.now();
    const until = startedAt + secs * 1000;
    let ok = 0;
    let bad = 0;
    let n = 0;
    // Which request of the rotation got which non-2xx status (a memory setting must not cost answers).
    const failures: Record<string, number> = {};
    /** Latency of each request by its kind in the rotation (i % kinds), ms (session 21: p95 per engine). */
    const ms: number[][] = Array.from({ length: kinds }, () => []);
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until && n < maxRequests) {
          const i = n++;
          const t0 = performance.now();
          const s = await next(i).catch(() => 0);
          ms[i % kinds]!.push(performance.now() - t0);
          if (s >= 200 && s < 300) ok++;
          else {
            bad++;
            const k = `#${i % 7} ${s}`;
            failures[k] = (failures[k] ?? 0) + 1;
          }
        }
      }),
    );
    const p95 = ms.map((l) => {
      const sorted = [...l].sort((a, b) => a - b);
      return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! : NaN;
    });
    return { rps: ok / ((performance.now() - startedAt) / 1000), bad, failures, p95, requests: n };
  };
  /** Samples RSS every 250 ms while `fn` runs: peak and mean of the API, the worker and their sum. */
  const sampled = async <T>(fn: () => Promise<T>) => {
    const rows: Array<ReturnType<typeof sample>> = [];
    let classesAtPeak = { api: '', worker: '' };
    /** Distinct physical pages of both groups at the latest new peak of the summed RSS (it takes ~0.1-0.3 s: once a second, or sooner when the peak rose by 10 MB). */
    let distinctAtPeak: { at: number; bytes: number | null; rss: number } | null = null;
    const timer = setInterval(() => {
      const s = sample();
      if (rows.every((r) => r.total < s.total)) {
        classesAtPeak = { api: memoryClasses(api.pid), worker: memoryClasses(worker.pid) };
        if (!distinctAtPeak || Date.now() - distinctAtPeak.at >= 1000 || s.total - distinctAtPeak.rss > 10 * 2 ** 20)
          distinctAtPeak = {
            at: Date.now(),
            bytes: distinctResident([...groupPids(api.pid), ...groupPids(worker.pid)]),
            rss: s.total,
          };
      }
      rows.push(s);
    }, 250);
    const value = await fn();
    clearInterval(timer);
    rows.push(sample());
    const peak = (k: 'api' | 'worker' | 'total') => Math.max(...rows.map((r) => r[k]));
    const mean = (k: 'api' | 'worker' | 'total') => rows.reduce((s, r) => s + r[k], 0) / rows.length;
    // PGlite's process (part of the worker's figure): in the sample of the total's peak, and its own peak.
    const atPeak = rows.reduce((a, r) => (r.total > a.total ? r : a), rows[0]!);
    return {
      value,
      pglite: { atPeak: atPeak.pglite, peak: Math.max(...rows.map((r) => r.pglite)) },
      peak: { api: peak('api'), worker: peak('worker'), total: peak('total') },
      mean: mean('total'),
      classesAtPeak,
      distinctAtPeak,
    };
  };
  const fmt = (s: { api: number; worker: number; total: number }) =>
    `API ${mb(s.api)} + worker ${mb(s.worker)} = **${mb(s.total)}**`;
  /** The summed RSS beside the distinct physical pages of both groups (shared pages once), when readable. */
  const distinct = (d: { bytes: number | null; rss: number } | null) =>
    d?.bytes ? `; distinct physical pages ${mb(d.bytes)} MB where the summed RSS was ${mb(d.rss)}` : '';
  const withDistinct = (s: ReturnType<typeof sample>) =>
    `${fmt(s)}${distinct({ bytes: distinctResident([...groupPids(api.pid), ...groupPids(worker.pid)]), rss: s.total })}`;
  const out: Record<string, string> = { start: `${upSeconds} s; PGlite's template: ${template}` };
  try {
    const reg = (await (
      await fetch(`${base}/agents/register`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({
          name: 'bench',
          max_requests_per_hour: 1_000_000,
          max_cost_per_day: 1_000_000,
          permissions: { allowed_tools: ['calculator'], allowed_domains: ['example.com'] },
        }),
      })
    ).json()) as { id: string; agent_token: string };
    const agentH = { 'x-agent-token': reg.agent_token };
    const ctx = { conversation_id: 'bench', step_number: 1 };
    if (cfg.warmPglite)
      await post('/verify/sql', { query: 'SELECT w_state FROM warehouse', schema_ddl: SQL_DDL, dialect: 'postgresql' });
    await new Promise((r) => setTimeout(r, 5000));
    out.idle = withDistinct(sample());
    out.idleClasses = `API: ${memoryClasses(api.pid)}; worker: ${memoryClasses(worker.pid)}`;
    out.idleIsolates = `API: ${await isolates(api.pid)}; worker: ${await isolates(worker.pid)}`;
    // Warm both paths once, then the throughput rows.
    await post('/verify/math', MATH);
    await post('/verify/logic', LOGIC);
    // CPU per request of the API and the worker (process groups): a memory setting that costs
    // CPU shows here, which the machine's load does not distort as it does req/s.
    const { groupCpuMs } = await import('./proc-sample.js');
    const cpu = () => groupCpuMs(api.pid) + groupCpuMs(worker.pid);
    const perRequest = async (fn: () => Promise<{ rps: number; bad: number }>) => {
      const c0 = cpu();
      const r = await fn();
      return { ...r, cpuMs: (cpu() - c0) / Math.max(1, r.rps * seconds + r.bad) };
    };
    const m = await sampled(() => perRequest(() => drive(8, seconds, () => post('/verify/math', MATH))));
    const l = await sampled(() => perRequest(() => drive(8, seconds, () => post('/verify/logic', LOGIC))));
    const line = (x: typeof m) =>
      `${x.value.rps.toFixed(1)} req/s (${x.value.bad} non-2xx), API + worker CPU ${x.value.cpuMs.toFixed(1)} ms per request; peak ${fmt(x.peak)}${distinct(x.distinctAtPeak)}`;
    out.math = line(m);
    out.logic = line(l);
    out.mathClasses = `API: ${m.classesAtPeak.api}; worker: ${m.classesAtPeak.worker}`;
    out.logicClasses = `API: ${l.classesAtPeak.api}; worker: ${l.classesAtPeak.worker}`;
    // The mixed load: every kind the worker's pools serve, one after the other per client.
    const kinds: Array<() => Promise<number>> = [
      () => post('/verify/math', MATH),
      () => post('/verify/logic', LOGIC),
      () =>
        post('/verify/sql', {
          query: `SELECT w_state, count(*) FROM warehouse WHERE w_warehouse_sk > ${Math.floor(Math.random() * 1000)} GROUP BY w_state`,
          schema_ddl: SQL_DDL,
          dialect: 'postgresql',
        }),
      () => post('/verify/sql', { query: 'SELECT i_item_id FROM item WHERE i_price > 10', schema_ddl: SQL_DDL }),
      () => post('/verify/code', { code: 'import os\nprint(os.getcwd())\n', language: 'python' }),
      () => post(`/agents/${reg.id}/verify`, { query: '(x+1)^2 = x^2 + 2*x + 1', context: ctx }, agentH),
      () => post('/verify/math', { expression: 'sin(x)**2 + cos(x)**2 = 1' }),
    ];
    // --isolates: the reports two thirds into the mixed load (the peak's sample is known only after it).
    const mixedIsolates = new Promise<string>((resolve) =>
      setTimeout(
        () => void (async () => resolve(`API: ${await isolates(api.pid)}; worker: ${await isolates(worker.pid)}`))(),
        ISOLATES ? (seconds * 2000 * 2) / 3 : 0,
      ),
    );
    // --mixed-requests N (session 21): the mixed load ends after N requests instead of after its time
    // (at most 20 minutes), so a loaded machine changes its rate, not how much work it did.
    const mixed = await sampled(() =>
      MIXED_REQUESTS
        ? drive(8, 1200, (i) => kinds[i % kinds.length]!(), kinds.length, MIXED_REQUESTS)
        : drive(8, seconds * 2, (i) => kinds[i % kinds.length]!(), kinds.length),
    );
    out.mixedIsolates = await mixedIsolates;
    const why = Object.entries(mixed.value.failures)
      .map(([k, c]) => `${k} × ${c}`)
      .join(', ');
    out.mixed = `${mixed.value.requests} requests, ${mixed.value.rps.toFixed(1)} req/s (${mixed.value.bad} non-2xx${why ? `: kind ${why}` : ''}); peak ${fmt(mixed.peak)}; mean total ${mb(mixed.mean)}; PGlite's process (in the worker's figure) ${mb(mixed.pglite.atPeak)} at the peak, ${mb(mixed.pglite.peak)} at its own${distinct(mixed.distinctAtPeak)}`;
    out.mixedClasses = `API: ${mixed.classesAtPeak.api}; worker: ${mixed.classesAtPeak.worker}`;
    const KIND_NAMES = ['math', 'logic', 'sql postgresql', 'sql sqlite', 'code', 'agent', 'math (trig)'];
    out.mixedP95 = mixed.value.p95.map((v, i) => `${KIND_NAMES[i]} ${v.toFixed(0)}`).join(', ');
    out.afterLoad = withDistinct(sample());
    if (cfg.idleReleaseMs > 0) {
      await new Promise((r) => setTimeout(r, cfg.idleReleaseMs + 8_000));
      out.released = `${fmt(sample())} (worker log: ${worker.logContains('PGlite released') ? 'PGlite released' : 'no release logged'})`;
    } else out.released = 'never released';
    out.load = loadAverage();
  } finally {
    await stack.down();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
  return out;
}

{
  const onlyPools = argv.includes('--pools');
  // --stack prints what each pool costs first (the memory the stack's totals are made of), unless --no-pools.
  if (!argv.includes('--no-pools')) perPool();
  if (!onlyPools) {
    const seconds = Number(arg('seconds', '30'));
    const baseTree = arg('base-tree', '');
    for (const c of arg('configs', 'before,after').split(',')) {
      const [name, at] = c.split('@');
      const cfg = STACK_CONFIGS[name!];
      if (!cfg) throw new Error(`unknown configuration ${c}`);
      if (at !== undefined && (at !== 'base' || !baseTree))
        throw new Error(`${c}: use <name>@base with --base-tree <checkout>`);
      const tree = at === 'base' ? path.resolve(baseTree) : null;
      console.log(
        `\n## Stack: ${cfg.name}${tree ? `, the tree at ${tree}` : ''} (load average at start ${loadAverage()})\n`,
      );
      const r = await runStack(cfg, seconds, tree);
      console.log('| phase | resident memory (MB) / throughput |\n|-|-|');
      console.log(`| the stack's start (up() and a tenant) | ${r.start} |`);
      console.log(`| idle after start | ${r.idle} |`);
      console.log(`| /verify/math, 8 clients, ${seconds} s | ${r.math} |`);
      console.log(`| /verify/logic, 8 clients, ${seconds} s | ${r.logic} |`);
      console.log(
        `| mixed load, 8 clients, ${MIXED_REQUESTS ? `${MIXED_REQUESTS} requests` : `${seconds * 2} s`} | ${r.mixed} |`,
      );
      console.log(`| mixed load, p95 ms per kind | ${r.mixedP95} |`);
      console.log(`| right after the load | ${r.afterLoad} |`);
      console.log(`| after PGlite's idle release | ${r.released} |`);
      console.log(`(load average at the end: ${r.load})`);
      console.log(`\nWhat each process's memory is (MB, main process without its children):`);
      console.log(`- idle: ${r.idleClasses}`);
      console.log(`- /verify/math peak: ${r.mathClasses}`);
      console.log(`- /verify/logic peak: ${r.logicClasses}`);
      console.log(`- mixed load peak: ${r.mixedClasses}`);
      if (ISOLATES) {
        console.log(`\nV8 isolates (MB committed; node's diagnostic report):`);
        console.log(`- idle: ${r.idleIsolates}`);
        console.log(`- two thirds into the mixed load: ${r.mixedIsolates}`);
      }
    }
    // The reports' folder goes with the run.
    if (ISOLATES) rmSync(REPORT_DIR, { recursive: true, force: true });
  }
}
