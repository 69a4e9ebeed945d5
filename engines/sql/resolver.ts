// Scope-aware name resolution of a parsed SELECT against the declared schema.
//
// Every FROM item becomes a relation of the SELECT's scope: a declared table, a CTE (WITH
// names are tables), a derived table (subquery / VALUES, with its alias and optional column
// list) or a table function (columns unknown: "open"). Column references are resolved
// qualified (`t.col`: the alias, or the table name when it has no alias) or unqualified
// (exactly one relation of the nearest scope that has the column; USING/NATURAL columns
// are shared), then through enclosing scopes for correlated subqueries, then against the
// select-list aliases in ORDER BY / GROUP BY / HAVING (and WHERE where the dialect allows it).
// The same walk records the complexity figures (tables, joins, subquery depth) and which
// columns are projected (read) versus only used in predicates.
import type { SqlDialect } from './dialects.js';
import {
  columnRefParts,
  functionName,
  identText,
  isNode,
  parseAlias,
  setOperationChain,
  unwrapSelect,
  type Node,
} from './parser.js';
import { isSystemCatalog } from './lexical-checks.js';
import { issue, type SchemaModel, type SqlIssue } from './types.js';

interface Relation {
  /** Name visible in the scope (alias, or the table / CTE name). */
  name: string;
  /** Declared table behind it, for reporting. */
  base: string | null;
  /** lower-case column → declared spelling; null = open (unknown columns, e.g. a table function). */
  columns: Map<string, string> | null;
  /** SQLite's implicit rowid aliases. */
  pseudo: Set<string>;
  /** A derived table that yields at most one row (aggregate without GROUP BY, LIMIT 1). */
  singleRow?: boolean;
}

class Scope {
  readonly relations: Relation[] = [];
  readonly usingColumns = new Set<string>();
  readonly aliases = new Set<string>();
  /** Output column names of the SELECT (explicit aliases and the names of bare column references). */
  readonly outputNames = new Set<string>();
  constructor(readonly parent: Scope | null) {}
}

type Clause = 'select' | 'where' | 'on' | 'groupby' | 'having' | 'orderby' | 'other';

/** Output columns of a SELECT: names in order (null = unnamed); null overall = unknown. */
type OutputColumns = Array<string | null> | null;

export interface ColumnUse {
  table: string | null;
  column: string;
}

export interface ResolveResult {
  violations: SqlIssue[];
  /** Declared tables referenced (declared spelling), sorted. */
  tables: string[];
  /** Resolved `table.column` references (declared spelling), sorted. */
  columns: string[];
  /** Column references appearing in any select list (values read out). */
  projected: ColumnUse[];
  /** Column references appearing in WHERE / ON / HAVING. */
  predicated: ColumnUse[];
  /** `*` / `t.*` expansions: the declared columns they read. */
  starReads: ColumnUse[];
  stats: {
    tables: number;
    joins: number;
    subqueryDepth: number;
    selects: number;
    /** Largest number of FROM-item groups of one SELECT not connected by any join predicate (cross-product factors). */
    cartesianFactors: number;
    /** Recursive CTEs without a termination guard (no bound in the recursive member, no LIMIT). */
    unboundedRecursiveCtes: string[];
  };
}

const SQLITE_ROWID = ['rowid', 'oid', '_rowid_'];

/** Bare words some grammars hand over as column references although they are values. */
const VALUE_KEYWORDS = new Set([
  'current_date',
  'current_time',
  'current_timestamp',
  'localtime',
  'localtimestamp',
  'current_user',
  'session_user',
  'system_user',
  'current_role',
  'current_schema',
  'current_catalog',
  'sysdate',
  'systimestamp',
  'null',
  'true',
  'false',
  'default',
  'unknown',
]);

const DATEPART_FUNCTIONS = new Set([
  'datepart',
  'dateadd',
  'datediff',
  'datediff_big',
  'datename',
  'datetrunc',
  'date_trunc',
  'date_part',
  'timestampadd',
  'timestampdiff',
]);
const DATE_PARTS = new Set(
  (
    'year yy yyyy quarter qq q month mm m dayofyear dy y day dd d week wk ww weekday dw hour hh minute mi n second ss s ' +
    'millisecond ms microsecond mcs nanosecond ns iso_week isowk isoww tzoffset tz frac_second'
  ).split(' '),
);

type CteEnv = Map<string, { name: string; columns: OutputColumns }>;

export class Resolver {
  private readonly violations: SqlIssue[] = [];
  private readonly violationKeys = new Set<string>();
  private readonly tables = new Set<string>();
  private readonly columns = new Set<string>();
  private readonly relationNames = new Set<string>();
  readonly projected: ColumnUse[] = [];
  readonly predicated: ColumnUse[] = [];
  readonly starReads: ColumnUse[] = [];
  private joins = 0;
  private maxDepth = 0;
  private selects = 0;
  private cartesian = 0;
  private readonly unboundedRecursive: string[] = [];
  /** Every WITH name met anywhere in the statement (an undeclared table is certain only when it is none of them). */
  private readonly cteNames = new Set<string>();
  /** CTE bodies being resolved (innermost last), and the CTE each finding was made in. */
  private readonly cteStack: string[] = [];
  private readonly findingCte = new Map<SqlIssue, string>();
  /** CTE name → where it is read from: '' (the statement itself) or the CTE whose body reads it. */
  private readonly cteReaders = new Map<string, Set<string>>();
  /** Active join-predicate trackers: relations of `scope` referenced while walking a predicate. */
  private readonly trackers: Array<{ scope: Scope; rels: Set<Relation> }> = [];

  constructor(
    private readonly schema: SchemaModel | null,
    private readonly dialect: SqlDialect,
  ) {}

  /** Resolves one top-level SELECT statement (with its set-operation chain). */
  resolveStatement(select: Node): OutputColumns {
    return this.resolveChain(select, null, 0, new Map());
  }

  result(): ResolveResult {
    // SQLite never compiles a CTE that nothing reads: what is wrong inside one does not matter there.
    if (this.dialect === 'sqlite') {
      // Read = reachable from the statement itself (a CTE read only by an unread CTE is unread too).
      const read = new Set<string>(['']);
      for (let grew = true; grew;) {
        grew = false;
        for (const [name, readers] of this.cteReaders) {
          if (!read.has(name) && [...readers].some((r) => read.has(r))) {
            read.add(name);
            grew = true;
          }
        }
      }
      const unread = this.violations.filter((v) => this.findingCte.has(v) && !read.has(this.findingCte.get(v)!));
      for (const v of unread) this.violations.splice(this.violations.indexOf(v), 1);
    }
    for (const v of this.violations) {
      if (
        v.certain === true &&
        v.type === 'undeclared_table' &&
        typeof v.table === 'string' &&
        this.cteNames.has(v.table.toLowerCase())
      )
        delete v.certain;
    }
    return {
      violations: this.violations,
      tables: [...this.tables].sort(),
      columns: [...this.columns].sort(),
      projected: this.projected,
      predicated: this.predicated,
      starReads: this.starReads,
      stats: {
        tables: this.relationNames.size,
        joins: this.joins,
        subqueryDepth: this.maxDepth,
        selects: this.selects,
        cartesianFactors: this.cartesian,
        unboundedRecursiveCtes: this.unboundedRecursive,
      },
    };
  }

  private violation(key: string, make: () => SqlIssue): void {
    if (this.violationKeys.has(key)) return;
    this.violationKeys.add(key);
    const v = make();
    if (this.cteStack.length > 0) {
      delete v.certain;
      this.findingCte.set(v, this.cteStack[this.cteStack.length - 1]);
    }
    this.violations.push(v);
  }

  private resolveChain(select: Node, outer: Scope | null, depth: number, env: CteEnv): OutputColumns {
    const chain = setOperationChain(select);
    let first: OutputColumns = null;
    // `WITH … SELECT … UNION ALL SELECT …`: the parser hangs the WITH on the first member, but
    // its CTEs are visible to every member.
    const shared = chain.length > 1 && Array.isArray(select.with) ? this.bindCtes(select, outer, depth, env) : env;
    chain.forEach((member, idx) => {
      // ORDER BY after a set operation is attached to the last member; it names the first member's outputs.
      const extraAliases = idx > 0 && idx === chain.length - 1 ? first : null;
      const out = this.resolveSelect(
        shared === env ? member : { ...member, with: null },
        outer,
        depth,
        shared,
        extraAliases,
      );
      if (idx === 0) first = out;
    });
    return first;
  }

  /** WITH: each CTE is a table for what follows it (and for itself, when recursive). */
  private bindCtes(sel: Node, outer: Scope | null, depth: number, inheritedEnv: CteEnv): CteEnv {
    const env: CteEnv = new Map(inheritedEnv);
    for (const cte of sel.with as unknown[]) {
      if (!isNode(cte)) continue;
      const name = identText(cte.name);
      const body = unwrapSelect(cte.stmt);
      const explicit = Array.isArray(cte.columns)
        ? cte.columns.map((c) => (isNode(c) && c.type === 'column_ref' ? columnRefParts(c).column : identText(c)))
        : null;
      if (name !== null) this.cteNames.add(name.toLowerCase());
      if (name !== null) env.set(name.toLowerCase(), { name, columns: explicit });
      if (name !== null && body && cte.recursive === true && !recursionGuarded(body, name, sel))
        this.unboundedRecursive.push(name);
      // SQLite (and others) never compile a CTE nobody reads: what is wrong inside one is not certain.
      this.cteStack.push(name?.toLowerCase() ?? '');
      let out: OutputColumns = null;
      try {
        out = body ? this.resolveChain(body, outer, depth + 1, env) : null;
      } finally {
        this.cteStack.pop();
      }
      if (name !== null) env.set(name.toLowerCase(), { name, columns: explicit ?? out });
    }
    return env;
  }

  private resolveSelect(
    sel: Node,
    outer: Scope | null,
    depth: number,
    inheritedEnv: CteEnv,
    extraAliases: OutputColumns,
  ): OutputColumns {
    this.selects++;
    this.maxDepth = Math.max(this.maxDepth, depth);

    const env = Array.isArray(sel.with) ? this.bindCtes(sel, outer, depth, inheritedEnv) : new Map(inheritedEnv);

    const scope = new Scope(outer);
    const { items: from, setMembers } = normaliseFrom(Array.isArray(sel.from) ? sel.from.filter(isNode) : []);
    const pendingJoins: Array<{
      item: Node;
      rel: Relation | null;
      natural: boolean;
      position: number;
      groupStart: number;
    }> = [];
    let groupStart = 0;
    let naturalNext = false;
    from.forEach((item, index) => {
      if (item.type === 'dual') return;
      const natural = naturalNext || /natural/i.test(String(item.join ?? ''));
      naturalNext = false;
      // node-sql-parser's SQLite grammar reads `a NATURAL JOIN b` as `a AS NATURAL JOIN b`.
      let asValue = item.as;
      if (typeof asValue === 'string' && asValue.toUpperCase() === 'NATURAL' && isNode(from[index + 1])) {
        asValue = null;
        naturalNext = true;
      }
      if (index > 0) this.joins++;
      const position = scope.relations.length;
      // A comma starts a new join group (an item without a join keyword, after the repairs above).
      if (index > 0 && !natural && (item.join === undefined || item.join === null)) groupStart = position;
      const rel = this.relationFor({ ...item, as: asValue }, scope, outer, depth, env);
      if (rel) scope.relations.push(rel);
      if (index > 0) pendingJoins.push({ item, rel, natural, position, groupStart });
    });

    // Join conditions see every relation of the FROM clause.
    const links: Array<Set<Relation>> = [];
    for (const { item, rel, natural, position, groupStart: group } of pendingJoins) {
      const left = scope.relations.slice(0, position);
      if (rel && (Array.isArray(item.using) || natural)) links.push(new Set([rel, ...left]));
      if (Array.isArray(item.using)) {
        for (const u of item.using) {
          const col = identText(u);
          if (col === null) continue;
          const lower = col.toLowerCase();
          scope.usingColumns.add(lower);
          if (rel && rel.columns !== null && !rel.columns.has(lower)) this.undeclaredColumn(rel.base ?? rel.name, col);
          const known = left.filter((r) => r.columns !== null);
          if (known.length === left.length && left.length > 0 && !known.some((r) => r.columns!.has(lower))) {
            this.undeclaredColumn(left[0].base ?? left[0].name, col);
          }
        }
      }
      if (natural && rel && rel.columns !== null) {
        for (const other of left) {
          if (other.columns === null) continue;
          for (const c of rel.columns.keys()) if (other.columns.has(c)) scope.usingColumns.add(c);
        }
      }
      if (item.on !== undefined && item.on !== null) {
        // An ON sees the relations joined so far (and itself), not the ones joined after it; and
        // JOIN binds tighter than a comma (`a, b JOIN c ON …` sees b and c), except in SQLite,
        // which joins left to right (there the ON sees a too).
        const onScope = new Scope(scope.parent);
        onScope.relations.push(
          ...scope.relations.slice(this.dialect === 'sqlite' ? 0 : group, rel ? position + 1 : position),
        );
        for (const u of scope.usingColumns) onScope.usingColumns.add(u);
        const seen = this.tracked(onScope, () => this.walk(item.on, onScope, 'on', depth, env));
        if (rel) seen.add(rel);
        links.push(seen);
      }
    }

    // Select list: record aliases, resolve expressions, compute the output column names.
    const output: Array<string | null> = [];
    let outputOpen = false;
    const columnsList = Array.isArray(sel.columns) ? sel.columns.filter(isNode) : [];
    for (const col of columnsList) {
      const alias = identText(col.as);
      if (alias !== null) scope.aliases.add(alias.toLowerCase());
      const expr = isNode(col.expr) ? col.expr : col;
      const implicit = alias ?? (expr.type === 'column_ref' ? columnRefParts(expr).column : null);
      if (implicit !== null && implicit !== '*') scope.outputNames.add(implicit.toLowerCase());
    }
    for (const col of columnsList) {
      const expr = isNode(col.expr) ? col.expr : col;
      if (expr.type === 'column_ref' && columnRefParts(expr).column === '*') {
        const expanded = this.expandStar(expr, scope);
        if (expanded === null) outputOpen = true;
        else output.push(...expanded);
        continue;
      }
      if (expr.type === 'star') {
        const expanded = this.expandStar({ type: 'column_ref', column: '*' }, scope);
        if (expanded === null) outputOpen = true;
        else output.push(...expanded);
        continue;
      }
      this.walk(expr, scope, 'select', depth, env);
      const alias = identText(col.as);
      output.push(alias ?? (expr.type === 'column_ref' ? columnRefParts(expr).column : null));
    }
    if (extraAliases) for (const a of extraAliases) if (a !== null) scope.outputNames.add(a.toLowerCase());
    // node-sql-parser reads `FROM (a) UNION ALL (SELECT …)` as a join of kind "union all": the
    // parenthesised members are set-operation members of this SELECT, resolved on their own.
    for (const member of setMembers) this.resolveChain(member, outer, depth, env);

    for (const conjunct of conjuncts(sel.where))
      links.push(this.tracked(scope, () => this.walk(conjunct, scope, 'where', depth, env)));
    this.cartesian = Math.max(this.cartesian, cartesianFactors(scope.relations, links));
    const groupby = isNode(sel.groupby) && Array.isArray(sel.groupby.columns) ? sel.groupby.columns : sel.groupby;
    this.walk(groupby, scope, 'groupby', depth, env);
    this.walk(sel.having, scope, 'having', depth, env);
    this.walk(sel.qualify, scope, 'having', depth, env);
    this.walk(sel.window, scope, 'other', depth, env);
    this.walk(sel.orderby, scope, 'orderby', depth, env);
    this.walk(sel.limit, scope, 'other', depth, env);
    this.walk(sel.top, scope, 'other', depth, env);
    return outputOpen ? null : output;
  }

  /** Builds the relation a FROM item contributes; reports undeclared tables. */
  private relationFor(item: Node, scope: Scope, outer: Scope | null, depth: number, env: CteEnv): Relation | null {
    const { alias, columns: aliasColumns } = parseAlias(item.as);
    const sub = unwrapSelect(item.expr) ?? unwrapSelect(item);
    if (sub) {
      // A derived table sees enclosing scopes only (LATERAL also sees its left siblings).
      const lateral = /lateral/i.test(String(item.prefix ?? '')) || item.lateral === true;
      const out = this.resolveChain(sub, lateral ? scope : outer, depth + 1, env);
      const rel = this.relation(alias ?? '', null, aliasColumns ?? out);
      rel.singleRow = yieldsOneRow(sub);
      return rel;
    }
    if (isNode(item.expr) && item.expr.type === 'values') {
      this.walk(item.expr, scope, 'other', depth, env);
      return this.relation(alias ?? '', null, aliasColumns ?? valuesColumnNames(item.expr));
    }
    const tableName = typeof item.table === 'string' || isNode(item.table) ? identText(item.table) : null;
    if (tableName === null) {
      // Table functions (generate_series, json_each, UNNEST…): arguments resolve in the outer
      // scope and siblings; their columns are unknown unless the alias lists them.
      if (item.expr !== undefined) this.walk(item.expr, scope, 'other', depth, env);
      return this.relation(alias ?? '', null, aliasColumns);
    }
    const lower = tableName.toLowerCase();
    this.relationNames.add(lower);
    const db = identText(item.db) ?? identText(item.schema);
    const cte = db === null ? env.get(lower) : undefined;
    if (cte) {
      const readers = this.cteReaders.get(lower) ?? new Set<string>();
      readers.add(this.cteStack[this.cteStack.length - 1] ?? '');
      this.cteReaders.set(lower, readers);
      return this.relation(alias ?? cte.name, null, aliasColumns ?? cte.columns);
    }
    const declared = this.schema?.tables.get(lower);
    if (declared) {
      this.tables.add(declared.name);
      const rel = this.relation(alias ?? declared.name, declared.name, aliasColumns ?? declared.columns);
      if (this.dialect === 'sqlite' && declared.kind === 'table') for (const p of SQLITE_ROWID) rel.pseudo.add(p);
      return rel;
    }
    // System catalogs are judged by the malicious-pattern checks, not reported as undeclared tables.
    if (this.schema !== null && !isSystemCatalog(db, tableName)) {
      const shown = db !== null ? `${db}.${tableName}` : tableName;
      this.violation(`table:${shown.toLowerCase()}`, () =>
        // Certain by construction: the declared schema is every table there is (unless the name is a CTE's, see result()).
        issue('undeclared_table', 'error', `Table '${shown}' is not declared in schema_ddl.`, 'resolver', {
          table: shown,
          // `FROM t, t.items` (BigQuery, Redshift: an array path of a relation in scope) is no table name.
          ...(db === null || !namesRelation(scope, db) ? { certain: true } : {}),
        }),
      );
    }
    // Unknown tables stay in scope as open relations so their columns do not cascade into more findings.
    return this.relation(alias ?? tableName, null, null);
  }

  private relation(name: string, base: string | null, columns: OutputColumns | string[]): Relation {
    let map: Map<string, string> | null = null;
    if (columns !== null) {
      map = new Map();
      for (const c of columns) if (c !== null && !map.has(c.toLowerCase())) map.set(c.toLowerCase(), c);
    }
    return { name, base, columns: map, pseudo: new Set() };
  }

  private expandStar(ref: Node, scope: Scope): OutputColumns {
    const { table } = columnRefParts(ref);
    const rels =
      table === null ? scope.relations : scope.relations.filter((r) => r.name.toLowerCase() === table.toLowerCase());
    if (table !== null && rels.length === 0) {
      this.unknownQualifier(table, '*');
      return null;
    }
    const out: string[] = [];
    for (const r of rels) {
      if (r.columns === null) return null;
      for (const c of r.columns.values()) {
        out.push(c);
        if (r.base) {
          this.starReads.push({ table: r.base, column: c });
          this.columns.add(`${r.base}.${c}`);
        }
      }
    }
    return out;
  }

  /** Walks an expression tree: resolves column references, descends into subqueries. */
  private walk(node: unknown, scope: Scope, clause: Clause, depth: number, env: CteEnv): void {
    if (Array.isArray(node)) {
      for (const n of node) this.walk(n, scope, clause, depth, env);
      return;
    }
    if (!isNode(node)) return;
    const sub = unwrapSelect(node);
    if (sub) {
      this.resolveChain(sub, scope, depth + 1, env);
      return;
    }
    if (node.type === 'column_ref') {
      this.resolveColumn(node, scope, clause);
      return;
    }
    // DATEPART(year, d), DATEADD(day, 1, d)…: the first argument is a date-part keyword, not a column.
    if (
      node.type === 'function' &&
      DATEPART_FUNCTIONS.has(functionName(node) ?? '') &&
      isNode(node.args) &&
      Array.isArray(node.args.value)
    ) {
      const [first, ...rest] = node.args.value;
      const part = isNode(first) && first.type === 'column_ref' ? columnRefParts(first) : null;
      if (part && part.table === null && part.column !== null && DATE_PARTS.has(part.column.toLowerCase())) {
        this.walk(rest, scope, clause, depth, env);
        return;
      }
    }
    // SQLite reads "x" as an identifier first; node-sql-parser's SQLite grammar calls it a string.
    if (node.type === 'double_quote_string' && this.dialect === 'sqlite' && typeof node.value === 'string') {
      this.resolveColumn({ type: 'column_ref', table: null, column: node.value }, scope, clause);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key === 'tableList' || key === 'columnList') continue;
      if (typeof value === 'object' && value !== null) this.walk(value, scope, clause, depth, env);
    }
  }

  /** Runs `fn` and returns the relations of `scope` it referenced (correlated subqueries included). */
  private tracked(scope: Scope, fn: () => void): Set<Relation> {
    const t = { scope, rels: new Set<Relation>() };
    this.trackers.push(t);
    try {
      fn();
    } finally {
      this.trackers.pop();
    }
    return t.rels;
  }

  private aliasAllowed(clause: Clause): boolean {
    if (clause === 'groupby' || clause === 'having' || clause === 'orderby') return true;
    if (clause === 'where')
      return this.dialect === 'sqlite' || this.dialect === 'snowflake' || this.dialect === 'redshift';
    if (clause === 'select') return this.dialect === 'snowflake' || this.dialect === 'redshift';
    return false;
  }

  private record(rel: Relation | null, column: string, clause: Clause, qualifier: string | null = null): void {
    const table = rel?.base ?? null;
    const declared = rel?.columns?.get(column.toLowerCase()) ?? column;
    if (table) this.columns.add(`${table}.${declared}`);
    const use = { table: table ?? qualifier, column: declared };
    if (clause === 'select') this.projected.push(use);
    else if (clause === 'where' || clause === 'on' || clause === 'having') this.predicated.push(use);
  }

  private resolveColumn(ref: Node, scope: Scope, clause: Clause): void {
    const { table, column } = columnRefParts(ref);
    // `@name` is a T-SQL / MySQL variable that some grammars hand over as a column.
    if (column === null || column === '*' || column.startsWith('@')) return;
    const outcome = this.lookup(table, column, scope, clause);
    if (outcome !== null && typeof outcome === 'object') {
      for (const t of this.trackers) if (t.scope.relations.includes(outcome)) t.rels.add(outcome);
    }
    // Unresolved references are still uses (a projected `password` is read whether declared or not).
    if (outcome !== 'alias') this.record(outcome === 'unresolved' ? null : outcome, column, clause, table);
  }

  /** The relation a column reference resolves to; null = an open relation; 'alias' = a select-list alias. */
  private lookup(
    table: string | null,
    column: string,
    scope: Scope,
    clause: Clause,
  ): Relation | null | 'alias' | 'unresolved' {
    const lower = column.toLowerCase();
    if (table !== null) {
      for (let s: Scope | null = scope; s; s = s.parent) {
        const rel = s.relations.find((r) => r.name.toLowerCase() === table.toLowerCase());
        if (!rel) continue;
        if (rel.columns === null || rel.columns.has(lower) || rel.pseudo.has(lower)) return rel;
        // Certain by construction: `t.c` where t names a declared table in scope and c is none of its
        // declared columns nor a name a dialect may give a hidden column.
        this.undeclaredColumn(rel.base ?? rel.name, column, rel.base !== null && !mayBeHiddenColumn(column));
        return 'unresolved';
      }
      this.unknownQualifier(table, column);
      return 'unresolved';
    }

    // ORDER BY names an output column first (its alias or the name of a bare column reference).
    if (clause === 'orderby' && (scope.aliases.has(lower) || scope.outputNames.has(lower))) return 'alias';
    for (let s: Scope | null = scope; s; s = s.parent) {
      const matches = s.relations.filter((r) => r.columns !== null && r.columns.has(lower));
      if (matches.length === 1) return matches[0];
      if (matches.length > 1) {
        if (s.usingColumns.has(lower)) return matches[0];
        const names = matches.map((r) => r.name);
        this.violation(`ambiguous:${lower}:${names.join(',').toLowerCase()}`, () =>
          issue(
            'ambiguous_column',
            'error',
            `Column '${column}' is ambiguous: it exists in ${names.map((n) => `'${n}'`).join(' and ')}.`,
            'resolver',
            { column, candidates: names },
          ),
        );
        return 'unresolved';
      }
      const pseudo = s.relations.filter((r) => r.pseudo.has(lower));
      if (pseudo.length >= 1) return pseudo[0];
      if (s.relations.some((r) => r.columns === null)) return null;
      if (
        s === scope &&
        this.aliasAllowed(clause) &&
        (s.aliases.has(lower) || (clause !== 'where' && s.outputNames.has(lower)))
      )
        return 'alias';
    }
    if (VALUE_KEYWORDS.has(lower)) return 'alias';
    if (this.schema === null) return null;
    const tables = scope.relations.map((r) => r.base ?? r.name).filter((n) => n.length > 0);
    this.violation(`column:${lower}`, () =>
      issue(
        'undeclared_column',
        'error',
        tables.length > 0
          ? `Column '${column}' is not declared in ${tables.map((t) => `'${t}'`).join(', ')}.`
          : `Column '${column}' does not belong to any table in scope.`,
        'resolver',
        { column, table: tables.length === 1 ? tables[0] : null },
      ),
    );
    return 'unresolved';
  }

  private undeclaredColumn(table: string, column: string, certain = false): void {
    if (this.schema === null) return;
    this.violation(`column:${table.toLowerCase()}.${column.toLowerCase()}`, () =>
      issue('undeclared_column', 'error', `Column '${column}' is not declared in '${table}'.`, 'resolver', {
        table,
        column,
        ...(certain ? { certain: true } : {}),
      }),
    );
  }

  private unknownQualifier(table: string, column: string): void {
    if (this.schema === null) return;
    const declared = this.schema.tables.has(table.toLowerCase());
    this.violation(`qualifier:${table.toLowerCase()}`, () =>
      declared
        ? issue(
            'unknown_table_qualifier',
            'error',
            `'${table}.${column}' names table '${table}', which is not in the FROM clause under that name (it may be aliased).`,
            'resolver',
            { table, column },
          )
        : issue(
            'undeclared_table',
            'error',
            `'${table}.${column}' refers to table '${table}', which is not declared.`,
            'resolver',
            {
              table,
              column,
            },
          ),
    );
  }
}

/**
 * Hidden or system columns some dialect gives every table (PostgreSQL/Redshift oid, ctid, xmin…;
 * SQLite/MySQL rowid, _rowid; Oracle-style rownum; BigQuery _PARTITIONTIME; Hive
 * INPUT__FILE__NAME; Snowflake METADATA$…; Trino "$path"; T-SQL $IDENTITY): a qualified reference
 * to one of these is never certain to be undeclared.
 */
function namesRelation(scope: Scope, name: string): boolean {
  for (let s: Scope | null = scope; s; s = s.parent)
    if (s.relations.some((r) => r.name.toLowerCase() === name.toLowerCase())) return true;
  return false;
}

function mayBeHiddenColumn(column: string): boolean {
  return (
    /^(?:oid|ctid|xmin|xmax|cmin|cmax|tableoid|rowid|rownum|rid|ora_rowscn)$/i.test(column) ||
    /[$#@]|^_|__/.test(column)
  );
}

/**
 * Repairs two misreadings of node-sql-parser's FROM clause (the AST is otherwise trusted):
 *  - `a JOIN b ON p, c, d`: the comma-joined tables after an ON come back as extra items of an
 *    `expr_list` ON (`ON (p, c, d)`); a row of a predicate and bare names is no valid ON
 *    anyway, so the bare names are FROM items again;
 *  - `FROM (SELECT …) UNION ALL (SELECT …)`: the set operation comes back as a FROM item
 *    joined by "union all"; those items are set-operation members of the SELECT instead.
 */
function normaliseFrom(from: Node[]): { items: Node[]; setMembers: Node[] } {
  const items: Node[] = [];
  const setMembers: Node[] = [];
  for (const [index, original] of from.entries()) {
    let item = original;
    // `a CROSS JOIN b` comes back as `a AS CROSS` followed by `JOIN b` without ON.
    const next = from[index + 1];
    if (
      typeof item.as === 'string' &&
      item.as.toUpperCase() === 'CROSS' &&
      next &&
      /join/i.test(String(next.join ?? '')) &&
      (next.on === null || next.on === undefined)
    ) {
      item = { ...item, as: null };
    }
    if (setMembers.length > 0 || /^\s*(?:union|intersect|except|minus)\b/i.test(String(item.join ?? ''))) {
      const sub = unwrapSelect(item.expr) ?? unwrapSelect(item);
      if (sub) {
        setMembers.push(sub);
        continue;
      }
    }
    const on = item.on;
    if (isNode(on) && on.type === 'expr_list' && Array.isArray(on.value) && on.value.length > 1) {
      const [pred, ...rest] = on.value as unknown[];
      const tables = rest.map((r) => {
        if (!isNode(r) || r.type !== 'column_ref') return null;
        const { table, column } = columnRefParts(r);
        if (column === null || column === '*' || r.collate) return null;
        return { db: table, table: column, as: null } as Node;
      });
      if (isNode(pred) && tables.every((t) => t !== null)) {
        items.push({ ...item, on: pred }, ...(tables as Node[]));
        continue;
      }
    }
    items.push(item);
  }
  return { items, setMembers };
}

function valuesColumnNames(values: Node): string[] | null {
  const rows = Array.isArray(values.values) ? values.values : [];
  const first = rows[0];
  if (!isNode(first) || !Array.isArray(first.value)) return null;
  // SQLite names VALUES columns column1, column2, …; PostgreSQL column1… too.
  return first.value.map((_, i) => `column${i + 1}`);
}

/** Output column names of a SELECT resolved against a schema (used for CREATE VIEW / CREATE TABLE AS). */
export function outputColumnsOf(select: Node, schema: SchemaModel, dialect: SqlDialect): Array<string | null> | null {
  return new Resolver(schema, dialect).resolveStatement(select);
}

/** The AND-conjuncts of a predicate (a single element when it is not an AND). */
function conjuncts(pred: unknown): unknown[] {
  if (!isNode(pred)) return [];
  const op = pred.type === 'binary_expr' ? String(pred.operator).toUpperCase() : '';
  if (op === 'AND' || op === '&&') return [...conjuncts(pred.left), ...conjuncts(pred.right)];
  return [pred];
}

/**
 * Groups of FROM items that no join predicate connects: each extra group multiplies the
 * result (a cross product). Derived tables that yield one row and relations whose columns are
 * unknown (table functions, undeclared tables) do not count.
 */
function cartesianFactors(relations: Relation[], links: Array<Set<Relation>>): number {
  const parent = new Map<Relation, Relation>();
  const find = (r: Relation): Relation => {
    let x = r;
    while (parent.get(x) !== x) x = parent.get(x)!;
    return x;
  };
  for (const r of relations) parent.set(r, r);
  for (const link of links) {
    const members = [...link].filter((r) => parent.has(r));
    for (let i = 1; i < members.length; i++) parent.set(find(members[i]), find(members[0]));
  }
  const groups = new Set<Relation>();
  for (const r of relations) if (!r.singleRow && r.columns !== null) groups.add(find(r));
  return groups.size;
}

/** An aggregate SELECT without GROUP BY, or one with LIMIT 1 (no set operation): one row at most. */
function yieldsOneRow(sel: Node): boolean {
  if (isNode(sel._next)) return false;
  const limit = isNode(sel.limit) && Array.isArray(sel.limit.value) ? sel.limit.value : [];
  if (limit.length === 1 && isNode(limit[0]) && limit[0].type === 'number' && Number(limit[0].value) <= 1) return true;
  const grouped =
    sel.groupby !== null &&
    sel.groupby !== undefined &&
    !(isNode(sel.groupby) && Array.isArray(sel.groupby.columns) && sel.groupby.columns.length === 0);
  if (grouped) return false;
  const cols = Array.isArray(sel.columns) ? sel.columns.filter(isNode) : [];
  return cols.length > 0 && cols.every((c) => onlyAggregates(isNode(c.expr) ? c.expr : c));
}

/** Every column reference sits inside an aggregate (or there is none): one value per group. */
function onlyAggregates(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(onlyAggregates);
  if (!isNode(node)) return true;
  if (node.type === 'aggr_func') return true;
  if (node.type === 'column_ref' || node.type === 'star') return false;
  if (unwrapSelect(node)) return true;
  return Object.entries(node).every(
    ([k, v]) => k === 'loc' || typeof v !== 'object' || v === null || onlyAggregates(v),
  );
}

/**
 * A recursive CTE has a termination guard when its recursive member (the set-operation member
 * that reads the CTE) has a WHERE comparing against a literal bound (`n < 100`), or the
 * statement that uses it ends in a literal LIMIT. A guard, not a proof of termination.
 */
function recursionGuarded(body: Node, name: string, statement: Node): boolean {
  const limit = isNode(statement.limit) && Array.isArray(statement.limit.value) ? statement.limit.value : [];
  if (limit.length > 0 && limit.every((l) => isNode(l) && l.type === 'number')) return true;
  const lower = name.toLowerCase();
  for (const member of setOperationChain(body)) {
    const from = Array.isArray(member.from) ? member.from.filter(isNode) : [];
    const reads = from.some(
      (f) => (typeof f.table === 'string' || isNode(f.table)) && identText(f.table)?.toLowerCase() === lower,
    );
    if (!reads) continue;
    if (!hasLiteralBound(member.where)) return false;
  }
  return true;
}

function hasLiteralBound(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasLiteralBound);
  if (!isNode(node)) return false;
  if (node.type === 'binary_expr' && ['<', '<=', '>', '>='].includes(String(node.operator))) {
    const lit = (n: unknown) => isNode(n) && n.type === 'number';
    if (lit(node.left) || lit(node.right)) return true;
  }
  if (node.type === 'binary_expr' && String(node.operator).toUpperCase() === 'BETWEEN') return true;
  return Object.entries(node).some(
    ([k, v]) => k !== 'loc' && typeof v === 'object' && v !== null && hasLiteralBound(v),
  );
}
