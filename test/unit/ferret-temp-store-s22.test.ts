// Session 22 (issue 22, docs/store-access.md §15): FerretDB keeps a statement journal for every
// write it runs inside a transaction (the original of each existing page the statement changes).
// SQLite spills that journal to a temporary file past 64 KiB, and a group insert of random `_id`s
// into a large collection (one existing index leaf per document) spills nearly every time: on a
// seeded store the store wrote ~2x the bytes its WAL received. With the stack's pragmas
// (infra/ferret-sqlite.ts: `temp_store(memory)`) the journal stays in memory, and what FerretDB
// writes is its WAL and its answers. Counted, not timed: bytes passed to write syscalls
// (/proc/<pid>/io wchar) against the WAL's growth, on the project's real FerretDB binary.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ferretPragmas } from '../../infra/ferret-sqlite.js';
import { freePort, spawnStandaloneFerret } from '../../bench/standalone-ferret.js';

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const clients: MongoClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const p of procs) {
    p.kill('SIGTERM');
    if (p.exitCode === null) await new Promise((r) => p.once('exit', r));
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const wchar = (pid: number) => Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
const doc = () => ({ _id: `prf_${randomBytes(16).toString('hex')}`, body: randomBytes(450).toString('hex') });

async function start(pragmas: readonly string[]): Promise<{ db: Db; pid: number; wal: () => number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferret-temp-store-'));
  dirs.push(dir);
  const port = await freePort();
  const proc = spawnStandaloneFerret(dir, port, pragmas);
  procs.push(proc);
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/svc`, { serverSelectionTimeoutMS: 2_000 });
  clients.push(client);
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.db().command({ ping: 1 });
      break;
    } catch (err) {
      if (i > 120) throw err;
      await sleep(250);
    }
  }
  const walFile = path.join(dir, 'db', 'svc.sqlite-wal');
  return { db: client.db(), pid: proc.pid as number, wal: () => (existsSync(walFile) ? statSync(walFile).size : 0) };
}

/**
 * A 20,000-document collection with random keys, then 40 group inserts of 25 documents (one
 * command each, as the service's insert coalescer sends them): bytes FerretDB wrote beyond the
 * WAL's growth, and the WAL's growth.
 */
async function groupInserts(pragmas: readonly string[]): Promise<{ extra: number; wal: number }> {
  const s = await start(pragmas);
  const coll = s.db.collection<{ _id: string; body: string }>('proofs');
  for (let i = 0; i < 20; i++) await coll.insertMany(Array.from({ length: 1_000 }, doc));
  const [w0, l0] = [wchar(s.pid), s.wal()];
  for (let i = 0; i < 40; i++) await coll.insertMany(Array.from({ length: 25 }, doc));
  const [w1, l1] = [wchar(s.pid), s.wal()];
  expect(await coll.estimatedDocumentCount()).toBe(21_000);
  return { extra: w1 - w0 - (l1 - l0), wal: l1 - l0 };
}

describe("FerretDB's statement journal on the stack's pragmas (temp_store(memory))", () => {
  it('a group insert into a large random-key collection writes its WAL and little else', async () => {
    const { extra, wal } = await groupInserts(ferretPragmas('normal'));
    expect(wal).toBeGreaterThan(40 * 25 * 1_000); // at least the documents themselves reached the WAL
    // The answers on the socket are ~100 bytes per command; no statement journal reaches a file.
    expect(extra).toBeLessThan(wal * 0.05);
  }, 180_000);

  it('without it, the same inserts spill their statement journals to a temporary file', async () => {
    const without = ferretPragmas('normal').filter((p) => !p.startsWith('temp_store'));
    const { extra, wal } = await groupInserts(without);
    expect(extra).toBeGreaterThan(wal * 0.25);
  }, 180_000);
});
