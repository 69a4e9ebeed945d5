// What FerretDB 1.24's SQLite pragmas buy (issue 22, session 14; docs/store-access.md §10). Starts a
// FerretDB of its own per setting (the project's binary, a scratch folder under the OS's temp
// folder), fills a `proofs`-like table with --docs documents of 1.5 KB, indexes FerretDB's `_id`
// lookups as the stack does (infra/ferret-id-index.ts), then measures, by FerretDB's own CPU
// (/proc/<pid>/stat, which a loaded machine does not inflate) and wall time: point reads by `_id`
// from 8 lanes, inserts from 8 lanes, and 200 inserts sent at once. Settings alternate, twice.
//   npx tsx bench/store-pragmas.ts [--docs 60000] [--port 30181]
import { rmSync, readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import os from 'node:os';
import path from 'node:path';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { spawnStandaloneFerret } from './standalone-ferret.js';
const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const DOCS = Number(arg('docs', '60000'));
const PORT = Number(arg('port', '30181'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
async function run(name: string, pragmas: string[], port: number) {
  const dir = path.join(os.tmpdir(), `svc-store-pragmas-${process.pid}-${port}`);
  rmSync(dir, { recursive: true, force: true });
  const p = spawnStandaloneFerret(dir, port, pragmas);
  await sleep(1500);
  const mc = new MongoClient(`mongodb://127.0.0.1:${port}/svc`);
  await mc.connect();
  const c = mc.db().collection('proofs');
  const N = DOCS;
  const pad = 'x'.repeat(1500);
  for (let i = 0; i < N; i += 1000)
    await c.insertMany(Array.from({ length: 1000 }, (_, k) => ({ _id: `p${i + k}`, body: pad, n: i + k })) as any[]);
  keepOneFerretIdIndex(`${dir}/db/svc.sqlite`);
  const out: string[] = [];
  for (let round = 0; round < 2; round++) {
    let c0 = cpu(p.pid!);
    let t = performance.now();
    const R = 4000;
    let k = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (k < R) {
          k++;
          await c.findOne({ _id: `p${Math.floor(Math.random() * N)}` } as any);
        }
      }),
    );
    out.push(`read ${((cpu(p.pid!) - c0) / R).toFixed(3)} ms cpu, ${((performance.now() - t) / R).toFixed(2)} ms wall`);
    c0 = cpu(p.pid!);
    t = performance.now();
    const W = 1000;
    let w = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (w < W) {
          const i = w++;
          await c.insertOne({ _id: `n${round}-${i}`, body: pad } as any);
        }
      }),
    );
    out.push(
      `insert ${((cpu(p.pid!) - c0) / W).toFixed(3)} ms cpu, ${((performance.now() - t) / W).toFixed(2)} ms wall`,
    );
    t = performance.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => c.insertOne({ _id: `b${round}-${i}`, body: pad } as any)));
    out.push(`200 inserts at once ${Math.round(performance.now() - t)} ms`);
  }
  console.log(name, out.join(' | '));
  await mc.close();
  p.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
void (async () => {
  const sets: Array<[string, string[]]> = [
    ['full (FerretDB default)', []],
    ['normal', ['synchronous(normal)']],
    ['normal+cache64M+mmap256M', ['synchronous(normal)', 'cache_size(-65536)', 'mmap_size(268435456)']],
  ];
  for (let r = 0; r < 2; r++) for (const [i, [n, ps]] of sets.entries()) await run(n, ps, PORT + i);
})();
