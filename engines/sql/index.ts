// POST /verify/sql engine: verifySql(request) → EngineOutcome. Pure: no I/O beyond an
// in-memory SQLite database that is created and closed within the call.
//
// Order of decisions (docs/sql-engine.md):
//   1. size bounds of query / schema_ddl                → BLOCKED complexity_limit_exceeded
//   2. the raw-text lexer rejects the query             → BLOCKED parse_error
//   3. token / parenthesis bounds                       → BLOCKED complexity_limit_exceeded
//   4. any malicious finding (lexer, AST, SQLite)       → VERIFIED (proven) malicious, is_valid false
//   5. neither the parser nor (sqlite) the engine reads the query → BLOCKED parse_error
//   6. AST bounds; then the engine's schema refusal (PostgreSQL 42P01/42703/42702, SQLite no
//      such table/column, ambiguous)                     → VERIFIED (proven) schema_violation
//      then join / table / subquery / cost bounds       → BLOCKED complexity_limit_exceeded
//   7. schema_ddl unreadable                            → BLOCKED schema_parse_error
//   8. undeclared / ambiguous names: a real engine that accepts the statement overrules the
//      resolver (a resolver defect); without an engine verdict only findings certain by
//      construction are VERIFIED (proven) schema_violation, the rest UNVERIFIABLE
//   9. SQLite prepare fails where the parser did not    → BLOCKED execution_error
//  10. otherwise                                        → VERIFIED (proven) sql_valid, is_valid true
import type { EngineOutcome } from '../../core/diagnostic.js';
import { sha256Hex } from '../../core/canonical-json.js';
import { SERVICE_VERSION } from '../../core/version.js';
import { canonicalDialect, LEX_PROFILES, PARSER_DATABASE, type SqlDialect } from './dialects.js';
import { parseSchemaCached, type SchemaParseOutcome } from './ddl.js';
import { lexicalChecks } from './lexical-checks.js';
import { isWord, lexSql, significantTokens, SqlLexError, type LexResult } from './lexer.js';
import { LIMITS } from './limits.js';
import { lexicalCartesianFactors } from './lexical-cost.js';
import { isSelect, measureAst, parseSql, PARSER_NAME, PARSER_VERSION, renderExpr, type Node } from './parser.js';
import { Resolver, type ColumnUse } from './resolver.js';
import { isSensitiveColumnName } from './sensitive.js';
import { prepareInSqlite, sqliteVersion, type SqlitePrepareResult } from './sqlite-check.js';
import type { PgCheck, PgCheckResult } from './pg-check.js';
import { postgresCheckFor } from './pg-request.js';
import { checkPgTree, PgTreeError } from './pg-tree.js';
import { astTautologies, tautologyIssues, tokenTautologies } from './tautology.js';
import { issue, isMaliciousIssue, type SqlIssue } from './types.js';
import type { SqlRequest } from '../../contract/sql.js';

export { sqlRequestSchema, validateSqlRequest, type SqlRequest, type SqlRequestInput } from '../../contract/sql.js';
export { SUPPORTED_DIALECTS, canonicalDialect, type SqlDialect } from './dialects.js';
export { LIMITS as SQL_LIMITS } from './limits.js';
export { isSensitiveColumnName } from './sensitive.js';
export type { SqlIssue, MaliciousCategory } from './types.js';
export { postgresCheckFor } from './pg-request.js';
export {
  PgCheck,
  DEFAULT_PG_CHECK_LIMITS,
  type PgCheckBudget,
  type PgCheckEvent,
  type PgCheckLimits,
  type PgCheckResult,
} from './pg-check.js';

export const SQL_CONSTRAINTS = {
  valid: 'sql_verifier.sql_valid',
  malicious: 'sql_verifier.malicious',
  schemaViolation: 'sql_verifier.schema_violation',
  parseError: 'sql_verifier.parse_error',
  schemaParseError: 'sql_verifier.schema_parse_error',
  complexity: 'sql_verifier.complexity_limit_exceeded',
  executionError: 'sql_verifier.execution_error',
  /** postgresql without PostgreSQL's verdict (UNVERIFIABLE). */
  engineNotRun: 'sql_verifier.engine_not_run',
} as const;

const STATEMENT_DESTRUCTIVE = new Set([
  'insert',
  'replace',
  'update',
  'delete',
  'create',
  'drop',
  'alter',
  'truncate',
  'rename',
  'merge',
  'upsert',
]);

interface Complexity {
  tokens: number;
  paren_depth: number;
  ast_nodes: number | null;
  ast_depth: number | null;
  tables: number;
  joins: number;
  subquery_depth: number;
  /** Largest number of unconnected FROM-item groups of one SELECT (null without an AST). */
  cartesian_factors: number | null;
}

/** Everything learned about the query; the outcome builders read from it. */
class Analysis {
  readonly issues: SqlIssue[] = [];
  private readonly issueKeys = new Set<string>();
  executableCommentsExpanded = false;
  statementTypes: string[] = [];
  tables: string[] = [];
  columns: string[] = [];
  mode: 'ast' | 'sqlite_engine' | 'postgres_engine' | 'none' = 'none';
  /** postgresql: PostgreSQL's own parse + describe of the query (pg-check.ts); null when not run. */
  postgres: PgCheckResult | null = null;
  parseError: string | null = null;
  complexity: Complexity = {
    tokens: 0,
    paren_depth: 0,
    ast_nodes: null,
    ast_depth: null,
    tables: 0,
    joins: 0,
    subquery_depth: 0,
    cartesian_factors: null,
  };
  /** Recursive CTEs without a termination guard (AST), or `RECURSIVE` seen without an AST. */
  unboundedRecursion: string[] = [];
  schema: SchemaParseOutcome | null = null;
  sqlite: SqlitePrepareResult | null = null;
  sqliteSkipped: string | null = null;
  lexed: LexResult | null = null;
  analysisOverflow = false;
  /** Resolver findings a real engine overruled (it accepted the statement): resolver defects. */
  resolverDefects = 0;

  constructor(
    readonly query: string,
    readonly ddl: string,
    readonly dialect: SqlDialect,
  ) {}

  add(i: SqlIssue, key = `${i.type}:${i.description}`): void {
    if (this.issueKeys.has(key)) return;
    this.issueKeys.add(key);
    this.issues.push(i);
  }
}

/**
 * verifySql plus the real-engine checks that need I/O: for postgresql the query is parsed and
 * described (never executed) by PostgreSQL itself (PGlite, pg-check.ts) against the declared
 * tables. Other dialects: the same as verifySql.
 */
export async function verifySqlChecked(req: SqlRequest, pg: PgCheck): Promise<EngineOutcome> {
  const postgres = await postgresCheckFor(req, pg);
  return verifySql(req, postgres ? { postgres } : {});
}

export interface VerifySqlEngines {
  /** Result of pg-check.ts for this exact request (verifySqlChecked supplies it). */
  postgres?: PgCheckResult;
}

/**
 * The verdict on one SQL request, decided in the order of the header comment: each step either
 * returns the outcome or null (go on); the first outcome wins.
 */
export function verifySql(req: SqlRequest, engines: VerifySqlEngines = {}): EngineOutcome {
  const dialect = canonicalDialect(req.dialect ?? 'sqlite');
  if (dialect === null)
    throw new TypeError(`unsupported dialect '${String(req.dialect)}' (validate with sqlRequestSchema first)`);
  const a = new Analysis(req.query, req.schema_ddl, dialect);
  a.postgres = dialect === 'postgresql' ? (engines.postgres ?? null) : null;
  const early = sizeBoundsStep(a) ?? lexStep(a);
  if (early !== null) return early;
  readQueryStep(a);
  return (
    maliceStep(a) ??
    unreadQueryStep(a) ??
    structuralBoundsStep(a) ??
    schemaDdlStep(a) ??
    namesAndEngineStep(a) ??
    validStep(a)
  );
}

/** 1. Size bounds before any work. */
function sizeBoundsStep(a: Analysis): EngineOutcome | null {
  if (a.query.length > LIMITS.maxQueryLength)
    return complexityBlocked(a, 'query_length', a.query.length, LIMITS.maxQueryLength);
  if (a.ddl.length > LIMITS.maxSchemaDdlLength)
    return complexityBlocked(a, 'schema_ddl_length', a.ddl.length, LIMITS.maxSchemaDdlLength);
  return null;
}

/** 2 / 3. Lex, then the token bounds (they also keep the recursive-descent parser's stack safe). */
function lexStep(a: Analysis): EngineOutcome | null {
  try {
    a.lexed = lexSql(a.query, LEX_PROFILES[a.dialect]);
  } catch (err) {
    if (err instanceof SqlLexError)
      return blocked(a, SQL_CONSTRAINTS.parseError, `the query could not be tokenised: ${err.message}`);
    throw err;
  }
  const sig = significantTokens(a.lexed.tokens);
  a.complexity.tokens = sig.length;
  a.complexity.paren_depth = a.lexed.maxDepth;
  a.executableCommentsExpanded = a.lexed.executableCommentCount > 0;
  if (sig.length === 0) return blocked(a, SQL_CONSTRAINTS.parseError, 'the query is empty (no SQL outside comments)');
  if (sig.length > LIMITS.maxTokens) return complexityBlocked(a, 'tokens', sig.length, LIMITS.maxTokens);
  if (a.lexed.maxDepth > LIMITS.maxParenDepth)
    return complexityBlocked(a, 'paren_depth', a.lexed.maxDepth, LIMITS.maxParenDepth);
  return null;
}

/**
 * Reads the schema and the query: lexical checks, then the parser's AST, or (the parser failed)
 * the dialect's engine (SQLite, PostgreSQL) or the lexer alone. Records findings; decides nothing.
 */
function readQueryStep(a: Analysis): void {
  const lexed = a.lexed!;
  const dialect = a.dialect;
  a.schema = parseSchemaCached(a.ddl, dialect);
  const schema = a.schema.schema;
  const declared = new Set<string>();
  for (const t of schema?.tables.values() ?? []) {
    declared.add(t.name.toLowerCase());
    if (t.qualifier !== null) declared.add(`${t.qualifier}.${t.name}`.toLowerCase());
  }

  const lexical = lexicalChecks(lexed, { dialect, declaredTables: declared });
  for (const i of lexical.issues) a.add(i, statementKey(i));

  const parsed = parseSql(lexed.analysisText, dialect);
  if (parsed.ok && parsed.statements.length > 0) {
    a.mode = 'ast';
    try {
      analyseAst(a, parsed.statements);
    } catch (err) {
      // The AST bounds should prevent this; a stack overflow is still a bound, never a verdict.
      if (!(err instanceof RangeError)) throw err;
      a.analysisOverflow = true;
    }
  } else {
    a.parseError = parsed.ok ? 'the parser produced no statement' : parsed.error;
    a.statementTypes = lexical.statementHeads.map((h) => h.toLowerCase());
    for (const i of tautologyIssues(tokenTautologies(lexed, dialect), 'lexer')) a.add(i);
    if (dialect === 'sqlite' && schema !== null && lexical.statementCount === 1) analyseWithSqliteEngine(a);
    else if (
      a.postgres?.ran === true &&
      (a.postgres.ok || a.postgres.kind !== 'syntax') &&
      schema !== null &&
      lexical.statementCount === 1
    ) {
      analyseWithPostgresEngine(a);
    } else lexicalComplexity(a);
  }
  // Read by node-sql-parser and accepted by PostgreSQL: PostgreSQL's own reading is checked too,
  // so a query the two parsers read differently cannot hide a catalog read or a side effect.
  if (a.mode === 'ast' && a.postgres?.ran === true && a.postgres.ok) {
    const failure = applyPgTree(a);
    if (failure !== null)
      a.add(
        issue(
          'postgres_parse_tree_unread',
          'info',
          `PostgreSQL's parse tree was not inspected: ${failure}`,
          'postgres',
        ),
      );
  }
}

/** 4. Proven malice wins over everything that follows. */
function maliceStep(a: Analysis): EngineOutcome | null {
  const malicious = a.issues.filter(isMaliciousIssue);
  return malicious.length > 0 ? maliciousOutcome(a, malicious) : null;
}

/** 5. Unreadable query (or, on the engine path, a declared schema SQLite cannot hold). */
function unreadQueryStep(a: Analysis): EngineOutcome | null {
  if (a.mode !== 'none') return null;
  const dialect = a.dialect;
  const schema = a.schema!;
  if (a.sqlite && !a.sqlite.ok && a.sqlite.kind === 'schema_build') {
    return blocked(a, SQL_CONSTRAINTS.schemaParseError, `schema_ddl is not a valid SQLite schema: ${a.sqlite.message}`);
  }
  if (/maximum call stack/i.test(a.parseError ?? ''))
    return complexityBlocked(a, 'parser_stack', null, null, 'the query nests too deeply for the parser');
  if (dialect === 'sqlite' && schema.schema === null) {
    // The parser could not read the query and the engine could not be tried without a schema.
    if (schema.limitExceeded) return complexityBlocked(a, 'schema', null, null, schema.error ?? undefined);
    return blocked(a, SQL_CONSTRAINTS.schemaParseError, `schema_ddl could not be parsed: ${schema.error}`);
  }
  // Only the dialect's own engine can call a query unparseable: when it did not run (or has
  // none) the query stays unread — refused, fail closed — without being called invalid.
  const engineMessage =
    a.sqlite && !a.sqlite.ok
      ? `; SQLite: ${a.sqlite.message}`
      : dialect === 'postgresql' && a.postgres?.ran === false
        ? `; PostgreSQL's check did not run (${a.postgres.reason}): the query is unread, not shown invalid`
        : dialect === 'postgresql' && a.postgres === null
          ? '; PostgreSQL was not asked: the query is unread, not shown invalid'
          : dialect !== 'postgresql' && dialect !== 'sqlite'
            ? `; ${dialect} has no embedded engine: the query is unread, not shown invalid`
            : '';
  const engineParsed = (a.postgres?.ran === true && a.postgres.ok) || a.sqlite?.ok === true;
  return blocked(
    a,
    SQL_CONSTRAINTS.parseError,
    `the query could not be parsed as ${dialect}: ${a.parseError}${engineMessage}`,
    engineParsed ? { engine_parsed: true } : {},
  );
}

/**
 * 6. AST bounds; then the engine's schema refusal (it proves the statement cannot run at all, so
 * it decides before the cost bounds, which bound what running it would cost); then the cost bounds.
 */
function structuralBoundsStep(a: Analysis): EngineOutcome | null {
  if (a.analysisOverflow)
    return complexityBlocked(a, 'analysis_stack', null, null, 'the query nests too deeply to analyse');
  const c = a.complexity;
  if (c.ast_nodes !== null && c.ast_nodes > LIMITS.maxAstNodes)
    return complexityBlocked(a, 'ast_nodes', c.ast_nodes, LIMITS.maxAstNodes);
  if (c.ast_depth !== null && c.ast_depth > LIMITS.maxAstDepth)
    return complexityBlocked(a, 'ast_depth', c.ast_depth, LIMITS.maxAstDepth);
  const refusal = engineSchemaRefusal(a);
  if (refusal !== null) return refusal;
  if (c.tables > LIMITS.maxTables) return complexityBlocked(a, 'tables', c.tables, LIMITS.maxTables);
  if (a.mode === 'ast' && c.joins > LIMITS.maxJoins) return complexityBlocked(a, 'joins', c.joins, LIMITS.maxJoins);
  if (a.mode !== 'ast' && c.joins > LIMITS.maxLexicalJoins)
    return complexityBlocked(a, 'lexical_joins', c.joins, LIMITS.maxLexicalJoins);
  if (c.subquery_depth > LIMITS.maxSubqueryDepth)
    return complexityBlocked(a, 'subquery_depth', c.subquery_depth, LIMITS.maxSubqueryDepth);
  if (c.cartesian_factors !== null && c.cartesian_factors > LIMITS.maxCartesianFactors) {
    return complexityBlocked(
      a,
      'cartesian_factors',
      c.cartesian_factors,
      LIMITS.maxCartesianFactors,
      `a SELECT combines ${c.cartesian_factors} groups of tables that no join predicate connects (a cross product of ${c.cartesian_factors} factors; the limit is ${LIMITS.maxCartesianFactors})`,
    );
  }
  if (a.unboundedRecursion.length > 0) {
    return complexityBlocked(
      a,
      'unbounded_recursion',
      a.unboundedRecursion.length,
      0,
      a.mode === 'ast'
        ? `recursive CTE ${a.unboundedRecursion.map((n) => `'${n}'`).join(', ')} has no termination guard (a literal bound in the recursive member's WHERE, or a literal LIMIT on the statement)`
        : 'WITH RECURSIVE in a query read without an AST: its termination cannot be checked',
    );
  }
  return null;
}

/** 7. schema_ddl unreadable. */
function schemaDdlStep(a: Analysis): EngineOutcome | null {
  const schema = a.schema!;
  if (schema.schema !== null) return null;
  if (schema.limitExceeded) return complexityBlocked(a, 'schema', null, null, schema.error ?? undefined);
  return blocked(a, SQL_CONSTRAINTS.schemaParseError, `schema_ddl could not be parsed: ${schema.error}`);
}

/**
 * 8 / 9. Names, then the engine. A schema violation is proven only by the dialect's own engine
 * refusing the statement for a schema reason; the resolver alone proves only what is certain by
 * construction (resolver.ts `certain`). Where a real engine accepts what the resolver refused,
 * the engine wins and the disagreement is counted as a resolver defect (the activity logs it).
 */
function namesAndEngineStep(a: Analysis): EngineOutcome | null {
  const schema = a.schema!.schema!;
  if (a.mode === 'ast' && a.dialect === 'sqlite') {
    a.sqlite ??= prepareInSqlite(a.query, schema);
    if (!a.sqlite.ok && a.sqlite.kind === 'schema_build') {
      return blocked(
        a,
        SQL_CONSTRAINTS.schemaParseError,
        `schema_ddl is not a valid SQLite schema: ${a.sqlite.message}`,
      );
    }
  } else if (a.dialect !== 'sqlite') {
    a.sqliteSkipped = `the SQLite prepare check applies to the sqlite dialect only (dialect: ${a.dialect})`;
  }
  const pg = a.postgres;
  if (pg?.ran === true && !pg.ok) {
    if (pg.kind === 'syntax')
      return blocked(a, SQL_CONSTRAINTS.parseError, `PostgreSQL could not parse the query: ${pg.message}`);
    a.add(
      issue('execution_error', 'error', `PostgreSQL rejected the query: ${pg.message}`, 'postgres', {
        sqlstate: pg.sqlstate,
        line_number: pg.line,
      }),
    );
    return blocked(
      a,
      SQL_CONSTRAINTS.executionError,
      `PostgreSQL rejected the query at prepare time (SQLSTATE ${pg.sqlstate}): ${pg.message}`,
    );
  }
  const resolverFindings = a.issues.filter((i) => i.severity === 'error' && i.source === 'resolver');
  const acceptedBy =
    a.mode === 'ast' && a.sqlite?.ok === true
      ? 'sqlite_prepare'
      : pg?.ran === true && pg.ok
        ? 'postgres_prepare'
        : null;
  if (resolverFindings.length > 0 && acceptedBy !== null) {
    for (const v of resolverFindings) {
      v.severity = 'info';
      v.overruled_by = acceptedBy;
    }
    a.resolverDefects = resolverFindings.length;
  } else if (resolverFindings.length > 0 && !(a.sqlite && !a.sqlite.ok)) {
    // No engine verdict (a dialect without an embedded engine, or PostgreSQL's check did not run).
    const certain = resolverFindings.filter((v) => v.certain === true);
    if (certain.length > 0) return schemaViolationOutcome(a, certain, 'construction');
    return unconfirmedViolationOutcome(a, resolverFindings);
  }
  if (a.sqlite && !a.sqlite.ok) {
    // The engine refused for another reason: the resolver's findings (if any) are not what decides.
    for (const v of resolverFindings) v.severity = 'warning';
    a.add(
      issue('execution_error', 'error', `SQLite rejected the query: ${a.sqlite.message}`, 'sqlite', {
        sqlite_error: a.sqlite.message,
      }),
    );
    return blocked(a, SQL_CONSTRAINTS.executionError, `SQLite rejected the query at prepare time: ${a.sqlite.message}`);
  }
  return null;
}

/**
 * 10. Valid. For postgresql the verdict is PostgreSQL's: when its check did not run (switched
 * off, PGlite still starting or failed, the schema not representable) the resolver alone does
 * not make the statement VERIFIED valid — functions, types and casts are PostgreSQL's to judge —
 * so the answer is UNVERIFIABLE with the reason.
 */
function validStep(a: Analysis): EngineOutcome {
  if (a.dialect === 'postgresql' && !(a.postgres?.ran === true && a.postgres.ok)) return engineNotRunOutcome(a);
  return proven(
    a,
    SQL_CONSTRAINTS.valid,
    true,
    false,
    `SQL query is valid against the declared schema (${a.dialect}).`,
  );
}

/** Same category and statement keyword = same finding, whichever detector saw it. */
function statementKey(i: SqlIssue): string | undefined {
  return typeof i.statement === 'string' ? `${i.type}:stmt:${i.statement}` : undefined;
}

// ---- analysis steps ----------------------------------------------------------------------

function analyseAst(a: Analysis, statements: Node[]): void {
  const schema = a.schema?.schema ?? null;
  a.statementTypes = statements.map((s) => String(s.type ?? 'unknown').toLowerCase());
  const size = measureAst(statements, LIMITS.maxAstNodes + 1);
  a.complexity.ast_nodes = size.nodes;
  a.complexity.ast_depth = size.depth;
  // Past these bounds the recursive analyses below could exhaust the stack: decide on the bounds alone.
  if (size.nodes > LIMITS.maxAstNodes || size.depth > LIMITS.maxAstDepth) return;

  for (const st of statements) {
    const type = String(st.type ?? 'unknown').toLowerCase();
    if (isSelect(st)) {
      const into = st.into;
      if (into !== null && typeof into === 'object' && !Array.isArray(into) && (into as Node).keyword !== undefined) {
        const kw = String((into as Node).keyword).toUpperCase();
        if (kw === 'OUTFILE' || kw === 'DUMPFILE') {
          const found = issue(
            'administrative_statement',
            'critical',
            `SELECT … INTO ${kw} writes a file on the database server.`,
            'ast',
            {
              statement: `INTO ${kw}`,
            },
          );
          a.add(found, statementKey(found));
        }
      }
      continue;
    }
    const destructive = STATEMENT_DESTRUCTIVE.has(type);
    const found = issue(
      destructive ? 'destructive_statement' : 'administrative_statement',
      'critical',
      destructive
        ? `${type.toUpperCase()} statement modifies data or schema.`
        : `${type.toUpperCase()} is not a read-only query statement.`,
      'ast',
      { statement: type.toUpperCase() },
    );
    // The lexer usually reported the same statement already (by its leading keyword).
    if (
      !a.issues.some(
        (i) =>
          isMaliciousIssue(i) &&
          (i.type === 'destructive_statement' || i.type === 'administrative_statement') &&
          i.source === 'lexer' &&
          i.statement_index !== undefined,
      )
    ) {
      a.add(found, statementKey(found));
    }
  }

  // Data-modifying statements nested anywhere (writable CTEs, DML subqueries).
  const nested = (node: unknown, top: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => nested(n, false));
    if (node === null || typeof node !== 'object') return;
    const n = node as Node;
    const t = typeof n.type === 'string' ? n.type.toLowerCase() : '';
    if (!top && STATEMENT_DESTRUCTIVE.has(t)) {
      const found = issue(
        'destructive_statement',
        'critical',
        `${t.toUpperCase()} statement modifies data or schema.`,
        'ast',
        { statement: t.toUpperCase() },
      );
      a.add(found, statementKey(found));
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'loc' && typeof v === 'object' && v !== null) nested(v, false);
  };
  for (const st of statements) nested(st, true);

  // Always-true predicates (AST first; the token detector backs up grammars that mis-associate || / &&).
  const render = (n: Node) => renderExpr(n, a.dialect);
  let hits = statements.flatMap((st) => astTautologies(st, a.dialect, render));
  if (hits.length === 0 && a.lexed) hits = tokenTautologies(a.lexed, a.dialect);
  for (const i of tautologyIssues(hits, 'ast')) a.add(i);

  const resolver = new Resolver(schema, a.dialect);
  for (const st of statements) if (isSelect(st)) resolver.resolveStatement(st);
  const r = resolver.result();
  a.tables = r.tables;
  a.columns = r.columns;
  a.complexity.tables = r.stats.tables;
  a.complexity.joins = r.stats.joins;
  a.complexity.subquery_depth = r.stats.subqueryDepth;
  a.complexity.cartesian_factors = r.stats.cartesianFactors;
  a.unboundedRecursion = r.stats.unboundedRecursiveCtes;
  if (schema !== null) for (const v of r.violations) a.add(v);
  sensitiveFindings(a, r.projected, r.predicated, r.starReads, 'ast');
}

function sensitiveFindings(
  a: Analysis,
  projected: ColumnUse[],
  predicated: ColumnUse[],
  starReads: ColumnUse[],
  source: SqlIssue['source'],
): void {
  const label = (u: ColumnUse) => (u.table ? `${u.table}.${u.column}` : u.column);
  for (const u of projected) {
    if (!isSensitiveColumnName(u.column)) continue;
    a.add(
      issue('sensitive_column_read', 'critical', `The query reads the sensitive column '${label(u)}'.`, source, {
        table: u.table,
        column: u.column,
      }),
      `sensitive:${label(u).toLowerCase()}`,
    );
  }
  for (const u of predicated) {
    if (!isSensitiveColumnName(u.column)) continue;
    a.add(
      issue(
        'sensitive_column_predicate',
        'warning',
        `The sensitive column '${label(u)}' is compared in a predicate (not read out).`,
        source,
        {
          table: u.table,
          column: u.column,
        },
      ),
      `sensitive-pred:${label(u).toLowerCase()}`,
    );
  }
  for (const u of starReads) {
    if (!isSensitiveColumnName(u.column)) continue;
    a.add(
      issue(
        'sensitive_column_exposed',
        'warning',
        `'*' expands to the sensitive column '${label(u)}'; select columns explicitly.`,
        source,
        {
          table: u.table,
          column: u.column,
        },
      ),
      `sensitive-star:${label(u).toLowerCase()}`,
    );
  }
}

/** SQLite dialect, parser failed: the engine itself reads the query (node-sql-parser's SQLite grammar is incomplete). */
function analyseWithSqliteEngine(a: Analysis): void {
  const schema = a.schema!.schema!;
  const result = prepareInSqlite(a.query, schema);
  a.sqlite = result;
  lexicalComplexity(a);
  if (!result.ok) {
    if (result.kind === 'no_such_table' || result.kind === 'no_such_column' || result.kind === 'ambiguous_column') {
      a.mode = 'sqlite_engine';
      a.add(sqliteSchemaIssue(result.kind, result.message));
    } else if (result.kind !== 'syntax' && result.kind !== 'schema_build') {
      a.mode = 'sqlite_engine';
    }
    return;
  }
  a.mode = 'sqlite_engine';
  if (!result.readonly) {
    a.add(
      issue(
        'destructive_statement',
        'critical',
        'SQLite reports that the statement writes to the database.',
        'sqlite',
        { statement: a.statementTypes[0]?.toUpperCase() ?? null },
      ),
    );
  }
  const projected: ColumnUse[] = result.columns
    .filter((c) => c.column !== null)
    .map((c) => ({ table: c.table, column: c.column! }));
  sensitiveFindings(a, projected, [], [], 'sqlite');
  const tables = new Set<string>();
  const cols = new Set<string>();
  for (const t of significantTokens(a.lexed!.tokens)) {
    const name = t.kind === 'word' || t.kind === 'quoted_ident' ? t.value.toLowerCase() : null;
    const decl = name !== null ? schema.tables.get(name) : undefined;
    if (decl) tables.add(decl.name);
  }
  for (const c of result.columns) if (c.table && c.column) cols.add(`${c.table}.${c.column}`);
  a.tables = [...tables].sort();
  a.columns = [...cols].sort();
}

/**
 * postgresql, node-sql-parser failed, PostgreSQL parsed and described the query: the malice
 * checks run on PostgreSQL's own parse tree (pg-tree.ts) on top of the lexical checks (run
 * before); no readable tree → not admitted (parse_error). Complexity comes from tokens. The
 * sensitive-column check also stays token-based and fails closed: any reference to a sensitive
 * declared column counts as a read.
 */
function analyseWithPostgresEngine(a: Analysis): void {
  a.mode = 'postgres_engine';
  lexicalComplexity(a);
  if (a.postgres?.ran === true && a.postgres.ok) {
    // Accepted by PostgreSQL: its own parse tree is the AST the malice checks inspect. Without
    // a readable tree nothing structural can be shown, so the query is not admitted.
    const failure = applyPgTree(a);
    if (failure !== null) {
      a.mode = 'none';
      a.parseError = `node-sql-parser could not read the query (${a.parseError}) and PostgreSQL's parse tree could not be inspected (${failure}); not admitted unread`;
      return;
    }
  }
  // On top of the tree (and alone when PostgreSQL rejected the query, whose verdict is then
  // schema_violation or execution_error): a sensitive column named anywhere counts as read.
  const schema = a.schema!.schema!;
  const sensitive = new Map<string, { table: string; column: string }>();
  for (const t of schema.tables.values())
    for (const c of t.columns)
      if (isSensitiveColumnName(c)) sensitive.set(c.toLowerCase(), { table: t.name, column: c });
  const tables = new Set<string>();
  const cols = new Set<string>();
  for (const t of significantTokens(a.lexed!.tokens)) {
    const name = t.kind === 'word' || t.kind === 'quoted_ident' ? t.value.toLowerCase() : null;
    if (name === null) continue;
    const decl = schema.tables.get(name);
    if (decl) tables.add(decl.name);
    const hit = sensitive.get(name);
    if (hit) {
      cols.add(`${hit.table}.${hit.column}`);
      a.add(
        issue(
          'sensitive_column_read',
          'critical',
          `The query references the sensitive column '${hit.table}.${hit.column}' and was read by PostgreSQL only (no AST): its use cannot be shown to be a predicate, so it counts as a read.`,
          'lexer',
          { table: hit.table, column: hit.column },
        ),
        `sensitive:${hit.table}.${hit.column}`.toLowerCase(),
      );
    }
  }
  a.tables = [...tables].sort();
  a.columns = [...cols].sort();
}

/**
 * Structural malice checks on PostgreSQL's parse tree (pg-tree.ts). Returns null when the tree
 * was inspected, else why it could not be.
 */
function applyPgTree(a: Analysis): string | null {
  const pg = a.postgres;
  if (pg?.ran !== true || !pg.ok) return 'PostgreSQL did not accept the query';
  if (pg.tree === null) return 'PostgreSQL returned no parse tree';
  try {
    const report = checkPgTree(pg.tree);
    for (const i of report.issues)
      a.add(
        i,
        typeof i.statement === 'string'
          ? statementKey(i)
          : i.type.startsWith('sensitive')
            ? `${i.type === 'sensitive_column_read' ? 'sensitive' : 'sensitive-pred'}:${String(i.table)}.${String(i.column)}`.toLowerCase()
            : undefined,
      );
    return null;
  } catch (err) {
    if (err instanceof PgTreeError) return err.message;
    throw err;
  }
}

/** Bounds from tokens when there is no AST: JOIN keywords, SELECT nesting, declared tables named. */
function lexicalComplexity(a: Analysis): void {
  const sig = significantTokens(a.lexed!.tokens);
  let joins = 0;
  let depth = 0;
  const names = new Set<string>();
  const declared = a.schema?.schema?.tables;
  for (let i = 0; i < sig.length; i++) {
    const t = sig[i];
    if (isWord(t, 'JOIN')) joins++;
    if (isWord(t, 'RECURSIVE') && !a.unboundedRecursion.includes('RECURSIVE')) a.unboundedRecursion.push('RECURSIVE');
    if (isWord(t, 'SELECT')) depth = Math.max(depth, t.depth);
    if (declared && (t.kind === 'word' || t.kind === 'quoted_ident') && declared.has(t.value.toLowerCase()))
      names.add(t.value.toLowerCase());
  }
  a.complexity.joins = joins;
  a.complexity.subquery_depth = depth;
  a.complexity.tables = names.size;
  // Without an AST the cross-product factors come from tokens (lexical-cost.ts, errs towards refusing).
  a.complexity.cartesian_factors = lexicalCartesianFactors(a.lexed!, a.schema?.schema ?? null);
}

// ---- outcomes ----------------------------------------------------------------------------

function developerFields(
  a: Analysis,
  constraintId: string,
  isValid: boolean,
  malicious: boolean,
): Record<string, unknown> {
  return {
    constraint_id: constraintId,
    is_valid: isValid,
    malicious_classification: malicious,
    executable_comments_expanded: a.executableCommentsExpanded,
    dialect: a.dialect,
    issues: a.issues,
    tables: a.tables,
    columns: a.columns,
    statement_types: a.statementTypes,
    ...(a.resolverDefects > 0 ? { resolver_defects: a.resolverDefects } : {}),
    // postgresql: whether PostgreSQL itself (PGlite) parsed and described the query.
    ...(a.dialect === 'postgresql'
      ? { postgres_check: a.postgres?.ran === true ? (a.postgres.ok ? 'accepted' : 'rejected') : 'not_run' }
      : {}),
  };
}

function blocked(a: Analysis, constraintId: string, error: string, extra: Record<string, unknown> = {}): EngineOutcome {
  const short: Record<string, string> = {
    [SQL_CONSTRAINTS.parseError]: 'SQL verification blocked: the query could not be parsed.',
    [SQL_CONSTRAINTS.schemaParseError]: 'SQL verification blocked: the schema DDL could not be parsed.',
    [SQL_CONSTRAINTS.complexity]: 'SQL verification blocked: the query exceeds a complexity limit.',
    [SQL_CONSTRAINTS.executionError]: 'SQL verification blocked: the database engine rejected the query.',
  };
  return {
    kind: 'blocked',
    agentMessage: short[constraintId] ?? 'SQL verification blocked.',
    developerFields: { ...developerFields(a, constraintId, false, false), error, ...extra },
  };
}

function complexityBlocked(
  a: Analysis,
  limit: string,
  value: number | null,
  max: number | null,
  detail?: string,
): EngineOutcome {
  const error = detail ?? `${limit} ${value} exceeds the limit of ${max}`;
  return blocked(a, SQL_CONSTRAINTS.complexity, error, { limit, limit_value: max, observed_value: value });
}

function maliciousOutcome(a: Analysis, malicious: SqlIssue[]): EngineOutcome {
  const categories = [...new Set(malicious.map((i) => i.type))].sort();
  return proven(
    a,
    SQL_CONSTRAINTS.malicious,
    false,
    true,
    `SQL query classified as malicious (${categories.join(', ')}): ${malicious[0].description}`,
    { malicious_categories: categories },
  );
}

/**
 * The dialect's own engine refused the statement for a schema reason (PostgreSQL 42P01 / 42703 /
 * 42702; SQLite no such table / column, ambiguous column): VERIFIED schema_violation. Else null.
 */
function engineSchemaRefusal(a: Analysis): EngineOutcome | null {
  const resolverFindings = () => a.issues.filter((i) => i.severity === 'error' && i.source === 'resolver');
  const pg = a.postgres;
  if (
    pg?.ran === true &&
    !pg.ok &&
    (pg.kind === 'undefined_table' || pg.kind === 'undefined_column' || pg.kind === 'ambiguous_column')
  ) {
    // PostgreSQL's own name resolution decides; the resolver's findings stay as supporting detail.
    const type =
      pg.kind === 'undefined_table'
        ? 'undeclared_table'
        : pg.kind === 'undefined_column'
          ? 'undeclared_column'
          : 'ambiguous_column';
    const found = issue(type, 'error', `PostgreSQL: ${pg.message}`, 'postgres', {
      sqlstate: pg.sqlstate,
      line_number: pg.line,
    });
    a.add(found);
    return schemaViolationOutcome(a, [found, ...resolverFindings()], 'postgresql');
  }
  const schema = a.schema?.schema ?? null;
  if (a.dialect === 'sqlite' && a.mode === 'ast' && schema !== null) {
    a.sqlite ??= prepareInSqlite(a.query, schema);
    if (!a.sqlite.ok && SQLITE_SCHEMA_KINDS.has(a.sqlite.kind)) {
      // The resolver's more specific findings (when it had any) are the ones shown; the
      // engine's error is in the proof (sqlite_prepare).
      const own = resolverFindings();
      if (own.length > 0) return schemaViolationOutcome(a, own, 'sqlite');
      const found = sqliteSchemaIssue(a.sqlite.kind, a.sqlite.message);
      a.add(found);
      return schemaViolationOutcome(a, [found], 'sqlite');
    }
  }
  // Read by SQLite alone (node-sql-parser failed): its findings are the engine's.
  const engineFindings = a.issues.filter((i) => i.severity === 'error' && i.source === 'sqlite');
  if (engineFindings.length > 0) return schemaViolationOutcome(a, engineFindings, 'sqlite');
  return null;
}

/** Who proved a schema violation: the dialect's engine, or the resolver where it is certain by construction. */
type ViolationProver = 'postgresql' | 'sqlite' | 'construction';

function schemaViolationOutcome(a: Analysis, violations: SqlIssue[], by: ViolationProver): EngineOutcome {
  return proven(
    a,
    SQL_CONSTRAINTS.schemaViolation,
    false,
    false,
    `SQL query does not match the declared schema: ${violations[0].description}`,
    { violations: violations.map((v) => v.description), violation_confirmed_by: by },
  );
}

/**
 * The resolver objects but nothing proves it: no engine refused the statement and the finding
 * is not certain by construction. UNVERIFIABLE (never VERIFIED-invalid, never admitted).
 */
function unconfirmedViolationOutcome(a: Analysis, violations: SqlIssue[]): EngineOutcome {
  const why =
    a.dialect === 'postgresql'
      ? `PostgreSQL's check did not run (${pgNotRunReason(a)})`
      : `the ${a.dialect} dialect has no embedded engine to confirm it`;
  return {
    kind: 'unverifiable',
    agentMessage: `SQL query may not match the declared schema, but this is not proven: ${violations[0].description} (${why}).`,
    developerFields: {
      ...developerFields(a, SQL_CONSTRAINTS.schemaViolation, false, false),
      violations: violations.map((v) => v.description),
      violation_confirmed_by: 'none',
      error: `unconfirmed: ${why}`,
    },
  };
}

/** Why PostgreSQL's verdict is missing, for the UNVERIFIABLE answers that need it. */
function pgNotRunReason(a: Analysis): string {
  return a.postgres?.ran === false ? a.postgres.reason : 'not requested';
}

/** postgresql, no finding, but PostgreSQL's check did not run: UNVERIFIABLE (never VERIFIED valid from the resolver alone). */
function engineNotRunOutcome(a: Analysis): EngineOutcome {
  const why = `PostgreSQL's check did not run (${pgNotRunReason(a)})`;
  return {
    kind: 'unverifiable',
    agentMessage: `SQL query was not verified: ${why}; the parser alone does not prove a postgresql statement valid.`,
    developerFields: { ...developerFields(a, SQL_CONSTRAINTS.engineNotRun, false, false), error: `unverified: ${why}` },
  };
}

const SQLITE_SCHEMA_KINDS = new Set<string>(['no_such_table', 'no_such_column', 'ambiguous_column']);

function sqliteSchemaIssue(kind: string, message: string): SqlIssue {
  const type =
    kind === 'ambiguous_column'
      ? 'ambiguous_column'
      : kind === 'no_such_table'
        ? 'undeclared_table'
        : 'undeclared_column';
  return issue(type, 'error', `SQLite: ${message}`, 'sqlite', { sqlite_error: message });
}

function proven(
  a: Analysis,
  constraintId: string,
  isValid: boolean,
  malicious: boolean,
  agentMessage: string,
  extra: Record<string, unknown> = {},
): EngineOutcome {
  const fields = { ...developerFields(a, constraintId, isValid, malicious), ...extra };
  return {
    kind: 'proven',
    agentMessage,
    developerFields: fields,
    proof: proofArtifact(a, constraintId, isValid, malicious),
  };
}

/** What was checked, by what, on which exact inputs: JSON-only and deterministic. */
function proofArtifact(
  a: Analysis,
  constraintId: string,
  isValid: boolean,
  malicious: boolean,
): Record<string, unknown> {
  const schema = a.schema?.schema ?? null;
  const sqlite = a.sqlite;
  const expanded = a.executableCommentsExpanded && a.lexed ? a.lexed.analysisText : null;
  return {
    engine: 'sql_verifier',
    service_version: SERVICE_VERSION,
    parser: { name: PARSER_NAME, version: PARSER_VERSION, database: PARSER_DATABASE[a.dialect] },
    dialect: a.dialect,
    query_sha256: sha256Hex(a.query),
    schema_ddl_sha256: sha256Hex(a.ddl),
    expanded_query_sha256: expanded !== null ? sha256Hex(expanded) : null,
    executable_comments_expanded: a.executableCommentsExpanded,
    analysis:
      a.mode === 'ast'
        ? 'parser_ast'
        : a.mode === 'sqlite_engine'
          ? 'sqlite_engine'
          : a.mode === 'postgres_engine'
            ? 'postgres_engine'
            : 'lexer_only',
    parse_error: a.parseError,
    statement_types: a.statementTypes,
    tables_referenced: a.tables,
    columns_referenced: a.columns,
    schema: schema
      ? {
          source: schema.source,
          tables: [...schema.tables.values()].map((t) => ({ name: t.name, columns: [...t.columns] })),
          ignored_statements: schema.ignoredStatements,
        }
      : { source: null, error: a.schema?.error ?? 'not parsed' },
    sqlite_prepare:
      sqlite === null
        ? { ran: false, reason: a.sqliteSkipped ?? 'not needed for this verdict' }
        : sqlite.ok
          ? { ran: true, ok: true, readonly: sqlite.readonly, sqlite_version: sqliteVersion() }
          : { ran: true, ok: false, error_kind: sqlite.kind, error: sqlite.message, sqlite_version: sqliteVersion() },
    postgres_prepare:
      a.dialect !== 'postgresql'
        ? { ran: false, reason: 'the PostgreSQL check applies to the postgresql dialect only' }
        : a.postgres === null
          ? { ran: false, reason: 'not requested (verifySql without verifySqlChecked)' }
          : a.postgres.ran
            ? a.postgres.ok
              ? { ran: true, ok: true, engine: 'pglite', postgres_version: a.postgres.version ?? null, executed: false }
              : {
                  ran: true,
                  ok: false,
                  engine: 'pglite',
                  postgres_version: a.postgres.version ?? null,
                  executed: false,
                  sqlstate: a.postgres.sqlstate,
                  error: a.postgres.message,
                }
            : { ran: false, reason: a.postgres.reason },
    complexity: a.complexity,
    limits: { ...LIMITS },
    findings: a.issues,
    verdict: { constraint_id: constraintId, is_valid: isValid, malicious_classification: malicious },
  };
}
