// Session 20: PGlite's template built before the service starts (engines/sql/pg-template.ts,
// called by infra/stack.ts), so a fresh clone's first postgresql check copies it instead of
// running initdb inside a load. One build however many stacks of one checkout start at once,
// never a half-built template, and a failure reported, never thrown (the worker then builds on
// demand). Real PGlite in every row.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG_CHECK_LIMITS, PgCheck, verifySqlChecked } from '../../engines/sql/index.js';
import { dataDirTemplate, liveDataDirs, readCachedDataDir } from '../../engines/sql/pg-check.js';
import { ensurePgTemplate, PG_TEMPLATE_LOCK_STALE_MS, pgTemplateLock } from '../../engines/sql/pg-template.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REQ = {
  query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
  schema_ddl: 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);',
  dialect: 'postgresql' as const,
};
const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'svc-pg-template-'));
  dirs.push(d);
  return d;
};
const limits = (dir: string) => ({ ...DEFAULT_PG_CHECK_LIMITS, dataDirCache: dir, dataDirOnDisk: true });
const whole = (dir: string) => existsSync(path.join(dataDirTemplate(dir), 'PG_VERSION'));
/** What a build leaves beside the template: nothing (no lock, no copy, no half-built folder). */
const leftovers = (dir: string) => [
  ...(existsSync(pgTemplateLock(dir)) ? ['lock'] : []),
  ...(existsSync(liveDataDirs(dir)) ? readdirSync(liveDataDirs(dir)) : []),
];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("PGlite's template built before the service starts (session 20)", () => {
  it('from an empty folder: built by initdb (template and dump), nothing left beside it; then present at once; the worker copies it', async () => {
    const dir = scratch();
    const builders: number[] = [];
    const r = await ensurePgTemplate(limits(dir), { onBuilder: (pid) => builders.push(pid) });
    expect(r).toMatchObject({ outcome: 'built', source: 'initdb' });
    expect(builders).toHaveLength(1);
    expect(builders[0]).not.toBe(process.pid); // its own process, a child of the caller
    expect(whole(dir)).toBe(true);
    expect(readCachedDataDir(dir)?.length).toBeGreaterThan(100_000);
    expect(leftovers(dir)).toEqual([]);
    // Present: nothing started.
    const again = await ensurePgTemplate(limits(dir), { onBuilder: (pid) => builders.push(pid) });
    expect(again.outcome).toBe('present');
    expect(builders).toHaveLength(1);
    // The worker's first check copies it: no initdb there, PostgreSQL's verdict.
    const starts: string[] = [];
    const pg = new PgCheck({ ...limits(dir), bootWaitMs: 120_000, idleReleaseMs: 0 }, (e, d) => {
      if (e === 'started') starts.push(d.dataDir ?? '?');
    });
    try {
      const out = await verifySqlChecked(REQ, pg);
      expect(out.developerFields).toMatchObject({ constraint_id: 'sql_verifier.sql_valid', is_valid: true });
      expect(starts).toEqual(['copied']);
    } finally {
      await pg.shutdown();
    }
  }, 300_000);

  it('two processes at once on one empty folder: one builds, the other waits for it; both succeed, one template', async () => {
    const dir = scratch();
    const script = path.join(dir, 'build.mts');
    writeFileSync(
      script,
      `import { ensurePgTemplate } from ${JSON.stringify(path.join(ROOT, 'engines/sql/pg-template.ts'))};
import { DEFAULT_PG_CHECK_LIMITS } from ${JSON.stringify(path.join(ROOT, 'engines/sql/pg-check.ts'))};
const r = await ensurePgTemplate({ ...DEFAULT_PG_CHECK_LIMITS, dataDirCache: process.argv[2], dataDirOnDisk: true });
console.log(JSON.stringify(r));`,
    );
    const cache = path.join(dir, 'cache');
    const run = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, cache], { cwd: ROOT });
        let out = '';
        child.stdout.on('data', (b) => (out += b));
        child.stderr.on('data', (b) => (out += b));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const results = await Promise.all([run(), run()]);
    for (const r of results) expect(r.code, r.out).toBe(0);
    const outcomes = results.map((r) => JSON.parse(r.out.trim().split('\n').at(-1)!).outcome).sort();
    expect(outcomes).toEqual(['built', 'waited']);
    expect(whole(cache)).toBe(true);
    expect(leftovers(cache)).toEqual([]);
  }, 300_000);

  it("a lock whose owner is dead is taken over; a live owner's lock is waited for (fails after the wait, never throws)", async () => {
    const dir = scratch();
    mkdirSync(dir, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(pgTemplateLock(dir), String(gone));
    // The live owner: this test's parent process, which never builds here.
    const held = scratch();
    writeFileSync(pgTemplateLock(held), String(process.ppid));
    const stuck = await ensurePgTemplate(limits(held), { timeoutMs: 1_000 });
    expect(stuck).toMatchObject({
      outcome: 'failed',
      reason: `another process (${process.ppid}) is still building it`,
    });
    expect(whole(held)).toBe(false);
    const r = await ensurePgTemplate(limits(dir));
    expect(r.outcome).toBe('built');
    expect(whole(dir)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  }, 300_000);

  it("a lock nobody touched for longer than the stale time is taken over though its pid is alive (a killed builder's pid reused)", async () => {
    const dir = scratch();
    // A live pid that builds nothing (this test's parent), in a lock last touched 10 minutes ago.
    writeFileSync(pgTemplateLock(dir), String(process.ppid));
    const old = new Date(Date.now() - Math.max(600_000, 2 * PG_TEMPLATE_LOCK_STALE_MS));
    utimesSync(pgTemplateLock(dir), old, old);
    // Before session 20's review: waited for the live pid until the time-out, then failed.
    const r = await ensurePgTemplate(limits(dir), { timeoutMs: 240_000 });
    expect(r).toMatchObject({ outcome: 'built', source: 'initdb' });
    expect(whole(dir)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  }, 300_000);

  it("a builder whose lock was taken over meanwhile leaves the new owner's lock in place", async () => {
    const dir = scratch();
    const other = String(process.ppid);
    // While this process builds, a waiter takes the lock over (it took it for stale).
    const r = await ensurePgTemplate(limits(dir), { onBuilder: () => writeFileSync(pgTemplateLock(dir), other) });
    expect(r.outcome).toBe('built');
    expect(whole(dir)).toBe(true);
    // Before session 20's review the builder removed it: a third process could start a third build.
    expect(readFileSync(pgTemplateLock(dir), 'utf8')).toBe(other);
  }, 300_000);

  it('a template folder that is not a data directory (no PG_VERSION) is built again, not copied', async () => {
    const dir = scratch();
    mkdirSync(path.join(dataDirTemplate(dir), 'base'), { recursive: true });
    writeFileSync(path.join(dataDirTemplate(dir), 'stray'), 'not PostgreSQL');
    const r = await ensurePgTemplate(limits(dir));
    expect(r).toMatchObject({ outcome: 'built', source: 'initdb' });
    expect(whole(dir)).toBe(true);
    expect(existsSync(path.join(dataDirTemplate(dir), 'stray'))).toBe(false);
  }, 300_000);

  it('nothing to build when the check is off or keeps no cache; a folder that cannot be written fails without throwing', async () => {
    const dir = scratch();
    expect((await ensurePgTemplate({ ...limits(dir), enabled: false })).outcome).toBe('skipped');
    expect((await ensurePgTemplate({ ...DEFAULT_PG_CHECK_LIMITS })).outcome).toBe('skipped');
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await ensurePgTemplate(limits(path.join(file, 'cache')));
    expect(r.outcome).toBe('failed');
    expect(r.reason).toMatch(/ENOTDIR/);
  });
});
