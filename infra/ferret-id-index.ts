// The embedded store's `_id` lookups, answered from an index (issue 22, docs/store-access.md §1, §14).
//
// FerretDB 1.24's SQLite backend looks a document up by `_ferretdb_sjson->'$._id' = ?`, but the
// unique index it creates for `_id` (`<table>__id_`, its registry's table name + "_" + "_id_") is on
// `_ferretdb_sjson->"_id"`. SQLite matches index expressions by their text, so it never uses that
// index for a lookup: every lookup, update and upsert by `_id` would read the whole table.
//
// Session 21: one index does both jobs. The keeper re-creates FerretDB's unique index, under its
// own name, on FerretDB's lookup expression. Both expressions give the same JSON text for every
// document (`->"_id"` is SQLite's object-label form of the path `$._id`), so the index refuses the
// same duplicates (FerretDB answers any SQLITE_CONSTRAINT_UNIQUE of an insert with 11000), and its
// lookups become index searches. Sessions 9-20 kept FerretDB's index and added a second one on the
// lookup expression (`<table>__svc_id_lookup`): SQLite then maintained two B-trees of the same keys
// on every write (session 20 measured −18 % store CPU per batch item with one). A store written by
// that code is converted in place: in one write transaction per file, the second index is dropped
// and FerretDB's is re-created, so no reader or writer ever sees a table without a unique `_id`.
// FerretDB's metadata (index name `_id_`, unique) is untouched: listIndexes, dropIndexes('*') and
// dropping the collection behave as before, and SQLite drops the index with its table.
//
// FerretDB creates a table, then its `_id` index, in separate statements. A table without its
// `_id` index yet is left alone (creating `<table>__id_` first would make FerretDB's own CREATE
// fail and FerretDB drop the new collection); the next sweep converts it.
//
// The keeper sweeps the store's SQLite files before FerretDB starts (the conversion of an existing
// store then holds no one's lock), once the services are up, and then every few seconds (one read
// of sqlite_master when nothing is new). It belongs to the embedded stack only: a real MongoDB
// (MONGODB_URI) indexes `_id` itself.
import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** FerretDB's lookup expression for `_id` (its metadata.IDColumn), to the letter. */
export const FERRET_ID_EXPRESSION = "_ferretdb_sjson->'$._id'";
/** The second index sessions 9-20 added beside FerretDB's (dropped when a table is converted). */
export const LEGACY_LOOKUP_SUFFIX = '__svc_id_lookup';
/** FerretDB's own name of a table's `_id` index (registry.go: table name + "_" + "_id_"). */
export const ferretIdIndexName = (table: string): string => `${table}__id_`;

/**
 * Tables of more documents than this are announced before their conversion (session 22): the
 * rebuild reads and sorts the whole table inside one write transaction (~seconds per 100,000
 * documents on the shared machine), and a store's first start on session 21's layout converts
 * every table, so a slow start says why instead of being silent.
 */
export const LARGE_TABLE_DOCUMENTS = 10_000;

/**
 * Makes FerretDB's unique `_id` index of every collection table of one SQLite file serve its lookups
 * (see above); returns the tables it converted. `onLargeTable` hears of each table of more than
 * `largeTable` documents before it is converted (its count read only when a conversion is due).
 */
export function keepOneFerretIdIndex(
  file: string,
  onLargeTable: (table: string, documents: number) => void = () => {},
  largeTable = LARGE_TABLE_DOCUMENTS,
): string[] {
  // A short busy wait: the sweep runs on the supervisor's event loop; a busy store is tried again next sweep.
  // Never creates the file: a database FerretDB dropped after the folder was listed would come
  // back as an empty file without FerretDB's metadata table, and FerretDB refuses to start on it
  // ("no such table: _ferretdb_collections", seen once in a clean run's store-restart test).
  const db = new Database(file, { timeout: 2_000, fileMustExist: true });
  try {
    const pending = () => {
      // FerretDB's collection tables carry its document column; its own metadata tables start with `_ferretdb_`.
      const tables = db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_ferretdb\\_%' ESCAPE '\\' AND sql LIKE '%_ferretdb_sjson%'`,
        )
        .all() as { name: string }[];
      const indexes = new Map(
        (
          db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index'`).all() as {
            name: string;
            sql: string | null;
          }[]
        ).map((r) => [r.name, r.sql ?? '']),
      );
      return tables
        .map(({ name }) => ({
          name,
          id: indexes.get(ferretIdIndexName(name)),
          legacy: indexes.has(name + LEGACY_LOOKUP_SUFFIX),
        }))
        .filter((t) => t.id !== undefined && (!t.id.includes(FERRET_ID_EXPRESSION) || t.legacy));
    };
    const due = pending();
    if (due.length === 0) return [];
    for (const t of due) {
      const { n } = db.prepare(`SELECT count(*) AS n FROM ${quoteIdent(t.name)}`).get() as { n: number };
      if (n > largeTable) onLargeTable(t.name, n);
    }
    const converted: string[] = [];
    // IMMEDIATE: the write lock first, then the list again (FerretDB may have changed it meanwhile).
    db.transaction(() => {
      for (const t of pending()) {
        db.exec(`DROP INDEX IF EXISTS ${quoteIdent(t.name + LEGACY_LOOKUP_SUFFIX)}`);
        if (!t.id!.includes(FERRET_ID_EXPRESSION)) {
          db.exec(`DROP INDEX ${quoteIdent(ferretIdIndexName(t.name))}`);
          db.exec(
            `CREATE UNIQUE INDEX ${quoteIdent(ferretIdIndexName(t.name))} ON ${quoteIdent(t.name)} (${FERRET_ID_EXPRESSION})`,
          );
        }
        converted.push(t.name);
      }
    }).immediate();
    return converted;
  } finally {
    db.close();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Keeps every collection table of FerretDB's SQLite folder on one `_id` index that serves its lookups. */
export class FerretIdIndexKeeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly intervalMs = 5_000,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  /** One pass over the folder's SQLite files; a file FerretDB has not created yet is skipped. */
  sweep(): number {
    if (!existsSync(this.dir)) return 0;
    let added = 0;
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.sqlite')) continue;
      try {
        const tables = keepOneFerretIdIndex(path.join(this.dir, f), (table, documents) =>
          this.log(
            `converting ${table} in ${f} (${documents.toLocaleString('en-US')} documents) to one _id index: a one-time rebuild that reads the whole table`,
          ),
        );
        added += tables.length;
        if (tables.length) this.log(`one _id index for lookups and uniqueness on ${tables.length} table(s) in ${f}`);
      } catch (err) {
        // Busy past the time-out, or the store is stopped: the next sweep tries again.
        this.log(`_id index sweep of ${f} deferred: ${(err as Error).message}`);
      }
    }
    return added;
  }

  start(): void {
    if (this.timer) return;
    this.sweep();
    this.timer = setInterval(() => this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
