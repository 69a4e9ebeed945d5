// Issue 24 (SQL) through the real stack: the dialect's own engine is the judge of a schema
// violation. The benign TPC-DS shapes that the JS resolver used to call invalid are admitted; a
// real undefined column is VERIFIED schema_violation confirmed by PostgreSQL; a statement only
// PostgreSQL parses is judged by PostgreSQL; without an engine an uncertain objection is
// UNVERIFIABLE, never VERIFIED-invalid.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, untilPostgresReady, type Member } from './helpers.js';

const DDL = `CREATE TABLE web_sales (ws_sold_date_sk integer, ws_ext_sales_price decimal(15,2), ws_item_sk integer);
CREATE TABLE catalog_sales (cs_sold_date_sk integer, cs_ext_sales_price decimal(15,2), cs_item_sk integer, cs_order_number integer, cs_warehouse_sk integer, cs_sales_price decimal(15,2));
CREATE TABLE catalog_returns (cr_item_sk integer, cr_order_number integer, cr_refunded_cash decimal(15,2));
CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);
CREATE TABLE date_dim (d_date_sk integer, d_week_seq integer, d_date date, d_year integer);
CREATE TABLE item (i_item_sk integer, i_item_id text, i_category text, i_class text);`;

const BENIGN: Array<[string, string]> = [
  [
    'UNION ALL branches aliased alike inside a CTE',
    'WITH wscs AS (SELECT sold_date_sk, sales_price FROM (SELECT ws_sold_date_sk sold_date_sk, ws_ext_sales_price sales_price FROM web_sales) UNION ALL (SELECT cs_sold_date_sk sold_date_sk, cs_ext_sales_price sales_price FROM catalog_sales)) SELECT d_week_seq, sum(sales_price) FROM wscs, date_dim WHERE d_date_sk = sold_date_sk GROUP BY d_week_seq',
  ],
  [
    'explicit joins followed by comma joins',
    'SELECT w_state, i_item_id, sum(cs_sales_price - COALESCE(cr_refunded_cash, 0)) AS net FROM catalog_sales LEFT OUTER JOIN catalog_returns ON (cs_order_number = cr_order_number AND cs_item_sk = cr_item_sk), warehouse, item WHERE i_item_sk = cs_item_sk AND cs_warehouse_sk = w_warehouse_sk GROUP BY w_state, i_item_id ORDER BY w_state, i_item_id',
  ],
  [
    'one table joined three times under aliases, ORDER BY the output name',
    'SELECT d1.d_week_seq, count(*) AS total_cnt FROM catalog_sales JOIN date_dim d1 ON cs_sold_date_sk = d1.d_date_sk JOIN date_dim d2 ON cs_item_sk = d2.d_date_sk JOIN date_dim d3 ON cs_order_number = d3.d_date_sk WHERE d1.d_week_seq = d2.d_week_seq AND d3.d_date > d1.d_date GROUP BY d1.d_week_seq ORDER BY total_cnt DESC, d_week_seq',
  ],
  [
    'the same column name from several CTEs joined later',
    'WITH ss AS (SELECT i_item_id item_id, sum(ws_ext_sales_price) rev FROM web_sales, item WHERE ws_item_sk = i_item_sk GROUP BY i_item_id), cs AS (SELECT i_item_id item_id, sum(cs_ext_sales_price) rev FROM catalog_sales, item WHERE cs_item_sk = i_item_sk GROUP BY i_item_id) SELECT ss.item_id, ss.rev, cs.rev FROM ss, cs WHERE ss.item_id = cs.item_id ORDER BY item_id',
  ],
];

describe('POST /verify/sql: the real engine is the judge of a schema violation', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/sql', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
    await untilPostgresReady(t.key);
  }, 300_000);

  it.each(BENIGN)('postgresql: %s is VERIFIED sql_valid and admitted', async (_name, query) => {
    const res = await verify({ query, schema_ddl: DDL, dialect: 'postgresql' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      developer_fields: { constraint_id: 'sql_verifier.sql_valid', is_valid: true, postgres_check: 'accepted' },
    });
    // The JS resolver agrees: nothing of it was overruled.
    expect(res.body.developer_fields.resolver_defects).toBeUndefined();
  });

  it.each(BENIGN)('mysql (no embedded engine): %s is not VERIFIED-invalid', async (_name, query) => {
    const res = await verify({ query, schema_ddl: DDL, dialect: 'mysql' });
    expect(res.status).toBe(200);
    expect(res.body.developer_fields.constraint_id).toBe('sql_verifier.sql_valid');
    expect(res.body.status).toBe('VERIFIED');
  });

  it('the resolver objects, PostgreSQL accepts: the verdict follows PostgreSQL and the defect is counted', async () => {
    // ctid is a system column every PostgreSQL table has; the DDL does not declare it.
    const res = await verify({
      query: 'SELECT w.ctid, w.w_state FROM warehouse w',
      schema_ddl: DDL,
      dialect: 'postgresql',
    });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid', postgres_check: 'accepted', resolver_defects: 1 },
    });
    expect(res.body.developer_fields.issues).toEqual([
      {
        type: 'undeclared_column',
        severity: 'info',
        description: "Column 'ctid' is not declared in 'warehouse'.",
        source: 'resolver',
        table: 'warehouse',
        column: 'ctid',
        overruled_by: 'postgres_prepare',
      },
    ]);
  });

  it('a real undefined column is VERIFIED schema_violation, confirmed by PostgreSQL', async () => {
    const res = await verify({
      query: 'SELECT w_state, w_city FROM warehouse',
      schema_ddl: DDL,
      dialect: 'postgresql',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      developer_fields: {
        constraint_id: 'sql_verifier.schema_violation',
        is_valid: false,
        malicious_classification: false,
        postgres_check: 'rejected',
        violation_confirmed_by: 'postgresql',
      },
    });
    expect(res.body.developer_fields.violations[0]).toBe('PostgreSQL: column "w_city" does not exist');
  });

  it('sqlite: a real undefined column is VERIFIED schema_violation, confirmed by SQLite', async () => {
    const res = await verify({ query: 'SELECT w_city FROM warehouse', schema_ddl: DDL, dialect: 'sqlite' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', violation_confirmed_by: 'sqlite' },
    });
  });

  it('a statement only PostgreSQL parses is judged by PostgreSQL: admitted', async () => {
    const query =
      'SELECT i_category, i_class, grouping(i_category) + grouping(i_class) AS lochierarchy, rank() OVER (PARTITION BY grouping(i_category) + grouping(i_class) ORDER BY count(*) DESC) AS rank_within_parent FROM item GROUP BY ROLLUP (i_category, i_class)';
    const res = await verify({ query, schema_ddl: DDL, dialect: 'postgresql' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid', postgres_check: 'accepted' },
    });
  });

  it('a statement only PostgreSQL parses, with an undefined column: PostgreSQL’s schema_violation', async () => {
    const query =
      'SELECT i_category, rank() OVER (PARTITION BY grouping(i_category) + grouping(i_class) ORDER BY count(*) DESC) AS r FROM item GROUP BY ROLLUP (i_category, i_kind)';
    const res = await verify({ query, schema_ddl: DDL, dialect: 'postgresql' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: {
        constraint_id: 'sql_verifier.schema_violation',
        postgres_check: 'rejected',
        violation_confirmed_by: 'postgresql',
        violations: ['PostgreSQL: column "i_kind" does not exist'],
      },
    });
  });

  it('fail closed: without an engine an uncertain objection is UNVERIFIABLE, not admitted, with no proof', async () => {
    const res = await verify({ query: 'SELECT w_city FROM warehouse', schema_ddl: DDL, dialect: 'mysql' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      admission: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: {
        constraint_id: 'sql_verifier.schema_violation',
        is_valid: false,
        violation_confirmed_by: 'none',
        error: 'unconfirmed: the mysql dialect has no embedded engine to confirm it',
        violations: ["Column 'w_city' is not declared in 'warehouse'."],
      },
    });
  });

  it('without an engine, an undeclared table is still proven (certain by construction)', async () => {
    const res = await verify({ query: 'SELECT id FROM ghosts', schema_ddl: DDL, dialect: 'mysql' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', violation_confirmed_by: 'construction' },
    });
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ query: 5, schema_ddl: DDL, dialect: 'postgresql' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("Invalid field 'query': query must be a string");
  });
});
