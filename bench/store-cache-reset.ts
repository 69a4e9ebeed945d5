// Why SQLite's page cache does not help FerretDB's store under writes (issue 22, session 20;
// docs/store-access.md "Session 20: the seeded store's cost per command"). SQLite alone
// (better-sqlite3, WAL, no FerretDB): a table laid out as FerretDB lays one out (one JSON column, a
// unique index on the `_id` lookup expression), --small and --large rows of ~1 KB. One connection
// looks up random existing keys; in the second pass another connection commits an insert between
// two lookups, as FerretDB's other pooled connections do under a write load. Prints the reader's
// page reads per lookup (read syscalls from /proc/self/io) and its CPU per lookup (the writer's
// CPU left out), per page cache size: in WAL mode a read transaction that finds the WAL changed
// by another connection drops its whole page cache, so every lookup then reads its whole path
// from the OS, and a deeper tree costs one more read per B-tree.
//   npx tsx bench/store-cache-reset.ts [--small 1000] [--large 100000] [--lookups 5000] [--caches 2000,65536 (KiB)] [--page-size 4096]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    'npx tsx bench/store-cache-reset.ts [--small 1000] [--large 100000] [--lookups 5000] [--caches 2000,65536 (KiB)] [--page-size 4096]',
  );
  process.exit(0);
}
const SIZES = [Number(arg('small', '1000')), Number(arg('large', '100000'))];
const LOOKUPS = Number(arg('lookups', '5000'));
const CACHES = arg('caches', '2000,65536').split(',').map(Number);
/** --page-size: the store file's page size (SQLite's default 4096; set before the table is created). */
const PAGE_SIZE = Number(arg('page-size', '4096'));
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-store-cache-reset-'));
const readSyscalls = () => Number(/syscr: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;
const newKey = () => `prf_${randomBytes(16).toString('hex')}`;

try {
  console.log(
    `SQLite page reads per lookup by _id (WAL, ${PAGE_SIZE}-byte pages); load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(
    'rows | cache KiB | another connection commits between lookups | page reads per lookup | reader cpu us per lookup',
  );
  for (const rows of SIZES) {
    const file = path.join(dir, `t${rows}.sqlite`);
    const w = new Database(file);
    w.pragma(`page_size = ${PAGE_SIZE}`);
    w.pragma('journal_mode = wal');
    w.pragma('synchronous = normal');
    w.exec(`CREATE TABLE t (_ferretdb_sjson TEXT NOT NULL) STRICT`);
    w.exec(`CREATE UNIQUE INDEX t_id ON t (_ferretdb_sjson->'$._id')`);
    const keys: string[] = [];
    const ins = w.prepare(`INSERT INTO t VALUES (?)`);
    w.transaction(() => {
      for (let i = 0; i < rows; i++) {
        const k = newKey();
        keys.push(k);
        ins.run(JSON.stringify({ _id: k, body: randomBytes(450).toString('hex') }));
      }
    })();
    w.pragma('wal_checkpoint(TRUNCATE)');
    for (const cacheKiB of CACHES) {
      const r = new Database(file);
      r.pragma(`cache_size = -${cacheKiB}`);
      // FerretDB binds the JSON text of the key (`->` answers JSON).
      const q = r.prepare(`SELECT _ferretdb_sjson FROM t WHERE _ferretdb_sjson->'$._id' = ?`);
      const lookup = () => q.get(JSON.stringify(keys[Math.floor(Math.random() * keys.length)]));
      for (const writes of [false, true]) {
        for (let i = 0; i < 4 * LOOKUPS; i++) lookup(); // warm the reader's cache
        const s0 = readSyscalls();
        const c0 = process.cpuUsage();
        let writerUs = 0;
        for (let i = 0; i < LOOKUPS; i++) {
          if (writes) {
            const u0 = process.cpuUsage();
            ins.run(JSON.stringify({ _id: newKey(), body: 'x' }));
            writerUs += cpuUs(process.cpuUsage(u0));
          }
          if (!lookup()) throw new Error('a lookup found nothing');
        }
        const readerUs = cpuUs(process.cpuUsage(c0)) - writerUs;
        console.log(
          `${rows} | ${cacheKiB} | ${writes ? 'yes' : 'no'} | ${((readSyscalls() - s0) / LOOKUPS).toFixed(2)} | ${(readerUs / LOOKUPS).toFixed(1)}`,
        );
      }
      r.close();
    }
    w.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
