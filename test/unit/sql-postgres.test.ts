// /verify/sql with dialect postgresql: PostgreSQL itself (PGlite, parse + describe, never
// executed) decides names and types; malice checks stay on top; TPC-H/TPC-DS shapes pass.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgCheck, verifySql, verifySqlChecked } from '../../engines/sql/index.js';
import { readPgSchema } from '../../engines/sql/pg-check.js';
import { parsePgNodeTree, PgTreeError } from '../../engines/sql/pg-tree.js';

const fixture = (p: string) => readFileSync(new URL(`../fixtures/sql/${p}`, import.meta.url), 'utf8');
const SHOP = fixture('analytics/schema.sql');
const DDL = `CREATE TABLE users (id integer PRIMARY KEY, name text NOT NULL, email varchar(200), password_hash text, created_at timestamp DEFAULT now());
CREATE TABLE orders (id integer, user_id integer REFERENCES users(id), total numeric(12, 2), tags text[]);`;

const pg = new PgCheck();

async function run(query: string, ddl = DDL) {
  const out = await verifySqlChecked({ query, schema_ddl: ddl, dialect: 'postgresql' }, pg);
  return {
    out,
    f: out.developerFields as Record<string, any>,
    proof: (out.kind === 'proven' ? out.proof : null) as Record<string, any> | null,
  };
}

beforeAll(async () => {
  // PGlite's start-up (WASM + initdb) takes seconds, more on a loaded machine.
  expect(await pg.start()).toBe(true);
}, 240_000);
afterAll(async () => {
  await pg.shutdown();
});

describe('the schema is rebuilt from tokens, never executed', () => {
  it('keeps names and types, drops defaults, references and constraints', () => {
    const t = readPgSchema(`${DDL}\nCREATE INDEX i ON users (name); COMMENT ON TABLE users IS 'x';`);
    expect(t).toEqual([
      {
        qualifier: null,
        name: 'users',
        columns: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'text' },
          { name: 'email', type: 'varchar(200)' },
          { name: 'password_hash', type: 'text' },
          { name: 'created_at', type: 'timestamp' },
        ],
      },
      {
        qualifier: null,
        name: 'orders',
        columns: [
          { name: 'id', type: 'integer' },
          { name: 'user_id', type: 'integer' },
          { name: 'total', type: 'numeric(12, 2)' },
          { name: 'tags', type: 'text[]' },
        ],
      },
    ]);
  });

  it('a DEFAULT expression with side effects is never sent (the check still runs on the typed columns)', async () => {
    const { f } = await run('SELECT a FROM t WHERE a > 1', 'CREATE TABLE t (a int DEFAULT pg_sleep(30)::text::int)');
    expect(f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(f.postgres_check).toBe('accepted');
  });
});

describe('PostgreSQL decides names and types', () => {
  it.each([
    ['date minus interval, three joins', 'analytics/queries/a01_revenue_last_quarter.sql', SHOP],
    ['ROLLUP with GROUPING and EXTRACT', 'analytics/queries/a02_monthly_rollup.sql', SHOP],
    ['window frames', 'analytics/queries/a03_running_total_window.sql', SHOP],
    ['several CTEs, one with a column list', 'analytics/queries/a04_ctes_top_categories.sql', SHOP],
    ['substring … FROM … FOR and position … IN', 'analytics/queries/a06_substring_prefix.sql', SHOP],
    ['ordered-set aggregate (WITHIN GROUP)', 'analytics/queries/a11_shipping_delay.sql', SHOP],
    ['aggregate FILTER and four LEFT JOINs', 'analytics/queries/a15_supplier_scorecard.sql', SHOP],
  ])(
    '%s is admitted',
    async (_name, file, ddl) => {
      const { f, proof } = await run(fixture(file), ddl);
      expect(f.constraint_id).toBe('sql_verifier.sql_valid');
      expect(f.malicious_classification).toBe(false);
      expect(f.postgres_check).toBe('accepted');
      expect(proof!.postgres_prepare).toMatchObject({ ran: true, ok: true, engine: 'pglite', executed: false });
    },
    60_000,
  );

  it('an undeclared column is a schema_violation with PostgreSQL’s message', async () => {
    const { f } = await run('SELECT nickname FROM users');
    expect(f.constraint_id).toBe('sql_verifier.schema_violation');
    expect(f.violations[0]).toBe('PostgreSQL: column "nickname" does not exist');
  });

  it('an undeclared table is a schema_violation', async () => {
    const { f } = await run('SELECT id FROM customers');
    expect(f.constraint_id).toBe('sql_verifier.schema_violation');
    expect(f.postgres_check).toBe('rejected');
  });

  it.each([
    ['a type error (sum of text)', 'SELECT sum(name) FROM users', '42883'],
    ['a grouping error', 'SELECT name, count(*) FROM users', '42803'],
    ['an unknown function', 'SELECT no_such_fn(id) FROM users', '42883'],
    ['comparing an integer with a date', "SELECT id FROM users WHERE id > date '2020-01-01'", '42883'],
  ])('%s is an execution_error with its SQLSTATE', async (_name, query, sqlstate) => {
    const { out, f } = await run(query);
    expect(out.kind).toBe('blocked');
    expect(f.constraint_id).toBe('sql_verifier.execution_error');
    expect(f.error).toContain(`SQLSTATE ${sqlstate}`);
  });

  it('columns the parser-based resolver would miss are decided by PostgreSQL (array element, interval arithmetic)', async () => {
    const { f } = await run(
      "SELECT tags[1], created_at - interval '90' day AS d FROM orders o JOIN users u ON u.id = o.user_id WHERE total > ?",
    );
    expect(f.constraint_id).toBe('sql_verifier.sql_valid');
  });

  it('? placeholders are sent as $n', async () => {
    const { f } = await run('SELECT id FROM users WHERE name = ? AND id > ?');
    expect(f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(f.postgres_check).toBe('accepted');
  });
});

describe('malice checks stay on top of the real parse', () => {
  it.each([
    ['stacked statements', 'SELECT id FROM users; DROP TABLE users', 'stacked_statements'],
    ['a time probe', 'SELECT pg_sleep(10)', 'time_based_probe'],
    ['a catalog read', 'SELECT usename, passwd FROM pg_shadow', 'system_catalog_read'],
    ['a tautology under OR', "SELECT id FROM users WHERE name = 'x' OR 1 = 1", 'tautology'],
    ['a sensitive column read', 'SELECT password_hash FROM users', 'sensitive_column_read'],
  ])('%s', async (_name, query, category) => {
    const { f } = await run(query);
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(f.malicious_categories).toContain(category);
  });

  it('without an AST a sensitive column counts as read (fail closed)', async () => {
    // substring(… FROM … FOR …) keeps node-sql-parser out; PostgreSQL reads it.
    const { f, proof } = await run('SELECT substring(name FROM 1 FOR 2) FROM users WHERE password_hash = $1');
    expect(proof?.analysis).toBe('postgres_engine');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(f.malicious_categories).toEqual(['sensitive_column_read']);
  });

  it('without an AST a three-way cross product is still refused', async () => {
    const { f, proof } = await run(
      'SELECT substring(u.name FROM 1 FOR 2) FROM users u, orders o, users u2, orders o2 WHERE o.user_id = u.id AND o2.id > 1',
    );
    expect(proof).toBeNull();
    expect(f.constraint_id).toBe('sql_verifier.complexity_limit_exceeded');
    expect(f.limit).toBe('cartesian_factors');
    expect(f.observed_value).toBe(3);
    // Two groups (one cross join) are allowed.
    const two = await run(
      'SELECT substring(u.name FROM 1 FOR 2) FROM users u, orders o, users u2 WHERE o.user_id = u.id',
    );
    expect(two.f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(two.proof?.analysis).toBe('postgres_engine');
  });

  it('without an AST WITH RECURSIVE is refused', async () => {
    const { f } = await run(
      'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT substring(i::text FROM 1 FOR 1) FROM n',
    );
    expect(f.constraint_id).toBe('sql_verifier.complexity_limit_exceeded');
    expect(f.limit).toBe('unbounded_recursion');
  });

  it('the PostgreSQL check refuses what the JS parser accepts but PostgreSQL does not (parse_error)', async () => {
    const { out, f } = await run('SELECT id FROM users LIMIT 1, 2');
    expect(out.kind).toBe('blocked');
    expect(['sql_verifier.parse_error']).toContain(f.constraint_id);
  });
});

describe("PostgreSQL's own parse tree is the AST when node-sql-parser cannot read the query", () => {
  const fromTree = (f: Record<string, any>, type: string) =>
    (f.issues as Array<Record<string, unknown>>).some((i) => i.source === 'postgres' && i.type === type);

  it('a volatile function with side effects is found by its oid (not on any name list)', async () => {
    const { f } = await run('SELECT substring(name FROM 1 FOR 2), pg_advisory_lock(7) FROM users');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(f.malicious_categories).toEqual(['administrative_statement']);
    expect(fromTree(f, 'administrative_statement')).toBe(true);
    // random() is volatile but only computes a value.
    expect((await run('SELECT substring(name FROM 1 FOR 2), random() FROM users')).f.constraint_id).toBe(
      'sql_verifier.sql_valid',
    );
  });

  it('a column compared with itself is a tautology as the whole WHERE, not as one AND conjunct', async () => {
    const whole = await run('SELECT substring(name FROM 1 FOR 2) FROM users WHERE id = id');
    expect(whole.f.constraint_id).toBe('sql_verifier.malicious');
    expect(fromTree(whole.f, 'tautology')).toBe(true);
    const conjunct = await run('SELECT substring(name FROM 1 FOR 2) FROM users WHERE id > 3 AND id = id');
    expect(conjunct.f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(conjunct.proof?.analysis).toBe('postgres_engine');
  });

  it('literal comparisons in ON are evaluated on the tree (2 > 1 is true, 1 > 2 is not)', async () => {
    const t = await run('SELECT substring(u.name FROM 1 FOR 2) FROM users u JOIN orders o ON 2 > 1');
    expect(t.f.constraint_id).toBe('sql_verifier.malicious');
    expect(fromTree(t.f, 'tautology')).toBe(true);
    const f = await run(
      'SELECT substring(u.name FROM 1 FOR 2) FROM users u JOIN orders o ON o.user_id = u.id AND 1 > 2',
    );
    expect(fromTree(f.f, 'tautology')).toBe(false);
  });

  it('a sensitive column read out through a correlated scalar subquery', async () => {
    const { f } = await run('SELECT substring(name FROM 1 FOR 2), (SELECT u.password_hash) AS x FROM users u');
    expect(f.malicious_categories).toEqual(['sensitive_column_read']);
    expect(fromTree(f, 'sensitive_column_read')).toBe(true);
  });

  it('a catalog read combined with UNION is read from the tree (relation oid, not its spelling)', async () => {
    const { f } = await run(
      'SELECT substring(name FROM 1 FOR 2) FROM users UNION SELECT substring(usename FROM 1 FOR 2) FROM "pg_catalog"."pg_user"',
    );
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(fromTree(f, 'union_catalog_read')).toBe(true);
  });

  it('the tree is checked on the parser path too', async () => {
    const { f } = await run('SELECT id FROM users WHERE id = id');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(fromTree(f, 'tautology')).toBe(true);
  });

  it('fails closed: PostgreSQL accepted the query but no readable tree came back → parse_error, never admitted', () => {
    const query = 'SELECT substring(name FROM 1 FOR 2) FROM users';
    const accepted = {
      ran: true as const,
      ok: true as const,
      columns: [{ name: 'substring', type_oid: 25 }],
      ms: 1,
      schema_cached: true,
    };
    for (const tree of [
      null,
      { text: '{QUERY :commandType 1 :rtable (', relations: {}, functions: {}, operators: {} },
      { text: '{RAWSTMT}', relations: {}, functions: {}, operators: {} },
    ]) {
      const out = verifySql({ query, schema_ddl: DDL, dialect: 'postgresql' }, { postgres: { ...accepted, tree } });
      expect(out.kind).toBe('blocked');
      expect((out.developerFields as Record<string, unknown>).constraint_id).toBe('sql_verifier.parse_error');
    }
    // A relation oid the worker could not name is unreadable as well.
    const unnamed = {
      text: '{QUERY :commandType 1 :utilityStmt <> :hasModifyingCTE false :rtable ({RANGETBLENTRY :relid 99 :eref {ALIAS :aliasname t :colnames ("a")}}) :jointree {FROMEXPR :fromlist () :quals <>} :targetList () :havingQual <> :setOperations <>}',
      relations: {},
      functions: {},
      operators: {},
    };
    const out = verifySql(
      { query, schema_ddl: DDL, dialect: 'postgresql' },
      { postgres: { ...accepted, tree: unnamed } },
    );
    expect((out.developerFields as Record<string, unknown>).constraint_id).toBe('sql_verifier.parse_error');
  });

  it('reads the nodeToString format: nodes, lists, strings, escapes, datums, null', () => {
    const n = parsePgNodeTree(
      '{QUERY :commandType 1 :utilityStmt <> :a ("x y" "q\\"z") :b (b 8 9) :c {CONST :constvalue 4 [ 1 0 0 0 ]} :d a\\ b}',
    );
    expect(n._type).toBe('QUERY');
    expect(n.commandType).toBe('1');
    expect(n.utilityStmt).toBeNull();
    expect(n.a).toEqual(['x y', 'q"z']);
    expect(n.b).toEqual(['b', '8', '9']);
    expect(n.c).toEqual({ _type: 'CONST', constvalue: ['4', '[1 0 0 0]'] });
    expect(n.d).toBe('a b');
    expect(() => parsePgNodeTree('{QUERY :a (1 2}')).toThrow(PgTreeError);
    expect(() => parsePgNodeTree('{SELECTSTMT}')).toThrow(PgTreeError);
  });
});
