// The embedded store's `_id` lookup index (infra/ferret-id-index.ts) on a table laid out as
// FerretDB 1.24's SQLite backend lays one out: its own `_id` index is not used by its lookup,
// ours is, and a sweep is idempotent.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FERRET_ID_EXPRESSION, FerretIdIndexKeeper, indexFerretIdLookups } from '../../infra/ferret-id-index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ferret-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOOKUP = (table: string) => `SELECT _ferretdb_sjson FROM "${table}" WHERE ${FERRET_ID_EXPRESSION} = ?`;

function ferretLikeStore(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE "_ferretdb_collections" (name TEXT PRIMARY KEY, table_name TEXT, settings TEXT)`);
  for (const t of ['proofs_b863b48e', 'audit_logs_b58122b6']) {
    db.exec(`CREATE TABLE "${t}" (_ferretdb_sjson TEXT)`);
    // FerretDB's own unique index: its registry writes `->"_id"`, which SQLite reads as this string path.
    db.exec(`CREATE UNIQUE INDEX "${t}__id_" ON "${t}" (_ferretdb_sjson->'_id')`);
    const ins = db.prepare(`INSERT INTO "${t}" VALUES (?)`);
    for (let i = 0; i < 2000; i++) ins.run(JSON.stringify({ _id: `doc-${i}`, n: i }));
  }
  db.close();
}

const plan = (file: string, table: string): string =>
  (
    new Database(file, { readonly: true })
      .prepare(`EXPLAIN QUERY PLAN ${LOOKUP(table)}`)
      .all(JSON.stringify('doc-7')) as { detail: string }[]
  )
    .map((r) => r.detail)
    .join('; ');

describe('FerretDB _id lookup index', () => {
  const file = path.join(dir, 'svc.sqlite');
  ferretLikeStore(file);

  it("FerretDB's lookup scans the table under its own index, and searches ours once swept", () => {
    expect(plan(file, 'proofs_b863b48e')).toMatch(/^SCAN proofs_b863b48e/);
    expect(indexFerretIdLookups(file).sort()).toEqual(['audit_logs_b58122b6', 'proofs_b863b48e']);
    expect(plan(file, 'proofs_b863b48e')).toMatch(/SEARCH proofs_b863b48e USING INDEX proofs_b863b48e__svc_id_lookup/);
    // Same rows through the index as through the scan.
    const db = new Database(file, { readonly: true });
    expect(db.prepare(LOOKUP('audit_logs_b58122b6')).all(JSON.stringify('doc-1999'))).toEqual([
      { _ferretdb_sjson: JSON.stringify({ _id: 'doc-1999', n: 1999 }) },
    ]);
    db.close();
  });

  it("is idempotent and leaves FerretDB's metadata tables alone; the keeper picks up a new table", () => {
    expect(indexFerretIdLookups(file)).toEqual([]);
    const db = new Database(file);
    expect(
      db
        .prepare(
          `SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = '_ferretdb_collections' AND name LIKE '%svc%'`,
        )
        .get(),
    ).toEqual({ n: 0 });
    db.exec(`CREATE TABLE "batch_jobs_0a1b2c3d" (_ferretdb_sjson TEXT)`);
    db.close();
    const keeper = new FerretIdIndexKeeper(dir);
    expect(keeper.sweep()).toBe(1);
    expect(keeper.sweep()).toBe(0);
  });

  it('never creates a file: a database dropped between the folder listing and the sweep stays gone', () => {
    const gone = path.join(dir, 'dropped.sqlite');
    expect(() => indexFerretIdLookups(gone)).toThrow();
    expect(existsSync(gone)).toBe(false);
  });
});
