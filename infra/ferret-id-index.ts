// The embedded store's `_id` lookups, answered from an index (issue 22, docs/store-access.md §1).
//
// FerretDB 1.24's SQLite backend looks a document up by `_ferretdb_sjson->'$._id' = ?`, but the
// unique index it creates for `_id` is on `_ferretdb_sjson->"_id"`. SQLite matches index
// expressions by their text, so it never uses that index: every lookup, update and upsert by
// `_id` read the whole table (a proof lookup: 8.9 ms on 1,500 documents, linear in the table).
// An index on FerretDB's exact lookup expression turns each of those into an index search
// (0.01 ms on the same table). The documents, FerretDB's own indexes and its metadata are left
// as they are; SQLite drops our index with its table when FerretDB drops a collection.
//
// FerretDB creates a table when a collection first appears, so the keeper sweeps the store's
// SQLite files at start and then every few seconds (one read of sqlite_master when nothing is
// new). It belongs to the embedded stack only: a real MongoDB (MONGODB_URI) indexes `_id` itself.
import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** FerretDB's lookup expression for `_id` (its metadata.IDColumn), to the letter. */
export const FERRET_ID_EXPRESSION = "_ferretdb_sjson->'$._id'";
const INDEX_SUFFIX = '__svc_id_lookup';

/** Adds the `_id` lookup index to every FerretDB collection table of one SQLite file; returns the tables it indexed. */
export function indexFerretIdLookups(file: string): string[] {
  // A short busy wait: the sweep runs on the supervisor's event loop; a busy store is tried again next sweep.
  // Never creates the file: a database FerretDB dropped after the folder was listed would come
  // back as an empty file without FerretDB's metadata table, and FerretDB refuses to start on it
  // ("no such table: _ferretdb_collections", seen once in a clean run's store-restart test).
  const db = new Database(file, { timeout: 2_000, fileMustExist: true });
  try {
    // FerretDB's collection tables carry its document column; its own metadata tables start with `_ferretdb_`.
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_ferretdb\\_%' ESCAPE '\\' AND sql LIKE '%_ferretdb_sjson%'`,
      )
      .all() as { name: string }[];
    const indexed = new Set(
      (
        db
          .prepare(`SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name LIKE ?`)
          .all(`%${INDEX_SUFFIX}`) as { tbl_name: string }[]
      ).map((r) => r.tbl_name),
    );
    const added: string[] = [];
    for (const { name } of tables) {
      if (indexed.has(name)) continue;
      db.exec(
        `CREATE INDEX IF NOT EXISTS ${quoteIdent(name + INDEX_SUFFIX)} ON ${quoteIdent(name)} (${FERRET_ID_EXPRESSION})`,
      );
      added.push(name);
    }
    return added;
  } finally {
    db.close();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Keeps every collection table of FerretDB's SQLite folder indexed for `_id` lookups while the stack runs. */
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
        const tables = indexFerretIdLookups(path.join(this.dir, f));
        added += tables.length;
        if (tables.length) this.log(`indexed _id lookups of ${tables.length} new table(s) in ${f}`);
      } catch (err) {
        // Busy past the time-out, or the store is stopped: the next sweep tries again.
        this.log(`_id lookup index sweep of ${f} deferred: ${(err as Error).message}`);
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
