// PostgreSQL's check of one /verify/sql request (PGlite, pg-check.ts), as the worker's SQL
// activity runs it on its main thread before the structural engine runs in the engine pool.
// Apart from index.ts on purpose: the activity needs only this, the lexer and the limits, and
// importing the engine's barrel would load the SQL parser (node-sql-parser) and SQLite into the
// worker's main thread, where nothing else uses them (docs/performance.md, memory).
import { canonicalDialect, LEX_PROFILES } from './dialects.js';
import { lexSql, SqlLexError } from './lexer.js';
import { LIMITS } from './limits.js';
import type { PgCheck, PgCheckBudget, PgCheckResult } from './pg-check.js';
import type { SqlRequest } from '../../contract/sql.js';

/**
 * PostgreSQL's own verdict on a postgresql request (PGlite, in its own thread under its own
 * deadline), or undefined for other dialects; the activity computes it before handing the
 * structural analysis to the engine pool, with the limits it read from core/config.ts.
 */
export async function postgresCheckFor(
  req: SqlRequest,
  pg: PgCheck,
  budget: PgCheckBudget = {},
): Promise<PgCheckResult | undefined> {
  const dialect = canonicalDialect(req.dialect ?? 'sqlite');
  if (
    dialect !== 'postgresql' ||
    req.query.length > LIMITS.maxQueryLength ||
    req.schema_ddl.length > LIMITS.maxSchemaDdlLength
  ) {
    return undefined;
  }
  let text: string;
  try {
    text = postgresText(req.query);
  } catch (err) {
    if (err instanceof SqlLexError) return undefined;
    throw err;
  }
  return pg.check(text, req.schema_ddl, budget);
}

/** `?` and `:name` placeholders become `$n` so PostgreSQL reads the statement as a driver would send it. */
function postgresText(query: string): string {
  const lexed = lexSql(query, LEX_PROFILES.postgresql);
  let out = '';
  let last = 0;
  let n = 0;
  for (const t of lexed.tokens)
    if (t.kind === 'param' && /^\$\d+$/.test(t.text)) n = Math.max(n, Number(t.text.slice(1)));
  for (const t of lexed.tokens) {
    if (t.kind !== 'param' || t.text.startsWith('$')) continue;
    out += `${query.slice(last, t.start)}$${++n}`;
    last = t.end;
  }
  return out + query.slice(last);
}
