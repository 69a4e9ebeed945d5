// A/B of what the store reads per audit page and per export of math entries between two source
// trees (session 24, review finding A2: since §18 a math entry carries its proof artifact, so
// every page of `/audit/logs` and every `/audit/export` reads larger entries; docs/store-access.md
// §18 "What a page reads"). Both stacks run at once on their own ports; each side writes the same
// `--entries` proven `/verify/math` verifications (distinct identities, `--terms` long), then, in
// interleaved ABBA rounds, reads its whole chain by pages of `/audit/logs?limit=100` and once by
// `/audit/export`. Per read each side is charged what its FerretDB read (/proc/<pid>/io rchar:
// SQLite's page reads (pread; the stack sets no mmap_size) and the requests) and wrote (wchar: the
// answers, i.e. the documents sent to the API), and its store CPU (/proc, process group). The
// entries' BSON size is read from the store once per side.
//   npx tsx bench/audit-read-ab.ts --a <tree> --b <tree> [--entries 1000] [--terms 1] [--rounds 4]
//        (ports: SVC_BENCH_PORT_OFFSET for A, +25 for B; default 550)
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { BSON, MongoClient } from 'mongodb';
import { benchPortOffset, PORT_OFFSETS } from '../infra/ports.js';
import { groupCpuMs } from './proc-sample.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/audit-read-ab.ts --a <tree> --b <tree> [--entries 1000] [--terms 1] [--rounds 4] [--clients 8]\n' +
      '  --terms: sums of that many squared binomials per identity (longer expressions, larger artifacts)\n' +
      '  (ports: SVC_BENCH_PORT_OFFSET for A, +25 for B; default 550; a tree is a checkout with node_modules)',
  );
  process.exit(0);
}
const TREES = { A: path.resolve(arg('a', '.')), B: path.resolve(arg('b', '.')) };
const ENTRIES = Number(arg('entries', '1000'));
const TERMS = Number(arg('terms', '1'));
const ROUNDS = Number(arg('rounds', '4'));
const CLIENTS = Number(arg('clients', '8'));
const PAGE = 100;
const OFFSET = benchPortOffset(undefined, 550);
const B_SHIFT = 25;
if (OFFSET + B_SHIFT >= PORT_OFFSETS)
  throw new Error(`SVC_BENCH_PORT_OFFSET must be at most ${PORT_OFFSETS - 1 - B_SHIFT} here (got ${OFFSET})`);

interface Side {
  name: 'A' | 'B';
  base: string;
  key: string;
  token: string;
  orgId: string;
  uri: string;
  store: number;
  down: () => Promise<void>;
  /** Per read: [kind, KiB read, KiB written, store CPU ms], per page / per export. */
  reads: Array<{ kind: 'page' | 'export'; readKiB: number; wroteKiB: number; storeMs: number }>;
}

async function startSide(name: 'A' | 'B', tree: string, offset: number): Promise<Side> {
  const bench = (await import(path.join(tree, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
  const infra = (await import(path.join(tree, 'infra', 'stack.ts'))) as typeof import('../infra/stack.js');
  const b = await bench.startBenchStack(`bench-read-${name}-${offset}`, offset, {}, { ports: infra.testPorts(offset) });
  const store = Number(readFileSync(path.join(b.stack.dataDir, 'pids', 'ferretdb.pid'), 'utf8'));
  return {
    name,
    base: b.base,
    key: b.key,
    token: b.token,
    orgId: b.orgId,
    uri: b.stack.mongodbUri,
    store,
    down: () => b.stack.down(),
    reads: [],
  };
}

/** The k-th identity: a sum of TERMS squared binomials, expanded (the same sequence on both sides). */
const identity = (k: number) => {
  const terms = Array.from({ length: TERMS }, (_, t) => k * TERMS + t + 1000);
  const lhs = terms.map((c) => `(x+${c})^2`).join(' + ');
  const rhs = `${TERMS}*x^2 + ${2 * terms.reduce((a, c) => a + c, 0)}*x + ${terms.reduce((a, c) => a + c * c, 0)}`;
  return `${lhs} = ${rhs}`;
};

async function fill(side: Side): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < ENTRIES) {
        const k = next++;
        const res = await fetch(`${side.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': side.key },
          body: JSON.stringify({ expression: identity(k) }),
        });
        if (res.status === 200 && (await res.text()).includes('"VERIFIED"')) ok++;
      }
    }),
  );
  return ok;
}

const io = (pid: number) => {
  const t = readFileSync(`/proc/${pid}/io`, 'utf8');
  return { r: Number(/rchar:\s+(\d+)/.exec(t)?.[1]), w: Number(/wchar:\s+(\d+)/.exec(t)?.[1]) };
};

async function charged(side: Side, kind: 'page' | 'export', run: () => Promise<void>) {
  const c0 = groupCpuMs(side.store);
  const i0 = io(side.store);
  await run();
  const i1 = io(side.store);
  side.reads.push({
    kind,
    readKiB: (i1.r - i0.r) / 1024,
    wroteKiB: (i1.w - i0.w) / 1024,
    storeMs: groupCpuMs(side.store) - c0,
  });
}

async function get(side: Side, url: string): Promise<string> {
  const res = await fetch(`${side.base}${url}`, { headers: { authorization: `Bearer ${side.token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${side.name} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/** The whole chain by pages of 100, each page charged alone. */
async function pages(side: Side): Promise<void> {
  let cursor: string | null = null;
  do {
    let body: { next_cursor: string | null; count: number } = { next_cursor: null, count: 0 };
    await charged(side, 'page', async () => {
      body = JSON.parse(
        await get(side, `/audit/logs?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`),
      ) as typeof body;
    });
    cursor = body.next_cursor;
  } while (cursor);
}

/** Mean BSON size of the side's math entries, and of the artifact part. */
async function entrySizes(side: Side): Promise<{ n: number; entry: number; artifact: number }> {
  const mc = new MongoClient(side.uri);
  await mc.connect();
  try {
    const docs = await mc.db().collection('audit_logs').find({ organization_id: side.orgId }).toArray();
    let entry = 0;
    let artifact = 0;
    for (const d of docs) {
      entry += BSON.calculateObjectSize(d);
      const a = (d as { attestation?: { artifact?: object } }).attestation?.artifact;
      if (a) artifact += BSON.calculateObjectSize({ artifact: a });
    }
    return { n: docs.length, entry: entry / Math.max(1, docs.length), artifact: artifact / Math.max(1, docs.length) };
  } finally {
    await mc.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const load0 = loadavg();
  const sides: Side[] = [];
  try {
    sides.push(await startSide('A', TREES.A, OFFSET));
    sides.push(await startSide('B', TREES.B, OFFSET + B_SHIFT));
    for (const s of sides) {
      const ok = await fill(s);
      if (ok !== ENTRIES) throw new Error(`${s.name}: ${ok} of ${ENTRIES} verifications VERIFIED`);
    }
    // Let the coalescers, roll-ups and group commits settle; then a warm-up read per side (not counted).
    await new Promise((r) => setTimeout(r, 5000));
    for (const s of sides) {
      await pages(s);
      await get(s, '/audit/export');
      s.reads.length = 0;
    }
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        await pages(s);
        await charged(s, 'export', async () => void (await get(s, '/audit/export')));
      }
    }
    const load1 = loadavg();
    const sizes = await Promise.all(sides.map(entrySizes));
    console.log(
      `A = ${TREES.A}\nB = ${TREES.B}\n${ENTRIES} math entries per side (${TERMS} term(s) per identity, e.g. ${JSON.stringify(identity(0))}); ${ROUNDS} rounds (ABBA) of the whole chain by pages of ${PAGE} and one export; load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, after ${load1.map((l) => l.toFixed(1)).join(' ')}`,
    );
    const rows: Record<string, Record<string, number>> = {};
    sides.forEach((s, i) => {
      const sz = sizes[i]!;
      rows[`${s.name} entry`] = {
        n: sz.n,
        'mean BSON bytes': Math.round(sz.entry),
        'of it the artifact': Math.round(sz.artifact),
      };
      for (const kind of ['page', 'export'] as const) {
        const rs = s.reads.filter((r) => r.kind === kind);
        rows[`${s.name} per ${kind}`] = {
          n: rs.length,
          'KiB read (median)': +median(rs.map((r) => r.readKiB)).toFixed(1),
          'KiB written (median)': +median(rs.map((r) => r.wroteKiB)).toFixed(1),
          'store CPU ms (median)': +median(rs.map((r) => r.storeMs)).toFixed(1),
        };
      }
    });
    console.table(rows);
    const [a, b] = sides as [Side, Side];
    for (const kind of ['page', 'export'] as const) {
      const as = a.reads.filter((r) => r.kind === kind);
      const bs = b.reads.filter((r) => r.kind === kind);
      const ratio = (f: 'readKiB' | 'wroteKiB' | 'storeMs') => as.map((x, i) => bs[i]![f] / x[f]);
      const fmt = (xs: number[]) =>
        `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`;
      console.log(
        `${kind}: B/A paired, median (range): KiB read ${fmt(ratio('readKiB'))}; KiB written ${fmt(ratio('wroteKiB'))}; store CPU ${fmt(ratio('storeMs'))}`,
      );
    }
  } finally {
    for (const s of sides) await s.down().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
