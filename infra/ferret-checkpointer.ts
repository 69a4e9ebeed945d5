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
//
// The WAL's bound (session 17, docs/performance.md "Session 17: the WAL under continuous load"). A
// PASSIVE checkpoint copies frames but never restarts the WAL: SQLite restarts it only when a writer
// begins while every frame is already in the file and no reader still uses the WAL, which under
// continuous load never happens, so the file kept growing (28–460 MiB). So a pass ends with a
// TRUNCATE checkpoint of a file when the WAL passed `walLimitBytes`, or when the store was quiet
// (every frame copied and none added since the previous pass: then it costs a writer nothing). It
// waits at most TRUNCATE_BUSY_MS for a lock (busy past that, it changes nothing until the next
// pass) and runs right after a PASSIVE copy, so what it copies under the writer lock is the last
// instants' frames; it syncs the store file before it empties the WAL, so a commit is exactly as
// durable as before. Its price: writes that arrive while it holds the writer lock wait (measured:
// 2–3 % of writes under continuous load, tens of ms each; store CPU per item +2 to +4 %).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WAL_JOURNAL_SIZE_LIMIT } from './ferret-sqlite.js';

/** How often each store file is checkpointed. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/** WAL size past which a pass empties the WAL (a TRUNCATE checkpoint) even while writes go on. */
export const WAL_LIMIT_BYTES = WAL_JOURNAL_SIZE_LIMIT;

/** How long a TRUNCATE checkpoint may wait for a lock (readers still on the WAL hold writers this long at most). */
export const TRUNCATE_BUSY_MS = 10;

/** TRUNCATE checkpoints tried per file and pass (5 ms apart) while readers keep the WAL busy. */
export const TRUNCATE_TRIES = 1;

export interface CheckpointerOptions {
  /** Pass interval (default CHECKPOINT_INTERVAL_MS). */
  intervalMs?: number;
  /** WAL size that triggers a TRUNCATE checkpoint under load (default WAL_LIMIT_BYTES). */
  walLimitBytes?: number;
  /** false: PASSIVE checkpoints only, session 16's behaviour (benchmarks compare the two). */
  bound?: boolean;
  /** How long a TRUNCATE checkpoint waits for the writer lock and for the WAL's readers (default TRUNCATE_BUSY_MS). */
  truncateBusyMs?: number;
  /** TRUNCATE checkpoints tried per file and pass before leaving it to the next pass (default TRUNCATE_TRIES). */
  truncateTries?: number;
}

/** What one pass did, summed over the folder's files. */
export interface PassReport {
  /** WAL frames copied into the files. */
  frames: number;
  /** WAL files emptied (TRUNCATE checkpoints that restarted the WAL). */
  truncations: number;
  /** TRUNCATE checkpoints tried (some find a reader or the writer busy and change nothing). */
  tries: number;
  /** Tries that left frames uncopied (the writer lock not had in time, or a reader's snapshot in the way). */
  busyCopy: number;
  /** Tries that copied every frame but found a reader still on the WAL (they held the writer lock meanwhile). */
  busyReaders: number;
  /** The largest WAL file seen before this pass's checkpoints, in bytes. */
  walBytes: number;
  /** Milliseconds spent in TRUNCATE checkpoints (they hold the writer lock while they run). */
  truncateMs: number;
  /** Each TRUNCATE checkpoint tried: [start (epoch ms), duration (ms)] (benches mark the requests that overlap one). */
  spans: Array<[number, number]>;
  /** The thread's own CPU so far (ms; Linux's /proc/thread-self, else 0). */
  cpuMs: number;
}

// The thread's code: every interval, one PASSIVE checkpoint of each `*.sqlite` file of the folder,
// then a TRUNCATE one where the WAL is past the limit or the store was quiet. A file is opened per
// pass and never created (FerretDB refuses to start on a file without its metadata table;
// infra/ferret-id-index.ts), so a dropped and re-created database is followed.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const Database = require(workerData.betterSqlite3);
const lastLog = new Map(); // file -> the WAL's frame count after the previous pass
const pause = new Int32Array(new SharedArrayBuffer(4)); // Atomics.wait on it: a short sleep between tries
const RETRY_PAUSE_MS = 5;
function walSize(file) {
  try { return fs.statSync(file + '-wal').size; } catch { return 0; }
}
function threadCpuMs() {
  try {
    const f = fs.readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch { return 0; }
}
function pass() {
  const out = { frames: 0, truncations: 0, tries: 0, busyCopy: 0, busyReaders: 0, walBytes: 0, truncateMs: 0, spans: [], cpuMs: 0 };
  let files = [];
  try { files = fs.readdirSync(workerData.dir).filter((f) => f.endsWith('.sqlite')); } catch { return out; }
  for (const f of files) {
    const file = path.join(workerData.dir, f);
    let db = null;
    try {
      const bytes = walSize(file);
      out.walBytes = Math.max(out.walBytes, bytes);
      db = new Database(file, { fileMustExist: true, timeout: 0 });
      const [r] = db.pragma('wal_checkpoint(PASSIVE)');
      out.frames += r && r.checkpointed > 0 ? r.checkpointed : 0;
      if (!workerData.bound || !r || r.log < 0) continue;
      const quiet = r.checkpointed === r.log && lastLog.get(f) === r.log && bytes > 0;
      lastLog.set(f, r.log);
      if (!quiet && bytes < workerData.walLimitBytes) continue;
      // What the first copy left (the frames written while it ran) is copied without a lock too,
      // so the TRUNCATE below copies (and syncs) only the last instant's frames under the lock.
      if (!quiet) {
        const [again] = db.pragma('wal_checkpoint(PASSIVE)');
        out.frames += again && again.checkpointed > r.checkpointed ? again.checkpointed - r.checkpointed : 0;
      }
      // Each try waits for the writer lock (costing writers nothing) and for the readers still on
      // the WAL, which are short, at most truncateBusyMs; busy past that, it changes nothing. A try
      // that found a reader has already copied every frame, so the next one, a moment later, copies
      // (and holds the lock for) almost nothing.
      db.pragma('busy_timeout = ' + workerData.truncateBusyMs);
      for (let i = 0; i < workerData.truncateTries; i++) {
        if (i > 0) Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS);
        out.tries++;
        const at = Date.now();
        const t0 = performance.now();
        const [t] = db.pragma('wal_checkpoint(TRUNCATE)');
        const ms = performance.now() - t0;
        out.truncateMs += ms;
        out.spans.push([at, ms]);
        if (t && t.busy === 0 && t.log === 0) {
          out.truncations++;
          lastLog.set(f, 0);
          break;
        }
        if (t && t.checkpointed < t.log) out.busyCopy++;
        else out.busyReaders++;
      }
    } catch {
      // busy, not a WAL file yet, or gone: the next pass tries again
    } finally {
      if (db) db.close();
    }
  }
  out.cpuMs = threadCpuMs();
  return out;
}
const timer = setInterval(() => parentPort.postMessage(pass()), workerData.intervalMs);
parentPort.on('message', (m) => { if (m === 'stop') { clearInterval(timer); parentPort.close(); } });
`;

/** Checkpoints every SQLite file of FerretDB's folder from a thread while the stack runs. */
export class FerretCheckpointer {
  private worker: Worker | null = null;
  /** Passes done, WAL frames copied into the files, WALs emptied (for tests, benches and logs). */
  passes = 0;
  frames = 0;
  truncations = 0;
  /** The largest WAL file any pass saw, in bytes. */
  maxWalBytes = 0;
  /** The thread's CPU so far, in ms (Linux; 0 elsewhere). */
  cpuMs = 0;
  /** Every pass's report, newest last (the last 600). */
  readonly reports: PassReport[] = [];
  private readonly intervalMs: number;
  private readonly walLimitBytes: number;
  private readonly bound: boolean;
  private readonly truncateBusyMs: number;
  private readonly truncateTries: number;

  constructor(
    private readonly dir: string,
    opts: number | CheckpointerOptions = {},
  ) {
    const o = typeof opts === 'number' ? { intervalMs: opts } : opts;
    this.intervalMs = o.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.walLimitBytes = o.walLimitBytes ?? WAL_LIMIT_BYTES;
    this.bound = o.bound ?? true;
    this.truncateBusyMs = o.truncateBusyMs ?? TRUNCATE_BUSY_MS;
    this.truncateTries = o.truncateTries ?? TRUNCATE_TRIES;
  }

  start(): void {
    if (this.worker) return;
    const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        dir: this.dir,
        intervalMs: this.intervalMs,
        walLimitBytes: this.walLimitBytes,
        bound: this.bound,
        truncateBusyMs: this.truncateBusyMs,
        truncateTries: this.truncateTries,
        betterSqlite3,
      },
    });
    this.worker.on('message', (m: PassReport) => {
      this.passes++;
      this.frames += m.frames;
      this.truncations += m.truncations;
      this.maxWalBytes = Math.max(this.maxWalBytes, m.walBytes);
      this.cpuMs = m.cpuMs;
      this.reports.push(m);
      if (this.reports.length > 600) this.reports.shift();
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
