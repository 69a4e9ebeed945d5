// The embedded store's `_id` index (infra/ferret-id-index.ts) on tables laid out as FerretDB 1.24's
// SQLite backend lays them out: its own unique `_id` index is not used by its lookup; the keeper
// re-creates it under its own name on the lookup expression (session 21), converts a store written
// with sessions 9-20's second lookup index, leaves a table without its `_id` index yet alone, and a
// sweep is idempotent.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FERRET_ID_EXPRESSION,
  FerretIdIndexKeeper,
  keepOneFerretIdIndex,
  LEGACY_LOOKUP_SUFFIX,
} from '../../infra/ferret-id-index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ferret-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOOKUP = (table: string) => `SELECT _ferretdb_sjson FROM "${table}" WHERE ${FERRET_ID_EXPRESSION} = ?`;

/** A table as FerretDB creates one: its document column, then its unique `_id` index (registry.go). */
function ferretTable(db: Database.Database, t: string, rows = 2000, withIdIndex = true): void {
  db.exec(`CREATE TABLE "${t}" (_ferretdb_sjson TEXT NOT NULL CHECK(_ferretdb_sjson != '')) STRICT`);
  // FerretDB's registry writes `->"_id"`, which SQLite reads as this object label (`$._id`).
  if (withIdIndex) db.exec(`CREATE UNIQUE INDEX "${t}__id_" ON "${t}" (_ferretdb_sjson->'_id')`);
  const ins = db.prepare(`INSERT INTO "${t}" VALUES (?)`);
  for (let i = 0; i < rows; i++) ins.run(JSON.stringify({ _id: `doc-${i}`, n: i }));
}

function ferretLikeStore(file: string, tables: string[]): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE "_ferretdb_collections" (name TEXT PRIMARY KEY, table_name TEXT, settings TEXT)`);
  for (const t of tables) ferretTable(db, t);
  db.close();
}

const plan = (file: string, table: string): string => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`EXPLAIN QUERY PLAN ${LOOKUP(table)}`).all(JSON.stringify('doc-7')) as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  } finally {
    db.close();
  }
};

/** Every index of a table: name, unique, and its SQL. */
const indexes = (file: string, table: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name`)
        .all(table) as {
        name: string;
        sql: string;
      }[]
    ).map((r) => ({
      name: r.name,
      unique: /^CREATE UNIQUE INDEX/.test(r.sql),
      lookup: r.sql.includes(FERRET_ID_EXPRESSION),
    }));
  } finally {
    db.close();
  }
};

describe('FerretDB _id index', () => {
  const file = path.join(dir, 'svc.sqlite');
  ferretLikeStore(file, ['proofs_b863b48e', 'audit_logs_b58122b6']);

  it("FerretDB's lookup scans the table under its own index, and searches it once the keeper re-created it", () => {
    expect(plan(file, 'proofs_b863b48e')).toMatch(/^SCAN proofs_b863b48e/);
    expect(keepOneFerretIdIndex(file).sort()).toEqual(['audit_logs_b58122b6', 'proofs_b863b48e']);
    expect(plan(file, 'proofs_b863b48e')).toMatch(
      /^SEARCH proofs_b863b48e USING INDEX proofs_b863b48e__id_ \(<expr>=\?\)$/,
    );
    // One index per table, FerretDB's name, unique, on the lookup expression.
    expect(indexes(file, 'proofs_b863b48e')).toEqual([{ name: 'proofs_b863b48e__id_', unique: true, lookup: true }]);
    // Same rows through the index as through the scan.
    const db = new Database(file, { readonly: true });
    expect(db.prepare(LOOKUP('audit_logs_b58122b6')).all(JSON.stringify('doc-1999'))).toEqual([
      { _ferretdb_sjson: JSON.stringify({ _id: 'doc-1999', n: 1999 }) },
    ]);
    db.close();
  });

  it("the re-created index refuses the same duplicates as FerretDB's (the JSON text of `_id`)", () => {
    const db = new Database(file);
    try {
      const ins = db.prepare(`INSERT INTO "proofs_b863b48e" VALUES (?)`);
      expect(() => ins.run(JSON.stringify({ _id: 'doc-5', other: true }))).toThrow(/UNIQUE constraint failed/);
      expect(() => ins.run(JSON.stringify({ n: 1, _id: 'doc-5' }))).toThrow(/UNIQUE constraint failed/);
      // Different values (a number against a string, an object) are different keys, as before.
      ins.run(JSON.stringify({ _id: 5 }));
      ins.run(JSON.stringify({ _id: { a: 'doc-5' } }));
      expect(() => ins.run(JSON.stringify({ _id: { a: 'doc-5' } }))).toThrow(/UNIQUE constraint failed/);
    } finally {
      db.close();
    }
  });

  it("is idempotent and leaves FerretDB's metadata tables alone; the keeper picks up a new table", () => {
    expect(keepOneFerretIdIndex(file)).toEqual([]);
    const db = new Database(file);
    expect(
      db
        .prepare(
          `SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = '_ferretdb_collections' AND name LIKE '%svc%'`,
        )
        .get(),
    ).toEqual({ n: 0 });
    ferretTable(db, 'batch_jobs_0a1b2c3d', 10);
    db.close();
    const keeper = new FerretIdIndexKeeper(dir);
    expect(keeper.sweep()).toBe(1);
    expect(keeper.sweep()).toBe(0);
  });

  it('never creates a file: a database dropped between the folder listing and the sweep stays gone', () => {
    const gone = path.join(dir, 'dropped.sqlite');
    expect(() => keepOneFerretIdIndex(gone)).toThrow();
    expect(existsSync(gone)).toBe(false);
  });
});

describe('FerretDB _id index (session 21): stores written by older code, and FerretDB mid-create', () => {
  it("converts a store written by sessions 9-20 (FerretDB's index plus the lookup index) to one index, keeping every row", () => {
    const file = path.join(dir, 'upgrade.sqlite');
    ferretLikeStore(file, ['proofs_b863b48e']);
    const db = new Database(file);
    db.exec(`CREATE INDEX "proofs_b863b48e${LEGACY_LOOKUP_SUFFIX}" ON "proofs_b863b48e" (${FERRET_ID_EXPRESSION})`);
    db.close();
    expect(plan(file, 'proofs_b863b48e')).toMatch(/USING INDEX proofs_b863b48e__svc_id_lookup/);
    expect(keepOneFerretIdIndex(file)).toEqual(['proofs_b863b48e']);
    expect(indexes(file, 'proofs_b863b48e')).toEqual([{ name: 'proofs_b863b48e__id_', unique: true, lookup: true }]);
    const ro = new Database(file, { readonly: true });
    expect(ro.prepare(`SELECT count(*) AS n FROM "proofs_b863b48e"`).get()).toEqual({ n: 2000 });
    expect(ro.prepare(LOOKUP('proofs_b863b48e')).get(JSON.stringify('doc-1234'))).toEqual({
      _ferretdb_sjson: JSON.stringify({ _id: 'doc-1234', n: 1234 }),
    });
    ro.close();
  });

  it('drops a lookup index that older code added again after the conversion (a rollback, then this code again)', () => {
    const file = path.join(dir, 'upgrade.sqlite');
    const db = new Database(file);
    db.exec(`CREATE INDEX "proofs_b863b48e${LEGACY_LOOKUP_SUFFIX}" ON "proofs_b863b48e" (${FERRET_ID_EXPRESSION})`);
    db.close();
    expect(keepOneFerretIdIndex(file)).toEqual(['proofs_b863b48e']);
    expect(indexes(file, 'proofs_b863b48e')).toEqual([{ name: 'proofs_b863b48e__id_', unique: true, lookup: true }]);
  });

  it("leaves a table FerretDB has created but not yet indexed alone, so FerretDB's own CREATE INDEX still succeeds", () => {
    const file = path.join(dir, 'midcreate.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE "_ferretdb_collections" (name TEXT PRIMARY KEY, table_name TEXT, settings TEXT)`);
    ferretTable(db, 'new_0badcafe', 0, false);
    db.close();
    expect(keepOneFerretIdIndex(file)).toEqual([]);
    expect(indexes(file, 'new_0badcafe')).toEqual([]);
    // FerretDB's next statement, then the next sweep.
    const w = new Database(file);
    w.exec(`CREATE UNIQUE INDEX "new_0badcafe__id_" ON "new_0badcafe" (_ferretdb_sjson->'_id')`);
    w.close();
    expect(keepOneFerretIdIndex(file)).toEqual(['new_0badcafe']);
    expect(indexes(file, 'new_0badcafe')).toEqual([{ name: 'new_0badcafe__id_', unique: true, lookup: true }]);
  });
});
