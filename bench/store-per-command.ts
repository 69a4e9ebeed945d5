// The store's CPU per command on a small and on a large table, per SQLite setting (issue 22, session 20;
// docs/store-access.md "Session 20: the seeded store's cost per command"). Builds two templates of
// one store file with FerretDB 1.24 (the project's binary): a `proofs`-like collection of --small
// and of --large documents (~1 KB, random string keys as the service's growing collections have,
// the `_id` index layout of the stack, infra/ferret-id-index.ts). Then starts one FerretDB per (setting, template) on a copy, all at
// once, each with the stack's checkpointer thread, and sends each the same commands in alternating
// rounds (interleaved A/B: the machine's load hits every store alike): insertOne of a new key,
// findOne / updateOne `$set` / deleteOne by an existing random `_id`, from --lanes lanes.
// Prints per command: FerretDB's CPU (user + system, /proc/<pid>/stat, which the load does not
// inflate; the checkpointer thread's CPU added), its read syscalls (/proc/<pid>/io `syscr`: the
// wire protocol's socket reads, ~2-3 per command, plus SQLite's page reads from the OS) and the
// ratio large / small; then each FerretDB's resident memory. `same` repeats `current` (an A/A
// control for the noise between two stores). Not pragmas: `twoidx` is the `_id` index layout of
// sessions 9-20 (FerretDB's unused unique index plus the keeper's lookup index; `current` and
// `oneidx` have one, session 21), and `pool1` / `pool2` send the lanes' commands through 1 / 2
// wire connections (the others 16), so that FerretDB runs at most that many at once and Go's
// connection pool, which hands out its most recently used idle connection, keeps reusing the same
// one or two SQLite connections (session 21: what fewer SQLite connections per file would save;
// FerretDB 1.24 itself allows 100 per file, unconfigurable). Per command and setting it also prints
// the commands per second and the p95 latency of each round (wall time: compare within one run).
//   npx tsx bench/store-per-command.ts [--small 1000] [--large 100000] [--ops 1500] [--rounds 4]
//        [--lanes 8] [--sets current,twoidx,same,pool1,cache64m,mmap256m] [--port 30300] [--keep]   (--help)
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient, type Collection } from 'mongodb';
import { FerretCheckpointer } from '../infra/ferret-checkpointer.js';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import { addLegacyLookupIndex, freePort, spawnStandaloneFerret } from './standalone-ferret.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/store-per-command.ts [--small 1000] [--large 100000] [--ops 1500 (per command per round)] [--rounds 4] [--lanes 8] [--sets current,twoidx,pool1] [--port 30300] [--keep]',
  );
  console.log(`sets: ${Object.keys(SETS_ALL()).join(', ')}`);
  process.exit(0);
}
const SMALL = Number(arg('small', '1000'));
const LARGE = Number(arg('large', '100000'));
const OPS = Number(arg('ops', '1500'));
const ROUNDS = Number(arg('rounds', '4'));
const LANES = Number(arg('lanes', '8'));
const PORT = Number(arg('port', '30300'));
const KEEP = args.includes('--keep');
const WORK = path.join(os.tmpdir(), `svc-store-per-command-${process.pid}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SQLite settings compared: each the `_pragma` list FerretDB is started with. */
function SETS_ALL(): Record<string, string[]> {
  const current = ferretPragmas('normal');
  return {
    current, // infra/ferret-sqlite.ts as it is
    same: current, // the same again: an A/A control for the noise between two stores
    cache16m: [...current, 'cache_size(-16384)'],
    cache64m: [...current, 'cache_size(-65536)'],
    mmap256m: [...current, 'mmap_size(268435456)'],
    mmap1g: [...current, 'mmap_size(1073741824)'],
    // Not pragmas (see the head of this file).
    oneidx: current,
    twoidx: current,
    pool1: current,
    pool2: current,
  };
}
const SETS = SETS_ALL();
const SET_NAMES = arg('sets', 'current,twoidx,pool1').split(',');
for (const s of SET_NAMES) if (!SETS[s]) throw new Error(`unknown set ${s} (${Object.keys(SETS).join(', ')})`);

const COMMANDS = ['insertOne', 'findOne', 'updateOne', 'deleteOne'] as const;
type Command = (typeof COMMANDS)[number];

const key = () => `prf_${randomBytes(16).toString('hex')}`;
const doc = (id: string) => ({
  _id: id,
  org_id: `org_${id.charCodeAt(5) % 20}`,
  created_at: new Date(),
  kind: 'math',
  body: randomBytes(450).toString('hex'),
});

function cpu(pid: number): { user: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 };
}
function readSyscalls(pid: number): number {
  const m = /syscr: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function connect(port: number, maxPoolSize = 16): Promise<MongoClient> {
  for (let i = 0; ; i++) {
    try {
      const mc = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, {
        maxPoolSize,
        serverSelectionTimeoutMS: 2000,
      });
      await mc.connect();
      return mc;
    } catch (err) {
      if (i > 40) throw err;
      await sleep(500);
    }
  }
}

/** A store file with `n` documents in `proofs` (built once per size, then copied per setting). */
async function buildTemplate(name: string, n: number, port: number): Promise<{ dir: string; keys: string[] }> {
  const dir = path.join(WORK, `template-${name}`);
  const p = spawnStandaloneFerret(dir, port, SETS.current!);
  const mc = await connect(port);
  const c = mc.db().collection('proofs');
  const keys: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, n - i) }, () => doc(key()));
    for (const d of batch) keys.push(d._id);
    await c.insertMany(batch as never[]);
  }
  await mc.close();
  p.kill('SIGTERM');
  await new Promise((r) => p.once('exit', r));
  const file = `${dir}/db/svc.sqlite`;
  addLegacyLookupIndex(file); // `twoidx`; every other set is converted as the stack does (below)
  const s = new Database(file);
  s.pragma('wal_checkpoint(TRUNCATE)');
  s.close();
  console.error(
    `template ${name}: ${n} documents, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, built in ${Math.round((performance.now() - t0) / 1000)} s`,
  );
  return { dir, keys };
}

interface Target {
  name: string;
  set: string;
  size: 'small' | 'large';
  proc: ChildProcess;
  /** The stack's checkpointer thread on this store's folder (its CPU is counted as the store's). */
  ckpt: FerretCheckpointer;
  mc: MongoClient;
  c: Collection;
  /** Existing keys not yet deleted (findOne / updateOne / deleteOne pick from here). */
  keys: string[];
  per: Record<
    Command,
    { cpu: number[]; user: number[]; sys: number[]; syscr: number[]; rate: number[]; p95: number[] }
  >;
}

const POOL: Record<string, number> = { pool1: 1, pool2: 2 };

/** Wall-clock latency of every command of the current round (ms). */
let latencies: number[] = [];

async function runCommand(t: Target, cmd: Command, n: number): Promise<void> {
  let i = 0;
  const pick = () => t.keys[Math.floor(Math.random() * t.keys.length)]!;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (i < n) {
        i++;
        const t0 = performance.now();
        if (cmd === 'insertOne') {
          const id = key();
          await t.c.insertOne(doc(id) as never);
          t.keys.push(id);
        } else if (cmd === 'findOne') await t.c.findOne({ _id: pick() } as never);
        else if (cmd === 'updateOne') await t.c.updateOne({ _id: pick() } as never, { $set: { seen: i } });
        else {
          const j = Math.floor(Math.random() * t.keys.length);
          const id = t.keys[j]!;
          t.keys[j] = t.keys[t.keys.length - 1]!;
          t.keys.pop();
          await t.c.deleteOne({ _id: id } as never);
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
}

async function main() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const templates = {
    small: await buildTemplate('small', SMALL, PORT + 90),
    large: await buildTemplate('large', LARGE, PORT + 91),
  };
  const targets: Target[] = [];
  try {
    for (const set of SET_NAMES)
      for (const size of ['small', 'large'] as const) {
        const dir = path.join(WORK, `${set}-${size}`);
        mkdirSync(`${dir}/db`, { recursive: true });
        for (const f of readdirSync(`${templates[size].dir}/db`))
          copyFileSync(`${templates[size].dir}/db/${f}`, `${dir}/db/${f}`);
        if (set !== 'twoidx') keepOneFerretIdIndex(`${dir}/db/svc.sqlite`);
        // A free port per store (session 21: a fixed one was twice taken by another process's connection).
        const storePort = await freePort();
        const proc = spawnStandaloneFerret(dir, storePort, SETS[set]!);
        const mc = await connect(storePort, POOL[set]);
        const ckpt = new FerretCheckpointer(`${dir}/db`);
        ckpt.start();
        const per = Object.fromEntries(
          COMMANDS.map((c) => [c, { cpu: [], user: [], sys: [], syscr: [], rate: [], p95: [] }]),
        ) as unknown as Target['per'];
        targets.push({
          name: `${set}/${size}`,
          set,
          size,
          proc,
          ckpt,
          mc,
          c: mc.db().collection('proofs'),
          keys: [...templates[size].keys],
          per,
        });
      }
    // Every layout keeps `_id` unique: a duplicate insert must fail with 11000.
    for (const t of targets) {
      const code = await t.c.insertOne({ _id: t.keys[0] } as never).then(
        () => 'accepted',
        (e: { code?: number }) => String(e.code),
      );
      console.error(`${t.name}: a duplicate _id insert -> ${code}`);
      if (code !== '11000') throw new Error(`${t.name}: duplicate _id not refused (${code})`);
    }
    // Warm-up: connections, Go's heap, the first pages (both sizes alike).
    for (const t of targets) for (const cmd of COMMANDS) await runCommand(t, cmd, 200);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const cmd of COMMANDS)
        for (const t of order) {
          const pid = t.proc.pid!;
          const c0 = cpu(pid);
          const k0 = t.ckpt.cpuMs;
          const s0 = readSyscalls(pid);
          latencies = [];
          const w0 = performance.now();
          await runCommand(t, cmd, OPS);
          const wall = performance.now() - w0;
          await sleep(1100); // the checkpointer's pass after the commands (it reports its CPU once a pass)
          const c1 = cpu(pid);
          c1.sys += t.ckpt.cpuMs - k0;
          const s1 = readSyscalls(pid);
          const p = t.per[cmd];
          p.user.push((c1.user - c0.user) / OPS);
          p.sys.push((c1.sys - c0.sys) / OPS);
          p.cpu.push((c1.user - c0.user + c1.sys - c0.sys) / OPS);
          p.syscr.push((s1 - s0) / OPS);
          p.rate.push((OPS * 1000) / wall);
          const sorted = latencies.sort((a, b) => a - b);
          p.p95.push(sorted[Math.floor(sorted.length * 0.95)] ?? NaN);
        }
      console.error(`round ${r + 1}/${ROUNDS} done; load ${os.loadavg()[0]!.toFixed(1)}`);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(
      `store per command: ${SMALL} vs ${LARGE} documents, ${LANES} lanes, ${OPS} commands per round, ${ROUNDS} rounds; load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      'setting | command | small: cpu ms (min-max) user/sys, reads | large: cpu ms (min-max) user/sys, reads | large / small',
    );
    for (const set of SET_NAMES)
      for (const cmd of COMMANDS) {
        const cell = (t: Target) => {
          const p = t.per[cmd];
          return `${med(p.cpu).toFixed(3)} (${Math.min(...p.cpu).toFixed(3)}-${Math.max(...p.cpu).toFixed(3)}) ${med(p.user).toFixed(3)}/${med(p.sys).toFixed(3)}, ${med(p.syscr).toFixed(1)}`;
        };
        const s = targets.find((t) => t.set === set && t.size === 'small')!;
        const l = targets.find((t) => t.set === set && t.size === 'large')!;
        console.log(
          `${set} | ${cmd} | ${cell(s)} | ${cell(l)} | ${(med(l.per[cmd].cpu) / med(s.per[cmd].cpu)).toFixed(2)}`,
        );
      }
    console.log('setting | command | small: commands/s, p95 ms | large: commands/s, p95 ms (medians of the rounds)');
    for (const set of SET_NAMES)
      for (const cmd of COMMANDS) {
        const cell = (t: Target) => `${med(t.per[cmd].rate).toFixed(0)}/s, ${med(t.per[cmd].p95).toFixed(1)}`;
        const s = targets.find((t) => t.set === set && t.size === 'small')!;
        const l = targets.find((t) => t.set === set && t.size === 'large')!;
        console.log(`${set} | ${cmd} | ${cell(s)} | ${cell(l)}`);
      }
    console.log('FerretDB resident memory (MB) at the end:');
    for (const t of targets) console.log(`  ${t.name}: ${rssMb(t.proc.pid!).toFixed(0)}`);
  } finally {
    for (const t of targets) {
      await t.ckpt.stop();
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
