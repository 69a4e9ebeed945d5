// infra/ferret-checkpointer.ts (issue 22, session 16): FerretDB's connections no longer checkpoint
// inside their commits (a high wal_autocheckpoint backstop); a thread of the supervisor copies the
// WAL into each store file once per interval. Here a writer that never checkpoints (as FerretDB's
// connections now) leaves its commits in the WAL; the checkpointer copies them into the file,
// without ever creating a file and without blocking the writer.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FerretCheckpointer } from '../../infra/ferret-checkpointer.js';

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
