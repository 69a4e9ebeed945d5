// infra/ferret-checkpointer.ts (issue 22, session 16): FerretDB's connections no longer checkpoint
// inside their commits (a high wal_autocheckpoint backstop); a thread of the supervisor copies the
// WAL into each store file once per interval. Here a writer that never checkpoints (as FerretDB's
// connections now) leaves its commits in the WAL; the checkpointer copies them into the file,
// without ever creating a file and without blocking the writer.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FerretCheckpointer } from '../../infra/ferret-checkpointer.js';

const require = createRequire(import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function walWriter(dir: string): Database.Database {
  const db = new Database(path.join(dir, 'svc.sqlite'));
  db.pragma('journal_mode = wal');
  db.pragma('wal_autocheckpoint = 0'); // never checkpoints on its own
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)');
  const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
  for (let i = 0; i < 200; i++) ins.run(`k${i}`, 'x'.repeat(1000)); // 200 commits, ~60 pages
  return db;
}

async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('infra/ferret-checkpointer.ts: WAL checkpoints off the commits', () => {
  it('copies the commits of a writer that never checkpoints into the store file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    const writer = walWriter(dir);
    const file = path.join(dir, 'svc.sqlite');
    const before = statSync(file).size;
    await sleep(300);
    expect(statSync(file).size).toBe(before); // nothing else copies the WAL
    const c = new FerretCheckpointer(dir, 50);
    c.start();
    try {
      await until(() => c.frames > 0);
      expect(statSync(file).size).toBeGreaterThan(before + 100 * 1000);
      // The writer keeps committing while the thread runs.
      writer.prepare('INSERT INTO t VALUES (?, ?)').run('after', 'y');
      expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 201 });
    } finally {
      await c.stop();
      writer.close();
    }
  });

  it('never creates a file, and a stopped checkpointer makes no more passes', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    const c = new FerretCheckpointer(dir, 30);
    c.start();
    await until(() => c.passes >= 3);
    await c.stop();
    const passes = c.passes;
    await sleep(150);
    expect(c.passes).toBe(passes);
    expect(c.frames).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});

// Session 17: the WAL is bounded. PASSIVE checkpoints copy frames but never restart the WAL, so
// under continuous writes the file grew without end; a pass now empties it (TRUNCATE, never
// waiting) when it passes a size or when the store is quiet, and a commit stays as durable.
function walSize(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

describe('infra/ferret-checkpointer.ts: the WAL is bounded (session 17)', () => {
  it('a quiet store has its WAL emptied, and every commit is still in the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    const writer = walWriter(dir);
    const file = path.join(dir, 'svc.sqlite');
    expect(walSize(file)).toBeGreaterThan(100 * 1000);
    const c = new FerretCheckpointer(dir, 50);
    c.start();
    try {
      await until(() => c.truncations > 0 && walSize(file) === 0);
      // The writer goes on after the truncation, and a fresh connection sees every row.
      writer.prepare('INSERT INTO t VALUES (?, ?)').run('after', 'y');
      const reader = new Database(file, { readonly: true });
      expect(reader.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 201 });
      reader.close();
    } finally {
      await c.stop();
      writer.close();
    }
  });

  it('under continuous writes the WAL stays near its limit (session 16 left it growing)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    const writer = walWriter(dir);
    const file = path.join(dir, 'svc.sqlite');
    const limit = 256 * 1024;
    const bounded = new FerretCheckpointer(dir, { intervalMs: 50, walLimitBytes: limit });
    bounded.start();
    const ins = writer.prepare('INSERT INTO t VALUES (?, ?)');
    let n = 0;
    let max = 0;
    try {
      // ~3 s of writes that never pause for a whole pass: the store is never quiet (a few commits
      // every millisecond, as FerretDB's connections commit between its own work).
      const end = Date.now() + 3_000;
      while (Date.now() < end) {
        for (let i = 0; i < 5; i++) ins.run(`c${n++}`, 'z'.repeat(1000));
        max = Math.max(max, walSize(file));
        await sleep(1);
      }
      // Every pass past the limit empties the WAL: it holds what was written since the last pass
      // (a few tens of ms here, more on a loaded machine), a small part of all that went through it
      // (4 KiB a frame); without the bound it holds all of it.
      expect(bounded.truncations).toBeGreaterThan(5);
      const through = bounded.frames * 4096;
      expect(through).toBeGreaterThan(16 * limit);
      expect(max).toBeLessThan(through / 2);
      expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 200 + n });
    } finally {
      await bounded.stop();
      writer.close();
    }
  });

  it('bound: false keeps session 16 (PASSIVE only): the same writes leave the WAL growing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    const writer = walWriter(dir);
    const file = path.join(dir, 'svc.sqlite');
    const c = new FerretCheckpointer(dir, { intervalMs: 50, walLimitBytes: 256 * 1024, bound: false });
    c.start();
    const ins = writer.prepare('INSERT INTO t VALUES (?, ?)');
    let n = 0;
    try {
      const end = Date.now() + 1_000;
      while (Date.now() < end) {
        for (let i = 0; i < 20; i++) ins.run(`c${n++}`, 'z'.repeat(1000));
        await sleep(1);
      }
      await until(() => c.passes >= 5);
      expect(c.frames).toBeGreaterThan(0);
      expect(c.truncations).toBe(0);
      expect(walSize(file)).toBeGreaterThan(n * 1000);
    } finally {
      await c.stop();
      writer.close();
    }
  });

  it('a writer killed (SIGKILL) while passes empty its WAL loses no acknowledged commit', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
    dirs.push(dir);
    walWriter(dir).close();
    const file = path.join(dir, 'svc.sqlite');
    const c = new FerretCheckpointer(dir, { intervalMs: 20, walLimitBytes: 64 * 1024 });
    c.start();
    // A child process commits rows as FerretDB's connections do (synchronous=NORMAL, no
    // auto-checkpoint) and reports each commit once it returned.
    const code = `
      const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
      const db = new Database(${JSON.stringify(file)});
      db.pragma('synchronous = normal');
      db.pragma('wal_autocheckpoint = 0');
      db.pragma('busy_timeout = 10000');
      const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
      let i = 0;
      setInterval(() => { for (let k = 0; k < 20; k++) { ins.run('w' + i, 'q'.repeat(1000)); process.stdout.write(i + '\\n'); i++; } }, 1);
    `;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = -1;
    child.stdout.on('data', (b: Buffer) => {
      const lines = b.toString().trim().split('\n');
      acked = Math.max(acked, Number(lines[lines.length - 1]));
    });
    try {
      await until(() => c.truncations >= 3 && acked > 500);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    } finally {
      await c.stop();
    }
    const db = new Database(file);
    const { n } = db.prepare("SELECT count(*) AS n FROM t WHERE k LIKE 'w%'").get() as { n: number };
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    expect(n).toBeGreaterThanOrEqual(acked + 1);
  });
});
