// What one write of an organization's verdict roll-up costs the store, by the roll-up's size
// (issue 22, session 23; docs/store-access.md §16). A proven /verify/math sends, besides its
// inserts, two updates by `_id` at the head's cadence (every 8 entries or second): the head
// document (`audit_heads`, ~150 bytes) and the roll-up (`audit_rollups`). The roll-up keeps a
// week of hour buckets, so on a store a week old it is ~10 KB for a tenant with one engine
// (data-scale's seeded tenant: 9.4 KB, 145 hours) against ~0.3 KB on an empty store: three
// pages (two of them overflow) rewritten per write instead of part of one.
// This starts the project's FerretDB 1.24 alone (the stack's pragmas) and sends, in alternating
// rounds, the same sequence with roll-up documents of each shape: per step a group insert of
// --group audit-like entries (other commits between the roll-up writes, as on the stack) and one
// replacement of a roll-up by `_id` (the stack's one `_id` index per table and WAL checkpointer). Prints FerretDB's CPU (/proc/<pid>/stat), read syscalls and
// bytes read and written (/proc/<pid>/io) per step, median of the rounds: counts the load does
// not change.
//   npx tsx bench/rollup-write-cost.ts [--steps 400] [--rounds 6] [--orgs 20] [--group 3] [--hours 145] [--engines 1]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { FerretCheckpointer } from '../infra/ferret-checkpointer.js';
import { keepOneFerretIdIndex } from '../infra/ferret-id-index.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import { emptyRollup, addEntries, type AuditRollup } from '../core/audit-rollup.js';
import { rollupDoc, recentRollupDoc } from '../persistence/audit.js';
import { freePort, procCpuMs, spawnStandaloneFerret } from './standalone-ferret.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/rollup-write-cost.ts [--steps 400] [--rounds 6] [--orgs 20] [--group 3] [--hours 145] [--engines 1]',
  );
  process.exit(0);
}
const STEPS = Number(arg('steps', '400'));
const ROUNDS = Number(arg('rounds', '6'));
const ORGS = Number(arg('orgs', '20'));
const GROUP = Number(arg('group', '3'));
const HOURS = Number(arg('hours', '145'));
const ENGINES = Number(arg('engines', '1'));

const io = (pid: number) => {
  const m = Object.fromEntries(
    readFileSync(`/proc/${pid}/io`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(': ') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
  return { syscr: m.syscr as number, rchar: m.rchar as number, wchar: m.wchar as number };
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A roll-up of `hours` hours ending now, each hour with the rows `engines` engines leave (VERIFIED and UNVERIFIABLE each). */
function rollupOf(hours: number): AuditRollup {
  const now = Date.now();
  const docs = [];
  let seq = 0;
  for (let h = hours - 1; h >= 0; h--)
    for (let e = 0; e < ENGINES; e++)
      for (const [status, verified] of [
        ['VERIFIED', true],
        ['UNVERIFIABLE', false],
      ] as const)
        docs.push({
          seq: ++seq,
          domain: `engine${e}`,
          verified,
          result: { status, ...(verified ? { attestation_id: 'att' } : {}) },
          timestamp: new Date(now - h * 3600_000).toISOString(),
        });
  return addEntries(emptyRollup(), docs);
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rollup-write-'));
  const port = await freePort();
  const ferret = spawnStandaloneFerret(dir, port, ferretPragmas('normal'));
  let ckpt: FerretCheckpointer | null = null;
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, { maxPoolSize: 8 });
  try {
    for (let i = 0; ; i++) {
      try {
        await client.connect();
        await client.db().command({ ping: 1 });
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const db = client.db();
    const week = rollupOf(HOURS);
    const hour = rollupOf(1);
    // The shapes: today's document on a store a week old, on an empty store, and the hot document
    // of the split roll-up (its `all` and the hours since the cold document: at most two).
    const shapes: Record<string, (org: string) => object> = {
      week: (org) => rollupDoc(org, week),
      hour: (org) => rollupDoc(org, hour),
      hot: (org) => recentRollupDoc(org, week, week.seq - 8, week.hours.slice(-2)),
    };
    const sizes = Object.fromEntries(
      Object.entries(shapes).map(([k, f]) => [k, Buffer.byteLength(JSON.stringify(f('org_x')))]),
    );
    console.log(`roll-up document bytes (JSON): ${JSON.stringify(sizes)}; ${HOURS} hours, ${ENGINES} engine(s)`);
    const rollups = db.collection<{ _id: string }>('audit_rollups');
    const logs = db.collection<{ _id: string }>('audit_logs');
    for (const k of Object.keys(shapes))
      for (let o = 0; o < ORGS; o++)
        await rollups.insertOne({ ...(shapes[k] as (org: string) => object)(`${k}_${o}`), _id: `${k}_${o}` });
    // Entries enough that the inserts land in a table of some depth on both sides alike.
    for (let i = 0; i < 20; i++)
      await logs.insertMany(
        Array.from({ length: 500 }, () => ({
          _id: randomBytes(16).toString('hex'),
          pad: randomBytes(400).toString('hex'),
        })),
      );
    // The stack's store: one `_id` index per table (its keeper) and its WAL checkpointer.
    keepOneFerretIdIndex(`${dir}/db/svc.sqlite`);
    ckpt = new FerretCheckpointer(`${dir}/db`);
    ckpt.start();
    const per: Record<string, { cpu: number[]; syscr: number[]; rkib: number[]; wkib: number[] }> = {};
    const order = Object.keys(shapes);
    for (let r = 0; r < ROUNDS; r++) {
      const seq = r % 2 === 0 ? order : [...order].reverse();
      for (const k of seq) {
        const c0 = procCpuMs(ferret.pid!);
        const i0 = io(ferret.pid!);
        for (let s = 0; s < STEPS; s++) {
          const org = `${k}_${s % ORGS}`;
          await Promise.all([
            logs.insertMany(
              Array.from({ length: GROUP }, () => ({
                _id: randomBytes(16).toString('hex'),
                pad: randomBytes(400).toString('hex'),
              })),
            ),
            rollups.replaceOne({ _id: org }, { ...(shapes[k] as (org: string) => object)(org), _id: org }),
          ]);
        }
        const c1 = procCpuMs(ferret.pid!);
        const i1 = io(ferret.pid!);
        const x = (per[k] ??= { cpu: [], syscr: [], rkib: [], wkib: [] });
        x.cpu.push((c1 - c0) / STEPS);
        x.syscr.push((i1.syscr - i0.syscr) / STEPS);
        x.rkib.push((i1.rchar - i0.rchar) / 1024 / STEPS);
        x.wkib.push((i1.wchar - i0.wchar) / 1024 / STEPS);
      }
    }
    const r2 = (n: number) => Math.round(n * 100) / 100;
    console.log(
      `per step (a group insert of ${GROUP} and one roll-up replacement), median of ${ROUNDS} rounds; load ${os.loadavg().map(r2).join(' ')}`,
    );
    console.table(
      Object.entries(per).map(([k, x]) => ({
        shape: k,
        doc_bytes: sizes[k],
        cpu_ms: r2(median(x.cpu)),
        cpu_range: `${r2(Math.min(...x.cpu))}-${r2(Math.max(...x.cpu))}`,
        read_syscalls: r2(median(x.syscr)),
        kib_read: r2(median(x.rkib)),
        kib_written: r2(median(x.wkib)),
      })),
    );
  } finally {
    await ckpt?.stop();
    await client.close().catch(() => undefined);
    ferret.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
