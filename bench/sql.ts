// In-process latency of verifySql over a fixed mix of queries (valid, schema violations,
// malicious, blocked; several dialects). Prints p50 / p95 / p99 / max per kind and overall.
//   npx tsx bench/sql.ts [--rounds N]      (default 40 rounds over the mix, after 3 warm-up rounds)
import { performance } from 'node:perf_hooks';
import { verifySql } from '../engines/sql/index.js';
import type { SqlDialect } from '../engines/sql/dialects.js';

const DDL = `
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, password_hash TEXT, country TEXT, created_at TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, total REAL, status TEXT, created_at TEXT);
CREATE TABLE order_items (order_id INTEGER, product_id INTEGER, qty INTEGER, price REAL);
CREATE TABLE products (id INTEGER PRIMARY KEY, title TEXT, category TEXT, price REAL);
`;

interface Item {
  label: string;
  dialect: SqlDialect;
  query: string;
}

const MIX: Item[] = [
  { label: 'valid', dialect: 'sqlite', query: 'SELECT id, name FROM users WHERE id = ?' },
  {
    label: 'valid',
    dialect: 'sqlite',
    query:
      "SELECT u.country, COUNT(DISTINCT u.id) AS n, SUM(o.total) AS revenue FROM users u JOIN orders o ON o.user_id = u.id WHERE o.status = 'paid' GROUP BY u.country HAVING n > 5 ORDER BY revenue DESC LIMIT 10",
  },
  {
    label: 'valid',
    dialect: 'sqlite',
    query:
      'WITH spend AS (SELECT user_id, SUM(total) AS s FROM orders GROUP BY user_id) SELECT u.name, spend.s FROM users u JOIN spend ON spend.user_id = u.id WHERE spend.s > (SELECT AVG(s) FROM spend)',
  },
  { label: 'valid', dialect: 'sqlite', query: 'SELECT id FROM users INTERSECT SELECT user_id FROM orders' },
  {
    label: 'valid',
    dialect: 'mysql',
    query: "SELECT DATE_FORMAT(created_at, '%Y-%m') AS m, SUM(total) FROM orders GROUP BY m ORDER BY m",
  },
  {
    label: 'valid',
    dialect: 'postgresql',
    query:
      "SELECT p.category, AVG(oi.price * oi.qty) FROM products p JOIN order_items oi ON oi.product_id = p.id WHERE p.title ILIKE '%a%' GROUP BY 1",
  },
  { label: 'schema_violation', dialect: 'sqlite', query: 'SELECT nickname FROM users' },
  {
    label: 'schema_violation',
    dialect: 'postgresql',
    query: 'SELECT u.id FROM users u JOIN customers c ON c.id = u.id',
  },
  { label: 'malicious', dialect: 'sqlite', query: "SELECT id FROM users WHERE name = '' OR 1=1" },
  { label: 'malicious', dialect: 'sqlite', query: 'SELECT id FROM users; DROP TABLE users' },
  { label: 'malicious', dialect: 'mysql', query: 'SELECT id FROM users /*!50000 UNION SELECT user FROM mysql.user */' },
  { label: 'malicious', dialect: 'postgresql', query: 'SELECT pg_sleep(5)' },
  { label: 'malicious', dialect: 'sqlite', query: 'SELECT name, password_hash FROM users' },
  { label: 'blocked', dialect: 'sqlite', query: 'SELEC id FROM users' },
  { label: 'blocked', dialect: 'sqlite', query: 'SELECT no_such_fn(id) FROM users' },
];

function percentile(sorted: number[], p: number): number {
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

function summary(label: string, samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(2).padStart(8);
  return `${label.padEnd(18)} n=${String(s.length).padStart(5)}  p50=${f(percentile(s, 50))}ms  p95=${f(percentile(s, 95))}ms  p99=${f(percentile(s, 99))}ms  max=${f(s[s.length - 1])}ms`;
}

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Math.max(1, Number(process.argv[roundsArg + 1]) || 40) : 40;

for (let w = 0; w < 3; w++)
  for (const item of MIX) verifySql({ query: item.query, schema_ddl: DDL, dialect: item.dialect });

const byLabel = new Map<string, number[]>();
const all: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (const item of MIX) {
    const t0 = performance.now();
    verifySql({ query: item.query, schema_ddl: DDL, dialect: item.dialect });
    const ms = performance.now() - t0;
    all.push(ms);
    byLabel.set(item.label, [...(byLabel.get(item.label) ?? []), ms]);
  }
}

console.log(`verifySql latency, ${rounds} rounds × ${MIX.length} queries (in-process, after warm-up)`);
for (const [label, samples] of byLabel) console.log(summary(label, samples));
console.log(summary('overall', all));
