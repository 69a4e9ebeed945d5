// Shared shapes of the SQL verifier: findings ("issues"), the declared schema model.
import type { SqlDialect } from './dialects.js';

export type IssueSeverity = 'critical' | 'error' | 'warning' | 'info';

/** Categories that make a query proven-malicious (constraint sql_verifier.malicious). */
export type MaliciousCategory =
  | 'destructive_statement'
  | 'administrative_statement'
  | 'stacked_statements'
  | 'tautology'
  | 'union_catalog_read'
  | 'system_catalog_read'
  | 'time_based_probe'
  | 'comment_truncation'
  | 'sensitive_column_read';

export const MALICIOUS_CATEGORIES: readonly MaliciousCategory[] = [
  'destructive_statement',
  'administrative_statement',
  'stacked_statements',
  'tautology',
  'union_catalog_read',
  'system_catalog_read',
  'time_based_probe',
  'comment_truncation',
  'sensitive_column_read',
];

/** Schema-resolution findings (constraint sql_verifier.schema_violation). */
export type ViolationType = 'undeclared_table' | 'undeclared_column' | 'unknown_table_qualifier' | 'ambiguous_column';

export type IssueValue = string | number | boolean | null | string[];

/** One finding. Only JSON values: issues go into the proof artifact as they are. */
export interface SqlIssue {
  type: string;
  severity: IssueSeverity;
  description: string;
  /** Where the finding came from: raw-text lexer, parser AST, scope resolver, SQLite or PostgreSQL engine. */
  source: 'lexer' | 'ast' | 'resolver' | 'sqlite' | 'postgres';
  [extra: string]: IssueValue | undefined;
}

export function issue(
  type: string,
  severity: IssueSeverity,
  description: string,
  source: SqlIssue['source'],
  extra: Record<string, IssueValue | undefined> = {},
): SqlIssue {
  const out: SqlIssue = { type, severity, description, source };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out;
}

export const isMaliciousIssue = (i: SqlIssue): boolean => (MALICIOUS_CATEGORIES as readonly string[]).includes(i.type);

export interface DeclaredTable {
  /** Name as declared (without schema qualifier). */
  name: string;
  /** Schema/database qualifier as declared, if any. */
  qualifier: string | null;
  /** Column names in declaration order, as declared. */
  columns: string[];
  kind: 'table' | 'view';
}

export interface SchemaModel {
  /** Keyed by lower-cased table name. */
  tables: Map<string, DeclaredTable>;
  /** How the DDL was understood: node-sql-parser, or the fallback tokenizer. */
  source: 'parser' | 'tokenizer';
  /** Statements in the DDL other than CREATE TABLE / CREATE VIEW (indexes, comments…), ignored. */
  ignoredStatements: number;
  dialect: SqlDialect;
}
