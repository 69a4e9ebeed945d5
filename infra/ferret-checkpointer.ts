// The embedded store's WAL checkpoints, off the request path (issue 22, session 16;
// docs/performance.md "Session 16: per-command cost on a seeded store").
//
// SQLite's auto-checkpoint runs inside the connection whose commit took the WAL past
// `wal_autocheckpoint` pages, before that commit answers. Under continuous load the WAL is never
// fully backfilled when a writer starts, so it is never restarted and stays past the threshold:
// from then on every commit of FerretDB copied pages into the file and fsynced it (4–6 % of
// FerretDB's CPU profile, more on a large file). So FerretDB's connections get a high
// `wal_autocheckpoint` (a backstop: infra/ferret-sqlite.ts) and a worker thread of the supervisor
// runs one PASSIVE checkpoint per store file per second (it never waits for a lock: a busy file is
// tried again next time). Measured: −15 % of the store's CPU per batch item, empty and seeded.
// A worker thread, because a checkpoint of a busy second takes tens of milliseconds with its
// fsync, and the supervisor's event loop is a benchmark's or a test's.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often each store file is checkpointed. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

// The thread's code: every interval, one PASSIVE checkpoint of each `*.sqlite` file of the folder.
// A file is opened per pass and never created (FerretDB refuses to start on a file without its
// metadata table; infra/ferret-id-index.ts), so a dropped and re-created database is followed.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const Database = require(workerData.betterSqlite3);
function pass() {
  let frames = 0;
  let files = [];
  try { files = fs.readdirSync(workerData.dir).filter((f) => f.endsWith('.sqlite')); } catch { return 0; }
  for (const f of files) {
    let db = null;
    try {
      db = new Database(path.join(workerData.dir, f), { fileMustExist: true, timeout: 0 });
      const [r] = db.pragma('wal_checkpoint(PASSIVE)');
      frames += r && r.checkpointed > 0 ? r.checkpointed : 0;
    } catch {
      // busy, not a WAL file yet, or gone: the next pass tries again
    } finally {
      if (db) db.close();
    }
  }
  return frames;
}
const timer = setInterval(() => parentPort.postMessage({ frames: pass() }), workerData.intervalMs);
parentPort.on('message', (m) => { if (m === 'stop') { clearInterval(timer); parentPort.close(); } });
`;

/** Checkpoints every SQLite file of FerretDB's folder from a thread while the stack runs. */
export class FerretCheckpointer {
  private worker: Worker | null = null;
  /** Passes done and WAL frames copied into the files (for tests and logs). */
  passes = 0;
  frames = 0;

  constructor(
    private readonly dir: string,
    private readonly intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.worker) return;
    const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, {
      eval: true,
      workerData: { dir: this.dir, intervalMs: this.intervalMs, betterSqlite3 },
    });
    this.worker.on('message', (m: { frames: number }) => {
      this.passes++;
      this.frames += m.frames;
    });
    this.worker.unref();
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    w.postMessage('stop');
    await w.terminate();
  }
}
