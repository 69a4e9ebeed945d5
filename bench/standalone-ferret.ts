// FerretDB on its own, for the benches that measure the store alone (store-growth, store-pragmas,
// store-wal, evict-cost): the project's FerretDB 1.24 binary on a scratch folder, loopback only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { FERRET_ID_EXPRESSION, keepOneFerretIdIndex, LEGACY_LOOKUP_SUFFIX } from '../infra/ferret-id-index.js';
import { ROOT } from '../infra/stack.js';

/** Starts FerretDB's SQLite handler on `dir/db` with `pragmas` (state in `dir/st`), listening on 127.0.0.1:`port`. */
export function spawnStandaloneFerret(
  dir: string,
  port: number,
  pragmas: readonly string[],
  debugPort: number | null = null,
): ChildProcess {
  mkdirSync(`${dir}/db`, { recursive: true });
  mkdirSync(`${dir}/st`, { recursive: true });
  const q = pragmas.map((p) => `_pragma=${p}`).join('&');
  return spawn(
    path.join(ROOT, '.tools', 'bin', 'ferretdb'),
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/db/${q ? `?${q}` : ''}`,
      `--listen-addr=127.0.0.1:${port}`,
      `--debug-addr=${debugPort ? `127.0.0.1:${debugPort}` : '-'}`,
      '--telemetry=disable',
      `--state-dir=${dir}/st`,
      '--log-level=error',
    ],
    { stdio: 'ignore' },
  );
}

/** A port nobody listens on now: a fixed port can be taken by another process's outgoing connection on a busy machine. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A process's CPU so far (user + system, ms; Linux /proc, 100 ticks a second). */
export function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * The store layout of sessions 9-20 (0a0720a and before): FerretDB's unique `_id` index on
 * `_ferretdb_sjson->"_id"`, which its lookups (`->'$._id'`) never use, and the keeper's second index
 * on the lookup expression; every insert, update and delete maintains both. The `twoidx` sets
 * of the store benches measure this layout beside the stack's one index (infra/ferret-id-index.ts).
 */
export function addLegacyLookupIndex(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    const tables = db
      .prepare(`SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%->"_id")'`)
      .all() as { tbl_name: string }[];
    for (const { tbl_name } of tables)
      db.exec(
        `CREATE INDEX IF NOT EXISTS "${tbl_name}${LEGACY_LOOKUP_SUFFIX}" ON "${tbl_name}" (${FERRET_ID_EXPRESSION})`,
      );
  } finally {
    db.close();
  }
}

/** The `oneidx` probe of session 20, now what the stack's keeper does (infra/ferret-id-index.ts). */
export function swapToOneIdIndex(file: string): void {
  keepOneFerretIdIndex(file);
}
