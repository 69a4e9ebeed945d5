// PostgreSQL's data directory on disk (session 18, issue 22's memory under the mixed load):
// instead of PGlite's in-memory file system, filled at every start by unpacking the cached dump
// (the 39 MB directory resident in PGlite's process, and the gunzip + untar the start's peak),
// each start copies an unpacked template under dataDirCache and opens the copy. The verdicts are
// PostgreSQL's either way; a template it cannot start from fails closed once and is rebuilt;
// a dead process's copy is removed by the next start.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlEngineConfig } from '../../core/config.js';
import { DEFAULT_PG_CHECK_LIMITS, PgCheck, verifySqlChecked } from '../../engines/sql/index.js';
import { dataDirTemplate, liveDataDirs, readCachedDataDir, writeCachedDataDir } from '../../engines/sql/pg-check.js';

const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);';
const REQ = {
  query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
  schema_ddl: DDL,
  dialect: 'postgresql' as const,
};
const BAD = { query: 'SELECT w_city FROM warehouse', schema_ddl: DDL, dialect: 'postgresql' as const };

const dir = mkdtempSync(path.join(tmpdir(), 'svc-pg-ondisk-'));
const checks: PgCheck[] = [];
/** A PgCheck as the worker makes it with its defaults (on disk), recording each start's source and failures. */
function newCheck(idleReleaseMs = 0): { pg: PgCheck; starts: string[]; events: string[] } {
  const starts: string[] = [];
  const events: string[] = [];
  const pg = new PgCheck(
    { ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, idleReleaseMs, dataDirCache: dir, dataDirOnDisk: true },
    (e, d) => {
      events.push(e);
      if (e === 'started') starts.push(d.dataDir ?? '?');
    },
  );
  checks.push(pg);
  return { pg, starts, events };
}
const verdict = async (pg: PgCheck, req: typeof REQ) => {
  const out = await verifySqlChecked(req, pg);
  return { kind: out.kind, ...out.developerFields };
};
const copies = () => (existsSync(liveDataDirs(dir)) ? readdirSync(liveDataDirs(dir)) : []);
const until = async (what: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

afterAll(async () => {
  for (const pg of checks) await pg.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe("PGlite's data directory on disk (session 18)", () => {
  it('is the default wherever the dump is cached; SVC_SQL_PG_DATADIR_ON_DISK=0 keeps it in memory', () => {
    expect(loadSqlEngineConfig({}).pgCheck.dataDirOnDisk).toBe(true);
    expect(loadSqlEngineConfig({ SVC_SQL_PG_DATADIR_ON_DISK: '0' }).pgCheck.dataDirOnDisk).toBe(false);
    expect(loadSqlEngineConfig({ SVC_SQL_PG_DATADIR_ON_DISK: 'false' }).pgCheck.dataDirOnDisk).toBe(false);
    expect('dataDirOnDisk' in loadSqlEngineConfig({ SVC_SQL_PG_DATADIR_CACHE: '0' }).pgCheck).toBe(false);
  });

  it('a first start builds the template (and the dump for memory mode), runs on its own copy, and gives the verdicts', async () => {
    const first = newCheck();
    const valid = await verdict(first.pg, REQ);
    const invalid = await verdict(first.pg, BAD);
    expect(first.starts).toEqual(['initdb']);
    expect(valid).toMatchObject({ kind: 'proven', constraint_id: 'sql_verifier.sql_valid', is_valid: true });
    expect(invalid).toMatchObject({ constraint_id: 'sql_verifier.schema_violation', is_valid: false });
    expect(existsSync(path.join(dataDirTemplate(dir), 'PG_VERSION'))).toBe(true);
    expect(readCachedDataDir(dir)?.length).toBeGreaterThan(100_000);
    // One copy, named by its owner, with PostgreSQL's files in it; no half-built template left.
    expect(copies()).toHaveLength(1);
    expect(copies()[0]).toMatch(new RegExp(`^${process.pid}-[0-9a-f]{8}$`));
    expect(existsSync(path.join(liveDataDirs(dir), copies()[0]!, 'PG_VERSION'))).toBe(true);

    // A later process copies the template: the same verdicts, and each process its own copy.
    const second = newCheck();
    expect(await verdict(second.pg, REQ)).toEqual(valid);
    expect(await verdict(second.pg, BAD)).toEqual(invalid);
    expect(second.starts).toEqual(['copied']);
    expect(copies()).toHaveLength(2);
    // Its copy goes with its process: a worker's shutdown leaves none behind.
    await second.pg.shutdown();
    expect(copies()).toHaveLength(1);
  }, 300_000);

  it('a restart after the idle release starts from a fresh copy (the schemas cached before are gone)', async () => {
    const c = newCheck(1_500);
    expect(await verdict(c.pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid' });
    const before = copies();
    await until(() => c.events.includes('released'));
    await until(() => copies().length === before.length - 1);
    // The same schema again: created anew in the new copy (an old copy would answer "already exists").
    expect(await verdict(c.pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid', is_valid: true });
    expect(await verdict(c.pg, BAD)).toMatchObject({ constraint_id: 'sql_verifier.schema_violation' });
    expect(c.starts).toEqual(['copied', 'copied']);
  }, 300_000);

  it("a dead process's copy is removed at the next start; live owners' copies stay", async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const dead = path.join(liveDataDirs(dir), `${gone}-deadbeef`);
    const halfBuilt = path.join(liveDataDirs(dir), `${gone}-cafecafe-template`);
    const alive = path.join(liveDataDirs(dir), `${process.ppid}-0a0a0a0a`);
    for (const d of [dead, halfBuilt, alive]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(path.join(d, 'PG_VERSION'), '17\n');
    }
    const c = newCheck();
    expect(await verdict(c.pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid' });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(halfBuilt)).toBe(false);
    expect(existsSync(alive)).toBe(true);
    rmSync(alive, { recursive: true, force: true });
  }, 300_000);

  it('a folder where no copy can be made: that start keeps the files in memory (the dump loaded), says so, and gives the verdicts', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'svc-pg-ondisk-ro-'));
    try {
      writeCachedDataDir(other, readCachedDataDir(dir)!);
      writeFileSync(liveDataDirs(other), 'a file where the copies would go');
      const events: string[] = [];
      const starts: string[] = [];
      const pg = new PgCheck(
        { ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, idleReleaseMs: 0, dataDirCache: other, dataDirOnDisk: true },
        (e, d) => {
          events.push(e);
          if (e === 'started') starts.push(d.dataDir ?? '?');
        },
      );
      checks.push(pg);
      expect(await verdict(pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid', is_valid: true });
      expect(events).toContain('cache_failed');
      expect(starts).toEqual(['loaded']);
      await pg.shutdown();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 300_000);

  it('a template PostgreSQL cannot start from fails closed once, is dropped, and the next start rebuilds it from the dump', async () => {
    rmSync(dataDirTemplate(dir), { recursive: true, force: true });
    mkdirSync(path.join(dataDirTemplate(dir), 'base'), { recursive: true });
    writeFileSync(path.join(dataDirTemplate(dir), 'PG_VERSION'), 'not a data directory\n');
    const c = newCheck();
    const first = await verifySqlChecked(REQ, c.pg);
    // Never VERIFIED without PostgreSQL's verdict.
    expect(first.developerFields).toMatchObject({ constraint_id: 'sql_verifier.engine_not_run' });
    expect(c.events).toContain('failed');
    expect(existsSync(dataDirTemplate(dir))).toBe(false);
    expect(await verdict(c.pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid' });
    expect(c.starts).toEqual(['loaded']);
    expect(existsSync(path.join(dataDirTemplate(dir), 'PG_VERSION'))).toBe(true);
  }, 300_000);
});
