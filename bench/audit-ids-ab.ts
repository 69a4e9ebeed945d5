// A/B of what the store writes per verification and per batch item between two source trees
// (session 23: time-ordered audit entry ids, docs/store-access.md §17). Both stacks run at once
// on their own ports, each seeded alike (`--seed` audit entries and proofs with hash-like random
// `_id`s, as a store written before session 23 holds them, inserted straight into the store), then
// driven in interleaved ABBA slices: a /verify/math slice (distinct identities, so every
// verification retains a new proof) and a burst of 100-item math jobs. Per slice each side is
// charged what its FerretDB wrote (/proc/<pid>/io wchar: WAL frames, temporary files, answers;
// a count the load does not change) and the CPU its processes used (/proc, process groups).
//   npx tsx bench/audit-ids-ab.ts --a <tree> --b <tree> [--seed 50000] [--rounds 4] [--slice 6]
//        [--clients 8] [--jobs 4]   (ports: SVC_BENCH_PORT_OFFSET for A, +25 for B; default 550)
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { benchPortOffset, PORT_OFFSETS } from '../infra/ports.js';
import { groupCpuMs } from './proc-sample.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/audit-ids-ab.ts --a <tree> --b <tree> [--seed 50000] [--rounds 4] [--slice 6] [--clients 8] [--jobs 4]\n' +
      '  (ports: SVC_BENCH_PORT_OFFSET for A, +25 for B; default 550; a tree is a checkout with node_modules)',
  );
  process.exit(0);
}
const TREES = { A: path.resolve(arg('a', '.')), B: path.resolve(arg('b', '.')) };
const SEED = Number(arg('seed', '50000'));
const ROUNDS = Number(arg('rounds', '4'));
const SLICE_S = Number(arg('slice', '6'));
const CLIENTS = Number(arg('clients', '8'));
const JOBS = Number(arg('jobs', '4'));
const OFFSET = benchPortOffset(undefined, 550);
/** B's stack runs this far above A's; both must stay in the test/bench layout (infra/ports.ts PORT_OFFSETS). */
const B_SHIFT = 25;
if (OFFSET + B_SHIFT >= PORT_OFFSETS)
  throw new Error(
    `SVC_BENCH_PORT_OFFSET must be at most ${PORT_OFFSETS - 1 - B_SHIFT} here: B runs at +${B_SHIFT} (got ${OFFSET})`,
  );

interface Tally {
  n: number;
  failed: number;
  writtenKiB: number;
  storeMs: number;
  allMs: number;
}
const tally = (): Tally => ({ n: 0, failed: 0, writtenKiB: 0, storeMs: 0, allMs: 0 });

interface Side {
  name: 'A' | 'B';
  base: string;
  key: string;
  pids: Record<string, number>;
  down: () => Promise<void>;
  math: Tally;
  batch: Tally;
  /** Per slice, for the paired ratios: [math KiB/verification, math store ms, batch KiB/item, batch store ms]. */
  slices: Array<{ kind: 'math' | 'batch'; kib: number; store: number; all: number }>;
}

const hex = (n: number) => randomBytes(n).toString('hex');

/** `count` audit entries and proofs with random `_id`s (the shape a store written before session 23 holds). */
async function seed(uri: string, count: number): Promise<void> {
  const mc = new MongoClient(uri);
  await mc.connect();
  try {
    const db = mc.db();
    const at = new Date();
    for (let done = 0; done < count; done += 1000) {
      const n = Math.min(1000, count - done);
      const entries = Array.from({ length: n }, (_, i) => ({
        _id: `log_${hex(16)}`,
        organization_id: `org_seed_${(done + i) % 20}`,
        seq: Math.floor((done + i) / 20) + 1,
        user_id: `usr_${hex(8)}`,
        query: `(x+${done + i})^2 = x^2 + ${2 * (done + i)}*x + ${(done + i) ** 2}`,
        result: {
          status: 'VERIFIED',
          admission: null,
          proof_ref: `sha256:${hex(32)}`,
          attestation_id: `att_${hex(16)}`,
          key_id: `key_${hex(8)}`,
          workflow_id: `verify-math-org_seed-${hex(16)}`,
          request_digest: `sha256:${hex(32)}`,
        },
        verified: true,
        domain: 'math',
        timestamp: at,
        raw_llm_output: null,
        previous_hash: hex(32),
        entry_hash: hex(32),
        signature: hex(32),
      }));
      const proofs = entries.map((e) => ({
        _id: e.result.proof_ref,
        artifact: { expression: e.query, steps: ['expand', 'compare'], engine: 'math' },
        engine: 'math',
        org_id: e.organization_id,
        created_at: at,
      }));
      await db.collection<{ _id: string }>('audit_logs').insertMany(entries, { ordered: false });
      await db.collection<{ _id: string }>('proofs').insertMany(proofs, { ordered: false });
    }
  } finally {
    await mc.close();
  }
}

async function startSide(name: 'A' | 'B', tree: string, offset: number): Promise<Side> {
  // Each tree's own supervisor and compiled service (dynamic import: the tree's ROOT is its own).
  const bench = (await import(path.join(tree, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
  const infra = (await import(path.join(tree, 'infra', 'stack.ts'))) as typeof import('../infra/stack.js');
  const b = await bench.startBenchStack(`bench-ids-${name}-${offset}`, offset, {}, { ports: infra.testPorts(offset) });
  const read = (n: string) => Number(readFileSync(path.join(b.stack.dataDir, 'pids', `${n}.pid`), 'utf8'));
  const pids = { api: read('api'), worker: read('worker'), temporal: read('temporal'), store: read('ferretdb') };
  const t0 = performance.now();
  await seed(b.stack.mongodbUri, SEED);
  console.log(`${name}: seeded ${SEED} entries and ${SEED} proofs in ${Math.round(performance.now() - t0)} ms`);
  return {
    name,
    base: b.base,
    key: b.key,
    pids,
    down: () => b.stack.down(),
    math: tally(),
    batch: tally(),
    slices: [],
  };
}

/** Bytes FerretDB's process has written (its own pid; SQLite runs inside it). */
const written = (pid: number) => Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);

/** Every verification a new identity (a new proof), the same sequence on both sides. */
const counters = { A: 0, B: 0 };
const identity = (side: 'A' | 'B') => {
  const k = ++counters[side] + 1000;
  return `(y+${k})^2 = y^2 + ${2 * k}*y + ${k * k}`;
};

async function mathSlice(side: Side): Promise<{ n: number; failed: number }> {
  let n = 0;
  let failed = 0;
  const end = performance.now() + SLICE_S * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const res = await fetch(`${side.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': side.key },
          body: JSON.stringify({ expression: identity(side.name) }),
        }).catch(() => null);
        const text = res ? await res.text() : '';
        if (res?.status === 200 && text.includes('"VERIFIED"')) n++;
        else failed++;
      }
    }),
  );
  return { n, failed };
}

async function batchSlice(side: Side): Promise<{ n: number; failed: number }> {
  const jobIds = await Promise.all(
    Array.from({ length: JOBS }, async () => {
      const items = Array.from({ length: 100 }, () => ({ query: identity(side.name), type: 'math' }));
      const res = await fetch(`${side.base}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': side.key },
        body: JSON.stringify({ items }),
      });
      const body = (await res.json()) as { job_id?: string; status?: string; completed_items?: number };
      return { id: body.job_id as string, done: body.status === 'completed' ? (body.completed_items ?? 0) : -1 };
    }),
  );
  let n = 0;
  let failed = 0;
  for (const j of jobIds) {
    let done = j.done;
    for (let i = 0; done < 0 && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`${side.base}/verify/batch/${j.id}`, { headers: { 'x-api-key': side.key } });
      const body = (await res.json()) as { status?: string; completed_items?: number };
      if (body.status === 'completed') done = body.completed_items ?? 0;
    }
    n += Math.max(0, done);
    failed += 100 - Math.max(0, done);
  }
  return { n, failed };
}

async function measure(side: Side, kind: 'math' | 'batch') {
  const cpu0 = Object.fromEntries(Object.entries(side.pids).map(([k, p]) => [k, groupCpuMs(p)]));
  const w0 = written(side.pids.store as number);
  const r = kind === 'math' ? await mathSlice(side) : await batchSlice(side);
  const kib = (written(side.pids.store as number) - w0) / 1024;
  let all = 0;
  for (const [k, p] of Object.entries(side.pids)) all += groupCpuMs(p) - (cpu0[k] as number);
  const store = groupCpuMs(side.pids.store) - (cpu0.store as number);
  const t = side[kind];
  t.n += r.n;
  t.failed += r.failed;
  t.writtenKiB += kib;
  t.storeMs += store;
  t.allMs += all;
  const per = Math.max(1, r.n + r.failed);
  side.slices.push({ kind, kib: kib / per, store: store / per, all: all / per });
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
    // Warm-up (not counted): each side's engine threads, caches and coalescers.
    for (const s of sides) {
      await mathSlice(s);
      await batchSlice(s);
    }
    for (let i = 0; i < ROUNDS; i++) {
      // A B, then B A: neither side always follows the other.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const kind of ['math', 'batch'] as const) for (const s of order) await measure(s, kind);
    }
    const load1 = loadavg();
    console.log(
      `A = ${TREES.A}\nB = ${TREES.B}\nseed ${SEED} entries + ${SEED} proofs per side; ${ROUNDS} rounds (ABBA) of a ${SLICE_S} s /verify/math slice at ${CLIENTS} clients and a burst of ${JOBS} 100-item math jobs; load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, after ${load1.map((l) => l.toFixed(1)).join(' ')}`,
    );
    const rows = Object.fromEntries(
      sides.flatMap((s) =>
        (['math', 'batch'] as const).map((kind) => {
          const t = s[kind];
          const per = Math.max(1, t.n + t.failed);
          return [
            `${s.name} ${kind === 'math' ? 'per verification' : 'per batch item'}`,
            {
              n: t.n,
              failed: t.failed,
              'KiB written by the store': +(t.writtenKiB / per).toFixed(2),
              'store CPU ms': +(t.storeMs / per).toFixed(3),
              'all processes CPU ms': +(t.allMs / per).toFixed(2),
            },
          ];
        }),
      ),
    );
    console.table(rows);
    // Paired per round: B's slice against A's of the same kind and round.
    const [a, b] = sides as [Side, Side];
    for (const kind of ['math', 'batch'] as const) {
      const as = a.slices.filter((x) => x.kind === kind);
      const bs = b.slices.filter((x) => x.kind === kind);
      const ratio = (f: 'kib' | 'store' | 'all') => as.map((x, i) => bs[i]![f] / x[f]);
      const fmt = (xs: number[]) => `${median(xs).toFixed(2)} (${xs.map((x) => x.toFixed(2)).join(' ')})`;
      console.log(
        `${kind}: B/A paired per round, median (each): KiB written ${fmt(ratio('kib'))}; store CPU ${fmt(ratio('store'))}; all processes ${fmt(ratio('all'))}`,
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
