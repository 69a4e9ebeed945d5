import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { assertCanonicalDomain, sha256Hex } from '../../core/canonical-json.js';
import { buildDiagnostic, type EngineOutcome } from '../../core/diagnostic.js';
import {
  isSensitiveColumnName,
  SQL_LIMITS,
  sqlRequestSchema,
  validateSqlRequest,
  verifySql,
  canonicalDialect,
  type SqlIssue,
} from '../../engines/sql/index.js';
import { lexSql } from '../../engines/sql/lexer.js';
import { LEX_PROFILES } from '../../engines/sql/dialects.js';
import { parseSchema } from '../../engines/sql/ddl.js';

const DDL = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT UNIQUE,
  password_hash TEXT,
  created_at TEXT,
  updated_at TEXT,
  password_reset_at TEXT
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  user_id INTEGER REFERENCES users(id),
  total REAL,
  status TEXT,
  created_at TEXT
);
CREATE TABLE products (id INTEGER PRIMARY KEY, title TEXT, price REAL);
`;

const SECRETS_DDL = `CREATE TABLE accounts (
  id INTEGER, owner TEXT, password TEXT, passwd TEXT, api_key TEXT, secret TEXT, token TEXT,
  ssn TEXT, credit_card TEXT, card_number TEXT, cvv TEXT,
  token_count INTEGER, api_key_id INTEGER, card_last4 TEXT, is_secret INTEGER, password_reset_at TEXT
);`;

type Constraint =
  | 'sql_valid'
  | 'malicious'
  | 'schema_violation'
  | 'parse_error'
  | 'schema_parse_error'
  | 'complexity_limit_exceeded'
  | 'execution_error';

interface Case {
  name: string;
  query: string;
  dialect?: string;
  ddl?: string;
  expect: Constraint;
  /** Exact sorted malicious categories (malicious cases). */
  categories?: string[];
}

const BLOCKED: Constraint[] = ['parse_error', 'schema_parse_error', 'complexity_limit_exceeded', 'execution_error'];

function run(query: string, dialect?: string, ddl = DDL): { outcome: EngineOutcome; f: Record<string, unknown> } {
  const req = sqlRequestSchema.parse({ query, schema_ddl: ddl, ...(dialect !== undefined ? { dialect } : {}) });
  const outcome = verifySql(req);
  return { outcome, f: outcome.developerFields };
}

function check(c: Case): void {
  const { outcome, f } = run(c.query, c.dialect, c.ddl);
  if (c.expect === 'sql_valid' && canonicalDialect(c.dialect ?? 'sqlite') === 'postgresql') {
    // No PostgreSQL verdict here (verifySql alone): the resolver has no objection, and the
    // statement is UNVERIFIABLE rather than VERIFIED valid (issue 24: PostgreSQL is the judge).
    expect(f.constraint_id).toBe('sql_verifier.engine_not_run');
    expect(outcome.kind).toBe('unverifiable');
    expect((f.issues as SqlIssue[]).filter((i) => i.severity === 'error')).toEqual([]);
    return;
  }
  expect(f.constraint_id).toBe(`sql_verifier.${c.expect}`);
  expect(outcome.kind).toBe(BLOCKED.includes(c.expect) ? 'blocked' : 'proven');
  expect(f.is_valid).toBe(c.expect === 'sql_valid');
  expect(f.malicious_classification).toBe(c.expect === 'malicious');
  if (c.categories) expect(f.malicious_categories).toEqual(c.categories);
  if (c.expect !== 'malicious') expect(f.malicious_categories).toBeUndefined();
  // Every outcome is JSON in the canonical domain (the lead hashes proofs).
  assertCanonicalDomain(f);
  if (outcome.kind === 'proven') assertCanonicalDomain(outcome.proof);
}

const VALID: Case[] = [
  { name: 'simple select', query: 'SELECT id, name FROM users WHERE id = 1', expect: 'sql_valid' },
  {
    name: 'aliases, join, group by / having / order by select-list alias',
    query:
      'SELECT u.name, COUNT(o.id) AS cnt FROM users u LEFT JOIN orders o ON o.user_id = u.id GROUP BY u.name HAVING cnt > 2 ORDER BY cnt DESC LIMIT 10',
    expect: 'sql_valid',
  },
  {
    name: 'CTE used as a table',
    query:
      'WITH big AS (SELECT user_id, SUM(total) AS s FROM orders GROUP BY user_id) SELECT u.name, b.s FROM users u JOIN big b ON b.user_id = u.id',
    expect: 'sql_valid',
  },
  {
    name: 'derived table alias',
    query: 'SELECT d.id FROM (SELECT id FROM users WHERE id > 3) AS d WHERE d.id < 10',
    expect: 'sql_valid',
  },
  {
    name: 'correlated subquery',
    query: 'SELECT name FROM users u WHERE EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id AND o.total > 10)',
    expect: 'sql_valid',
  },
  {
    name: 'scalar subquery in select list',
    query: 'SELECT (SELECT MAX(total) FROM orders o WHERE o.user_id = u.id) AS top FROM users u',
    expect: 'sql_valid',
  },
  {
    name: 'star and table star',
    query: 'SELECT o.*, p.title FROM orders o, products p WHERE p.id = o.id',
    expect: 'sql_valid',
  },
  { name: 'USING join column', query: 'SELECT id FROM orders JOIN products USING (id)', expect: 'sql_valid' },
  {
    name: 'union of compatible selects',
    query: 'SELECT id FROM users UNION SELECT user_id FROM orders ORDER BY 1',
    expect: 'sql_valid',
  },
  {
    name: 'INTERSECT via the SQLite engine (parser grammar gap)',
    query: 'SELECT id FROM users INTERSECT SELECT user_id FROM orders',
    expect: 'sql_valid',
  },
  { name: 'bracket identifiers via the SQLite engine', query: 'SELECT [name] FROM [users]', expect: 'sql_valid' },
  { name: 'rowid is a SQLite column', query: 'SELECT rowid, name FROM users', expect: 'sql_valid' },
  {
    name: 'window function',
    query: 'SELECT id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY total DESC) AS rn FROM orders',
    expect: 'sql_valid',
  },
  {
    name: 'mysql backticks and double-quoted string',
    query: 'SELECT `name` FROM `users` WHERE email = "a@b.c"',
    dialect: 'mysql',
    expect: 'sql_valid',
  },
  { name: 'mariadb', query: 'SELECT name FROM users WHERE id IN (1, 2, 3)', dialect: 'MariaDB', expect: 'sql_valid' },
  {
    name: 'postgresql quoted identifier, interval, cast',
    query: `SELECT "name", id::text FROM users WHERE created_at > now() - interval '1 day'`,
    dialect: 'postgresql',
    expect: 'sql_valid',
  },
  {
    name: 'postgresql table function with column alias',
    query: 'SELECT n FROM generate_series(1, 3) AS g(n) WHERE n > 1',
    dialect: 'postgres',
    expect: 'sql_valid',
  },
  {
    name: 'transactsql TOP and brackets',
    query: 'SELECT TOP 10 [id], [name] FROM [users] ORDER BY [id]',
    dialect: 'tsql',
    expect: 'sql_valid',
  },
  { name: 'bigquery', query: 'SELECT u.name FROM users u WHERE u.id = 1', dialect: 'bigquery', expect: 'sql_valid' },
  {
    name: 'snowflake',
    query: 'SELECT name, total FROM users JOIN orders ON orders.user_id = users.id',
    dialect: 'snowflake',
    expect: 'sql_valid',
  },
];

const SCHEMA_VIOLATIONS: Case[] = [
  { name: 'undeclared table', query: 'SELECT * FROM ghosts', expect: 'schema_violation' },
  { name: 'undeclared column', query: 'SELECT nickname FROM users', expect: 'schema_violation' },
  { name: 'qualified undeclared column', query: 'SELECT u.nickname FROM users u', expect: 'schema_violation' },
  { name: 'table name used although aliased', query: 'SELECT users.id FROM users u', expect: 'schema_violation' },
  {
    name: 'ambiguous unqualified column',
    query: 'SELECT id FROM users u JOIN orders o ON o.user_id = u.id',
    expect: 'schema_violation',
  },
  { name: 'column of the other table', query: 'SELECT total FROM users', expect: 'schema_violation' },
  {
    name: 'derived table hides inner columns',
    query: 'SELECT d.name FROM (SELECT id FROM users) AS d',
    expect: 'schema_violation',
  },
  {
    name: 'CTE column that the CTE does not output',
    query: 'WITH t AS (SELECT id FROM users) SELECT t.email FROM t',
    expect: 'schema_violation',
  },
  { name: 'mysql undeclared table', query: 'SELECT id FROM customers', dialect: 'mysql', expect: 'schema_violation' },
  {
    name: 'postgresql undeclared column',
    query: 'SELECT u.age FROM users u',
    dialect: 'postgresql',
    expect: 'schema_violation',
  },
  {
    name: 'engine path: undeclared column after INTERSECT',
    query: 'SELECT id FROM users INTERSECT SELECT nope FROM orders',
    expect: 'schema_violation',
  },
];

const MALICIOUS: Case[] = [
  // destructive
  { name: 'DROP', query: 'DROP TABLE users', expect: 'malicious', categories: ['destructive_statement'] },
  {
    name: 'DELETE',
    query: 'DELETE FROM users WHERE id = 1',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'UPDATE',
    query: "UPDATE users SET name = 'x' WHERE id = 2",
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'INSERT',
    query: "INSERT INTO users (id, name) VALUES (9, 'x')",
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'ALTER',
    query: 'ALTER TABLE users ADD COLUMN x INT',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'TRUNCATE',
    query: 'TRUNCATE TABLE orders',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  { name: 'CREATE', query: 'CREATE TABLE x (a INT)', expect: 'malicious', categories: ['destructive_statement'] },
  {
    name: 'MERGE',
    query: 'MERGE INTO users u USING orders o ON u.id = o.user_id WHEN MATCHED THEN DELETE',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'REPLACE',
    query: 'REPLACE INTO users (id) VALUES (1)',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'DELETE behind a CTE',
    query: 'WITH t AS (SELECT id FROM users) DELETE FROM orders WHERE user_id IN (SELECT id FROM t)',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'writable CTE (DELETE inside WITH)',
    query: 'WITH x AS (DELETE FROM users RETURNING *) SELECT * FROM x',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  {
    name: 'SQLite string ends at the quote despite a backslash',
    query: "SELECT id FROM users WHERE name = 'a\\' OR 1=1 --'",
    expect: 'malicious',
    categories: ['tautology'],
  },
  {
    name: 'SELECT INTO a new table',
    query: 'SELECT * INTO backup FROM users',
    dialect: 'transactsql',
    expect: 'malicious',
    categories: ['destructive_statement'],
  },
  // administrative
  {
    name: 'GRANT',
    query: "GRANT ALL ON *.* TO 'x'",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'REVOKE',
    query: "REVOKE ALL ON *.* FROM 'x'",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  { name: 'SET', query: 'SET @a = 1', dialect: 'mysql', expect: 'malicious', categories: ['administrative_statement'] },
  {
    name: 'ATTACH',
    query: "ATTACH DATABASE '/tmp/x.db' AS x",
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  { name: 'PRAGMA', query: 'PRAGMA table_info(users)', expect: 'malicious', categories: ['administrative_statement'] },
  {
    name: 'LOAD DATA',
    query: "LOAD DATA INFILE '/etc/passwd' INTO TABLE users",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'INTO OUTFILE',
    query: "SELECT name FROM users INTO OUTFILE '/tmp/x'",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'INTO DUMPFILE',
    query: "SELECT name INTO DUMPFILE '/tmp/x' FROM users",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'COPY … PROGRAM',
    query: "COPY users TO PROGRAM 'curl http://x'",
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'xp_cmdshell',
    query: "EXEC xp_cmdshell 'dir'",
    dialect: 'transactsql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  {
    name: 'load_file()',
    query: "SELECT load_file('/etc/passwd')",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['administrative_statement'],
  },
  // stacked statements
  {
    name: 'stacked DROP',
    query: 'SELECT id FROM users; DROP TABLE users',
    expect: 'malicious',
    categories: ['destructive_statement', 'stacked_statements'],
  },
  {
    name: 'stacked SELECTs',
    query: 'SELECT id FROM users; SELECT id FROM orders',
    expect: 'malicious',
    categories: ['stacked_statements'],
  },
  {
    name: 'stacked after a comment',
    query: 'SELECT id FROM users /* x */ ; SELECT 1',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['stacked_statements'],
  },
  // tautologies
  { name: '1=1', query: 'SELECT id FROM users WHERE id = 5 OR 1=1', expect: 'malicious', categories: ['tautology'] },
  {
    name: "'a'='a'",
    query: "SELECT id FROM users WHERE name = '' OR 'a'='a'",
    expect: 'malicious',
    categories: ['tautology'],
  },
  { name: 'x=x', query: 'SELECT id FROM users WHERE name = name', expect: 'malicious', categories: ['tautology'] },
  {
    name: 'qualified x=x',
    query: 'SELECT u.id FROM users u WHERE u.id = u.id',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['tautology'],
  },
  {
    name: 'OR TRUE',
    query: "SELECT id FROM users WHERE name = 'a' OR TRUE",
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['tautology'],
  },
  {
    name: 'OR 1',
    query: "SELECT id FROM users WHERE name = 'a' OR 1",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['tautology'],
  },
  { name: '2>1', query: 'SELECT id FROM users WHERE 2>1', expect: 'malicious', categories: ['tautology'] },
  {
    name: 'tautology in a JOIN condition',
    query: 'SELECT o.id FROM orders o JOIN users u ON 1=1',
    expect: 'malicious',
    categories: ['tautology'],
  },
  {
    name: 'mysql || as OR',
    query: 'SELECT id FROM users WHERE id = 1 || 1=1',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['tautology'],
  },
  {
    name: 'tautology inside a subquery',
    query: 'SELECT id FROM users WHERE id IN (SELECT user_id FROM orders WHERE 1 IN (1, 2))',
    expect: 'malicious',
    categories: ['tautology'],
  },
  // system catalogs
  {
    name: 'UNION sqlite_master',
    query: 'SELECT name FROM users UNION SELECT name FROM sqlite_master',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION sqlite_schema',
    query: 'SELECT name FROM users UNION SELECT sql FROM sqlite_schema',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION information_schema',
    query: 'SELECT name FROM users UNION SELECT table_name FROM information_schema.tables',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION pg_catalog',
    query: 'SELECT name FROM users UNION SELECT relname FROM pg_catalog.pg_class',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION pg_shadow',
    query: 'SELECT name FROM users UNION SELECT usename FROM pg_shadow',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION mysql.user',
    query: 'SELECT id FROM users WHERE id = 1 UNION SELECT user FROM mysql.user',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'UNION @@version',
    query: 'SELECT name FROM users UNION SELECT @@version',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['union_catalog_read'],
  },
  {
    name: 'plain catalog read',
    query: "SELECT name FROM sqlite_master WHERE type = 'table'",
    expect: 'malicious',
    categories: ['system_catalog_read'],
  },
  // time-based probes
  {
    name: 'SLEEP',
    query: 'SELECT id FROM users WHERE id = 1 AND SLEEP(5)',
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['time_based_probe'],
  },
  {
    name: 'BENCHMARK',
    query: "SELECT BENCHMARK(1000000, MD5('a'))",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['time_based_probe'],
  },
  {
    name: 'pg_sleep',
    query: 'SELECT pg_sleep(5)',
    dialect: 'postgresql',
    expect: 'malicious',
    categories: ['time_based_probe'],
  },
  {
    name: 'WAITFOR DELAY',
    query: "WAITFOR DELAY '0:0:5'",
    dialect: 'transactsql',
    expect: 'malicious',
    categories: ['time_based_probe'],
  },
  {
    name: 'heavy randomblob',
    query: 'SELECT randomblob(100000000)',
    expect: 'malicious',
    categories: ['time_based_probe'],
  },
  // comment truncation
  {
    name: "'admin'--",
    query: "SELECT id FROM users WHERE name = 'admin'--' AND password_hash = 'x'",
    expect: 'malicious',
    categories: ['comment_truncation'],
  },
  {
    name: "'admin'# (mysql)",
    query: "SELECT id FROM users WHERE name = 'admin'#",
    dialect: 'mysql',
    expect: 'malicious',
    categories: ['comment_truncation'],
  },
  {
    name: "'admin' -- ' (quote left in the comment)",
    query: "SELECT id FROM users WHERE name = 'admin' -- ' AND id = 2",
    expect: 'malicious',
    categories: ['comment_truncation'],
  },
  {
    name: 'empty comment after a literal',
    query: "SELECT id FROM users WHERE name = 'admin' /**/",
    expect: 'malicious',
    categories: ['comment_truncation'],
  },
  // sensitive columns
  ...['password', 'passwd', 'secret', 'token', 'api_key', 'ssn', 'credit_card', 'card_number', 'cvv'].map(
    (col): Case => ({
      name: `reads ${col}`,
      query: `SELECT owner, ${col} FROM accounts`,
      ddl: SECRETS_DDL,
      expect: 'malicious',
      categories: ['sensitive_column_read'],
    }),
  ),
  {
    name: 'reads password_hash',
    query: 'SELECT name, password_hash FROM users',
    expect: 'malicious',
    categories: ['sensitive_column_read'],
  },
  {
    name: 'reads a secret inside a function',
    query: 'SELECT upper(secret) FROM accounts',
    ddl: SECRETS_DDL,
    expect: 'malicious',
    categories: ['sensitive_column_read'],
  },
  {
    name: 'blind extraction through a subquery',
    query: "SELECT id FROM users WHERE (SELECT password_hash FROM users LIMIT 1) LIKE 'a%'",
    expect: 'malicious',
    categories: ['sensitive_column_read'],
  },
  {
    name: 'engine path reads a sensitive column',
    query: 'SELECT password_hash FROM users INTERSECT SELECT status FROM orders',
    expect: 'malicious',
    categories: ['sensitive_column_read'],
  },
  // several at once
  {
    name: 'classic UNION injection',
    query: "SELECT name FROM products WHERE title = '' UNION SELECT password FROM accounts --",
    ddl: `${DDL}\n${SECRETS_DDL}`,
    expect: 'malicious',
    categories: ['sensitive_column_read'],
  },
];

const BLOCKED_CASES: Case[] = [
  // parse_error
  {
    name: 'misspelt keyword (sqlite: parser and engine both reject)',
    query: 'SELEC id FROM users',
    expect: 'parse_error',
  },
  { name: 'mysql syntax error', query: 'SELECT FROM WHERE', dialect: 'mysql', expect: 'parse_error' },
  {
    name: 'postgresql syntax error',
    query: 'SELECT id FROM users WHERE',
    dialect: 'postgresql',
    expect: 'parse_error',
  },
  { name: 'unterminated string literal', query: "SELECT id FROM users WHERE name = 'x", expect: 'parse_error' },
  {
    name: 'unterminated quoted identifier',
    query: 'SELECT "id FROM users',
    dialect: 'postgresql',
    expect: 'parse_error',
  },
  { name: 'only a comment', query: '-- nothing here', expect: 'parse_error' },
  { name: 'empty query', query: '', expect: 'parse_error' },
  {
    name: 'unterminated executable comment',
    query: 'SELECT id FROM users /*! WHERE 1',
    dialect: 'mysql',
    expect: 'parse_error',
  },
  // schema_parse_error
  { name: 'DDL is not SQL', query: 'SELECT id FROM users', ddl: 'this is not sql', expect: 'schema_parse_error' },
  { name: 'DDL empty', query: 'SELECT id FROM users', ddl: '   ', expect: 'schema_parse_error' },
  {
    name: 'DDL unbalanced',
    query: 'SELECT id FROM users',
    ddl: 'CREATE TABLE users (id INT, name TEXT',
    expect: 'schema_parse_error',
  },
  {
    name: 'DDL declares a table twice',
    query: 'SELECT id FROM users',
    ddl: 'CREATE TABLE users (id INT); CREATE TABLE users (id INT);',
    expect: 'schema_parse_error',
  },
  {
    name: 'DDL with a duplicate column',
    query: 'SELECT id FROM users',
    ddl: 'CREATE TABLE users (id INT, id TEXT);',
    expect: 'schema_parse_error',
  },
  {
    name: 'DDL unreadable and the query needs the SQLite engine',
    query: 'SELECT id FROM users INTERSECT SELECT user_id FROM orders',
    ddl: 'garbage',
    expect: 'schema_parse_error',
  },
  {
    name: 'DDL SQLite cannot hold (reserved name)',
    query: 'SELECT a FROM sqlite_x',
    ddl: 'CREATE TABLE sqlite_x (a);',
    expect: 'schema_parse_error',
  },
  // complexity_limit_exceeded
  {
    name: 'query too long',
    query: `SELECT id FROM users WHERE name = '${'x'.repeat(SQL_LIMITS.maxQueryLength)}'`,
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'parenthesis nesting',
    query: `SELECT ${'('.repeat(70)}1${')'.repeat(70)}`,
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'more than 48 joins',
    query: `SELECT u0.id FROM users u0 ${Array.from({ length: 49 }, (_, i) => `JOIN users u${i + 1} ON u${i + 1}.id = u${i}.id`).join(' ')}`,
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'more than 40 tables',
    query: Array.from({ length: 41 }, (_, i) => `SELECT a FROM t${i}`).join(' UNION ALL '),
    ddl: Array.from({ length: 41 }, (_, i) => `CREATE TABLE t${i} (a INT);`).join('\n'),
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'cartesian product of three tables',
    query: 'SELECT u.id FROM users u, orders o, products p',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'cartesian product hidden behind an unrelated join predicate',
    query:
      'SELECT u.id FROM users u JOIN orders o ON o.user_id = u.id CROSS JOIN products p, users u2, orders o2 WHERE u2.name = p.title AND o2.id > 3',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'self cross join three times',
    query: 'SELECT a.id FROM users a, users b, users c WHERE a.id = 1',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'recursive CTE without a termination guard',
    query: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'recursive CTE whose recursive member has no bound',
    query: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <> 0) SELECT i FROM n ORDER BY i',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'subquery depth 6',
    query:
      'SELECT id FROM users WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders))))))',
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'AST nesting (a 1,100-term sum)',
    query: `SELECT ${Array.from({ length: 1100 }, () => '1').join(' + ')}`,
    expect: 'complexity_limit_exceeded',
  },
  {
    name: 'too many tokens',
    query: `SELECT id FROM users WHERE id IN (${Array.from({ length: 6000 }, () => '1').join(',')})`,
    expect: 'complexity_limit_exceeded',
  },
  // execution_error (SQLite prepare)
  { name: 'unknown function', query: 'SELECT no_such_fn(id) FROM users', expect: 'execution_error' },
  { name: 'aggregate in GROUP BY', query: 'SELECT COUNT(*) FROM users GROUP BY COUNT(*)', expect: 'execution_error' },
  {
    name: 'UNION column count mismatch',
    query: 'SELECT id, name FROM users UNION SELECT id FROM orders',
    expect: 'execution_error',
  },
  { name: 'wrong number of function arguments', query: 'SELECT substr() FROM users', expect: 'execution_error' },
];

const FALSE_POSITIVE_GUARDS: Case[] = [
  { name: 'column named updated_at', query: 'SELECT updated_at FROM users', expect: 'sql_valid' },
  {
    name: 'string literal containing DROP TABLE',
    query: "SELECT id FROM users WHERE name = 'DROP TABLE users; --'",
    expect: 'sql_valid',
  },
  {
    name: 'password_reset_at is metadata, not a secret',
    query: 'SELECT password_reset_at FROM users',
    expect: 'sql_valid',
  },
  {
    name: 'token_count, api_key_id, card_last4, is_secret are not secrets',
    query: 'SELECT token_count, api_key_id, card_last4, is_secret FROM accounts',
    ddl: SECRETS_DDL,
    expect: 'sql_valid',
  },
  {
    name: 'sensitive column only compared in a predicate',
    query: 'SELECT id FROM users WHERE password_hash = ?',
    expect: 'sql_valid',
  },
  {
    name: 'comment with a space after a literal documents the filter',
    query: "SELECT id FROM users WHERE name = 'x' -- filter by name",
    expect: 'sql_valid',
  },
  { name: "'1=1' inside a string", query: "SELECT id FROM users WHERE name = '1=1'", expect: 'sql_valid' },
  {
    name: 'sqlite_master inside a string',
    query: "SELECT id FROM users WHERE name = 'sqlite_master'",
    expect: 'sql_valid',
  },
  {
    name: 'MySQL --x is arithmetic, not a comment',
    query: 'SELECT id FROM users WHERE id=1--1',
    dialect: 'mysql',
    expect: 'sql_valid',
  },
  { name: 'trailing semicolon is one statement', query: 'SELECT id FROM users;', expect: 'sql_valid' },
  {
    name: 'REPLACE() function is not a REPLACE statement',
    query: "SELECT replace(name, 'a', 'b') FROM users",
    expect: 'sql_valid',
  },
  {
    name: 'REPLACE() function in MySQL',
    query: "SELECT REPLACE(name, 'a', 'b') AS n FROM users",
    dialect: 'mysql',
    expect: 'sql_valid',
  },
  {
    name: "backslash is literal in SQLite strings (LIKE … ESCAPE '\\')",
    query: "SELECT id FROM users WHERE name LIKE 'a\\_%' ESCAPE '\\'",
    expect: 'sql_valid',
  },
  {
    name: 'a declared table in a schema named like a catalog schema',
    query: 'SELECT a FROM sys.config',
    ddl: 'CREATE TABLE sys.config (a INT);',
    dialect: 'postgresql',
    expect: 'sql_valid',
  },
  {
    name: 'an alias named like a catalog schema',
    query: 'SELECT sys.id FROM users sys',
    dialect: 'postgresql',
    expect: 'sql_valid',
  },
  {
    name: 'columns named delete_flag and drop_count',
    query: 'SELECT delete_flag, drop_count FROM flags',
    ddl: 'CREATE TABLE flags (delete_flag INT, drop_count INT);',
    expect: 'sql_valid',
  },
  {
    name: 'a normal comparison',
    query: 'SELECT id FROM orders WHERE total >= 10 AND status <> status || status',
    dialect: 'postgresql',
    expect: 'sql_valid',
  },
  {
    name: 'column named sleep is not a call',
    query: 'SELECT sleep FROM naps',
    ddl: 'CREATE TABLE naps (sleep INT);',
    dialect: 'mysql',
    expect: 'sql_valid',
  },
  {
    name: '/*! is a plain comment outside MySQL',
    query: 'SELECT id FROM users /*! UNION SELECT 1 */',
    dialect: 'postgresql',
    expect: 'sql_valid',
  },
  {
    name: 'benign executable comment',
    query: 'SELECT /*!40001 SQL_NO_CACHE */ id FROM users',
    dialect: 'mysql',
    expect: 'sql_valid',
  },
];

describe('verifySql — table of cases', () => {
  describe('valid queries (sql_valid)', () => {
    it.each(VALID)('$name', (c) => check(c));
  });
  describe('schema violations', () => {
    it.each(SCHEMA_VIOLATIONS)('$name', (c) => check(c));
  });
  describe('malicious', () => {
    it.each(MALICIOUS)('$name', (c) => check(c));
  });
  describe('BLOCKED rows', () => {
    it.each(BLOCKED_CASES)('$name', (c) => check(c));
  });
  describe('false-positive guards', () => {
    it.each(FALSE_POSITIVE_GUARDS)('$name', (c) => check(c));
  });
  it('covers at least 80 cases', () => {
    expect(
      VALID.length + SCHEMA_VIOLATIONS.length + MALICIOUS.length + BLOCKED_CASES.length + FALSE_POSITIVE_GUARDS.length,
    ).toBeGreaterThanOrEqual(80);
  });
});

const types = (f: Record<string, unknown>) => (f.issues as SqlIssue[]).map((i) => i.type);

describe('verifySql — developer fields and proof', () => {
  it('reports tables, columns and statement types of a valid query', () => {
    const { outcome, f } = run('SELECT u.name, o.total FROM users u JOIN orders o ON o.user_id = u.id');
    expect(outcome.kind).toBe('proven');
    expect(outcome.agentMessage).toBe('SQL query is valid against the declared schema (sqlite).');
    expect(f).toEqual({
      constraint_id: 'sql_verifier.sql_valid',
      is_valid: true,
      malicious_classification: false,
      executable_comments_expanded: false,
      dialect: 'sqlite',
      issues: [],
      tables: ['orders', 'users'],
      columns: ['orders.total', 'orders.user_id', 'users.id', 'users.name'],
      statement_types: ['select'],
    });
  });

  it('records what was checked in the proof artifact', () => {
    const query = 'SELECT name FROM users WHERE id = ?';
    const { outcome } = run(query);
    if (outcome.kind !== 'proven') throw new Error('expected proven');
    const p = outcome.proof as Record<string, any>;
    const version = (createRequire(import.meta.url)('node-sql-parser/package.json') as { version: string }).version;
    expect(p.engine).toBe('sql_verifier');
    expect(p.parser).toEqual({ name: 'node-sql-parser', version, database: 'sqlite' });
    expect(p.dialect).toBe('sqlite');
    expect(p.query_sha256).toBe(sha256Hex(query));
    expect(p.schema_ddl_sha256).toBe(sha256Hex(DDL));
    expect(p.expanded_query_sha256).toBeNull();
    expect(p.analysis).toBe('parser_ast');
    expect(p.statement_types).toEqual(['select']);
    expect(p.tables_referenced).toEqual(['users']);
    expect(p.columns_referenced).toEqual(['users.id', 'users.name']);
    expect(p.sqlite_prepare.ran).toBe(true);
    expect(p.sqlite_prepare.ok).toBe(true);
    expect(p.sqlite_prepare.readonly).toBe(true);
    expect(p.sqlite_prepare.sqlite_version).toMatch(/^3\.\d+\.\d+$/);
    expect(p.schema.source).toBe('parser');
    expect(p.schema.tables.map((t: { name: string }) => t.name)).toEqual(['users', 'orders', 'products']);
    expect(p.complexity).toEqual({
      tokens: 8,
      paren_depth: 0,
      ast_nodes: 7,
      ast_depth: 3,
      tables: 1,
      joins: 0,
      subquery_depth: 0,
      cartesian_factors: 1,
    });
    expect(p.verdict).toEqual({
      constraint_id: 'sql_verifier.sql_valid',
      is_valid: true,
      malicious_classification: false,
    });
  });

  it('is deterministic', () => {
    const q = "SELECT u.name FROM users u WHERE u.id IN (SELECT user_id FROM orders WHERE status = 'paid')";
    expect(run(q)).toEqual(run(q));
  });

  it('states that the prepare check did not run for other dialects', () => {
    const accepted = {
      postgres: { ran: true as const, ok: true as const, columns: [], tree: null, ms: 1, schema_cached: true },
    };
    const outcome = verifySql(
      sqlRequestSchema.parse({ query: 'SELECT id FROM users', schema_ddl: DDL, dialect: 'postgresql' }),
      accepted,
    );
    if (outcome.kind !== 'proven') throw new Error('expected proven');
    expect((outcome.proof as Record<string, any>).sqlite_prepare).toEqual({
      ran: false,
      reason: 'the SQLite prepare check applies to the sqlite dialect only (dialect: postgresql)',
    });
  });

  it('expands MySQL executable comments and analyses the result', () => {
    const { outcome, f } = run('SELECT id FROM users /*!50000 UNION SELECT user FROM mysql.user */', 'mysql');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(f.executable_comments_expanded).toBe(true);
    expect(f.malicious_categories).toEqual(['union_catalog_read']);
    expect(types(f)).toContain('executable_comment_expanded');
    if (outcome.kind !== 'proven') throw new Error('expected proven');
    const p = outcome.proof as Record<string, any>;
    expect(p.executable_comments_expanded).toBe(true);
    expect(p.expanded_query_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(p.expanded_query_sha256).not.toBe(p.query_sha256);
  });

  it('expands MariaDB /*M! … */ comments', () => {
    const { f } = run('SELECT id FROM users /*M!100100 WHERE 1=1 */', 'mariadb');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
    expect(f.malicious_categories).toEqual(['tautology']);
    expect(f.executable_comments_expanded).toBe(true);
  });

  it('hides a DROP in an executable comment from nobody', () => {
    const { f } = run('SELECT 1 /*!; DROP TABLE users */', 'mysql');
    expect(f.malicious_categories).toEqual(['destructive_statement', 'stacked_statements']);
    expect(f.executable_comments_expanded).toBe(true);
  });

  it('sets executable_comments_expanded false (with a note) outside MySQL/MariaDB', () => {
    const { f } = run('SELECT id FROM users /*! UNION SELECT 1 */', 'postgresql');
    expect(f.executable_comments_expanded).toBe(false);
    expect(types(f)).toEqual(['executable_comment_not_expanded']);
  });

  it('records optimizer hints as information', () => {
    const { f } = run('SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM users', 'mysql');
    expect(f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(f.issues).toEqual([
      {
        type: 'optimizer_hint',
        severity: 'info',
        description: 'Optimizer hint /*+ MAX_EXECUTION_TIME(1000) */ present.',
        source: 'lexer',
        hint: 'MAX_EXECUTION_TIME(1000)',
        offset: 7,
      },
    ]);
  });

  it('warns (without blocking) when * exposes a sensitive column', () => {
    const { f } = run('SELECT * FROM users WHERE id = 1');
    expect(f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(types(f)).toEqual(['sensitive_column_exposed']);
  });

  it('names the undeclared table', () => {
    const { outcome, f } = run('SELECT * FROM ghosts');
    expect(outcome.agentMessage).toBe(
      "SQL query does not match the declared schema: Table 'ghosts' is not declared in schema_ddl.",
    );
    expect(f.violations).toEqual(["Table 'ghosts' is not declared in schema_ddl."]);
  });

  it('names an ambiguous column and its candidates', () => {
    const { f } = run('SELECT id FROM users u JOIN orders o ON o.user_id = u.id');
    expect(f.issues).toEqual([
      {
        type: 'ambiguous_column',
        severity: 'error',
        description: "Column 'id' is ambiguous: it exists in 'u' and 'o'.",
        source: 'resolver',
        column: 'id',
        candidates: ['u', 'o'],
      },
    ]);
  });

  it('reports the complexity limit that was exceeded', () => {
    const q =
      'SELECT id FROM users WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders))))))';
    const { outcome, f } = run(q);
    expect(outcome.agentMessage).toBe('SQL verification blocked: the query exceeds a complexity limit.');
    expect(f.limit).toBe('subquery_depth');
    expect(f.observed_value).toBe(6);
    expect(f.limit_value).toBe(5);
    expect(f.error).toBe('subquery_depth 6 exceeds the limit of 5');
  });

  it('accepts exactly the limits (48 joins, depth 5, two cross-joined groups)', () => {
    const joins48 = `SELECT u0.id FROM users u0 ${Array.from({ length: 48 }, (_, i) => `JOIN users u${i + 1} ON u${i + 1}.id = u${i}.id`).join(' ')}`;
    expect(run(joins48).f.constraint_id).toBe('sql_verifier.sql_valid');
    const depth5 =
      'SELECT id FROM users WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders)))))';
    expect(run(depth5).f.constraint_id).toBe('sql_verifier.sql_valid');
    expect(run('SELECT u.id, p.title FROM users u, products p').f.constraint_id).toBe('sql_verifier.sql_valid');
    // Single-row derived tables (aggregates without GROUP BY) multiply nothing: TPC-DS q28/q88 shapes.
    const singles =
      'SELECT * FROM (SELECT count(*) AS a FROM users) s1, (SELECT count(*) AS b FROM orders) s2, (SELECT avg(price) AS c FROM products) s3, users u WHERE u.id = 1';
    expect(run(singles).f.constraint_id).toBe('sql_verifier.sql_valid');
    // Connected through WHERE predicates (comma joins), OR-ed join predicates, correlated subqueries.
    expect(
      run('SELECT u.id FROM users u, orders o, products p WHERE o.user_id = u.id AND p.id = o.id').f.constraint_id,
    ).toBe('sql_verifier.sql_valid');
    expect(
      run(
        "SELECT u.id FROM users u, orders o, products p WHERE (o.user_id = u.id AND p.title = 'a') OR (o.user_id = u.id AND p.id = o.id)",
      ).f.constraint_id,
    ).toBe('sql_verifier.sql_valid');
    // A guarded recursive CTE.
    expect(
      run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT i FROM n').f
        .constraint_id,
    ).toBe('sql_verifier.sql_valid');
    expect(
      run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n LIMIT 10').f.constraint_id,
    ).toBe('sql_verifier.sql_valid');
  });

  it('x = x as one conjunct of AND is x IS NOT NULL, not a tautology; alone or under OR it still is', () => {
    expect(run("SELECT id FROM users WHERE name = name AND email = 'a'").f.constraint_id).toBe(
      'sql_verifier.sql_valid',
    );
    expect(
      run("SELECT u.id FROM users u JOIN orders o ON o.user_id = u.id AND o.id = o.id WHERE u.name = 'a'").f
        .constraint_id,
    ).toBe('sql_verifier.sql_valid');
    expect(run("SELECT id FROM users WHERE email = 'a' OR name = name").f.malicious_categories).toEqual(['tautology']);
    expect(run('SELECT id FROM users WHERE name = name').f.malicious_categories).toEqual(['tautology']);
    // Literal tautologies stay flagged anywhere, AND-ed or not.
    expect(run("SELECT id FROM users WHERE 1 = 1 AND email = 'a'").f.malicious_categories).toEqual(['tautology']);
  });

  it('reports the engine message on execution_error', () => {
    const { f } = run('SELECT no_such_fn(id) FROM users');
    expect(f.error).toBe('SQLite rejected the query at prepare time: no such function: no_such_fn');
  });

  it('blocks with parse_error carrying the parser message', () => {
    const { f } = run("SELECT id FROM users WHERE name = 'x");
    expect(f.error).toBe('the query could not be tokenised: unterminated string literal at offset 34');
    expect(f.malicious_classification).toBe(false);
  });

  it('lets proven malice win over an unreadable schema', () => {
    const { f } = run('DROP TABLE users', 'sqlite', 'not ddl');
    expect(f.constraint_id).toBe('sql_verifier.malicious');
  });
});

describe('verifySql — admission through buildDiagnostic', () => {
  const diag = (query: string) => {
    const outcome = run(query).outcome;
    return buildDiagnostic({
      status: outcome.kind === 'proven' ? 'VERIFIED' : outcome.kind === 'blocked' ? 'BLOCKED' : 'UNVERIFIABLE',
      agentMessage: outcome.agentMessage,
      developerFields: outcome.developerFields,
      proofRef: outcome.kind === 'proven' ? `sha256:${'a'.repeat(64)}` : null,
      withAdmission: true,
    });
  };
  it('ADMIT for a valid query', () => expect(diag('SELECT id FROM users').admission).toBe('ADMIT'));
  it('VERIFIED but BLOCKED admission for a malicious query', () => {
    const d = diag('DROP TABLE users');
    expect(d.status).toBe('VERIFIED');
    expect(d.admission).toBe('BLOCKED');
  });
  it('VERIFIED but BLOCKED admission for a schema violation', () => {
    const d = diag('SELECT nope FROM users');
    expect(d.status).toBe('VERIFIED');
    expect(d.admission).toBe('BLOCKED');
  });
  it('BLOCKED status and admission for a parse error', () => {
    const d = diag('SELEC 1');
    expect(d.status).toBe('BLOCKED');
    expect(d.proof_ref).toBeNull();
    expect(d.admission).toBe('BLOCKED');
  });
});

describe('sqlRequestSchema', () => {
  it('defaults the dialect to sqlite and ignores unknown keys', () => {
    expect(sqlRequestSchema.parse({ query: 'SELECT 1', schema_ddl: 'CREATE TABLE t (a)', extra: true })).toEqual({
      query: 'SELECT 1',
      schema_ddl: 'CREATE TABLE t (a)',
      dialect: 'sqlite',
    });
  });
  it.each([
    ['PostgreSQL', 'postgresql'],
    ['postgres', 'postgresql'],
    ['MySQL', 'mysql'],
    ['mariadb', 'mariadb'],
    ['MSSQL', 'transactsql'],
    ['T-SQL', 'transactsql'],
    ['BigQuery', 'bigquery'],
    [' sqlite ', 'sqlite'],
  ])('maps dialect %s to %s', (given, canonical) => {
    expect(sqlRequestSchema.parse({ query: 'x', schema_ddl: 'y', dialect: given }).dialect).toBe(canonical);
  });
  it('rejects an unknown dialect with a clear detail', () => {
    expect(validateSqlRequest({ query: 'x', schema_ddl: 'y', dialect: 'oracle' })).toEqual({
      ok: false,
      detail:
        "unsupported dialect 'oracle'; supported: sqlite, mysql, mariadb, postgresql, transactsql, bigquery, snowflake, redshift, trino, db2, hive",
    });
  });
  it('requires query and schema_ddl as strings', () => {
    expect(validateSqlRequest({ schema_ddl: 'y' })).toEqual({ ok: false, detail: 'query is required' });
    expect(validateSqlRequest({ query: 1, schema_ddl: 'y' })).toEqual({ ok: false, detail: 'query must be a string' });
    expect(validateSqlRequest({ query: 'x' })).toEqual({ ok: false, detail: 'schema_ddl is required' });
    expect(validateSqlRequest({ query: 'x', schema_ddl: 'y', dialect: 3 })).toEqual({
      ok: false,
      detail: 'dialect must be a string',
    });
    expect(validateSqlRequest('nope')).toEqual({ ok: false, detail: 'request body must be a JSON object' });
  });
});

describe('sensitive column names', () => {
  it.each([
    'password',
    'passwd',
    'pwd',
    'password_hash',
    'passwordHash',
    'secret',
    'client_secret',
    'token',
    'refresh_token',
    'api_key',
    'apiKey',
    'APIKey',
    'ssn',
    'credit_card',
    'creditCardNumber',
    'card_number',
    'cvv',
    'cvc',
    'private_key',
  ])('%s is sensitive', (name) => expect(isSensitiveColumnName(name)).toBe(true));
  it.each([
    'password_reset_at',
    'password_changed_at',
    'token_count',
    'token_type',
    'api_key_id',
    'card_last4',
    'is_secret',
    'has_password',
    'failed_password_attempts',
    'updated_at',
    'tokens_used',
    'secretary',
    'passport',
    'name',
  ])('%s is not sensitive', (name) => expect(isSensitiveColumnName(name)).toBe(false));
});

describe('lexer', () => {
  const lex = (q: string, d: keyof typeof LEX_PROFILES) => lexSql(q, LEX_PROFILES[d]);
  it('treats -- as a comment in MySQL only when followed by whitespace', () => {
    expect(lex('SELECT 1--1', 'mysql').tokens.map((t) => t.kind)).toEqual(['word', 'number', 'op', 'op', 'number']);
    expect(lex('SELECT 1-- 1', 'mysql').tokens.map((t) => t.kind)).toEqual(['word', 'number', 'comment']);
    expect(lex('SELECT 1--1', 'sqlite').tokens.map((t) => t.kind)).toEqual(['word', 'number', 'comment']);
  });
  it('knows string escapes per dialect', () => {
    expect(lex("SELECT 'a\\'b'", 'mysql').tokens[1].value).toBe("a'b");
    expect(lex("SELECT 'a''b'", 'sqlite').tokens[1].value).toBe("a'b");
    expect(lex("SELECT 'a\\'", 'sqlite').tokens[1].value).toBe('a\\');
    expect(lex("SELECT $tag$it's$tag$", 'postgresql').tokens[1].value).toBe("it's");
  });
  it('blanks comments and executable-comment markers but keeps their SQL', () => {
    const r = lex('SELECT /*!50000 1 */ -- x\n', 'mysql');
    // `/*!50000` (8 chars), `*/` (2) and `-- x` (4) become spaces; the SQL and the newline stay.
    expect(r.analysisText).toBe(`SELECT ${' '.repeat(8)} 1 ${' '.repeat(2)} ${' '.repeat(4)}\n`);
    expect(r.executableCommentCount).toBe(1);
    expect(r.tokens.find((t) => t.kind === 'number')!.inExecutableComment).toBe(true);
  });
  it('nests block comments in PostgreSQL', () => {
    expect(lex('SELECT /* a /* b */ c */ 1', 'postgresql').tokens.map((t) => t.kind)).toEqual([
      'word',
      'comment',
      'number',
    ]);
  });
});

describe('schema DDL', () => {
  it('reads tables through node-sql-parser', () => {
    const r = parseSchema(DDL, 'sqlite');
    expect(r.schema?.source).toBe('parser');
    expect([...r.schema!.tables.values()].map((t) => [t.name, t.columns])).toEqual([
      ['users', ['id', 'name', 'email', 'password_hash', 'created_at', 'updated_at', 'password_reset_at']],
      ['orders', ['id', 'user_id', 'total', 'status', 'created_at']],
      ['products', ['id', 'title', 'price']],
    ]);
  });
  it('falls back to the tokenizer for DDL the grammar cannot read', () => {
    const ddl =
      'CREATE TABLE [dbo].[people] ([id] INTEGER PRIMARY KEY, [full name] NVARCHAR(100), CONSTRAINT pk PRIMARY KEY ([id]), FOREIGN KEY ([id]) REFERENCES x([id]))';
    const r = parseSchema(ddl, 'transactsql');
    expect(r.schema?.source).toBe('tokenizer');
    expect([...r.schema!.tables.values()]).toEqual([
      { name: 'people', qualifier: 'dbo', columns: ['id', 'full name'], kind: 'table' },
    ]);
    expect(run('SELECT [full name] FROM dbo.people', 'transactsql', ddl).f.constraint_id).toBe(
      'sql_verifier.sql_valid',
    );
  });
  it('reads SQLite virtual tables with the tokenizer', () => {
    const ddl = "CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize='porter');";
    expect([...parseSchema(ddl, 'sqlite').schema!.tables.values()][0].columns).toEqual(['title', 'body']);
  });
  it('keeps MySQL index definitions out of the columns', () => {
    const ddl = 'CREATE TABLE t (`key` VARCHAR(10), id INT, KEY k (id), INDEX (id), UNIQUE KEY (id))';
    expect([...parseSchema(ddl, 'mysql').schema!.tables.values()][0].columns).toEqual(['key', 'id']);
  });
  it('derives view and CREATE TABLE AS columns', () => {
    const ddl =
      'CREATE TABLE a (x INT, y INT); CREATE VIEW v AS SELECT x, y AS z FROM a; CREATE TABLE b AS SELECT x FROM a;';
    const tables = parseSchema(ddl, 'mysql').schema!.tables;
    expect(tables.get('v')?.columns).toEqual(['x', 'z']);
    expect(tables.get('b')?.columns).toEqual(['x']);
  });
});
