// Session 20: PGlite's fresh data directory (the template under dataDirCache, and the dump beside
// it) built when the stack starts, not by the worker's first postgresql check. A fresh clone's
// first check otherwise ran initdb in PGlite's process inside whatever load was running: the
// mixed load's peak went from ~760 to 1,250 MB summed RSS, PGlite's process 661 MB
// (docs/performance.md, "Session 20: memory margin"). Built here, it runs in a child of the
// caller (the stack's supervisor), outside the API's and the worker's process groups, before
// either is started; every later start of any process copies the template.
//
// Shared by every stack started from one checkout (the suite starts several at once): a lock
// file beside the template lets one build while the others wait for it. The lock saves work, it
// is not what keeps the template whole: pg-worker.mjs builds into a folder of its own and
// renames it into place after a clean shutdown, so a template that exists is whole whoever
// built it, and a builder that loses the rename keeps the winner's. A failure is reported, never
// thrown: the worker then builds on demand (the check fails closed while it cannot run).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { dataDirCacheFile, dataDirTemplate, PgCheck, type PgCheckLimits, type PgDataDirSource } from './pg-check.js';

export interface PgTemplateResult {
  /**
   * present: already there (nothing started); built: this call built it (`source` says from
   * what); waited: another process built it while this one waited; skipped: the check is off or
   * keeps no cache (nothing to build); failed: not built (`reason`): the worker builds on demand.
   */
  outcome: 'present' | 'built' | 'waited' | 'skipped' | 'failed';
  ms: number;
  source?: PgDataDirSource;
  reason?: string;
}

export interface PgTemplateOptions {
  /** How long a build, or the wait for another process's build, may take (default 300 s). */
  timeoutMs?: number;
  /** PGlite's process id once the builder starts it (benches read its memory). */
  onBuilder?: (pid: number) => void;
}

/**
 * A lock not touched for this long is stale whatever its process id says: its builder touches it
 * every PG_TEMPLATE_LOCK_BEAT_MS, and a builder killed with SIGKILL leaves a pid that another
 * process may hold later (pid reuse): without this, every stack start of the checkout waited the
 * whole timeout (300 s) for a build nobody was running.
 */
export const PG_TEMPLATE_LOCK_STALE_MS = 60_000;
const PG_TEMPLATE_LOCK_BEAT_MS = 5_000;

/** The lock file of a build: `<template>.building`, holding the builder's process id. */
export function pgTemplateLock(cacheDir: string): string {
  return `${dataDirTemplate(cacheDir)}.building`;
}

/** What a process needs to skip initdb: the template on disk, or the dump in memory mode. */
function present(limits: Readonly<PgCheckLimits>, cacheDir: string): boolean {
  if (limits.dataDirOnDisk === false) return existsSync(dataDirCacheFile(cacheDir));
  return existsSync(path.join(dataDirTemplate(cacheDir), 'PG_VERSION'));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a lock names (null: absent or unreadable). */
function lockOwner(lock: string): number | null {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the lock (true), or says who holds it (the pid; null: a lock whose owner cannot be read). */
function tryLock(lock: string): true | number | null {
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      const pid = Number(readFileSync(lock, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null; // removed meanwhile, or being written: look again
    }
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes sure the fresh data directory PGlite starts from exists under `limits.dataDirCache`,
 * building it (initdb, or the cached dump unpacked) in a PGlite process of this process's when it
 * is missing. Idempotent; concurrent callers from other processes share one build. Never throws.
 */
export async function ensurePgTemplate(
  limits: Readonly<PgCheckLimits>,
  opts: PgTemplateOptions = {},
): Promise<PgTemplateResult> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  const cacheDir = limits.dataDirCache;
  if (!limits.enabled || !cacheDir) return { outcome: 'skipped', ms: ms() };
  if (present(limits, cacheDir)) return { outcome: 'present', ms: ms() };
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  const lock = pgTemplateLock(cacheDir);
  try {
    mkdirSync(cacheDir, { recursive: true });
    let waited = false;
    for (;;) {
      const held = tryLock(lock);
      if (held === true) break;
      const age = (() => {
        try {
          return Date.now() - statSync(lock).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if ((held !== null && !processAlive(held)) || age > PG_TEMPLATE_LOCK_STALE_MS) {
        // Its builder died (its half-built folder is swept by the next PGlite start), or stopped
        // touching it (its pid reused by another process). Two waiters may both remove it and both
        // build: each into its own folder, one rename wins.
        rmSync(lock, { force: true });
        continue;
      }
      // Unreadable for longer than a write takes: a lock left by a crash between create and write.
      if (held === null && age > 10_000) rmSync(lock, { force: true });
      waited = true;
      if (present(limits, cacheDir)) return { outcome: 'waited', ms: ms() };
      if (Date.now() > deadline)
        return { outcome: 'failed', ms: ms(), reason: `another process (${held}) is still building it` };
      await sleep(200);
    }
    // Touched while this process builds, so that waiters tell it from a lock left by a killed builder.
    const beat = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(lock, now, now);
      } catch {
        // removed by a waiter that took it for stale: the build goes on, one rename wins
      }
    }, PG_TEMPLATE_LOCK_BEAT_MS);
    beat.unref();
    try {
      // Built by the lock's previous holder between our look and our lock.
      if (present(limits, cacheDir)) return { outcome: waited ? 'waited' : 'present', ms: ms() };
      // A template folder without PG_VERSION never came from a rename (those are whole): the
      // worker would copy it and fail to start, so it goes before the build.
      if (limits.dataDirOnDisk !== false) rmSync(dataDirTemplate(cacheDir), { recursive: true, force: true });
      return await build(limits, deadline, opts, ms);
    } finally {
      clearInterval(beat);
      // Only its own: a waiter that took the lock over for stale holds it now (its build goes on).
      if (lockOwner(lock) === process.pid) rmSync(lock, { force: true });
    }
  } catch (err) {
    return { outcome: 'failed', ms: ms(), reason: (err as Error).message };
  }
}

/** One start of PGlite as the worker makes it, on disk: it leaves the template and the dump; then stopped. */
async function build(
  limits: Readonly<PgCheckLimits>,
  deadline: number,
  opts: PgTemplateOptions,
  ms: () => number,
): Promise<PgTemplateResult> {
  let source: PgDataDirSource | undefined;
  let failure: string | undefined;
  const pg = new PgCheck({ ...limits, dataDirOnDisk: true, idleReleaseMs: 0 }, (event, detail) => {
    if (event === 'started') source = detail.dataDir;
    else if (event === 'failed' || event === 'cache_failed') failure ??= detail.reason ?? event;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const started = pg.start();
    const pid = pg.processId();
    if (pid !== null) opts.onBuilder?.(pid);
    const ok = await Promise.race([
      started,
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now())))),
    ]);
    if (ok === 'timeout') return { outcome: 'failed', ms: ms(), reason: 'PGlite did not start in time' };
    if (!ok) return { outcome: 'failed', ms: ms(), reason: failure ?? 'PGlite did not start' };
    if (!present(limits, limits.dataDirCache!))
      return { outcome: 'failed', ms: ms(), reason: failure ?? 'PGlite started but left no template' };
    return { outcome: 'built', ms: ms(), ...(source ? { source } : {}) };
  } finally {
    clearTimeout(timer);
    await pg.shutdown();
  }
}
