// Benchmark (issue 22, session 21): FerretDB with one Go processor (GOMAXPROCS=1, with GOGC=400 and
// GOMEMLIMIT=128MiB: the stack's SVC_STORE_GO* defaults, infra/go-runtime.ts) against Go's defaults,
// where one processor could hurt: short commands while a long one runs. Two standalone FerretDBs
// (the project's binary, bench/standalone-ferret.ts), each seeded with --docs documents and the
// stack's `_id` lookup index (infra/ferret-id-index.ts); then rounds, A and B in ABBA order, of:
//   points: --clients loops of a point read or a point $inc by `_id` (half each) for --slice s;
//   points + scan: the same beside one loop of a command that reads every document in Go (a
//     $regex filter FerretDB cannot push down to SQLite: the longest thing the service's store does).
// Per store and phase: point commands per second, their p50 / p95 / p99, scans per second, and the
// store's CPU per point command and its resident memory after the phase (/proc); then the median of the per-round ratios B/A.
//   npx tsx bench/store-gomaxprocs.ts [--docs 20000] [--rounds 6] [--slice 6] [--clients 8] [--b-env GOMAXPROCS=1,GOGC=400,GOMEMLIMIT=128MiB]
// Ports: the test layout's FerretDB port at SVC_BENCH_PORT_OFFSET (default 650) + 40 and + 41.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { procCpuMs, spawnStandaloneFerret } from './standalone-ferret.js';
import { medianOf, percentileOf } from './round-stats.js';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import { portOpen, testPorts } from '../infra/stack.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
const DOCS = Number(arg('docs', '20000'));
const ROUNDS = Number(arg('rounds', '6'));
const SLICE_S = Number(arg('slice', '6'));
const CLIENTS = Number(arg('clients', '8'));
const B_ENV = Object.fromEntries(
  arg('b-env', 'GOMAXPROCS=1,GOGC=400,GOMEMLIMIT=128MiB')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const OFFSET = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 650);
const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Store {
  name: 'A' | 'B';
  pid: number;
  client: MongoClient;
  stop: () => void;
  rounds: Array<Record<string, number>>;
}

async function startStore(name: 'A' | 'B', port: number, env: Record<string, string>): Promise<Store> {
  const dir = mkdtempSync(path.join(tmpdir(), `svc-store-gomaxprocs-${name}-`));
  // spawnStandaloneFerret starts FerretDB with this process's environment: the side's Go settings go in for the call.
  const saved = { GOMAXPROCS: process.env.GOMAXPROCS, GOGC: process.env.GOGC, GOMEMLIMIT: process.env.GOMEMLIMIT };
  for (const k of Object.keys(saved)) delete process.env[k];
  Object.assign(process.env, env);
  const child = spawnStandaloneFerret(dir, port, ferretPragmas('normal'));
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  for (let i = 0; i < 1200 && !(await portOpen(port)); i++) await sleep(100);
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/probe`, { maxPoolSize: CLIENTS + 4 });
  await client.connect();
  const coll = client.db().collection('docs');
  const pad = 'x'.repeat(400);
  for (let i = 0; i < DOCS; i += 1000)
    await coll.insertMany(
      Array.from({ length: Math.min(1000, DOCS - i) }, (_, j) => ({
        _id: `d${i + j}`,
        n: 0,
        org: `org-${(i + j) % 50}`,
        s: `${pad}${i + j}`,
      })) as never[],
    );
  keepOneFerretIdIndex(path.join(dir, 'db', 'probe.sqlite'));
  return {
    name,
    pid: child.pid as number,
    client,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
    rounds: [],
  };
}

async function phase(s: Store, scan: boolean): Promise<Record<string, number>> {
  const coll = s.client.db().collection<{ _id: string; n: number }>('docs');
  const end = performance.now() + SLICE_S * 1000;
  const ms: number[] = [];
  let scans = 0;
  const cpu0 = procCpuMs(s.pid);
  const loops = Array.from({ length: CLIENTS }, async (_, c) => {
    let i = c;
    while (performance.now() < end) {
      const id = `d${(i * 7919) % DOCS}`;
      i++;
      const t0 = performance.now();
      if (i % 2) await coll.findOne({ _id: id });
      else await coll.updateOne({ _id: id }, { $inc: { n: 1 } });
      ms.push(performance.now() - t0);
    }
  });
  const scanner = scan
    ? (async () => {
        while (performance.now() < end) {
          await coll.countDocuments({ s: { $regex: 'no-such-text$' } } as never);
          scans++;
        }
      })()
    : Promise.resolve();
  await Promise.all([...loops, scanner]);
  const cpu = procCpuMs(s.pid) - cpu0;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  ms.sort((a, b) => a - b);
  return {
    'points/s': ms.length / SLICE_S,
    p50: percentileOf(ms, 50),
    p95: percentileOf(ms, 95),
    p99: percentileOf(ms, 99),
    'scans/s': scans / SLICE_S,
    'store CPU ms per point': cpu / Math.max(1, ms.length),
    'store RSS MB after': rss,
  };
}

async function main() {
  const load0 = loadavg();
  const stores: Store[] = [];
  try {
    stores.push(await startStore('A', testPorts(OFFSET + 40).ferret, {}));
    stores.push(await startStore('B', testPorts(OFFSET + 41).ferret, B_ENV));
    for (const s of stores) await phase(s, true); // warm-up
    const loads: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? stores : [...stores].reverse();
      for (const scan of [false, true])
        for (const s of order) {
          const f = await phase(s, scan);
          const prefix = scan ? 'points + scan' : 'points';
          s.rounds[r] = {
            ...s.rounds[r],
            ...Object.fromEntries(Object.entries(f).map(([k, v]) => [`${prefix}: ${k}`, v])),
          };
        }
      loads.push(loadavg()[0] as number);
    }
    const [a, b] = stores as [Store, Store];
    console.log(
      `store-gomaxprocs: ${DOCS} documents, ${ROUNDS} rounds (ABBA) of ${SLICE_S} s per phase, ${CLIENTS} clients; A = Go's defaults, B = ${Object.entries(
        B_ENV,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    console.log(
      `load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, per round ${loads.map((l) => l.toFixed(1)).join(' ')}`,
    );
    const keys = Object.keys(a.rounds[0] ?? {});
    console.table(
      Object.fromEntries(
        keys.map((k) => {
          const ratios = b.rounds.map((x, i) => (x[k] as number) / (a.rounds[i]?.[k] as number));
          return [
            k,
            {
              A: r1(medianOf(a.rounds.map((x) => x[k] as number))),
              B: r1(medianOf(b.rounds.map((x) => x[k] as number))),
              'B/A paired': `${r2(medianOf(ratios))} [${r2(Math.min(...ratios))}-${r2(Math.max(...ratios))}]`,
            },
          ];
        }),
      ),
    );
  } finally {
    for (const s of stores) {
      await s.client.close().catch(() => undefined);
      s.stop();
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
