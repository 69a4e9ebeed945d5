// FerretDB on its own, for the benches that measure the store alone (store-growth, store-pragmas,
// store-wal, evict-cost): the project's FerretDB 1.24 binary on a scratch folder, loopback only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
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

/** A process's CPU so far (user + system, ms; Linux /proc, 100 ticks a second). */
export function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * The `oneidx` probe: FerretDB's unique `_id` index is on `_ferretdb_sjson->"_id"`, which its lookups
 * (`->'$._id'`) never use, so the stack adds a second index on the lookup expression
 * (infra/ferret-id-index.ts) and every insert, update and delete maintains both. Here (on a stopped
 * store's copy) FerretDB's unique index is re-created under its own name on the lookup expression
 * and the second index dropped: one B-tree per table that both enforces `_id` and serves lookups.
 */
export function swapToOneIdIndex(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    const idx = db
      .prepare(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%->"_id")'`)
      .all() as { name: string; tbl_name: string }[];
    db.transaction(() => {
      for (const { name, tbl_name } of idx) {
        db.exec(`DROP INDEX IF EXISTS "${tbl_name}__svc_id_lookup"`);
        db.exec(`DROP INDEX "${name}"`);
        db.exec(`CREATE UNIQUE INDEX "${name}" ON "${tbl_name}" (_ferretdb_sjson->'$._id')`);
      }
    })();
  } finally {
    db.close();
  }
}
