// schema_ddl → the declared tables and their columns.
//
// node-sql-parser reads the DDL first. Its grammars do not cover every dialect's DDL (e.g.
// T-SQL `INTEGER PRIMARY KEY`, BigQuery types, SQLite virtual tables), so when it fails the
// fallback is a tokenizer over the same dialect-aware lexer: it finds each
// `CREATE … TABLE name ( … )`, splits the parenthesised body at top-level commas and keeps the
// first identifier of every definition that is not a table constraint. The DDL is never
// executed anywhere.
import { createHash } from 'node:crypto';
import { LEX_PROFILES, type SqlDialect } from './dialects.js';
import {
  identName,
  isWord,
  lexSql,
  parenthesisedItems,
  significantTokens,
  splitStatements,
  type Token,
} from './lexer.js';
import { columnRefParts, identText, isNode, parseSql, unwrapSelect, type Node } from './parser.js';
import { outputColumnsOf } from './resolver.js';
import { LIMITS } from './limits.js';
import type { DeclaredTable, SchemaModel } from './types.js';

export class SchemaParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaParseError';
  }
}

/** A schema bound of LIMITS was exceeded: reported as complexity_limit_exceeded, not as a parse error. */
export class SchemaLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaLimitError';
  }
}

export interface SchemaParseOutcome {
  schema: SchemaModel | null;
  error: string | null;
  /** True when `error` is a size bound rather than unreadable DDL. */
  limitExceeded: boolean;
  /** Why the parser result was not used, when the tokenizer produced the schema. */
  parserError: string | null;
}

// Parsing the DDL dominates a verification, and callers send the same schema many times: a small
// LRU of parsed schemas keyed by dialect + sha256(DDL). Entries are treated as immutable.
const CACHE_SIZE = 64;
const cache = new Map<string, SchemaParseOutcome>();

/** parseSchema with a bounded cache (same inputs → the same, read-only, outcome object). */
export function parseSchemaCached(ddl: string, dialect: SqlDialect): SchemaParseOutcome {
  const key = `${dialect}:${createHash('sha256').update(ddl).digest('hex')}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const outcome = parseSchema(ddl, dialect);
  cache.set(key, outcome);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return outcome;
}

export function parseSchema(ddl: string, dialect: SqlDialect): SchemaParseOutcome {
  if (ddl.trim().length === 0)
    return { schema: null, error: 'schema_ddl is empty', limitExceeded: false, parserError: null };
  let parserError: string | null = null;
  const parsed = parseSql(ddl, dialect);
  if (parsed.ok) {
    try {
      const schema = schemaFromAst(parsed.statements, dialect);
      if (schema.tables.size > 0) return { schema, error: null, limitExceeded: false, parserError: null };
      parserError = 'no CREATE TABLE statement recognised by the parser';
    } catch (err) {
      if (err instanceof SchemaLimitError)
        return { schema: null, error: err.message, limitExceeded: true, parserError: null };
      parserError = err instanceof Error ? err.message : String(err);
    }
  } else {
    parserError = parsed.error;
  }
  try {
    const schema = schemaFromTokens(ddl, dialect);
    return { schema, error: null, limitExceeded: false, parserError };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { schema: null, error: message, limitExceeded: err instanceof SchemaLimitError, parserError };
  }
}

class SchemaBuilder {
  readonly tables = new Map<string, DeclaredTable>();
  ignored = 0;

  add(table: DeclaredTable): void {
    const key = table.name.toLowerCase();
    if (this.tables.has(key)) throw new SchemaParseError(`table '${table.name}' is declared more than once`);
    if (table.columns.length === 0) throw new SchemaParseError(`table '${table.name}' declares no columns`);
    if (table.columns.length > LIMITS.maxColumnsPerTable) {
      throw new SchemaLimitError(`table '${table.name}' declares more than ${LIMITS.maxColumnsPerTable} columns`);
    }
    const seen = new Set<string>();
    for (const c of table.columns) {
      if (seen.has(c.toLowerCase())) throw new SchemaParseError(`column '${c}' is declared twice in '${table.name}'`);
      seen.add(c.toLowerCase());
    }
    this.tables.set(key, table);
    if (this.tables.size > LIMITS.maxSchemaTables) {
      throw new SchemaLimitError(`schema_ddl declares more than ${LIMITS.maxSchemaTables} tables`);
    }
  }

  model(source: SchemaModel['source'], dialect: SqlDialect): SchemaModel {
    return { tables: this.tables, source, ignoredStatements: this.ignored, dialect };
  }
}

function schemaFromAst(statements: Node[], dialect: SqlDialect): SchemaModel {
  const b = new SchemaBuilder();
  for (const st of statements) {
    if (st.type !== 'create') {
      b.ignored++;
      continue;
    }
    const keyword = String(st.keyword ?? '').toLowerCase();
    if (keyword === 'table') {
      const target = Array.isArray(st.table) ? st.table[0] : st.table;
      const name = isNode(target) ? identText(target.table) : null;
      if (name === null) throw new SchemaParseError('CREATE TABLE without a table name');
      const qualifier = isNode(target) ? (identText(target.db) ?? identText(target.schema)) : null;
      let columns: string[] = [];
      if (Array.isArray(st.create_definitions)) {
        for (const def of st.create_definitions) {
          if (!isNode(def) || def.resource !== 'column' || !isNode(def.column)) continue;
          const col = columnRefParts(def.column).column;
          if (col !== null) columns.push(col);
        }
      }
      const asSelect = unwrapSelect(st.query_expr) ?? unwrapSelect(st.select);
      if (columns.length === 0 && asSelect) columns = derivedColumns(asSelect, b, dialect, name);
      const like = isNode(st.like) && Array.isArray(st.like.table) ? st.like.table[0] : null;
      if (columns.length === 0 && isNode(like)) {
        const source = b.tables.get((identText(like.table) ?? '').toLowerCase());
        if (!source) throw new SchemaParseError(`CREATE TABLE ${name} LIKE refers to an undeclared table`);
        columns = [...source.columns];
      }
      b.add({ name, qualifier, columns, kind: 'table' });
    } else if (keyword === 'view') {
      const view = isNode(st.view) ? st.view : null;
      const name = view ? (identText(view.view) ?? identText(view.table)) : null;
      const select = unwrapSelect(st.select);
      if (name === null || select === null) throw new SchemaParseError('CREATE VIEW could not be read');
      const explicit = Array.isArray(st.columns)
        ? st.columns.map((c) => identText(isNode(c) && c.type === 'column_ref' ? c.column : c))
        : [];
      const columns =
        explicit.length > 0
          ? explicit.filter((c): c is string => c !== null)
          : derivedColumns(select, b, dialect, name);
      b.add({ name, qualifier: view ? identText(view.db) : null, columns, kind: 'view' });
    } else {
      b.ignored++;
    }
  }
  return b.model('parser', dialect);
}

function derivedColumns(select: Node, b: SchemaBuilder, dialect: SqlDialect, name: string): string[] {
  const out = outputColumnsOf(select, b.model('parser', dialect), dialect);
  if (out === null || out.some((c) => c === null)) {
    throw new SchemaParseError(`the columns of '${name}' cannot be determined from its SELECT (name every column)`);
  }
  return out as string[];
}

const TABLE_MODIFIERS = new Set([
  'OR',
  'REPLACE',
  'GLOBAL',
  'LOCAL',
  'TEMP',
  'TEMPORARY',
  'UNLOGGED',
  'TRANSIENT',
  'VOLATILE',
  'EXTERNAL',
  'MULTISET',
  'SET',
  'SHARDED',
  'DUPLICATED',
]);
const CONSTRAINT_WORDS = new Set([
  'CONSTRAINT',
  'PRIMARY',
  'FOREIGN',
  'UNIQUE',
  'CHECK',
  'EXCLUDE',
  'PERIOD',
  'LIKE',
  'FULLTEXT',
  'SPATIAL',
  'CLUSTERED',
  'NONCLUSTERED',
]);

/** The fallback: CREATE TABLE bodies read from tokens. */
export function schemaFromTokens(ddl: string, dialect: SqlDialect): SchemaModel {
  const lexed = lexSql(ddl, LEX_PROFILES[dialect]);
  const b = new SchemaBuilder();
  for (const st of splitStatements(significantTokens(lexed.tokens))) {
    const table = readCreateTable(st);
    if (table === null) b.ignored++;
    else b.add(table);
  }
  if (b.tables.size === 0) throw new SchemaParseError('no CREATE TABLE statement found in schema_ddl');
  return b.model('tokenizer', dialect);
}

function readCreateTable(st: Token[]): DeclaredTable | null {
  if (!isWord(st[0], 'CREATE')) return null;
  let i = 1;
  while (isWord(st[i]) && TABLE_MODIFIERS.has(st[i].value.toUpperCase())) i++;
  const virtual = isWord(st[i], 'VIRTUAL');
  if (virtual) i++;
  if (!isWord(st[i], 'TABLE')) return null;
  i++;
  if (isWord(st[i], 'IF') && isWord(st[i + 1], 'NOT') && isWord(st[i + 2], 'EXISTS')) i += 3;
  const parts: string[] = [];
  while (identName(st[i]) !== null) {
    parts.push(identName(st[i])!);
    i++;
    if (st[i]?.kind === 'punct' && st[i].value === '.') i++;
    else break;
  }
  if (parts.length === 0) throw new SchemaParseError('CREATE TABLE without a table name');
  const name = parts[parts.length - 1];
  const qualifier = parts.length > 1 ? parts[parts.length - 2] : null;
  if (virtual) {
    // CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='…'): the module arguments are the columns.
    if (!isWord(st[i], 'USING')) throw new SchemaParseError(`CREATE VIRTUAL TABLE ${name} could not be read`);
    i += 2;
  }
  if (!(st[i]?.kind === 'punct' && st[i].value === '(')) {
    throw new SchemaParseError(
      `CREATE TABLE ${name} has no parenthesised column list (CREATE TABLE … AS is not supported without the parser)`,
    );
  }
  const defs = parenthesisedItems(st, i);
  if (!defs) throw new SchemaParseError(`CREATE TABLE ${name}: unbalanced parentheses`);
  const columns: string[] = [];
  for (const def of defs) {
    if (def.length === 0) throw new SchemaParseError(`CREATE TABLE ${name}: empty column definition`);
    const first = def[0];
    const firstName = identName(first);
    if (firstName === null) throw new SchemaParseError(`CREATE TABLE ${name}: unexpected '${first.text}'`);
    if (first.kind === 'word') {
      const upper = first.value.toUpperCase();
      if (CONSTRAINT_WORDS.has(upper)) continue;
      // MySQL `KEY name (…)` / `INDEX (…)` are indexes; a column called key/index is followed by its type.
      if ((upper === 'KEY' || upper === 'INDEX') && isIndexDefinition(def)) continue;
      if (virtual && def.some((t) => t.kind === 'op' && t.value === '=')) continue;
    }
    columns.push(firstName);
  }
  return { name, qualifier, columns, kind: 'table' };
}

const TYPE_WORDS = new Set(
  (
    'VARCHAR CHAR CHARACTER NVARCHAR NCHAR VARBINARY BINARY DECIMAL NUMERIC NUMBER DEC FLOAT DOUBLE REAL INT INTEGER ' +
    'BIGINT SMALLINT TINYINT MEDIUMINT BIT BOOL BOOLEAN TIME TIMESTAMP DATETIME DATETIME2 DATE ENUM SET TEXT STRING ' +
    'BYTES BLOB CLOB JSON JSONB UUID SERIAL BIGSERIAL VARCHAR2 NVARCHAR2 INTERVAL MONEY'
  ).split(' '),
);

/** `KEY idx (a)` / `INDEX (a)` versus a column named key/index followed by its type. */
function isIndexDefinition(def: Token[]): boolean {
  if (def[1]?.kind === 'punct' && def[1].value === '(') return true;
  return def[2]?.kind === 'punct' && def[2].value === '(' && !TYPE_WORDS.has((def[1]?.value ?? '').toUpperCase());
}
