// Benchmark (issue 22, docs/store-access.md §8): what one document's shape costs the embedded
// store. Copies a FerretDB/SQLite store folder (e.g. the one bench/data-scale.ts left seeded in
// .data/bench-scale/ferretdb), starts the project's FerretDB on the copy, and prints FerretDB's
// CPU per operation (/proc/<pid>/stat) for an organization's verdict roll-up written and read
// as nested hour objects (the form stored before session 11) and packed into one string
// (persistence/audit.ts rollupDoc), with a full week of hours and with two, for a proof insert
// into the store's own `proofs` table against a new one, and (session 12) for a batch unit's
// result document (a stored unit of the copy, the fullest found by id) inserted and read with its
// items as nested objects (the form before session 12) and packed (persistence/batch-result-doc.ts packResultDocV1, the form of sessions 12-18).
//   npx tsx bench/store-doc-shape.ts [--store .data/bench-scale/ferretdb] [--ops 100] [--port 30399]
// The copy goes to a temporary folder and is removed after; the source is only read.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { addEntries, emptyRollup, ROLLUP_HOURS, type AuditRollup } from '../core/audit-rollup.js';
import { rollupDoc } from '../persistence/audit.js';
import { packResultDocV1, resultId, resultOfDoc, type StoredResultDoc } from '../persistence/batch.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const SOURCE = path.resolve(arg('store', '.data/bench-scale/ferretdb'));
const OPS = Number(arg('ops', '100'));
const PORT = Number(arg('port', '30399'));
const FERRETDB = path.resolve('.tools/bin/ferretdb');

const cpuMs = (pid: number) => {
  const f = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] as string).split(' ');
  return (Number(f[11]) + Number(f[12])) * (1000 / 100); // clock ticks (100 Hz) to ms
};

/** A roll-up with `hours` hour buckets of three rows each (math / code, verdicts, an admission). */
function rollupOf(hours: number): AuditRollup {
  const t0 = Date.parse('2026-11-20T00:00:00.000Z');
  const entries = Array.from({ length: hours * 3 }, (_, i) => ({
    seq: i + 1,
    domain: i % 2 ? 'code' : 'math',
    verified: i % 3 === 0,
    timestamp: new Date(t0 + Math.floor(i / 3) * 3_600_000).toISOString(),
    result: {
      status: ['VERIFIED', 'BLOCKED', 'UNVERIFIABLE'][i % 3],
      admission: i % 5 ? null : 'BLOCKED',
      attestation_id: i % 3 === 0 ? `att_${i}` : null,
    },
  }));
  return addEntries(emptyRollup(), entries);
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-store-shape-'));
  cpSync(SOURCE, path.join(dir, 'data'), { recursive: true });
  const ferret = spawn(
    FERRETDB,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${path.join(dir, 'data')}/`,
      `--listen-addr=127.0.0.1:${PORT}`,
      '--debug-addr=-',
      '--telemetry=disable',
      `--state-dir=${dir}`,
      '--log-level=warn',
    ],
    { stdio: 'ignore' },
  );
  const pid = ferret.pid as number;
  const client = new MongoClient(`mongodb://127.0.0.1:${PORT}/svc`, { serverSelectionTimeoutMS: 20_000 });
  try {
    await client.connect();
    const db = client.db('svc');
    const rows: Array<Record<string, string | number>> = [];
    const time = async (figure: string, fn: (i: number) => Promise<unknown>) => {
      const c0 = cpuMs(pid);
      const t0 = performance.now();
      for (let i = 0; i < OPS; i++) await fn(i);
      rows.push({
        figure,
        'store CPU ms/op': Math.round(((cpuMs(pid) - c0) / OPS) * 100) / 100,
        'wall ms/op': Math.round(((performance.now() - t0) / OPS) * 100) / 100,
      });
    };
    const rollups = db.collection<{ _id: string } & Record<string, unknown>>('audit_rollups');
    for (const hours of [ROLLUP_HOURS, 2]) {
      const r = rollupOf(hours);
      const nested = `shape_nested_${hours}`;
      const packed = `shape_packed_${hours}`;
      await time(`roll-up write, ${hours} hours, nested objects`, (i) =>
        rollups.replaceOne({ _id: nested }, { ...r, seq: r.seq + i, updated_at: new Date() }, { upsert: true }),
      );
      await time(`roll-up write, ${hours} hours, packed (rollupDoc)`, (i) =>
        rollups.replaceOne({ _id: packed }, { ...rollupDoc(packed, r), seq: r.seq + i }, { upsert: true }),
      );
      await time(`roll-up findOne, ${hours} hours, nested objects`, () => rollups.findOne({ _id: nested }));
      await time(`roll-up findOne, ${hours} hours, packed (rollupDoc)`, () => rollups.findOne({ _id: packed }));
    }
    const proofs = db.collection<{ _id: string } & Record<string, unknown>>('proofs');
    const sample = (await proofs.findOne({})) ?? { kind: 'math', artifact: 'x'.repeat(1200) };
    // (No count of the table: on FerretDB/SQLite a count reads the whole collection.)
    await time("proof insert into the store's own proofs table", (i) =>
      proofs.insertOne({ ...sample, _id: `shape_${Date.now()}_${i}` }),
    );
    await time('proof insert into a new table', (i) =>
      db
        .collection<{ _id: string } & Record<string, unknown>>('shape_proofs')
        .insertOne({ ...sample, _id: `shape_${Date.now()}_${i}` }),
    );
    // A batch unit as the service stores it: a finished job's first unit (the jobs named by the slots, point lookups).
    const results = db.collection<StoredResultDoc>('batch_results');
    const slots = await db
      .collection<{ _id: string | number; job_id: string | null }>('batch_slots')
      .find({})
      .limit(50)
      .toArray();
    const found = await Promise.all(
      slots.filter((sl) => sl.job_id).map((sl) => results.findOne({ _id: resultId(sl.job_id as string, 0) })),
    );
    const units = found.filter((d): d is StoredResultDoc => d !== null).map(resultOfDoc);
    const unit = units.sort((a, b) => b.items.length - a.items.length)[0];
    if (unit) {
      const nested = { ...unit, _id: 'shape_unit_nested' };
      // The session-12 form (version 2, compressed, is priced by bench/result-doc-cost.ts).
      const packed = packResultDocV1({ ...unit, _id: 'shape_unit_packed' });
      const n = unit.items.length;
      await time(`batch unit insert, ${n} items, nested objects`, (i) =>
        results.insertOne({ ...nested, _id: `${nested._id}_${i}` }),
      );
      await time(`batch unit insert, ${n} items, packed (packResultDocV1)`, (i) =>
        results.insertOne({ ...packed, _id: `${packed._id}_${i}` }),
      );
      await time(`batch unit findOne, ${n} items, nested objects`, (i) =>
        results.findOne({ _id: `${nested._id}_${i}` }),
      );
      await time(`batch unit findOne, ${n} items, packed (packResultDocV1)`, (i) =>
        results.findOne({ _id: `${packed._id}_${i}` }),
      );
      console.log(
        `batch unit: ${n} items; as JSON nested ${JSON.stringify(nested).length} B, packed ${JSON.stringify(packed).length} B`,
      );
    } else console.log('no finished batch unit in the copy: batch unit rows skipped');
    console.log(`store copied from ${SOURCE}; ${OPS} operations per figure, one client, one at a time`);
    console.table(rows);
  } finally {
    await client.close().catch(() => undefined);
    ferret.kill('SIGTERM');
    await new Promise((r) => ferret.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
