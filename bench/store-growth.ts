// Why does every store command cost more on a seeded store? (issue 22, session 16, helper J.)
// Starts FerretDB 1.24 (the project's binary) on an EMPTY and on a SEEDED copy of one store file,
// per SQLite setting, all at once, and sends each the same batch-item workload in alternating
// rounds (interleaved A/B; the machine's load hits every store alike). Per item, as a batch unit
// does: a point read of a bounded collection, inserts into four growing collections (random keys,
// as proofs, attestation records and audit entries have) and a replacement by `_id` in a bounded
// one. Prints, per store: FerretDB's CPU per item split into user and system time
// (/proc/<pid>/stat: counts the load does not inflate), wall time, the WAL's size, and, with
// --syscalls, the fsync / pwrite / pread counts per item (perf's syscall tracepoints; counts
// only, a separate pass so the tracing does not touch the CPU figures).
//   npx tsx bench/store-growth.ts [--docs 40000] [--items 600] [--rounds 3] [--lanes 8]
//        [--bulk 1] [--sets normal,ckpt10k,...] [--syscalls] [--pprof <dir> [--pprof-seconds 15]] [--keep] [--port 30660]
// --docs per growing collection (4 of them; ~1 KB each: --docs 40000 makes a ~250 MB file).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import Database from 'better-sqlite3';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { addLegacyLookupIndex, spawnStandaloneFerret, swapToOneIdIndex } from './standalone-ferret.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const DOCS = Number(arg('docs', '40000'));
const ITEMS = Number(arg('items', '600'));
const ROUNDS = Number(arg('rounds', '3'));
const LANES = Number(arg('lanes', '8'));
const PORT = Number(arg('port', '30660'));
const SYSCALLS = args.includes('--syscalls');
const PPROF = arg('pprof', '');
const KEEP = args.includes('--keep');
/** --keys: only the key-type probe (a point read and a $set by `_id`, numeric against string keys, small against large tables). */
const KEYS_ONLY = args.includes('--keys');
/** --bulk n: each item inserts n documents per growing collection in one insertMany (a group commit's shape). */
const BULK = Number(arg('bulk', '1'));
const PPROF_SECONDS = Number(arg('pprof-seconds', '15'));

/** SQLite settings compared (each a list of `_pragma` values added to FerretDB's own). */
const SETS: Record<string, string[]> = {
  normal: ['synchronous(normal)'], // the stack before session 16
  ckpt10k: ['synchronous(normal)', 'wal_autocheckpoint(10000)'],
  mmap: ['synchronous(normal)', 'mmap_size(1073741824)'],
  nockpt: ['synchronous(normal)', 'wal_autocheckpoint(0)'],
  // The stack since session 16 (infra/ferret-sqlite.ts: a backstop wal_autocheckpoint); this process
  // checkpoints the file every second from its own connection (as infra/ferret-checkpointer.ts) and
  // its CPU for that is added to the store's.
  bgckpt: ferretPragmas('normal'),
  // Session 20 (docs/store-access.md "Session 20"): the same again (an A/A control for the noise
  // between two stores), and the stack's settings with a larger page cache or a memory map.
  bgsame: ferretPragmas('normal'),
  bgcache64m: [...ferretPragmas('normal'), 'cache_size(-65536)'],
  bgmmap256m: [...ferretPragmas('normal'), 'mmap_size(268435456)'],
  // Not a pragma: one `_id` index per table, the stack since session 21 (infra/ferret-id-index.ts).
  bgoneidx: ferretPragmas('normal'),
  // Session 22 (docs/store-access.md §15): the stack's layout, but each new document's key sorts
  // after every key already stored (a time-ordered prefix), so a group of inserts lands on the
  // right edge of the `_id` index instead of one random leaf per document.
  bgordered: ferretPragmas('normal'),
  // Session 22: the stack's layout again (an A/A control).
  bgaa: ferretPragmas('normal'),
  // `temp_store(memory)` is the stack's since session 22 (infra/ferret-sqlite.ts): `bgtempfile` is
  // the stack's layout and pragmas without it (session 21's), `bgtempmem` the stack's.
  bgtempfile: ferretPragmas('normal').filter((p) => !p.startsWith('temp_store')),
  bgtempmem: ferretPragmas('normal'),
  full: [],
};
const SET_NAMES = arg('sets', 'normal,ckpt10k').split(',');

const GROWING = ['proofs', 'attestation_records', 'audit_logs', 'audit_seq'];
const BOUNDED_SLOTS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORK = path.join(os.tmpdir(), `svc-store-growth-${process.pid}`);

/** Bytes the process passed to write syscalls (/proc/<pid>/io wchar: the WAL's frames, and the answers on its sockets). */
function writtenBytes(pid: number): number {
  return Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
}

function cpu(pid: number): { user: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const tick = 1000 / 100;
  return { user: Number(f[11]) * tick, sys: Number(f[12]) * tick };
}

async function connect(port: number): Promise<MongoClient> {
  for (let i = 0; ; i++) {
    try {
      const mc = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, {
        maxPoolSize: 16,
        serverSelectionTimeoutMS: 2000,
      });
      await mc.connect();
      return mc;
    } catch (err) {
      if (i > 30) throw err;
      await sleep(500);
    }
  }
}

const hex = (n: number) => randomBytes(n).toString('hex');
const body = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);

/** A document like the service's growing collections hold (~1 KB, a random key; `ordered`: a key after every stored one). */
function growingDoc(coll: string, k: number, ordered = false): Record<string, unknown> {
  if (coll === 'audit_seq') return { _id: `org_${k % 20}:${k}`, log_id: hex(16), at: new Date() };
  const key = ordered ? `~${Date.now().toString(36)}${String(k).padStart(10, '0')}${hex(4)}` : hex(16);
  return { _id: `${coll.slice(0, 3)}_${key}`, org_id: `org_${k % 20}`, created_at: new Date(), body: body(900) };
}

/** Builds the two templates once: the same collections, one empty (only the bounded ones filled), one seeded. */
async function buildTemplate(name: string, docs: number): Promise<string> {
  const dir = path.join(WORK, `template-${name}`);
  mkdirSync(`${dir}/db`, { recursive: true });
  mkdirSync(`${dir}/st`, { recursive: true });
  const p = spawnStandaloneFerret(dir, PORT + 99, SETS.normal!);
  const mc = await connect(PORT + 99);
  const db = mc.db();
  await db
    .collection('batch_slots')
    .insertMany(
      Array.from({ length: BOUNDED_SLOTS }, (_, i) => ({ _id: String(i), gen: 1, state: 'free' })) as never[],
    );
  await db
    .collection('batch_results')
    .insertMany(Array.from({ length: BOUNDED_SLOTS }, (_, i) => ({ _id: `r${i}`, items: [] })) as never[]);
  const t0 = performance.now();
  for (const coll of GROWING) {
    await db.collection(coll).insertOne(growingDoc(coll, 0) as never);
    for (let i = 1; i < docs; i += 1000) {
      const n = Math.min(1000, docs - i);
      await db.collection(coll).insertMany(Array.from({ length: n }, (_, k) => growingDoc(coll, i + k)) as never[]);
    }
  }
  await mc.close();
  p.kill('SIGTERM');
  await new Promise((r) => p.once('exit', r));
  const file = `${dir}/db/svc.sqlite`;
  // Sessions 16-20's sets were measured on this layout; `bgoneidx` converts it as the stack does now.
  addLegacyLookupIndex(file);
  const s = new Database(file);
  s.pragma('wal_checkpoint(TRUNCATE)');
  s.close();
  console.error(
    `template ${name}: ${docs} documents x ${GROWING.length}, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, built in ${Math.round((performance.now() - t0) / 1000)} s`,
  );
  return dir;
}

interface Target {
  name: string;
  dir: string;
  proc: ChildProcess;
  mc: MongoClient;
  db: Db;
  debugPort: number | null;
  cpu: { user: number; sys: number; wall: number; items: number; written: number }[];
  wal: number[];
  sys: Record<string, number>[];
  /** bgckpt: the checkpointing connection and the CPU ms it has spent. */
  ckpt?: { db: Database.Database; cpu: number; timer: NodeJS.Timeout };
}

function startCheckpointer(file: string): NonNullable<Target['ckpt']> {
  const db = new Database(file, { fileMustExist: true, timeout: 100 });
  const c: NonNullable<Target['ckpt']> = {
    db,
    cpu: 0,
    timer: setInterval(() => {
      const u0 = process.cpuUsage();
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // busy: the next tick tries again
      }
      const u = process.cpuUsage(u0);
      c.cpu += (u.user + u.system) / 1000;
    }, 1000),
  };
  return c;
}

let seq = 1_000_000;
/** One batch item's commands, as a batch unit sends them (sizes as the service's). */
async function item(db: Db, ordered = false): Promise<void> {
  const k = seq++;
  await db.collection('batch_slots').findOne({ _id: String(k % BOUNDED_SLOTS) } as never); // as the service stores it (session 17)
  for (const coll of GROWING)
    if (BULK === 1) await db.collection(coll).insertOne(growingDoc(coll, k, ordered) as never);
    else
      await db
        .collection(coll)
        .insertMany(Array.from({ length: BULK }, (_, i) => growingDoc(coll, k * BULK + i, ordered)) as never[]);
  await db
    .collection('batch_results')
    .replaceOne({ _id: `r${k % BOUNDED_SLOTS}` } as never, { items: [{ index: k, view: body(300) }] });
}

async function workload(t: Target, items: number): Promise<void> {
  let n = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (n < items) {
        n++;
        await item(t.db, t.name.startsWith('bgordered/'));
      }
    }),
  );
}

function walBytes(dir: string): number {
  const f = `${dir}/db/svc.sqlite-wal`;
  return existsSync(f) ? statSync(f).size : 0;
}

/** fsync / fdatasync / pwrite64 / pread64 calls of `pid` while `f` runs (perf's syscall tracepoints). */
async function countSyscalls(pid: number, f: () => Promise<void>): Promise<Record<string, number>> {
  const events = ['fsync', 'fdatasync', 'pwrite64', 'pread64', 'write', 'futex'];
  const out = path.join(WORK, `perf-${pid}.txt`);
  const perf = spawn(
    'perf',
    ['stat', '-x', ',', '-o', out, ...events.flatMap((e) => ['-e', `syscalls:sys_enter_${e}`]), '-p', String(pid)],
    { stdio: 'ignore' },
  );
  await sleep(300);
  await f();
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
  const counts: Record<string, number> = {};
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const m = /^(\d+),,syscalls:sys_enter_(\w+)/.exec(line);
    if (m) counts[m[2]!] = Number(m[1]);
  }
  return counts;
}

/**
 * FerretDB 1.24's SQLite backend answers by key only a filter `{_id: <string or ObjectId>}`
 * (internal/backends/sqlite/collection.go: `case string, types.ObjectID`); `{_id: <number>}` reads
 * and decodes the whole table in Go. Measures FerretDB's CPU per point read and per `$set` by `_id`
 * for numeric and string keys on tables of 50 and 1,100 documents (batch_slots' shape and sizes:
 * the bench's own slots, and the full data-scale seed's 1,000 jobs).
 */
async function keyProbe(): Promise<void> {
  const dir = path.join(WORK, 'keys');
  mkdirSync(`${dir}/db`, { recursive: true });
  mkdirSync(`${dir}/st`, { recursive: true });
  const port = PORT + 98;
  const p = spawnStandaloneFerret(dir, port, SETS.normal!);
  const mc = await connect(port);
  const db = mc.db();
  const slot = (id: number | string) => ({
    _id: id,
    gen: 3,
    state: 'finished',
    job_id: `job_${hex(12)}`,
    claimed_at: new Date(),
    finished_at: new Date(),
    units: 12,
  });
  const rows: string[] = [];
  try {
    for (const size of [50, 1100])
      for (const kind of ['number', 'string'] as const) {
        const name = `slots_${kind}_${size}`;
        const key = (i: number) => (kind === 'number' ? i : `s${i}`);
        await db.collection(name).insertMany(Array.from({ length: size }, (_, i) => slot(key(i))) as never[]);
        keepOneFerretIdIndex(`${dir}/db/svc.sqlite`);
        const N = 300;
        for (const op of ['findOne', 'updateOne $set'] as const) {
          const c0 = cpu(p.pid!);
          const t0 = performance.now();
          let i = 0;
          await Promise.all(
            Array.from({ length: 4 }, async () => {
              while (i < N) {
                const id = key(i++ % size);
                if (op === 'findOne') await db.collection(name).findOne({ _id: id } as never);
                else await db.collection(name).updateOne({ _id: id } as never, { $set: { gen: i } });
              }
            }),
          );
          const c1 = cpu(p.pid!);
          rows.push(
            `${kind} _id | ${size} | ${op} | ${((c1.user + c1.sys - c0.user - c0.sys) / N).toFixed(3)} | ${((performance.now() - t0) / N).toFixed(2)}`,
          );
        }
      }
  } finally {
    await mc.close();
    p.kill('SIGTERM');
  }
  console.log(
    `key probe: FerretDB CPU per command by _id type and table size (4 lanes); load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log('key | documents | command | store cpu ms | wall ms');
  for (const r of rows) console.log(r);
}

async function main() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  if (KEYS_ONLY) {
    try {
      return await keyProbe();
    } finally {
      if (!KEEP) rmSync(WORK, { recursive: true, force: true });
    }
  }
  const templates = { empty: await buildTemplate('empty', 1), seeded: await buildTemplate('seeded', DOCS) };
  const targets: Target[] = [];
  let port = PORT;
  for (const set of SET_NAMES) {
    const pragmas = SETS[set];
    if (!pragmas) throw new Error(`unknown set ${set} (${Object.keys(SETS).join(', ')})`);
    for (const [base, tdir] of Object.entries(templates)) {
      const dir = path.join(WORK, `${set}-${base}`);
      mkdirSync(`${dir}/db`, { recursive: true });
      mkdirSync(`${dir}/st`, { recursive: true });
      for (const f of readdirSync(`${tdir}/db`)) copyFileSync(`${tdir}/db/${f}`, `${dir}/db/${f}`);
      if (['bgoneidx', 'bgordered', 'bgaa', 'bgtempfile', 'bgtempmem'].includes(set))
        swapToOneIdIndex(`${dir}/db/svc.sqlite`);
      const debugPort = PPROF ? port + 50 : null;
      const proc = spawnStandaloneFerret(dir, port, pragmas, debugPort);
      const mc = await connect(port);
      targets.push({
        name: `${set}/${base}`,
        dir,
        proc,
        mc,
        db: mc.db(),
        debugPort,
        cpu: [],
        wal: [],
        sys: [],
        ...(set.startsWith('bg') ? { ckpt: startCheckpointer(`${dir}/db/svc.sqlite`) } : {}),
      });
      port++;
    }
  }
  try {
    for (const t of targets) await workload(t, 100); // warm-up: connections, Go's heap
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const pid = t.proc.pid!;
        const k0 = t.ckpt?.cpu ?? 0;
        const c0 = cpu(pid);
        const b0 = writtenBytes(pid);
        const w0 = performance.now();
        await workload(t, ITEMS);
        const c1 = cpu(pid);
        const written = writtenBytes(pid) - b0;
        c1.sys += (t.ckpt?.cpu ?? 0) - k0; // the background checkpoint's CPU, counted as the store's
        t.cpu.push({
          user: c1.user - c0.user,
          sys: c1.sys - c0.sys,
          wall: performance.now() - w0,
          items: ITEMS,
          written,
        });
        t.wal.push(walBytes(t.dir));
        console.error(
          `[round ${r + 1}] ${t.name}: cpu/item ${((c1.user - c0.user + c1.sys - c0.sys) / ITEMS).toFixed(3)} ms (user ${((c1.user - c0.user) / ITEMS).toFixed(3)}, sys ${((c1.sys - c0.sys) / ITEMS).toFixed(3)}), wall/item ${((performance.now() - w0) / ITEMS).toFixed(2)} ms, WAL ${(walBytes(t.dir) / 2 ** 20).toFixed(1)} MiB`,
        );
      }
    }
    if (PPROF)
      for (const t of targets) {
        // Go's CPU profile of FerretDB while the same workload runs for PPROF_SECONDS.
        mkdirSync(PPROF, { recursive: true });
        const file = path.join(PPROF, `${t.name.replace('/', '-')}.pprof`);
        const prof = spawn(
          'curl',
          ['-s', '-o', file, `http://127.0.0.1:${t.debugPort}/debug/pprof/profile?seconds=${PPROF_SECONDS}`],
          { stdio: 'ignore' },
        );
        let running = true;
        const done = new Promise((r) => prof.once('exit', r)).then(() => (running = false));
        while (running) await workload(t, 50);
        await done;
        console.error(`[pprof] ${t.name}: ${file}`);
      }
    if (SYSCALLS)
      for (const t of targets) {
        const counts = await countSyscalls(t.proc.pid!, () => workload(t, ITEMS));
        t.sys.push(counts);
        console.error(
          `[syscalls] ${t.name}: per item ${Object.entries(counts)
            .map(([k, v]) => `${k} ${(v / ITEMS).toFixed(2)}`)
            .join(', ')}`,
        );
      }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(
      `store growth: ${LANES} lanes, ${ITEMS} items per round, ${ROUNDS} rounds; load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      'store | cpu ms/item (median; min-max) | user | sys | wall ms/item | KiB written/item | WAL MiB at end | file MiB',
    );
    for (const t of targets) {
      const per = t.cpu.map((c) => (c.user + c.sys) / c.items);
      console.log(
        [
          t.name,
          `${med(per).toFixed(3)} (${Math.min(...per).toFixed(3)}-${Math.max(...per).toFixed(3)})`,
          med(t.cpu.map((c) => c.user / c.items)).toFixed(3),
          med(t.cpu.map((c) => c.sys / c.items)).toFixed(3),
          med(t.cpu.map((c) => c.wall / c.items)).toFixed(2),
          med(t.cpu.map((c) => c.written / c.items / 1024)).toFixed(1),
          (t.wal[t.wal.length - 1]! / 2 ** 20).toFixed(1),
          (statSync(`${t.dir}/db/svc.sqlite`).size / 2 ** 20).toFixed(1),
        ].join(' | '),
      );
    }
  } finally {
    for (const t of targets) {
      if (t.ckpt) {
        clearInterval(t.ckpt.timer);
        t.ckpt.db.close();
      }
      await t.mc.close().catch(() => {});
      t.proc.kill('SIGTERM');
    }
    await sleep(500);
    if (!KEEP) rmSync(WORK, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
