// What does a batch job's result document cost, by stored form? (issue 22, session 19, helper D.)
// A finished 100-item math job's one result document was ~117 KB of packed JSON (session 12-18
// form): its insert by the worker, every read by an API process and its deletion at eviction
// (~5 ms of FerretDB CPU, bench/evict-cost.ts) follow that size. This script:
//   1. prints what the bytes are: per part of the items (ids, queries, verdict texts, proof refs,
//      attestation tokens, ...) for a real finished 100-item job of a data-scale store;
//   2. prices the forms in FerretDB's own CPU (/proc/<pid>/stat, a count the machine's load does
//      not inflate), on a copy of that store, in interleaved rounds: N result documents inserted
//      one by one (the worker's storeUnit), read by `_id` (an API process's GET), then deleted in
//      one `delete` (an eviction's dropEvicted), for the packed form (v1, sessions 12-18) and
//      version 2 (session 19: tokens split, items brotli-compressed; persistence/batch-result-doc.ts);
//   3. prices them in the service's own CPU: packing (the worker, per write) and the driver's BSON
//      encode; BSON decode and unpacking (the API, per read of the store).
//   npx tsx bench/result-doc-cost.ts [--from .data/bench-scale/ferretdb/svc.sqlite] [--jobs 20] [--rounds 6] [--port 30770 + SVC_BENCH_PORT_OFFSET]
// Run bench/data-scale.ts first (any size) for the store file; nothing of it is changed.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import path from 'node:path';
import { BSON, MongoClient } from 'mongodb';
import { ROOT } from '../infra/stack.js';
import { benchPortOffset } from '../infra/ports.js';
import { procCpuMs, spawnStandaloneFerret } from './standalone-ferret.js';
import { ferretPragmas } from '../infra/ferret-sqlite.js';
import {
  packResultDoc,
  packResultDocV1,
  resultOfDoc,
  type BatchResultDoc,
  type StoredResultDoc,
} from '../persistence/batch-result-doc.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const FROM = path.resolve(arg('from', path.join(ROOT, '.data', 'bench-scale', 'ferretdb', 'svc.sqlite')));
const JOBS = Number(arg('jobs', '20'));
const ROUNDS = Number(arg('rounds', '6'));
// The offset is checked (0..999, infra/ports.ts): a larger one put this FerretDB in Linux's ephemeral range.
const PORT = Number(arg('port', String(30770 + benchPortOffset())));
const WORK = path.join(os.tmpdir(), `svc-result-doc-cost-${process.pid}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;

/** What the bytes of a unit's packed JSON are, by part of its items. */
function breakdown(unit: BatchResultDoc): Array<{ part: string; bytes: number; share: string }> {
  const parts: Record<string, number> = {};
  const add = (k: string, v: unknown) =>
    (parts[k] = (parts[k] ?? 0) + (v === undefined ? 0 : JSON.stringify(v).length));
  let total = 0;
  for (const s of unit.items) {
    const v = s.view as unknown as Record<string, unknown>;
    total += JSON.stringify([s.index, v]).length + 1;
    const r = (v.result ?? {}) as Record<string, unknown>;
    const att = r.attestation as Record<string, unknown> | undefined;
    add('item id (job id + index, derivable)', v.id);
    add('query', v.query);
    add('type, status, latency_ms, error', [v.type, v.status, v.latency_ms, v.error]);
    add('result: status, agent_message', [r.status, r.agent_message]);
    add('result: developer_fields', r.developer_fields);
    add('result: proof_ref, is_authoritative', [r.proof_ref, r.is_authoritative]);
    add('attestation token', att?.token);
    add('attestation id, status', att ? [att.id, att.status] : undefined);
  }
  const named = Object.values(parts).reduce((a, b) => a + b, 0);
  parts['member names, brackets, separators'] = total - named;
  return Object.entries(parts).map(([part, bytes]) => ({
    part,
    bytes,
    share: `${((bytes * 100) / total).toFixed(1)} %`,
  }));
}

/** The service's CPU for `fn`, ms per call (process.cpuUsage over `n` calls). */
function cpuPerCall(fn: () => unknown, n: number): number {
  for (let i = 0; i < Math.min(20, n); i++) fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
}

async function main() {
  mkdirSync(path.join(WORK, 'db'), { recursive: true });
  mkdirSync(path.join(WORK, 'st'), { recursive: true });
  copyFileSync(FROM, path.join(WORK, 'db', 'svc.sqlite'));
  const ferret = spawnStandaloneFerret(WORK, PORT, ferretPragmas('normal'));
  let mc: MongoClient | null = null;
  try {
    for (let i = 0; ; i++) {
      try {
        mc = new MongoClient(`mongodb://127.0.0.1:${PORT}/svc`, { serverSelectionTimeoutMS: 2000 });
        await mc.connect();
        break;
      } catch (err) {
        if (i > 40) throw err;
        await sleep(500);
      }
    }
    const db = mc.db();
    const results = db.collection<StoredResultDoc>('batch_results');
    // The template: a finished 100-item one-unit job's result document, as the service wrote it.
    const job = await db
      .collection<{ _id: string }>('batch_jobs')
      .findOne({ units: 1, status: 'completed', total_items: 100 });
    if (!job) throw new Error(`no finished 100-item one-unit job in ${FROM}: run bench/data-scale.ts first`);
    const template = await results.findOne({ _id: `${job._id}#0` });
    if (!template) throw new Error(`job ${job._id} has no result document`);
    const unit = resultOfDoc(template);
    const forms: Record<string, StoredResultDoc> = { v1: packResultDocV1(unit), v2: packResultDoc(unit) };

    // 1. What the bytes are.
    const verified = unit.items.filter((s) => (s.view.result as { attestation?: unknown } | undefined)?.attestation);
    console.log(
      `template ${job._id}#0 (stored as ${template.v === 2 ? 'v2' : 'v1'}): ${unit.items.length} items, ${verified.length} with an attestation token`,
    );
    console.table(breakdown(unit));
    console.table([
      ...Object.entries(forms).map(([form, d]) => ({
        form,
        'BSON bytes': BSON.calculateObjectSize(d) as number | string,
        'items as stored, bytes': d.packed?.length ?? d.zpacked?.position ?? 0,
      })),
      // For the choice: the packed JSON compressed as it is (tokens not split), the same brotli quality.
      {
        form: 'v1 packed, brotli q1, tokens not split (not stored)',
        'BSON bytes': '-',
        'items as stored, bytes': brotliCompressSync(forms.v1!.packed!, {
          params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 },
        }).length,
      },
    ]);

    // 3. The service's own CPU per document (this process; the machine's load inflates it less than wall time).
    const n = 300;
    const bson = Object.fromEntries(Object.entries(forms).map(([f, d]) => [f, BSON.serialize(d)]));
    console.log(`service CPU per 100-item document, ms (mean of ${n}; load ${os.loadavg()[0]!.toFixed(1)})`);
    console.table(
      (['v1', 'v2'] as const).map((f) => ({
        form: f,
        'pack (worker)': round2(cpuPerCall(() => (f === 'v1' ? packResultDocV1(unit) : packResultDoc(unit)), n)),
        'BSON encode (worker)': round2(cpuPerCall(() => BSON.serialize(forms[f]!), n)),
        'BSON decode (API)': round2(cpuPerCall(() => BSON.deserialize(bson[f]!), n)),
        'unpack (API)': round2(cpuPerCall(() => resultOfDoc(forms[f]!), n)),
      })),
    );

    // 2. FerretDB's CPU per document: insert, read by _id, delete (one command for the round's N).
    const totals: Record<string, number[]> = {};
    const push = (k: string, v: number) => (totals[k] ??= []).push(v / JOBS);
    for (let r = 0; r < ROUNDS; r++) {
      for (const form of Object.keys(forms).sort(() => Math.random() - 0.5)) {
        const doc = forms[form]!;
        const ids = Array.from({ length: JOBS }, () => `bj_${randomBytes(12).toString('hex')}`);
        await sleep(300); // the previous writes' commits and the checkpointer settle
        let c0 = procCpuMs(ferret.pid as number);
        for (const id of ids) await results.insertOne({ ...doc, _id: `${id}#0`, job_id: id });
        push(`${form} insert`, procCpuMs(ferret.pid as number) - c0);
        await sleep(300);
        c0 = procCpuMs(ferret.pid as number);
        for (const id of ids) await results.findOne({ _id: `${id}#0` });
        push(`${form} read by _id`, procCpuMs(ferret.pid as number) - c0);
        await sleep(300);
        c0 = procCpuMs(ferret.pid as number);
        await results.bulkWrite(
          ids.map((id) => ({ deleteOne: { filter: { _id: `${id}#0` } } })),
          { ordered: false },
        );
        push(`${form} delete (one command)`, procCpuMs(ferret.pid as number) - c0);
      }
      console.error(`round ${r + 1}/${ROUNDS} done`);
    }
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' ',
        )}; ${JOBS} documents per part and round, ${ROUNDS} rounds, forms interleaved; FerretDB CPU (user + system) per document, ms`,
    );
    console.table(
      Object.entries(totals)
        .sort(([a], [b]) => a.slice(3).localeCompare(b.slice(3)) || a.localeCompare(b))
        .map(([k, v]) => ({
          part: k,
          median: round1(median(v)),
          min: round1(Math.min(...v)),
          max: round1(Math.max(...v)),
        })),
    );
  } finally {
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
