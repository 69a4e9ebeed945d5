// The execution check for the sqlite dialect: the query is PREPARED (compiled, never run)
// by a real SQLite engine against an in-memory database that holds exactly the declared
// tables and columns. SQLite then checks what a parser cannot: that every name resolves,
// that functions exist with the right arity, that no column is ambiguous, that aggregates
// are used legally. The database is built from the schema model (never by executing the
// caller's DDL text) and is always closed.
import Database from 'better-sqlite3';
import type { SchemaModel } from './types.js';

export interface OutputColumn {
  name: string;
  /** Declared column the value comes from, when it is a plain column. */
  column: string | null;
  table: string | null;
}

export type SqliteErrorKind =
  'schema_build' | 'syntax' | 'no_such_table' | 'no_such_column' | 'ambiguous_column' | 'multiple_statements' | 'other';

export type SqlitePrepareResult =
  | { ok: true; readonly: boolean; returnsRows: boolean; columns: OutputColumn[] }
  | { ok: false; kind: SqliteErrorKind; message: string };

let cachedVersion: string | null = null;

/** Version of the bundled SQLite library (recorded in proofs). */
export function sqliteVersion(): string {
  if (cachedVersion === null) {
    const db = new Database(':memory:');
    try {
      cachedVersion = String(db.prepare('SELECT sqlite_version()').pluck().get());
    } finally {
      db.close();
    }
  }
  return cachedVersion;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The CREATE TABLE statements the check database is built from (deterministic, names quoted). */
export function schemaToSqlite(schema: SchemaModel): string[] {
  return [...schema.tables.values()].map(
    (t) => `CREATE TABLE ${quoteIdent(t.name)} (${t.columns.map(quoteIdent).join(', ')})`,
  );
}

export function classifySqliteError(message: string): SqliteErrorKind {
  if (/syntax error|incomplete input|unrecognized token/i.test(message)) return 'syntax';
  if (/^no such table/i.test(message)) return 'no_such_table';
  if (/^no such column/i.test(message)) return 'no_such_column';
  if (/^ambiguous column name/i.test(message)) return 'ambiguous_column';
  if (/more than one statement/i.test(message)) return 'multiple_statements';
  return 'other';
}

export function prepareInSqlite(query: string, schema: SchemaModel): SqlitePrepareResult {
  const db = new Database(':memory:');
  try {
    try {
      for (const ddl of schemaToSqlite(schema)) db.prepare(ddl).run();
    } catch (err) {
      // The declared schema itself is not a valid SQLite schema (e.g. a reserved sqlite_ name).
      return { ok: false, kind: 'schema_build', message: err instanceof Error ? err.message : String(err) };
    }
    const stmt = db.prepare(query);
    const returnsRows = stmt.reader;
    const columns: OutputColumn[] = returnsRows
      ? stmt.columns().map((c) => ({ name: c.name, column: c.column ?? null, table: c.table ?? null }))
      : [];
    return { ok: true, readonly: stmt.readonly, returnsRows, columns };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, kind: classifySqliteError(message), message };
  } finally {
    db.close();
  }
}
