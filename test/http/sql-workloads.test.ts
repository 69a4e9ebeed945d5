// /verify/sql on analytical reporting queries (issue 15): our own retail-warehouse schema and
// queries (test/fixtures/sql/analytics, the syntax TPC-H/TPC-DS-style workloads use), dialect
// postgresql, checked by PostgreSQL itself (PGlite in the worker) through the real stack.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, untilPostgresReady, type Member } from './helpers.js';

const fixture = (p: string) => readFileSync(new URL(`../fixtures/sql/${p}`, import.meta.url), 'utf8');
const SHOP = fixture('analytics/schema.sql');

describe('POST /verify/sql: analytical queries through PostgreSQL', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/sql', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
    await untilPostgresReady(t.key);
  }, 300_000);

  it.each(['a02_monthly_rollup', 'a04_ctes_top_categories', 'a06_substring_prefix', 'a09_region_share'])(
    '%s is VERIFIED sql_valid and admitted',
    async (q) => {
      const res = await verify({
        query: fixture(`analytics/queries/${q}.sql`),
        schema_ddl: SHOP,
        dialect: 'postgresql',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'VERIFIED',
        admission: 'ADMIT',
        proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        developer_fields: {
          constraint_id: 'sql_verifier.sql_valid',
          is_valid: true,
          malicious_classification: false,
          dialect: 'postgresql',
          postgres_check: 'accepted',
        },
      });
    },
  );

  it('a column that does not exist is a schema_violation with PostgreSQL’s own message', async () => {
    const res = await verify({ query: 'SELECT region_nam FROM regions', schema_ddl: SHOP, dialect: 'postgresql' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', is_valid: false, postgres_check: 'rejected' },
    });
    expect(res.body.developer_fields.violations[0]).toBe('PostgreSQL: column "region_nam" does not exist');
  });

  it('a type error is BLOCKED execution_error (fail closed), with the SQLSTATE', async () => {
    const res = await verify({
      query: 'SELECT sum(region_name) FROM regions',
      schema_ddl: SHOP,
      dialect: 'postgresql',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      proof_ref: null,
      developer_fields: { constraint_id: 'sql_verifier.execution_error', is_valid: false },
    });
    expect(res.body.developer_fields.error).toContain('SQLSTATE 42883');
  });

  it('a three-way cross product of the warehouse tables stays refused', async () => {
    const res = await verify({
      query: 'SELECT count(*) FROM order_items, orders, products',
      schema_ddl: SHOP,
      dialect: 'postgresql',
    });
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      developer_fields: {
        constraint_id: 'sql_verifier.complexity_limit_exceeded',
        limit: 'cartesian_factors',
        observed_value: 3,
      },
    });
  });

  it('malice on top of an accepted parse: a tautology under OR', async () => {
    const res = await verify({
      query: "SELECT country_name FROM countries WHERE country_name = 'x' OR 1 = 1",
      schema_ddl: SHOP,
      dialect: 'postgresql',
    });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.malicious', malicious_categories: ['tautology'] },
    });
  });

  it('x = x as one conjunct of AND is not a tautology (NULL semantics)', async () => {
    const res = await verify({
      query: 'SELECT country_name FROM countries WHERE region_id = region_id AND country_id > 3',
      schema_ddl: SHOP,
      dialect: 'postgresql',
    });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
    });
  });
});
