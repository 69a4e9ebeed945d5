// The SQL engine loads node-sql-parser's build of each dialect it parses, not the package's main
// module with every dialect's parser (session 19, issue 22's memory at the mixed peak: ~10 MB less
// resident in each engine thread that parses SQL). A dialect's build must read every query exactly
// as the main module does, or a verdict could change.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARSER_DATABASE } from '../../engines/sql/dialects.js';
import { parseSql, renderExpr, type Node } from '../../engines/sql/parser.js';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../..');

const QUERIES = [
  'SELECT w_state, count(*) FROM warehouse WHERE w_warehouse_sk > 5 GROUP BY w_state',
  'SELECT i.i_item_id, sum(s.ss_net_paid) AS paid FROM item i JOIN store_sales s ON s.ss_item_sk = i.i_item_sk WHERE i.i_price BETWEEN 10 AND 20 GROUP BY 1 ORDER BY paid DESC LIMIT 10',
  "SELECT name FROM users WHERE email LIKE '%@example.com' AND id IN (SELECT user_id FROM orders WHERE total > 100)",
  'WITH t AS (SELECT a, b FROM x) SELECT a FROM t UNION SELECT b FROM t',
  'UPDATE accounts SET balance = balance - 10 WHERE id = 1',
  'DELETE FROM sessions WHERE expires_at < 5',
  'SELECT * FROM a LEFT JOIN b ON a.id = b.a_id WHERE b.id IS NULL',
  'SELECT CASE WHEN x > 1 THEN 1 ELSE 0 END FROM t',
  'SELEC broken FROM',
];

describe("node-sql-parser's build per dialect (session 19)", () => {
  it('a process that parses postgresql and sqlite loads those two builds and never the main module', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { parseSql } = await import(${JSON.stringify(path.join(ROOT, 'engines/sql/parser.ts'))});
      const a = parseSql('SELECT w_state FROM warehouse', 'postgresql');
      const b = parseSql('SELECT i_item_id FROM item WHERE i_price > 10', 'sqlite');
      const require = createRequire(import.meta.url);
      const loaded = Object.keys(require.cache).filter((k) => k.includes('node-sql-parser')).map((k) => k.split('node-sql-parser')[1]);
      console.log(JSON.stringify({ ok: a.ok && b.ok, loaded }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const { ok, loaded } = JSON.parse(out.trim().split('\n').pop()!) as { ok: boolean; loaded: string[] };
    expect(ok).toBe(true);
    expect(loaded.sort()).toEqual(['/build/postgresql.js', '/build/sqlite.js', '/package.json']);
  }, 60_000);

  it("every dialect's build reads each query as the main module does (same AST, same error, same rendered expression)", () => {
    const { Parser } = require('node-sql-parser') as { Parser: new () => import('node-sql-parser').Parser };
    const all = new Parser();
    let compared = 0;
    for (const [dialect, database] of Object.entries(PARSER_DATABASE) as Array<
      [keyof typeof PARSER_DATABASE, string]
    >) {
      for (const q of QUERIES) {
        let ast: unknown;
        let error: string | null = null;
        try {
          ast = all.astify(q, { database });
        } catch (err) {
          error = (err as Error).message;
        }
        const got = parseSql(q, dialect);
        if (error !== null) {
          expect({ dialect, q, ok: got.ok }).toEqual({ dialect, q, ok: false });
          if (!got.ok) expect(got.error).toBe(error.length > 300 ? `${error.slice(0, 300)}…` : error);
          continue;
        }
        const statements = (Array.isArray(ast) ? ast : [ast]).filter((x) => typeof x === 'object' && x !== null);
        expect({ dialect, q, ok: got.ok }).toEqual({ dialect, q, ok: true });
        if (!got.ok) continue;
        expect(JSON.stringify(got.statements)).toBe(JSON.stringify(statements));
        const where = (statements[0] as Node | undefined)?.where;
        if (where && typeof where === 'object') {
          let text: string | null = null;
          try {
            text = all.exprToSQL(where, { database });
          } catch {
            text = null;
          }
          if (text)
            expect(renderExpr(where as Node, dialect)).toBe(text.length > 200 ? `${text.slice(0, 200)}…` : text);
        }
        compared++;
      }
    }
    // Most queries parse in most dialects (the comparison is not vacuous).
    expect(compared).toBeGreaterThan(50);
  });
});
