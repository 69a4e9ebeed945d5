// Issue 22 (memory): the worker starts PostgreSQL's check (PGlite, ~250 MB) on the first
// postgresql request, not at its own start, and releases it after SVC_SQL_PG_IDLE_RELEASE_MS
// without one. A request that finds it cold waits for the start within its own budget: on a
// quiet machine the start fits and the answer is PostgreSQL's verdict; where the start outlasts
// the budget (a loaded machine) the answer fails closed, UNVERIFIABLE engine_not_run, never
// VERIFIED without the check (docs/sql-engine.md, "PGlite on demand"). An extra worker with the
// check on and a 4 s idle period, and an API on its queue.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import type { ManagedProcess } from '../../infra/stack.js';

const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);';
const QUERY = {
  query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
  schema_ddl: DDL,
  dialect: 'postgresql',
};
const IDLE_MS = 4_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /verify/sql: PGlite started on demand and released when idle (extra worker and API)', () => {
  let t: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  const queue = 'svc-sql-pg-on-demand';
  const verify = async (body: unknown) => {
    const res = await fetch(`${api.url}/verify/sql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const count = (text: string) => readFileSync(worker.logFile, 'utf8').split(text).length - 1;
  /** The exact answer with PostgreSQL's verdict, or the exact fail-closed answer while PGlite starts. */
  const expectRealOrNotRun = (res: { status: number; body: any }): 'accepted' | 'not_run' => {
    expect(res.status).toBe(200);
    if (res.body.developer_fields?.postgres_check === 'accepted') {
      expect(res.body).toMatchObject({
        status: 'VERIFIED',
        admission: 'ADMIT',
        developer_fields: { constraint_id: 'sql_verifier.sql_valid', is_valid: true, postgres_check: 'accepted' },
      });
      expect(res.body.proof_ref).toMatch(/^sha256:/);
      return 'accepted';
    }
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      admission: 'BLOCKED',
      proof_ref: null,
      developer_fields: { constraint_id: 'sql_verifier.engine_not_run', is_valid: false, postgres_check: 'not_run' },
    });
    expect(res.body.developer_fields.error).toMatch(
      /^unverified: PostgreSQL's check did not run \((PGlite is still starting \(waited \d+ ms\)|the PostgreSQL check exceeded \d+ ms)\)$/,
    );
    return 'not_run';
  };
  /** Asks until PostgreSQL answers (readiness, not timing): every answer on the way is one of the two above. */
  const untilAccepted = async () => {
    const deadline = Date.now() + 240_000;
    for (;;) {
      if (expectRealOrNotRun(await verify(QUERY)) === 'accepted') return;
      if (Date.now() > deadline) throw new Error('PGlite never answered');
      await sleep(1000);
    }
  };

  beforeAll(async () => {
    t = await newTenant();
    worker = await startExtraWorker('worker-sql-pg-on-demand', {
      SVC_TASK_QUEUE: queue,
      SVC_SQL_PG_CHECK: '1',
      SVC_SQL_PG_IDLE_RELEASE_MS: String(IDLE_MS),
      SVC_LOG_LEVEL: 'info',
    });
    api = await startExtraApi('api-sql-pg-on-demand', { SVC_TASK_QUEUE: queue });
  }, 240_000);
  afterAll(async () => {
    await api?.proc.stop();
    await worker?.stop();
  });

  it('not started with the worker; the first postgresql request starts it and gets its verdict or fails closed', async () => {
    expect(count('PGlite started')).toBe(0);
    // Another dialect does not start it.
    const sqlite = await verify({ ...QUERY, dialect: 'sqlite' });
    expect(sqlite.body).toMatchObject({
      status: 'VERIFIED',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
    });
    await sleep(500);
    expect(count('PGlite started')).toBe(0);
    expectRealOrNotRun(await verify(QUERY));
    await untilAccepted();
    expect(count('PGlite started')).toBe(1);
  }, 300_000);

  it('released after the idle period; the next postgresql request starts it again', async () => {
    const deadline = Date.now() + 60_000;
    while (count('PGlite released after its idle period') < 1 && Date.now() < deadline) await sleep(250);
    expect(count('PGlite released after its idle period')).toBe(1);
    expectRealOrNotRun(await verify(QUERY));
    await untilAccepted();
    expect(count('PGlite started')).toBe(2);
  }, 300_000);
});
