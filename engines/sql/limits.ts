// Safety bounds of the SQL verifier. Exceeding any of them is `sql_verifier.complexity_limit_exceeded`
// (BLOCKED): the verifier refuses to analyse rather than analyse partially. docs/sql-engine.md lists them.
export const LIMITS = {
  /** Characters of `query` (checked before lexing). */
  maxQueryLength: 20_000,
  /** Characters of `schema_ddl` (checked before lexing). */
  maxSchemaDdlLength: 500_000,
  /** Significant tokens of the query. */
  maxTokens: 4_000,
  /** Parenthesis nesting of the query (also protects the recursive-descent parser's stack). */
  maxParenDepth: 64,
  /** Objects in the parsed AST. */
  maxAstNodes: 20_000,
  /** Nesting of objects in the parsed AST (long AND/OR chains, UNION chains); SQLite's own expression limit is 1000. */
  maxAstDepth: 1_000,
  /** Distinct tables (declared tables and CTE names) referenced in FROM / JOIN. A size bound: cost is bounded by maxCartesianFactors. */
  maxTables: 40,
  /** JOINs across the whole query, counting every FROM item after the first (comma joins included). A size bound. */
  maxJoins: 48,
  /** Nesting of subqueries (derived tables, CTE bodies, scalar / IN / EXISTS subqueries); the outer query is 0. */
  maxSubqueryDepth: 5,
  /** Per SELECT: groups of FROM items that no join predicate connects (2 = one cross join of two groups). */
  maxCartesianFactors: 2,
  /** Without an AST (the query was read by the engine only): JOIN keywords, a rough size bound. */
  maxLexicalJoins: 24,
  /** Tables declared in schema_ddl. */
  maxSchemaTables: 500,
  /** Columns declared in one table. */
  maxColumnsPerTable: 1_000,
} as const;
