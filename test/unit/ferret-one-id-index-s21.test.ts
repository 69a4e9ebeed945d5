// One `_id` index per FerretDB table (session 21, infra/ferret-id-index.ts), on the project's real
// FerretDB 1.24 binary (no stack): a store written with sessions 9-20's layout (FerretDB's unused
// unique index plus the keeper's lookup index) is converted in place before FerretDB opens it, as
// the stack's start does, and FerretDB then answers everything as before: the data, 11000 for a
// duplicate `_id` (insertOne, an ordered insertMany, an upsert race's loser), listIndexes,
// dropIndexes('*'), a dropped and re-created collection (converted by the next sweep while
// FerretDB runs), a renamed collection.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { FERRET_ID_EXPRESSION, FerretIdIndexKeeper, LEGACY_LOOKUP_SUFFIX } from '../../infra/ferret-id-index.js';
import { ferretPragmas } from '../../infra/ferret-sqlite.js';
import { freePort, spawnStandaloneFerret } from '../../bench/standalone-ferret.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ferret-one-id-'));
const file = path.join(dir, 'db', 'svc.sqlite');
let proc: ChildProcess | null = null;
let client: MongoClient | null = null;

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<Db> {
  const port = await freePort();
  proc = spawnStandaloneFerret(dir, port, ferretPragmas('normal'));
  for (let i = 0; ; i++) {
    try {
      client = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, { serverSelectionTimeoutMS: 1_000 });
      await client.connect();
      return client.db();
    } catch (err) {
      await client?.close().catch(() => undefined);
      if (i > 60) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function stop(): Promise<void> {
  await client?.close().catch(() => undefined);
  client = null;
  const p = proc;
  proc = null;
  if (!p || p.exitCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}

/** Name, uniqueness and expression of every index on a collection's table (read from the file). */
function tableIndexes(prefix: string): {
  table: string;
  indexes: { name: string; unique: boolean; lookup: boolean }[];
} {
  const db = new Database(file, { readonly: true, timeout: 5_000 });
  try {
    const table = (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? ESCAPE '\\'`)
        .get(`${prefix}\\_%`) as { name: string } | undefined
    )?.name;
    if (!table) throw new Error(`no table for ${prefix}`);
    const rows = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name`)
      .all(table) as { name: string; sql: string }[];
    return {
      table,
      indexes: rows.map((r) => ({
        name: r.name.slice(table.length),
        unique: r.sql.startsWith('CREATE UNIQUE INDEX'),
        lookup: r.sql.includes(FERRET_ID_EXPRESSION),
      })),
    };
  } finally {
    db.close();
  }
}

const ONE_ID_INDEX = { name: '__id_', unique: true, lookup: true };

async function duplicateCode(p: Promise<unknown>): Promise<number | string> {
  return p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof MongoServerError ? (e.code as number) : String(e)),
  );
}

describe('one _id index per FerretDB table, on the real FerretDB', () => {
  it("converts a store written with sessions 9-20's layout before FerretDB opens it; data and 11000 as before", async () => {
    let db = await start();
    await db
      .collection('proofs')
      .insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: `p-${i}`, n: i })) as never[]);
    await db.collection('proofs').createIndex({ n: 1 });
    await db.collection('audit_seq').insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, v: i })) as never[]);
    await stop();
    // What 0a0720a's keeper left: FerretDB's own unique index (not on the lookup expression) and a second one.
    const legacy = new Database(file);
    for (const p of ['proofs', 'audit_seq']) {
      const { table } = tableIndexes(p);
      legacy.exec(`CREATE INDEX "${table}${LEGACY_LOOKUP_SUFFIX}" ON "${table}" (${FERRET_ID_EXPRESSION})`);
    }
    legacy.close();
    expect(tableIndexes('proofs').indexes).toEqual([
      { name: '__id_', unique: true, lookup: false },
      { name: LEGACY_LOOKUP_SUFFIX, unique: false, lookup: true },
      { name: '_n_1', unique: false, lookup: false },
    ]);

    // The stack's start: one sweep before FerretDB opens the folder.
    expect(new FerretIdIndexKeeper(path.join(dir, 'db')).sweep()).toBe(2);
    expect(tableIndexes('proofs').indexes).toEqual([ONE_ID_INDEX, { name: '_n_1', unique: false, lookup: false }]);
    expect(tableIndexes('audit_seq').indexes).toEqual([ONE_ID_INDEX]);

    db = await start();
    const proofs = db.collection<{ _id: string; n: number; seen?: boolean }>('proofs');
    expect(await proofs.countDocuments()).toBe(500);
    expect(await proofs.findOne({ _id: 'p-321' })).toEqual({ _id: 'p-321', n: 321 });
    expect(await db.collection('audit_seq').findOne({ _id: 49 } as never)).toEqual({ _id: 49, v: 49 });
    expect(await duplicateCode(proofs.insertOne({ _id: 'p-7', n: -1 }))).toBe(11000);
    expect(await duplicateCode(db.collection('audit_seq').insertOne({ _id: 3 } as never))).toBe(11000);
    // An ordered insertMany stops at the duplicate; the document before it stays.
    const many = await proofs
      .insertMany([
        { _id: 'p-new-1', n: 1 },
        { _id: 'p-8', n: 2 },
        { _id: 'p-new-2', n: 3 },
      ])
      .then(
        () => null,
        (e: MongoServerError & { result?: { insertedCount?: number } }) => ({
          code: e.code,
          inserted: e.result?.insertedCount,
        }),
      );
    expect(many).toEqual({ code: 11000, inserted: 1 });
    expect(await proofs.findOne({ _id: 'p-new-2' })).toBeNull();
    expect(await proofs.findOne({ _id: 'p-8' })).toEqual({ _id: 'p-8', n: 8 });
    // Updates and upserts by `_id`; changing `_id` is refused as before.
    await proofs.updateOne({ _id: 'p-9' }, { $set: { seen: true } });
    expect(await proofs.findOne({ _id: 'p-9' })).toEqual({ _id: 'p-9', n: 9, seen: true });
    await proofs.updateOne({ _id: 'p-up' }, { $set: { n: 1000 } }, { upsert: true });
    expect(await proofs.findOne({ _id: 'p-up' })).toEqual({ _id: 'p-up', n: 1000 });
    expect(await duplicateCode(proofs.replaceOne({ _id: 'p-10' }, { _id: 'p-11', n: 0 } as never))).toBe(66);
    expect(await proofs.countDocuments()).toBe(502);
    // FerretDB's metadata is untouched: listIndexes, and dropIndexes('*') keeps `_id_`.
    expect((await proofs.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'n_1']);
    await proofs.dropIndexes();
    expect((await proofs.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    expect(tableIndexes('proofs').indexes).toEqual([ONE_ID_INDEX]);
    expect(await duplicateCode(proofs.insertOne({ _id: 'p-12', n: 0 }))).toBe(11000);
  });

  it("a collection dropped and created again gets FerretDB's index back, and the next sweep converts it while FerretDB runs", async () => {
    const db = client!.db();
    await db.collection('proofs').drop();
    await db.collection('proofs').insertOne({ _id: 'again-1', n: 1 } as never);
    // FerretDB's own layout again: its unique index, not on the lookup expression; uniqueness holds meanwhile.
    expect(tableIndexes('proofs').indexes).toEqual([{ name: '__id_', unique: true, lookup: false }]);
    expect(await duplicateCode(db.collection('proofs').insertOne({ _id: 'again-1' } as never))).toBe(11000);
    const keeper = new FerretIdIndexKeeper(path.join(dir, 'db'));
    expect(keeper.sweep()).toBe(1);
    expect(keeper.sweep()).toBe(0);
    expect(tableIndexes('proofs').indexes).toEqual([ONE_ID_INDEX]);
    // FerretDB's open connections and prepared statements follow the schema change.
    expect(await db.collection('proofs').findOne({ _id: 'again-1' } as never)).toEqual({ _id: 'again-1', n: 1 });
    expect(await duplicateCode(db.collection('proofs').insertOne({ _id: 'again-1' } as never))).toBe(11000);
    await db.collection('proofs').insertOne({ _id: 'again-2', n: 2 } as never);
    expect(await db.collection('proofs').countDocuments()).toBe(2);
    // Racing upserts of one new `_id`: one document, however many answered E11000 (the service retries those).
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        duplicateCode(
          db.collection('proofs').updateOne({ _id: 'race' } as never, { $inc: { n: 1 } }, { upsert: true }),
        ),
      ),
    );
    expect(results.every((r) => r === 'accepted' || r === 11000)).toBe(true);
    expect(await db.collection('proofs').countDocuments({ _id: 'race' } as never)).toBe(1);
  });

  it('a renamed collection keeps the one index and its uniqueness', async () => {
    const db = client!.db();
    await db.collection('proofs').rename('proofs_renamed');
    expect(await db.collection('proofs_renamed').findOne({ _id: 'again-2' } as never)).toEqual({
      _id: 'again-2',
      n: 2,
    });
    expect(await duplicateCode(db.collection('proofs_renamed').insertOne({ _id: 'again-2' } as never))).toBe(11000);
    expect(new FerretIdIndexKeeper(path.join(dir, 'db')).sweep()).toBe(0);
  });
});
