// What does an eviction at the job limit cost the store? (issue 22, session 18, helper B.)
// bench/data-scale.ts's seeded phase runs at SVC_BATCH_MAX_JOBS, so every admission evicts a
// finished job; its capture counts per admission, beside an admission below the limit: a claim
// insert and a slot update instead of a slot insert, and ~3 more point reads of the slot directory;
// and per evicted job three deletes (its result document: ~115 KB packed until session 18, ~15 KB
// in version 2 since session 19; its ~6 KB request; its job).
// This script prices each part in FerretDB's own CPU (/proc/<pid>/stat: a count the machine's
// load does not inflate), on a copy of a store data-scale left behind (real documents: the
// template is one of its finished 100-item jobs, cloned under new ids before each round), in
// interleaved rounds:
//   - delete-per-job: N evicted jobs deleted one after the other, 3 commands each (session 17);
//   - delete-batched: the same N jobs' documents in 3 commands (session 18, persistence/batch.ts dropEvicted);
//   - delete-batched-v1: the same with the result documents in the packed form of sessions 12-18
//     (session 19: the others' are version 2, as written now; persistence/batch-result-doc.ts);
//   - read-per-job: the same three documents per job read by `_id` (for scale: what reading them costs);
//   - admit-at-limit: N times what an admission at the limit sends beyond the job and request
//     inserts (claim insert, slot update, 2 slot reads, 1 queue read; the capture's averages rounded);
//   - admit-new-slot: N times what an admission below the limit sends instead (slot insert, 1 slot read).
// Session 23 (docs/batch.md "Session 23: the request packed"): the clones' request in the form
// written now (version 1, packed: persistence/batch-request-doc.ts) or nested as before:
//   - delete-batched-req-nested: delete-batched with the requests nested (session 22's form);
//   - insert-requests / insert-requests-nested: the N requests inserted in one command (a burst's
//     admissions, persistence/insert-coalescer.ts), packed or nested;
// and a reader beside every part: a point read of a job by `_id` (a GET's first read) every 2 ms,
// its latency printed per part (median, p95, max), so a part that holds reads back shows it.
// Template: any finished 100-item job (all its result documents are cloned).
// Session 24 (docs/batch.md "Session 24: the deletion of evicted jobs"): delete-paced (the
// deletion now: 8 result documents a command, one command at a time) and its variants, idle-500ms,
// a ~1 KB insert every 5 ms beside every part (a verification's write), its latency printed too;
// --parts keeps only the parts named, --no-probe runs no probe (store CPU of the part alone).
//   npx tsx bench/evict-cost.ts [--from .data/bench-scale/ferretdb/svc.sqlite] [--jobs 10] [--rounds 6] [--port 30761] [--parts a,b]
// Run bench/data-scale.ts first (any size) for the store file; nothing of it is changed.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { BSON, MongoClient } from 'mongodb';
import { ROOT } from '../infra/stack.js';
import { procCpuMs, spawnStandaloneFerret } from './standalone-ferret.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import { Store } from '../core/store.js';
import {
  BatchJobStore,
  packResultDoc,
  packResultDocV1,
  packRequestDoc,
  requestOfDoc,
  resultOfDoc,
  type StoredRequestDoc,
  type StoredResultDoc,
} from '../persistence/batch.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const FROM = path.resolve(arg('from', path.join(ROOT, '.data', 'bench-scale', 'ferretdb', 'svc.sqlite')));
const JOBS = Number(arg('jobs', '10'));
const ROUNDS = Number(arg('rounds', '6'));
const PORT = Number(arg('port', '30761'));
const WORK = path.join(os.tmpdir(), `svc-evict-cost-${process.pid}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Doc = Record<string, unknown> & { _id: string };

async function main() {
  mkdirSync(path.join(WORK, 'db'), { recursive: true });
  mkdirSync(path.join(WORK, 'st'), { recursive: true });
  copyFileSync(FROM, path.join(WORK, 'db', 'svc.sqlite'));
  const ferret = spawnStandaloneFerret(WORK, PORT, ferretPragmas('normal'));
  const uri = `mongodb://127.0.0.1:${PORT}/svc`;
  let mc: MongoClient | null = null;
  let store: Store | null = null;
  let probeClient: MongoClient | null = null;
  try {
    for (let i = 0; ; i++) {
      try {
        mc = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 });
        await mc.connect();
        break;
      } catch (err) {
        if (i > 40) throw err;
        await sleep(500);
      }
    }
    store = Store.lazy(uri);
    const db = mc.db();
    // The template: a finished job of the service's own shape (one result document of 100 items).
    const template = (await db
      .collection<Doc>('batch_jobs')
      .findOne({ status: 'completed', total_items: 100 })) as Doc | null;
    if (!template) throw new Error(`no finished 100-item job in ${FROM}: run bench/data-scale.ts first`);
    const tid = template._id as string;
    const UNITS = Number(template.units ?? 1);
    // Session 23: the request in the form written now (packed) and nested as before, whichever the store holds.
    const request = requestOfDoc(
      (await db.collection<Doc>('batch_requests').findOne({ _id: tid })) as unknown as StoredRequestDoc,
    );
    const reqForms = {
      packed: packRequestDoc(request) as unknown as Doc,
      nested: { _id: tid, items: request.items } as unknown as Doc,
    };
    const units = await Promise.all(
      Array.from({ length: UNITS }, async (_, u) =>
        resultOfDoc(
          (await db.collection<Doc>('batch_results').findOne({ _id: `${tid}#${u}` })) as unknown as StoredResultDoc,
        ),
      ),
    );
    // Session 19: the clones' result documents in the form written now (version 2), or in the packed form of sessions 12-18.
    const forms = {
      v2: units.map((u) => packResultDoc(u) as unknown as Doc),
      v1: units.map((u) => packResultDocV1(u) as unknown as Doc),
    };
    const slot = (await db.collection<Doc>('batch_slots').findOne({})) as Doc;
    const size = (ds: Doc[]) => ds.reduce((n, d) => n + BSON.calculateObjectSize(d), 0);
    console.error(
      `template ${tid}: job ${size([template])} B, request ${size([reqForms.packed])} B packed (${size([reqForms.nested])} B nested), ${UNITS} result documents ${size(forms.v2)} B (version 2; packed form ${size(forms.v1)} B) (BSON)`,
    );

    const clone = async (
      form: keyof typeof forms = 'v2',
      reqForm: keyof typeof reqForms = 'packed',
    ): Promise<string[]> => {
      const ids = Array.from({ length: JOBS }, () => `bj_${randomBytes(12).toString('hex')}`);
      await db.collection<Doc>('batch_jobs').insertMany(ids.map((id) => ({ ...template, _id: id })));
      await db.collection<Doc>('batch_requests').insertMany(ids.map((id) => ({ ...reqForms[reqForm], _id: id })));
      await db
        .collection<Doc>('batch_results')
        .insertMany(ids.flatMap((id) => forms[form].map((d, u) => ({ ...d, _id: `${id}#${u}`, job_id: id }))));
      return ids;
    };
    // Inserted by the insert-requests parts, deleted outside their timing.
    const insertRequests = async (reqForm: keyof typeof reqForms) => {
      const ids = Array.from({ length: JOBS }, () => `bj_${randomBytes(12).toString('hex')}`);
      const c0 = procCpuMs(ferret.pid as number);
      await db.collection<Doc>('batch_requests').insertMany(
        ids.map((id) => ({ ...reqForms[reqForm], _id: id })),
        { ordered: false },
      );
      extra = procCpuMs(ferret.pid as number) - c0;
      await db.collection<Doc>('batch_requests').bulkWrite(
        ids.map((id) => ({ deleteOne: { filter: { _id: id } } })),
        { ordered: false },
      );
    };
    let slotNo = 100_000;
    const variants: Record<string, (ids: string[]) => Promise<void>> = {
      'delete-per-job': async (ids) => {
        const jobs = new BatchJobStore(store as Store);
        for (const id of ids) await jobs.deleteJob(id, UNITS);
      },
      'delete-batched': async (ids) => {
        const jobs = new BatchJobStore(store as Store);
        // The count each finished slot carries (session 15), as the admission leaves it for the deletion.
        (jobs as unknown as { evictedUnits: Map<string, number> }).evictedUnits = new Map(ids.map((id) => [id, UNITS]));
        await jobs.dropEvicted(ids);
      },
      // Session 24: the same again, under another name (an A/A control of the probes' figures).
      'delete-batched-aa': async (ids) => {
        const jobs = new BatchJobStore(store as Store);
        (jobs as unknown as { evictedUnits: Map<string, number> }).evictedUnits = new Map(ids.map((id) => [id, UNITS]));
        await jobs.dropEvicted(ids);
      },
      // Session 24: the API's deletion as now (persistence/batch.ts dropEvicted, paced): 8 result documents a
      // command, one command at a time; -pauses: a pause after each command as long as it took (≤ 50 ms;
      // not adopted); -u4, -u16: 4 and 16 result documents a command.
      ...Object.fromEntries(
        (
          [
            ['delete-paced', {}],
            ['delete-paced-pauses', { pauseMaxMs: 50 }],
            ['delete-paced-u4', { stepUnits: 4 }],
            ['delete-paced-u16', { stepUnits: 16 }],
          ] as const
        ).map(([name, o]) => [
          name,
          async (ids: string[]) => {
            const jobs = new BatchJobStore(store as Store);
            (jobs as unknown as { evictedUnits: Map<string, number> }).evictedUnits = new Map(
              ids.map((id) => [id, UNITS]),
            );
            await jobs.dropEvicted(ids, { paced: true, ...o });
          },
        ]),
      ),
      // Session 24: the sweep of a dead process's evictions, per run (N runs a round): session 23's
      // periodic run read all the slots (every 5 min); session 24's, while no process is dead, is a
      // beat and a read of batch_evictors (every 60 s).
      'sweep-slots': async () => {
        const jobs = new BatchJobStore(store as Store);
        await jobs.allSlots(); // the key rewrite's check, once, outside the count
        const c0 = procCpuMs(ferret.pid as number);
        for (let i = 0; i < JOBS; i++) await jobs.allSlots();
        extra = procCpuMs(ferret.pid as number) - c0;
      },
      'sweep-evictors': async () => {
        const jobs = new BatchJobStore(store as Store);
        await jobs.beat('bench_other', new Date()); // another live process
        const c0 = procCpuMs(ferret.pid as number);
        for (let i = 0; i < JOBS; i++) {
          await jobs.beat('bench_self', new Date());
          await jobs.sweepDeadEvictors('bench_self', new Set());
        }
        extra = procCpuMs(ferret.pid as number) - c0;
      },
      // For scale: FerretDB's own CPU over half a second of nothing (what a longer part pays however idle).
      'idle-500ms': async () => {
        await sleep(500);
      },
      // Session 23: the same, the clones' requests nested (as stored before session 23).
      'delete-batched-req-nested': async (ids) => {
        const jobs = new BatchJobStore(store as Store);
        (jobs as unknown as { evictedUnits: Map<string, number> }).evictedUnits = new Map(ids.map((id) => [id, UNITS]));
        await jobs.dropEvicted(ids);
      },
      'insert-requests': () => insertRequests('packed'),
      'insert-requests-nested': () => insertRequests('nested'),
      // Session 19: the same, the clones' result documents in the packed form of sessions 12-18.
      'delete-batched-v1': async (ids) => {
        const jobs = new BatchJobStore(store as Store);
        (jobs as unknown as { evictedUnits: Map<string, number> }).evictedUnits = new Map(ids.map((id) => [id, UNITS]));
        await jobs.dropEvicted(ids);
      },
      // For scale: reading the same three documents by `_id` (FerretDB decodes what it reads; a delete reads first).
      'read-per-job': async (ids) => {
        for (const id of ids)
          await Promise.all([
            ...forms.v2.map((_, u) => db.collection<Doc>('batch_results').findOne({ _id: `${id}#${u}` })),
            db.collection<Doc>('batch_requests').findOne({ _id: id }),
            db.collection<Doc>('batch_jobs').findOne({ _id: id }),
          ]);
      },
      'admit-at-limit': async () => {
        for (let i = 0; i < JOBS; i++) {
          const n = String(slotNo++);
          await db.collection<Doc>('batch_slots').insertOne({ ...slot, _id: n }); // the finished slot (not counted below)
        }
        const c0 = procCpuMs(ferret.pid as number);
        for (let i = 0; i < JOBS; i++) {
          const n = String(slotNo - JOBS + i);
          await Promise.all([
            db.collection<Doc>('batch_slots').findOne({ _id: n }),
            db.collection<Doc>('batch_slots').findOne({ _id: String(Number(n) + 1) }),
            db.collection<Doc>('batch_slot_queue').findOne({ _id: n }),
          ]);
          await db.collection<Doc>('batch_slot_claims').insertOne({
            _id: `${n}:2`,
            slot: Number(n),
            gen: 2,
            job_id: `bj_${randomBytes(12).toString('hex')}`,
            created_at: new Date(),
          });
          await db.collection<Doc>('batch_slots').updateOne(
            { _id: n },
            {
              $set: {
                gen: 2,
                state: 'active',
                job_id: `bj_${randomBytes(12).toString('hex')}`,
                claimed_at: new Date(),
                finished_at: null,
                evicting: [`bj_${randomBytes(12).toString('hex')}`],
                units: null,
              },
            },
          );
        }
        extra = procCpuMs(ferret.pid as number) - c0;
      },
      'admit-new-slot': async () => {
        const c0 = procCpuMs(ferret.pid as number);
        for (let i = 0; i < JOBS; i++) {
          const n = String(slotNo++);
          await db.collection<Doc>('batch_slots').findOne({ _id: String(Number(n) - 1) });
          await db.collection<Doc>('batch_slots').insertOne({
            _id: n,
            gen: 1,
            state: 'active',
            job_id: `bj_${randomBytes(12).toString('hex')}`,
            claimed_at: new Date(),
            finished_at: null,
          });
        }
        extra = procCpuMs(ferret.pid as number) - c0;
      },
    };
    let extra = NaN;
    // Session 24: --parts a,b keeps only those parts (e.g. delete-batched,delete-paced).
    const only = arg('parts', '');
    if (only) for (const k of Object.keys(variants)) if (!only.split(',').includes(k)) delete variants[k];
    const totals: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    const writes: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    const walls: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    const reads: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    probeClient = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 });
    await probeClient.connect();
    const probeDb = probeClient.db();
    for (let r = 0; r < ROUNDS; r++) {
      const order = Object.keys(variants).sort(() => Math.random() - 0.5);
      for (const name of order) {
        const ids =
          name.startsWith('delete') || name.startsWith('read')
            ? await clone(
                name.endsWith('-v1') ? 'v1' : 'v2',
                name.endsWith('-v1') || name.endsWith('-req-nested') ? 'nested' : 'packed',
              )
            : [];
        await sleep(300); // the clone's commits and the checkpointer settle
        extra = NaN;
        // Session 23: a GET's first read (a job by `_id`) every 2 ms beside the part, on its own connection.
        // Session 24: --no-probe leaves both probes out (the store CPU then is the part's alone).
        let probing = !args.includes('--no-probe');
        const probe = (async () => {
          while (probing) {
            const t = performance.now();
            await (probeDb as ReturnType<MongoClient['db']>).collection<Doc>('batch_jobs').findOne({ _id: tid });
            (reads[name] as number[]).push(performance.now() - t);
            await sleep(2);
          }
        })();
        // Session 24: a verification's write beside it too (a ~1 KB insert, as an audit entry), every 5 ms on its own connection.
        const writer = (async () => {
          while (probing) {
            const t = performance.now();
            await (probeDb as ReturnType<MongoClient['db']>)
              .collection<Doc>('bench_probe_writes')
              .insertOne({ _id: `w_${randomBytes(12).toString('hex')}`, pad: 'x'.repeat(1000) });
            (writes[name] as number[]).push(performance.now() - t);
            await sleep(5);
          }
        })();
        const c0 = procCpuMs(ferret.pid as number);
        const w0 = performance.now();
        await (variants[name] as (ids: string[]) => Promise<void>)(ids);
        (walls[name] as number[]).push(performance.now() - w0);
        const spent = Number.isNaN(extra) ? procCpuMs(ferret.pid as number) - c0 : extra;
        probing = false;
        await probe;
        await writer;
        (totals[name] as number[]).push(spent / JOBS);
        if (name.startsWith('delete')) {
          const left = await db
            .collection<Doc>('batch_results')
            .countDocuments({ _id: { $in: ids.flatMap((i) => forms.v2.map((_, u) => `${i}#${u}`)) } });
          if (left !== 0) throw new Error(`${name} left ${left} result documents`);
        }
      }
      console.error(
        `round ${r + 1}/${ROUNDS}: ${Object.entries(totals)
          .map(([k, v]) => `${k} ${(v.at(-1) as number).toFixed(1)}`)
          .join(', ')} ms store CPU per job`,
      );
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${JOBS} jobs per round, ${ROUNDS} rounds interleaved; FerretDB CPU (user + system) per job, ms`,
    );
    console.table(
      Object.entries(totals).map(([k, v]) => ({
        part: k,
        median: Math.round(median(v) * 10) / 10,
        min: Math.round(Math.min(...v) * 10) / 10,
        max: Math.round(Math.max(...v) * 10) / 10,
      })),
    );
    // Session 23: how long a point read of a job waited beside each part (all rounds; the machine's load is in it too).
    const q = (v: number[], p: number) =>
      [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * p))] ?? NaN;
    console.log('a point read of a job by _id beside each part (every 2 ms), ms');
    console.table(
      Object.entries(reads).map(([k, v]) => ({
        part: k,
        reads: v.length,
        median: Math.round(q(v, 0.5) * 10) / 10,
        p95: Math.round(q(v, 0.95) * 10) / 10,
        max: Math.round(Math.max(...v) * 10) / 10,
      })),
    );
    console.log("a ~1 KB insert beside each part (every 5 ms), ms; and the part's wall time per round, ms");
    console.table(
      Object.entries(writes).map(([k, v]) => ({
        part: k,
        writes: v.length,
        median: Math.round(q(v, 0.5) * 10) / 10,
        p95: Math.round(q(v, 0.95) * 10) / 10,
        max: Math.round(Math.max(...v) * 10) / 10,
        wall_median: Math.round(q(walls[k] as number[], 0.5)),
      })),
    );
  } finally {
    await probeClient?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await mc?.close().catch(() => undefined);
    ferret.kill('SIGTERM');
    await new Promise((r) => ferret.once('exit', r));
    rmSync(WORK, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
