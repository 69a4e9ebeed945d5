// How the embedded store opens its SQLite files (issue 22, docs/store-access.md §10).
//
// FerretDB 1.24 opens one SQLite file per database through modernc.org/sqlite and passes the
// query of `--sqlite-url` to the driver: every `_pragma=name(value)` runs on each connection it
// opens. Its own defaults are `auto_vacuum(none)`, `busy_timeout(10000)` and `journal_mode(wal)`;
// `synchronous` is left at SQLite's FULL, so every commit waits for an fsync of the WAL. SQLite has
// one writer per file, so every write of every collection (admissions, proofs, audit entries,
// the running jobs' results) queues behind the fsyncs of the commits before it: ~5.6 ms each on
// this machine's disk, more on a busy one (session 14: the POST /verify/batch admissions' writes
// waited in steps within a burst).
//
// `synchronous(normal)` in WAL mode syncs at checkpoints only. A commit is still atomic and
// survives a crash or SIGKILL of the store (the WAL is in the operating system's cache; the
// store-restart test kills it), but the last commits before a power loss or an OS crash may roll
// back: the same choice the stack's Temporal server runs with (infra/stack.ts), and what a
// standalone MongoDB acknowledges with its default write concern (journal flushed every 100 ms).
// SVC_STORE_SYNC=full keeps FerretDB's default for an operator who wants every commit on disk.
//
// `wal_autocheckpoint` (session 16): the stack checkpoints the files from a thread of its own, once a
// second (infra/ferret-checkpointer.ts), instead of inside the commit that took the WAL past 1,000
// pages, which under continuous load was nearly every commit. The threshold stays as a backstop
// (100,000 pages, ~400 MiB) for a FerretDB whose supervisor's checkpointer is not running.
//
// `journal_size_limit` (session 17): when a writer starts the WAL again from its beginning (SQLite
// does once every frame is in the store file and no reader still uses the WAL), its commit
// truncates the WAL file to this size; without it the file keeps the largest size it ever had.
// The checkpointer empties the WAL past the same size (infra/ferret-checkpointer.ts); this covers
// the restarts SQLite does on its own, at the price of one truncate per restart.
//
// `temp_store(memory)` (session 22, docs/store-access.md §15): FerretDB writes a command's documents
// in one transaction, one statement each, and SQLite keeps a statement journal for them (the
// original of each existing page a statement changes, so that it alone can be undone). The
// journal lives in memory up to 64 KiB and is then spilled to a temporary file: a `pwrite` per
// page. A group insert of random `_id`s into a large collection changes an existing index leaf per
// document, so on a seeded store a group's journal spilled (measured: 0.8x the WAL's bytes written
// again), where an empty store's tables take mostly new pages, which need no journal. In memory the
// journal is a copy, not a system call: -44 % of the bytes FerretDB writes and -13 to -22 % of its
// CPU per group-inserted item on both sizes (bench/store-growth.ts). The price is memory while a
// transaction runs (its changed pages' originals); the service writes bounded groups, FerretDB's
// deletes run outside a transaction, and its SQLite backend sorts in Go (no ORDER BY but a capped
// collection's record id), so no other temporary file is built.
import { pathToFileURL } from 'node:url';

export type StoreSync = 'normal' | 'full';

/** WAL pages past which FerretDB's own connections checkpoint (a backstop; see above). */
export const WAL_AUTOCHECKPOINT_BACKSTOP = 100_000;

/** The WAL file size (bytes) a restarted WAL is truncated to (see above; the checkpointer's limit). */
export const WAL_JOURNAL_SIZE_LIMIT = 64 * 2 ** 20;

/** The pragmas the stack adds to FerretDB's own (each runs on every connection FerretDB opens). */
export function ferretPragmas(sync: StoreSync): string[] {
  return [
    `synchronous(${sync})`,
    `wal_autocheckpoint(${WAL_AUTOCHECKPOINT_BACKSTOP})`,
    `journal_size_limit(${WAL_JOURNAL_SIZE_LIMIT})`,
    'temp_store(memory)',
  ];
}

/** The durability setting from the supervisor's environment: `full` or (default) `normal`; anything else is refused. */
export function storeSync(value: string | undefined): StoreSync {
  if (value === undefined || value === '' || value === 'normal') return 'normal';
  if (value === 'full') return 'full';
  throw new Error(`SVC_STORE_SYNC must be "normal" or "full", got ${JSON.stringify(value)}`);
}

/** FerretDB's `--sqlite-url` for the folder `dir`, with the pragmas above (a `file:` URL ending in `/`). */
export function ferretSqliteUrl(dir: string, sync: StoreSync): string {
  const base = pathToFileURL(dir.endsWith('/') ? dir : `${dir}/`);
  for (const p of ferretPragmas(sync)) base.searchParams.append('_pragma', p);
  // FerretDB wants `file:/path/` (an empty authority is accepted too); keep `(`, `)` readable.
  return base.href
    .replace(/^file:\/\//, 'file:')
    .replace(/%28/g, '(')
    .replace(/%29/g, ')');
}
