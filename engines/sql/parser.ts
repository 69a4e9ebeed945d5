// node-sql-parser behind one function, and the helpers that read its AST. The AST differs
// between dialects (a column name is a string in MySQL, `{expr: {value}}` in PostgreSQL; a
// subquery is a bare select node or a `{ast}` wrapper), so every read goes through here.
import { createRequire } from 'node:module';
import type { Parser } from 'node-sql-parser';
import { PARSER_DATABASE, type SqlDialect } from './dialects.js';

const require = createRequire(import.meta.url);
export const PARSER_NAME = 'node-sql-parser';
export const PARSER_VERSION: string = (require('node-sql-parser/package.json') as { version: string }).version;

/**
 * One parser per dialect, loaded on its first use from node-sql-parser's build of that dialect
 * alone (session 19, issue 22's memory at the mixed peak): the package's main module carries the
 * generated parsers of all its dialects (2.5 MB of code), ~10 MB more resident in every engine
 * thread that parses SQL than the two builds a postgresql and a sqlite request load. A build is the
 * same generated parser and the same AST-to-SQL code as the main module's, for its one dialect. A
 * parser is stateless between calls.
 */
const parsers = new Map<string, Parser>();

function parserFor(dialect: SqlDialect): Parser {
  const database = PARSER_DATABASE[dialect];
  let parser = parsers.get(database);
  if (!parser) {
    const build = require(`node-sql-parser/build/${database}`) as { Parser: new () => Parser };
    parser = new build.Parser();
    parsers.set(database, parser);
  }
  return parser;
}

/** A node of the parser's AST, read defensively (the AST is untyped JSON). */
export type Node = Record<string, unknown>;

export type ParseOutcome = { ok: true; statements: Node[] } | { ok: false; error: string };

export function parseSql(text: string, dialect: SqlDialect): ParseOutcome {
  try {
    const ast = parserFor(dialect).astify(text, { database: PARSER_DATABASE[dialect] }) as unknown;
    const list = (Array.isArray(ast) ? ast : [ast]).filter((s): s is Node => isNode(s));
    return { ok: true, statements: list };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: message.length > 300 ? `${message.slice(0, 300)}…` : message };
  }
}

export const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && !Array.isArray(x);

export const isSelect = (x: unknown): boolean => isNode(x) && x.type === 'select';

/** A select node, whether bare or wrapped as `{ast: select}`. */
export function unwrapSelect(x: unknown): Node | null {
  if (isSelect(x)) return x as Node;
  if (isNode(x) && isSelect(x.ast)) return x.ast as Node;
  return null;
}

/** Name of an identifier as the AST spells it: a string, `{value}` or `{expr: {value}}`. */
export function identText(x: unknown): string | null {
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return String(x);
  if (!isNode(x)) return null;
  if (isNode(x.expr) && (typeof x.expr.value === 'string' || typeof x.expr.value === 'number'))
    return String(x.expr.value);
  if (typeof x.value === 'string' || typeof x.value === 'number') return String(x.value);
  return null;
}

export interface ColumnRefParts {
  db: string | null;
  table: string | null;
  column: string | null;
}

export function columnRefParts(node: Node): ColumnRefParts {
  return {
    db: identText(node.db) ?? identText(node.schema),
    table: identText(node.table),
    column: identText(node.column),
  };
}

/** The members of a select's UNION / INTERSECT / EXCEPT chain, first to last. */
export function setOperationChain(select: Node): Node[] {
  const out: Node[] = [];
  let cur: Node | null = select;
  while (cur && out.length < 10_000) {
    out.push(cur);
    cur = isSelect(cur._next) ? (cur._next as Node) : null;
  }
  return out;
}

/** Counts AST objects and their nesting depth (bounds independent of the text length); stops past `cap` nodes. */
export function measureAst(root: unknown, cap: number): { nodes: number; depth: number } {
  let nodes = 0;
  let depth = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0 && nodes <= cap) {
    const [cur, d] = stack.pop()!;
    if (Array.isArray(cur)) {
      for (const v of cur) stack.push([v, d]);
    } else if (isNode(cur)) {
      nodes++;
      depth = Math.max(depth, d + 1);
      for (const [k, v] of Object.entries(cur))
        if (k !== 'loc' && typeof v === 'object' && v !== null) stack.push([v, d + 1]);
    }
  }
  return { nodes, depth };
}

/** `as` of a FROM item: `"g"`, `"g(n)"`, `"v(a, b)"` or `{value}` → alias and optional column list. */
export function parseAlias(as: unknown): { alias: string | null; columns: string[] | null } {
  const text = identText(as);
  if (text === null) return { alias: null, columns: null };
  const m = splitAliasColumns(text);
  if (!m) return { alias: text, columns: null };
  const columns = m[2]
    .split(',')
    .map((c) => c.trim().replace(/^["`[]|["`\]]$/g, ''))
    .filter((c) => c.length > 0);
  return { alias: m[1].replace(/^["`[]|["`\]]$/g, ''), columns };
}

/** Lower-cased function name of a `function` / `aggr_func` node (last dotted part). */
export function functionName(node: Node): string | null {
  const name = node.name;
  if (typeof name === 'string') return name.toLowerCase();
  if (isNode(name) && Array.isArray(name.name)) {
    const parts = name.name.map((p) => identText(p)).filter((p): p is string => p !== null);
    return parts.length > 0 ? parts[parts.length - 1].toLowerCase() : null;
  }
  return identText(name)?.toLowerCase() ?? null;
}

/** SQL text of an expression node, for messages (falls back to a compact JSON form). */
export function renderExpr(node: Node, dialect: SqlDialect): string {
  try {
    const text = parserFor(dialect).exprToSQL(node, { database: PARSER_DATABASE[dialect] });
    if (typeof text === 'string' && text.length > 0) return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // exprToSQL does not cover every node; fall through.
  }
  const json = JSON.stringify(node);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

/**
 * `/^\s*([^()]+?)\s*\((.*)\)\s*$/s.exec(text)` without its quadratic backtracking: the name
 * before the first `(` (no `)` in it), and what lies up to the last `)` followed only by
 * whitespace (docs/isolation.md).
 */
export function splitAliasColumns(text: string): [string, string, string] | null {
  const open = text.indexOf('(');
  if (open < 0) return null;
  const before = text.slice(0, open);
  if (before.includes(')') || before.length === 0) return null;
  // `^\s*` takes the leading whitespace, the lazy name stops where only whitespace is left; an
  // all-whitespace prefix leaves its last character to the name.
  const name = before.trim() || before[before.length - 1]!;
  const after = text.slice(open + 1);
  const close = after.lastIndexOf(')');
  if (close < 0 || after.slice(close + 1).trim() !== '') return null;
  return [text, name, after.slice(0, close)];
}
