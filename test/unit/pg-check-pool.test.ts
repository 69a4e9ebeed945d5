// PostgreSQL's check (PGlite) as a resource of its own (issue 22, memory; issue 25, composition
// root): not started until a postgresql check needs it, the first check waits for the start
// within its budget, released after the idle period, started again by the next check; a check
// whose budget ends before PGlite is up answers {ran: false}, and the SQL engine then fails
// closed (UNVERIFIABLE sql_verifier.engine_not_run, never VERIFIED).
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG_CHECK_LIMITS, PgCheck, verifySql, verifySqlChecked } from '../../engines/sql/index.js';

const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);';
const QUERY = 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state';
const REQ = { query: QUERY, schema_ddl: DDL, dialect: 'postgresql' as const };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PgCheck: PGlite on demand, released when idle', () => {
  const events: string[] = [];
  const pg = new PgCheck(
    // A generous start wait: a loaded 2-core machine has taken 7 s to start PGlite.
    { ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, idleReleaseMs: 1_500 },
    (e) => events.push(e),
  );
  afterAll(async () => {
    await pg.shutdown();
  });

  it('is not started by its construction', () => {
    expect(pg.state()).toBe('stopped');
    expect(pg.stats()).toMatchObject({ starts: 0, releases: 0, checks: 0 });
  });

  it('the first postgresql check starts it and waits for it within its budget: a real verdict', async () => {
    const out = await verifySqlChecked(REQ, pg);
    expect(out.kind).toBe('proven');
    const proof = (out as { proof: Record<string, any> }).proof;
    expect(proof.postgres_prepare).toMatchObject({ ran: true, ok: true, engine: 'pglite', executed: false });
    expect(proof.postgres_prepare.postgres_version).toMatch(/^\d+/);
    expect(out.developerFields).toMatchObject({ constraint_id: 'sql_verifier.sql_valid', is_valid: true });
    expect(pg.state()).toBe('ready');
    expect(pg.stats()).toMatchObject({ starts: 1, releases: 0 });
  }, 180_000);

  it('is released after the idle period, and the next check starts it again', async () => {
    const deadline = Date.now() + 20_000;
    while (pg.state() !== 'stopped' && Date.now() < deadline) await sleep(100);
    expect(pg.state()).toBe('stopped');
    expect(pg.stats()).toMatchObject({ starts: 1, releases: 1 });
    expect(events).toEqual(['started', 'released']);
    const out = await verifySqlChecked(REQ, pg);
    expect(out.developerFields).toMatchObject({ constraint_id: 'sql_verifier.sql_valid', postgres_check: 'accepted' });
    expect(pg.stats()).toMatchObject({ starts: 2, releases: 1 });
  }, 180_000);

  it('a check keeps it: no release while checks come more often than the idle period', async () => {
    for (let i = 0; i < 4; i++) {
      await sleep(500);
      expect((await pg.check(QUERY, DDL)).ran).toBe(true);
    }
    expect(pg.stats().releases).toBe(1);
  }, 60_000);
});

describe('PgCheck: fail closed while PGlite starts', () => {
  const pg = new PgCheck({ ...DEFAULT_PG_CHECK_LIMITS, idleReleaseMs: 0 });
  afterAll(async () => {
    await pg.shutdown();
  });

  it('a budget that ends before PGlite is up: not run, and the statement is UNVERIFIABLE engine_not_run', async () => {
    const r = await pg.check(QUERY, DDL, { budgetMs: 300 });
    expect(r).toMatchObject({ ran: false });
    expect((r as { reason: string }).reason).toMatch(/^PGlite is still starting \(waited \d+ ms\)$/);
    expect(pg.state()).toBe('starting');
    const out = verifySql(REQ, { postgres: r });
    expect(out.kind).toBe('unverifiable');
    expect(out.developerFields).toMatchObject({
      constraint_id: 'sql_verifier.engine_not_run',
      is_valid: false,
      postgres_check: 'not_run',
    });
  });

  it('the start the refused check began goes on: a later check gets the real verdict', async () => {
    expect(await pg.start()).toBe(true);
    expect((await pg.check(QUERY, DDL)).ran).toBe(true);
    expect(pg.stats()).toMatchObject({ starts: 1, releases: 0 });
  }, 180_000);

  it('switched off: never started, every check not run', async () => {
    const off = new PgCheck({ ...DEFAULT_PG_CHECK_LIMITS, enabled: false });
    expect(off.state()).toBe('off');
    expect(await off.start()).toBe(false);
    expect(await off.check(QUERY, DDL)).toEqual({
      ran: false,
      reason: 'the PostgreSQL check is disabled (SVC_SQL_PG_CHECK=0)',
    });
    expect(off.stats().starts).toBe(0);
  });
});
