// Session 22 (issue 22, set-up hygiene): the one-`_id`-index sweep (infra/ferret-id-index.ts)
// announces each table of more than LARGE_TABLE_DOCUMENTS documents, with its count, before it
// rebuilds its index, so a slow first start on an older store is not silent; small tables and
// tables already converted say nothing more than before.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FerretIdIndexKeeper, keepOneFerretIdIndex, LARGE_TABLE_DOCUMENTS } from '../../infra/ferret-id-index.js';

const root = mkdtempSync(path.join(tmpdir(), 'ferret-id-log-s22-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A SQLite file laid out as FerretDB 1.24 lays it out, its tables on FerretDB's own (unused) `_id` index. */
function store(dir: string, tables: Record<string, number>): string {
  const file = path.join(dir, 'svc.sqlite');
  const db = new Database(file);
  db.exec(`CREATE TABLE "_ferretdb_collections" (name TEXT PRIMARY KEY, table_name TEXT, settings TEXT)`);
  for (const [t, rows] of Object.entries(tables)) {
    db.exec(`CREATE TABLE "${t}" (_ferretdb_sjson TEXT NOT NULL CHECK(_ferretdb_sjson != '')) STRICT`);
    db.exec(`CREATE UNIQUE INDEX "${t}__id_" ON "${t}" (_ferretdb_sjson->'_id')`);
    const ins = db.prepare(`INSERT INTO "${t}" VALUES (?)`);
    db.transaction(() => {
      for (let i = 0; i < rows; i++) ins.run(JSON.stringify({ _id: `doc-${i}` }));
    })();
  }
  db.close();
  return file;
}

describe('the _id index sweep on large tables (session 22)', () => {
  it('logs a table of more than 10,000 documents, with its count, before converting it; small tables are not named', () => {
    expect(LARGE_TABLE_DOCUMENTS).toBe(10_000);
    const dir = mkdtempSync(path.join(root, 'keeper-'));
    store(dir, { big_1a2b: LARGE_TABLE_DOCUMENTS + 1, edge_3c4d: LARGE_TABLE_DOCUMENTS, small_5e6f: 50 });
    const lines: string[] = [];
    const keeper = new FerretIdIndexKeeper(dir, 5_000, (m) => lines.push(m));
    expect(keeper.sweep()).toBe(3);
    expect(lines).toEqual([
      'converting big_1a2b in svc.sqlite (10,001 documents) to one _id index: a one-time rebuild that reads the whole table',
      'one _id index for lookups and uniqueness on 3 table(s) in svc.sqlite',
    ]);
    // Converted: the next sweep neither counts nor says anything.
    lines.length = 0;
    expect(keeper.sweep()).toBe(0);
    expect(lines).toEqual([]);
  });

  it('the threshold is a parameter; the count is read only when a conversion is due', () => {
    const dir = mkdtempSync(path.join(root, 'fn-'));
    const file = store(dir, { a_1: 30, b_2: 5 });
    const heard: Array<[string, number]> = [];
    expect(keepOneFerretIdIndex(file, (t, n) => heard.push([t, n]), 10).sort()).toEqual(['a_1', 'b_2']);
    expect(heard).toEqual([['a_1', 30]]);
    heard.length = 0;
    expect(keepOneFerretIdIndex(file, (t, n) => heard.push([t, n]), 0)).toEqual([]);
    expect(heard).toEqual([]);
  });
});
