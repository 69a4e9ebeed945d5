// The store's WAL under continuous load (issue 22, session 17; infra/ferret-checkpointer.ts,
// docs/performance.md "Session 17: the WAL under continuous load"). Starts two FerretDB 1.24
// stores (the project's binary, the stack's pragmas, scratch folders under the OS's temp folder),
// each with the stack's checkpointer thread: A as session 16 left it (PASSIVE checkpoints only),
// B bounded (a TRUNCATE checkpoint past --limit MiB or when quiet). Both get the same continuous
// batch-item load at the same time (so the machine's load hits both alike), then a quiet spell.
// Prints: the WAL's size over time, FerretDB's CPU per item plus the checkpointer thread's
// (/proc counts, which the load does not inflate), items/s, and the latency of a point read and a
// point insert sent every --probe-ms: overall, and for B those that overlapped a TRUNCATE
// checkpoint (which holds the writer lock while it runs).
//   npx tsx bench/store-wal.ts [--seconds 60] [--lanes 8] [--limit 16] [--seed 0] [--probe-ms 20] [--port 30760]
//        [--busy-ms 10] [--a passive|bounded] [--a-tries 1] [--a-limit MiB] [--b-tries 1] [--b-passive]   (--help)
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient, type Db } from 'mongodb';
import { FerretCheckpointer } from '../infra/ferret-checkpointer.js';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import { procCpuMs, spawnStandaloneFerret } from './standalone-ferret.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/store-wal.ts [--seconds 60] [--lanes 8] [--limit 16 (MiB)] [--seed 0 (documents per growing collection)] [--probe-ms 20] [--quiet 4 (s)] [--busy-ms 10] [--a passive|bounded] [--a-tries 1] [--a-limit MiB] [--b-tries 1] [--b-passive] [--port 30760]',
  );
  process.exit(0);
}
const SECONDS = Number(arg('seconds', '60'));
const LANES = Number(arg('lanes', '8'));
const LIMIT = Number(arg('limit', '16')) * 2 ** 20;
const SEED = Number(arg('seed', '0'));
const PROBE_MS = Number(arg('probe-ms', '20'));
const QUIET_S = Number(arg('quiet', '4'));
const PORT = Number(arg('port', '30760'));
/** --b-passive: B keeps the new pragmas (journal_size_limit) but only PASSIVE checkpoints (what SQLite's own restarts bound). */
const B_PASSIVE = args.includes('--b-passive');
/** --a bounded: A runs the bounded checkpointer too (with --a-tries), to compare two settings of it. */
const A_BOUNDED = arg('a', 'passive') === 'bounded';
const A_TRIES = Number(arg('a-tries', '1'));
/** --a-limit MiB: A's WAL limit when it is bounded (default --limit). */
const A_LIMIT = Number(arg('a-limit', '0')) * 2 ** 20 || LIMIT;
const B_TRIES = Number(arg('b-tries', '1'));
const BUSY = args.includes('--busy-ms') ? Number(arg('busy-ms', '10')) : undefined;
const WORK = path.join(os.tmpdir(), `svc-store-wal-${process.pid}`);
const GROWING = ['proofs', 'attestation_records', 'audit_logs', 'audit_seq'];
const BOUNDED = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number) => randomBytes(n).toString('hex');

interface Store {
  name: string;
  dir: string;
  proc: ChildProcess;
  mc: MongoClient;
  db: Db;
  ckpt: FerretCheckpointer;
  items: number;
  wal: number[];
  reads: Array<[number, number]>; // [start epoch ms, ms]
  writes: Array<[number, number]>;
}

async function start(name: string, port: number, bound: boolean, tries: number): Promise<Store> {
  const dir = path.join(WORK, name);
  // A: session 16's pragmas; B: the stack's now (journal_size_limit added).
  const proc = spawnStandaloneFerret(
    dir,
    port,
    bound ? ferretPragmas('normal') : ['synchronous(normal)', 'wal_autocheckpoint(100000)'],
  );
  let mc: MongoClient | null = null;
  for (let i = 0; !mc; i++) {
    try {
      const c = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, { maxPoolSize: LANES + 4 });
      await c.connect();
      mc = c;
    } catch (err) {
      if (i > 40) throw err;
      await sleep(250);
    }
  }
  const db = mc.db();
  await db
    .collection('batch_slots')
    .insertMany(Array.from({ length: BOUNDED }, (_, i) => ({ _id: `s${i}`, gen: 1 })) as never[]);
  await db
    .collection('batch_results')
    .insertMany(Array.from({ length: BOUNDED }, (_, i) => ({ _id: `r${i}`, items: [] })) as never[]);
  for (const coll of GROWING) {
    await db.collection(coll).insertOne(doc(coll, 0) as never);
    for (let i = 1; i < SEED; i += 1000)
      await db
        .collection(coll)
        .insertMany(Array.from({ length: Math.min(1000, SEED - i) }, (_, k) => doc(coll, i + k)) as never[]);
  }
  // As the stack does: FerretDB's `_id` lookups indexed; the seed's WAL copied and emptied first.
  keepOneFerretIdIndex(`${dir}/db/svc.sqlite`);
  const seeded = new Database(`${dir}/db/svc.sqlite`, { timeout: 5000 });
  seeded.pragma('wal_checkpoint(TRUNCATE)');
  seeded.close();
  const ckpt = new FerretCheckpointer(`${dir}/db`, {
    walLimitBytes: name.startsWith('A') ? A_LIMIT : LIMIT,
    bound: bound && !(B_PASSIVE && name.startsWith('B')),
    truncateBusyMs: BUSY,
    truncateTries: tries,
  });
  return { name, dir, proc, mc, db, ckpt, items: 0, wal: [], reads: [], writes: [] };
}

/** A document like the service's growing collections hold (~1 KB, a random key). */
function doc(coll: string, k: number): Record<string, unknown> {
  if (coll === 'audit_seq') return { _id: `org_${k % 20}:${k}:${hex(4)}`, log_id: hex(16), at: new Date() };
  return { _id: `${coll.slice(0, 3)}_${hex(16)}`, org_id: `org_${k % 20}`, created_at: new Date(), body: hex(450) };
}

/** One batch item's commands: a point read of a bounded collection, four inserts, a replacement by `_id`. */
async function item(s: Store, k: number): Promise<void> {
  await s.db.collection('batch_slots').findOne({ _id: `s${k % BOUNDED}` } as never);
  for (const coll of GROWING) await s.db.collection(coll).insertOne(doc(coll, k) as never);
  await s.db
    .collection('batch_results')
    .replaceOne({ _id: `r${k % BOUNDED}` } as never, { items: [{ index: k, view: hex(150) }] });
  s.items++;
}

const walBytes = (s: Store) => {
  const f = `${s.dir}/db/svc.sqlite-wal`;
  return existsSync(f) ? statSync(f).size : 0;
};
const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

void (async () => {
  rmSync(WORK, { recursive: true, force: true });
  const stores = [
    await start(A_BOUNDED ? `A-bounded-${A_TRIES}-tries-${mib(A_LIMIT)}MiB` : 'A-passive', PORT, A_BOUNDED, A_TRIES),
    await start(`B-bounded-${B_TRIES}-tries-${mib(LIMIT)}MiB`, PORT + 1, true, B_TRIES),
  ];
  for (const s of stores) s.ckpt.start();
  const cpu0 = stores.map((s) => procCpuMs(s.proc.pid!));
  const ck0 = stores.map((s) => s.ckpt.cpuMs);
  const t0 = Date.now();
  const end = t0 + SECONDS * 1000;
  let k = 1_000_000;
  const sampler = setInterval(() => {
    for (const s of stores) s.wal.push(walBytes(s));
  }, 250);
  const load = stores.flatMap((s) =>
    Array.from({ length: LANES }, async () => {
      while (Date.now() < end) await item(s, k++);
    }),
  );
  // The probes: a point read of a growing collection's document and a point insert, every PROBE_MS.
  const probes = stores.map(async (s) => {
    const known = `pro_probe_${s.name}`;
    await s.db.collection('proofs').insertOne({ _id: known, body: hex(450) } as never);
    while (Date.now() < end) {
      let at = Date.now();
      let t = performance.now();
      await s.db.collection('proofs').findOne({ _id: known } as never);
      s.reads.push([at, performance.now() - t]);
      at = Date.now();
      t = performance.now();
      await s.db.collection('proofs').insertOne(doc('proofs', 0) as never);
      s.writes.push([at, performance.now() - t]);
      await sleep(PROBE_MS);
    }
  });
  await Promise.all([...load, ...probes]);
  const loadMs = Date.now() - t0;
  const cpu = stores.map((s, i) => procCpuMs(s.proc.pid!) - cpu0[i]!);
  const ck = stores.map((s, i) => s.ckpt.cpuMs - ck0[i]!);
  const walAtEnd = stores.map(walBytes);
  await sleep(QUIET_S * 1000);
  clearInterval(sampler);
  const walQuiet = stores.map(walBytes);

  console.log(
    `\n# store-wal: ${SECONDS} s of continuous load, ${LANES} lanes per store, both at once; limit ${mib(LIMIT)} MiB; seed ${SEED}/collection; load avg ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(`\nWAL MiB over time (max in each 5 s window): t | ${stores.map((s) => s.name).join(' | ')}`);
  const per = 20; // samples per 5 s
  for (let i = 0; i * per < stores[0]!.wal.length; i++)
    console.log(
      `${(i + 1) * 5}s | ${stores.map((s) => mib(Math.max(...s.wal.slice(i * per, (i + 1) * per)))).join(' | ')}`,
    );
  console.log(
    '\nstore | items | items/s | store cpu ms/item (FerretDB + checkpointer) | checkpointer ms/item | WAL max MiB | WAL at end | after quiet | truncations',
  );
  stores.forEach((s, i) =>
    console.log(
      `${s.name} | ${s.items} | ${((s.items * 1000) / loadMs).toFixed(0)} | ${((cpu[i]! + ck[i]!) / s.items).toFixed(3)} | ${(ck[i]! / s.items).toFixed(3)} | ${mib(Math.max(...s.wal))} | ${mib(walAtEnd[i]!)} | ${mib(walQuiet[i]!)} | ${s.ckpt.truncations}`,
    ),
  );
  const line = (name: string, xs: Array<[number, number]>) => {
    const v = xs.map((x) => x[1]);
    return `${name} | ${v.length} | ${pct(v, 50).toFixed(2)} | ${pct(v, 95).toFixed(2)} | ${pct(v, 99).toFixed(2)} | ${Math.max(...v).toFixed(1)}`;
  };
  console.log('\nprobe (ms) | n | p50 | p95 | p99 | max');
  for (const s of stores) {
    console.log(line(`${s.name} point read`, s.reads));
    console.log(line(`${s.name} point insert`, s.writes));
  }
  for (const s of stores) {
    const spans = s.ckpt.reports.flatMap((r) => r.spans);
    if (!spans.length) continue;
    const overlaps = ([at, ms]: [number, number]) => spans.some(([s0, d]) => at <= s0 + d && at + ms >= s0);
    console.log(line(`${s.name} during a TRUNCATE: point read`, s.reads.filter(overlaps)));
    console.log(line(`${s.name} during a TRUNCATE: point insert`, s.writes.filter(overlaps)));
    const d = spans.map((x) => x[1]);
    const sum = (f: (r: (typeof s.ckpt.reports)[number]) => number) => s.ckpt.reports.reduce((a, r) => a + f(r), 0);
    console.log(
      `${s.name}: TRUNCATE tries ${d.length}, done ${s.ckpt.truncations}; changed nothing: ${sum((r) => r.busyCopy)} with frames left uncopied, ${sum((r) => r.busyReaders)} with a reader still on the WAL; ms each p50 ${pct(d, 50).toFixed(1)} p95 ${pct(d, 95).toFixed(1)} max ${Math.max(...d).toFixed(1)}; ms per minute ${((d.reduce((a, x) => a + x, 0) * 60_000) / loadMs).toFixed(0)}`,
    );
  }
  for (const s of stores) {
    await s.ckpt.stop();
    await s.mc.close();
    s.proc.kill('SIGTERM');
  }
  await sleep(500);
  rmSync(WORK, { recursive: true, force: true });
})();
