// Issue 24 (SQL soundness): a deployment whose PostgreSQL check is off (SVC_SQL_PG_CHECK=0, as a
// lean extra worker runs) never gives a postgresql statement a VERIFIED verdict from the JS
// resolver alone: no fault found is UNVERIFIABLE with the reason, an uncertain objection is
// UNVERIFIABLE too, and only what is certain by construction (an undeclared table) or malice is
// proven. Other dialects are unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import type { ManagedProcess } from '../../infra/stack.js';

const DDL =
  'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text); CREATE TABLE item (i_item_sk integer, i_item_id text);';

describe('POST /verify/sql on a worker without the PostgreSQL check (extra worker and API)', () => {
  let t: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  const queue = 'svc-sql-no-pg';
  const verify = async (body: unknown) => {
    const res = await fetch(`${api.url}/verify/sql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  beforeAll(async () => {
    t = await newTenant();
    worker = await startExtraWorker('worker-sql-no-pg', { SVC_TASK_QUEUE: queue, SVC_SQL_PG_CHECK: '0' });
    api = await startExtraApi('api-sql-no-pg', { SVC_TASK_QUEUE: queue });
  }, 240_000);
  afterAll(async () => {
    await api?.proc.stop();
    await worker?.stop();
  });

  it('postgresql, no fault found: UNVERIFIABLE with the reason, not admitted, no proof', async () => {
    const res = await verify({
      query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
      schema_ddl: DDL,
      dialect: 'postgresql',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      admission: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: {
        constraint_id: 'sql_verifier.engine_not_run',
        is_valid: false,
        postgres_check: 'not_run',
        error: "unverified: PostgreSQL's check did not run (the PostgreSQL check is disabled (SVC_SQL_PG_CHECK=0))",
      },
    });
  });

  it('postgresql, an uncertain objection: UNVERIFIABLE, never VERIFIED-invalid', async () => {
    const res = await verify({ query: 'SELECT w_city FROM warehouse', schema_ddl: DDL, dialect: 'postgresql' });
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', violation_confirmed_by: 'none' },
    });
  });

  it('postgresql, certain by construction or malicious: still proven', async () => {
    const ghost = await verify({ query: 'SELECT id FROM ghosts', schema_ddl: DDL, dialect: 'postgresql' });
    expect(ghost.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', violation_confirmed_by: 'construction' },
    });
    const evil = await verify({
      query: "SELECT w_state FROM warehouse WHERE w_state = '' OR 1=1",
      schema_ddl: DDL,
      dialect: 'postgresql',
    });
    expect(evil.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.malicious' },
    });
  });

  it('sqlite is judged by SQLite as before: VERIFIED sql_valid and admitted', async () => {
    const res = await verify({ query: 'SELECT w_state FROM warehouse', schema_ddl: DDL, dialect: 'sqlite' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid', is_valid: true },
    });
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ query: 'SELECT 1', schema_ddl: 7, dialect: 'postgresql' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("Invalid field 'schema_ddl': schema_ddl must be a string");
  });
});
