// PGlite's fresh data directory kept on disk (issue 22, memory): a first start runs initdb (a
// ~700 MB peak of its process) and leaves the dump in dataDirCache; the first start of a later
// PgCheck (another worker process) loads it (~330 MB) and gives the same verdicts. A torn or
// corrupted file is never loaded (its SHA-256 is checked): that start runs initdb again.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG_CHECK_LIMITS, PgCheck, verifySqlChecked } from '../../engines/sql/index.js';
import { readCachedDataDir, writeCachedDataDir } from '../../engines/sql/pg-check.js';

const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);';
const REQ = {
  query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
  schema_ddl: DDL,
  dialect: 'postgresql' as const,
};
const BAD = { query: 'SELECT w_city FROM warehouse', schema_ddl: DDL, dialect: 'postgresql' as const };

const dir = mkdtempSync(path.join(tmpdir(), 'svc-pg-datadir-'));
const checks: PgCheck[] = [];
/** A PgCheck as a new worker process would make it, recording how each start got its data directory. */
function newCheck(): { pg: PgCheck; starts: string[] } {
  const starts: string[] = [];
  const pg = new PgCheck(
    { ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, idleReleaseMs: 0, dataDirCache: dir },
    (e, d) => {
      if (e === 'started') starts.push(d.dataDir ?? '?');
    },
  );
  checks.push(pg);
  return { pg, starts };
}
const verdict = async (pg: PgCheck, req: typeof REQ) => {
  const out = await verifySqlChecked(req, pg);
  return { kind: out.kind, ...out.developerFields };
};

afterAll(async () => {
  for (const pg of checks) await pg.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe("PGlite's data directory cached on disk", () => {
  it('a first start runs initdb and leaves the dump; a later process loads it, with the same verdicts', async () => {
    const first = newCheck();
    const valid = await verdict(first.pg, REQ);
    const invalid = await verdict(first.pg, BAD);
    expect(first.starts).toEqual(['initdb']);
    expect(valid).toMatchObject({ kind: 'proven', constraint_id: 'sql_verifier.sql_valid', is_valid: true });
    expect(invalid).toMatchObject({ constraint_id: 'sql_verifier.schema_violation', is_valid: false });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1); // the dump, no temporary file left
    expect(readCachedDataDir(dir)?.length).toBeGreaterThan(100_000);

    const second = newCheck();
    expect(await verdict(second.pg, REQ)).toEqual(valid);
    expect(await verdict(second.pg, BAD)).toEqual(invalid);
    expect(second.starts).toEqual(['loaded']);
  }, 300_000);

  it('a corrupted or torn file is not loaded: that start runs initdb and writes a whole dump again', async () => {
    const file = path.join(dir, readdirSync(dir)[0]!);
    const whole = readFileSync(file);
    // One byte of the gzip body changed: the hash no longer matches.
    const corrupted = Buffer.from(whole);
    corrupted[corrupted.length - 10]! ^= 0xff;
    writeFileSync(file, corrupted);
    expect(readCachedDataDir(dir)).toBeNull();
    // Cut short (a crash mid-write without the rename would leave only a temporary file; a
    // truncated file is refused too).
    writeFileSync(file, whole.subarray(0, whole.length >> 1));
    expect(readCachedDataDir(dir)).toBeNull();

    const third = newCheck();
    expect(await verdict(third.pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid' });
    expect(third.starts).toEqual(['initdb']);
    expect(readCachedDataDir(dir)?.length).toBeGreaterThan(100_000);
  }, 300_000);

  it('a whole file that PGlite cannot start from fails closed once, is dropped, and the next start runs initdb', async () => {
    // Hash-consistent but not a data directory (a dump of another build, say).
    writeCachedDataDir(dir, new Uint8Array(Buffer.from('not a gzip tar of a data directory')));
    const fourth = newCheck();
    const failed: string[] = [];
    const pg = new PgCheck(
      { ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, idleReleaseMs: 0, dataDirCache: dir },
      (e, d) => (e === 'started' ? fourth.starts.push(d.dataDir ?? '?') : failed.push(e)),
    );
    checks.push(pg);
    const first = await verifySqlChecked(REQ, pg);
    // Never VERIFIED without PostgreSQL's verdict.
    expect(first.developerFields).toMatchObject({ constraint_id: 'sql_verifier.engine_not_run' });
    expect(failed).toContain('failed');
    expect(readdirSync(dir).filter((f) => f.endsWith('.svcdump'))).toEqual([]);
    expect(await verdict(pg, REQ)).toMatchObject({ constraint_id: 'sql_verifier.sql_valid' });
    expect(fourth.starts).toEqual(['initdb']);
    expect(readCachedDataDir(dir)?.length).toBeGreaterThan(100_000);
  }, 300_000);

  it('writes atomically: the file read back is exactly what was written', () => {
    const sub = path.join(dir, 'sub');
    const dump = new Uint8Array([1, 2, 3, 4, 5]);
    writeCachedDataDir(sub, dump);
    expect([...(readCachedDataDir(sub) ?? [])]).toEqual([1, 2, 3, 4, 5]);
    expect(readdirSync(sub).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
