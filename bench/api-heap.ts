// What the API's main isolate holds before and after a /verify/math load (issue 22, memory;
// session 16): a private stack whose API process writes a V8 heap snapshot on SIGUSR2
// (`--heapsnapshot-signal`, `--diagnostic-dir`), one idle and one right after `--seconds` of
// /verify/math at `--clients` clients. A snapshot is taken after a full collection, so it shows
// what is retained; the API's RSS and its V8 pages (smaps) are printed beside it, so growth that
// is not retained (garbage V8 has not collected yet, or pages it keeps committed) tells itself
// apart. Prints the totals and the constructors that grew most.
//
//   SVC_BENCH_PORT_OFFSET=350 npx tsx bench/api-heap.ts [--seconds 20] [--clients 8] [--flags '<V8 flags>'] [--keep]
// (the API runs with infra/stack.ts API_V8_FLAGS, then --flags: a later V8 flag wins, e.g. `--heap-growing-percent=0`)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBenchStack } from './bench-stack.js';
import { API_V8_FLAGS } from '../infra/stack.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
};
const seconds = Number(arg('seconds', '20'));
const clients = Number(arg('clients', '8'));
const extraFlags = arg('flags', '');
const mb = (b: number) => (b / 1e6).toFixed(1);

/** Self size per (node type, name) of a .heapsnapshot, and the total. */
function summarize(file: string): {
  total: number;
  count: number;
  by: Map<string, { size: number; n: number }>;
  strings: Array<{ size: number; head: string; retainers: string }>;
} {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: {
      meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
    };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const stride = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const by = new Map<string, { size: number; n: number }>();
  let total = 0;
  let count = 0;
  const strings: Array<{ size: number; head: string; retainers: string; node: number }> = [];
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = types[snap.nodes[i + iType]!]!;
    const size = snap.nodes[i + iSize]!;
    // Strings and code by type only (their names are their contents); objects by constructor.
    const name =
      type === 'object' || type === 'closure' || type === 'native' ? snap.strings[snap.nodes[i + iName]!]! : '';
    const key = `${type}${name ? `:${name.slice(0, 60)}` : ''}`;
    const e = by.get(key) ?? { size: 0, n: 0 };
    e.size += size;
    e.n++;
    by.set(key, e);
    total += size;
    count++;
    if (type === 'string' && size > 200_000)
      strings.push({ size, head: snap.strings[snap.nodes[i + iName]!]!.slice(0, 80), retainers: '', node: i / stride });
  }
  strings.sort((x, y) => y.size - x.size);
  const top = strings.slice(0, 8);
  // Who holds the large strings: the nodes with an edge to them (edges are listed per node, in
  // node order, edge_count of them each), named by type and constructor, with the edge's name.
  const ef = snap.snapshot.meta.edge_fields;
  const es = ef.length;
  const eTo = ef.indexOf('to_node');
  const eName = ef.indexOf('name_or_index');
  const eType = ef.indexOf('type');
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const iEdges = fields.indexOf('edge_count');
  const wanted = new Map(top.map((t) => [t.node * stride, t]));
  let e = 0;
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const n = snap.nodes[i + iEdges]!;
    for (let k = 0; k < n; k++, e += es) {
      const t = wanted.get(snap.edges[e + eTo]!);
      if (!t || t.retainers.length > 300) continue;
      const et = edgeTypes[snap.edges[e + eType]!]!;
      const en =
        et === 'element' || et === 'hidden' ? String(snap.edges[e + eName]) : snap.strings[snap.edges[e + eName]!]!;
      t.retainers += `${types[snap.nodes[i + iType]!]}:${snap.strings[snap.nodes[i + iName]!]!.slice(0, 40)}.${en.slice(0, 30)}; `;
    }
  }
  return { total, count, by, strings: top };
}

function smapsV8(pid: number): string {
  let v8 = 0;
  let size = 0;
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      size = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 1024;
      name = m[3] ?? '';
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r && name === '' && size % 256 === 0) v8 += Number(r[1]);
  }
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return `RSS ${Math.round(rss / 1024)} MB, V8 pages ${Math.round(v8 / 1024)} MB`;
}

/**
 * With `--flags --trace-gc`: each isolate's collections during the load (V8 prints one line per
 * collection, `[pid:isolate] ... Scavenge|Mark-Compact used (committed) -> used (committed) MB`),
 * so the process's V8 pages can be told apart by isolate: the main thread, the engine threads and
 * the SDK's workflow thread.
 */
function traceGcSummary(logFile: string, from: number): void {
  const text = readFileSync(logFile).subarray(from).toString('utf8');
  const per = new Map<
    string,
    { scav: number; mc: number; maxCommitted: number; maxUsed: number; minAfterMc: number }
  >();
  const re =
    /\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact|Mark-sweep)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g;
  for (const m of text.matchAll(re)) {
    const e = per.get(m[1]!) ?? { scav: 0, mc: 0, maxCommitted: 0, maxUsed: 0, minAfterMc: Infinity };
    if (m[2] === 'Scavenge') e.scav++;
    else {
      e.mc++;
      e.minAfterMc = Math.min(e.minAfterMc, Number(m[5]));
    }
    e.maxUsed = Math.max(e.maxUsed, Number(m[3]));
    e.maxCommitted = Math.max(e.maxCommitted, Number(m[4]), Number(m[6]));
    per.set(m[1]!, e);
  }
  console.log('collections during the load, per isolate (V8 --trace-gc; MB):');
  for (const [iso, e] of [...per].sort((a, b) => b[1].maxCommitted - a[1].maxCommitted))
    console.log(
      `  ${iso}: ${e.scav} scavenges, ${e.mc} mark-compacts; max used ${e.maxUsed}, max committed ${e.maxCommitted}, least live after a mark-compact ${e.minAfterMc === Infinity ? '-' : e.minAfterMc}`,
    );
}

async function snapshot(dir: string, pid: number): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  // Written once complete: wait until a new file appears and its size stops changing.
  let last = -1;
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const f = readdirSync(dir).find((n) => !before.has(n) && n.endsWith('.heapsnapshot'));
    if (!f) continue;
    const size = readFileSync(path.join(dir, f)).length;
    if (size > 0 && size === last) return path.join(dir, f);
    last = size;
  }
  throw new Error('no heap snapshot written');
}

const dir = mkdtempSync(path.join(tmpdir(), 'api-heap-'));
const { stack, base, key } = await startBenchStack('bench-api-heap', 350, {
  // The stack's own API flags first (session 17: --heap-growing-percent=20), then the snapshot's and --flags.
  SVC_API_V8_FLAGS: `${API_V8_FLAGS} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir} ${extraFlags}`.trim(),
});
try {
  const pid = stack.api.pid!;
  const post = async () => {
    const res = await fetch(`${base}/verify/math`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  for (let i = 0; i < 20; i++) await post();
  await new Promise((r) => setTimeout(r, 3000));
  console.log(`idle (after 20 requests): ${smapsV8(pid)}`);
  const idleFile = await snapshot(dir, pid);
  console.log(`idle, after its snapshot (a full GC): ${smapsV8(pid)}`);
  const loadStartedAt = readFileSync(stack.api.logFile).length;
  const until = performance.now() + seconds * 1000;
  let ok = 0;
  let peak = '';
  let peakRss = 0;
  const timer = setInterval(() => {
    const s = smapsV8(pid);
    const rss = Number(/RSS (\d+)/.exec(s)?.[1]);
    if (rss > peakRss) [peakRss, peak] = [rss, s];
  }, 500);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) if ((await post()) === 200) ok++;
    }),
  );
  clearInterval(timer);
  console.log(`/verify/math ${clients} clients ${seconds} s: ${(ok / seconds).toFixed(1)} req/s; peak ${peak}`);
  console.log(`after the load: ${smapsV8(pid)}`);
  if (extraFlags.includes('--trace-gc')) traceGcSummary(stack.api.logFile, loadStartedAt);
  // A restarted in-process worker compiles the workflow bundle in the main isolate again (the SDK's
  // parseWorkflowCode): count the restarts the API logged.
  const restarts = readFileSync(stack.api.logFile, 'utf8').split('in-process worker unavailable').length - 1;
  console.log(`the API's log: ${restarts} × "in-process worker unavailable"`);
  const loadFile = await snapshot(dir, pid);
  console.log(`after its snapshot (a full GC): ${smapsV8(pid)}`);
  const a = summarize(idleFile);
  const b = summarize(loadFile);
  console.log(
    `retained, main isolate: idle ${mb(a.total)} MB (${a.count} objects), after the load ${mb(b.total)} MB (${b.count})`,
  );
  const rows = [...new Set([...a.by.keys(), ...b.by.keys()])]
    .map((k) => ({
      k,
      d: (b.by.get(k)?.size ?? 0) - (a.by.get(k)?.size ?? 0),
      n: (b.by.get(k)?.n ?? 0) - (a.by.get(k)?.n ?? 0),
    }))
    .sort((x, y) => Math.abs(y.d) - Math.abs(x.d))
    .slice(0, 25);
  for (const r of rows)
    console.log(`  ${r.d >= 0 ? '+' : ''}${(r.d / 1e3).toFixed(0)} kB  ${r.n >= 0 ? '+' : ''}${r.n}  ${r.k}`);
  console.log('what the idle main isolate retains, largest first (self sizes by type and constructor):');
  for (const [k, v] of [...a.by].sort((x, y) => y[1].size - x[1].size).slice(0, 20))
    console.log(`  ${(v.size / 1e6).toFixed(1)} MB  ${v.n}  ${k}`);
  for (const [when, x] of [
    ['idle', a],
    ['after the load', b],
  ] as const) {
    console.log(`the largest strings, ${when}:`);
    for (const t of x.strings)
      console.log(`  ${(t.size / 1e3).toFixed(0)} kB ${JSON.stringify(t.head.slice(0, 50))} held by ${t.retainers}`);
  }
} finally {
  await stack.down();
  // --keep: the snapshots stay (open them in a browser's memory tools to follow retainers).
  if (argv.includes('--keep')) console.log(`snapshots kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
