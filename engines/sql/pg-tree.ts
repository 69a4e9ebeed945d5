// PostgreSQL's own analysed parse tree as the AST for the malice checks, when node-sql-parser
// cannot read a query that PostgreSQL accepts (dialect postgresql).
//
// The PGlite worker prepares the query with debug_print_parse on and hands back the Query tree
// PostgreSQL built (nodeToString text: `{QUERY :commandType 1 … :rtable (…) :jointree {…}}`)
// with the catalog names of the relation, function and operator oids in it. This file reads
// that text into plain objects and runs the structural checks on it: statement kind (a SELECT
// everywhere, no data-modifying CTE, no utility statement), relations outside the request's
// tables (system catalogs), functions with side effects (the lexer's lists, plus every volatile
// function not on a short allow-list), literal and self-comparison tautologies in WHERE / ON /
// HAVING, and sensitive columns read out through the select list. Anything it cannot read is an
// error: the caller fails closed.
import { isSensitiveColumnName } from './sensitive.js';
import { ADMIN_FUNCTIONS, SLEEP_FUNCTIONS } from './lexical-checks.js';
import type { PgTreeText } from './pg-check.js';
import { issue, type SqlIssue } from './types.js';

export interface PgNode {
  _type: string;
  [field: string]: PgValue;
}
export type PgValue = PgNode | PgValue[] | string | null;

export class PgTreeError extends Error {}

const isNode = (v: PgValue | undefined): v is PgNode => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: PgValue | undefined): PgValue[] => (Array.isArray(v) ? v : []);
const atom = (v: PgValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** Reads PostgreSQL's nodeToString format (outfuncs.c) into plain objects. */
export function parsePgNodeTree(text: string): PgNode {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\n' || text[i] === '\t' || text[i] === '\r')) i++;
  };
  const isKeyStart = () => text[i] === ':' && /[A-Za-z_]/.test(text[i + 1] ?? '');
  const readAtom = (): string => {
    let out = '';
    while (i < n && !' \n\t\r(){}'.includes(text[i])) {
      if (text[i] === '\\' && i + 1 < n) i++;
      out += text[i++];
    }
    return out;
  };
  const value = (): PgValue => {
    ws();
    const c = text[i];
    if (c === undefined) throw new PgTreeError('unexpected end of the parse tree');
    if (c === '{') {
      i++;
      ws();
      const node: PgNode = { _type: readAtom() };
      for (;;) {
        ws();
        if (text[i] === '}') {
          i++;
          return node;
        }
        if (!isKeyStart()) throw new PgTreeError(`expected a field at offset ${i}`);
        i++;
        const key = readAtom();
        const values: PgValue[] = [];
        for (;;) {
          ws();
          if (i >= n) throw new PgTreeError('unterminated node in the parse tree');
          if (text[i] === '}' || isKeyStart()) break;
          values.push(value());
        }
        node[key] = values.length === 0 ? null : values.length === 1 ? values[0] : values;
      }
    }
    if (c === '(') {
      i++;
      const items: PgValue[] = [];
      for (;;) {
        ws();
        if (i >= n) throw new PgTreeError('unterminated list in the parse tree');
        if (text[i] === ')') {
          i++;
          return items;
        }
        items.push(value());
      }
    }
    if (c === '[') {
      const end = text.indexOf(']', i);
      if (end < 0) throw new PgTreeError('unterminated datum in the parse tree');
      const raw = text.slice(i + 1, end).trim();
      i = end + 1;
      return `[${raw}]`;
    }
    if (c === '"') {
      i++;
      let out = '';
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < n) i++;
        out += text[i++];
      }
      if (i >= n) throw new PgTreeError('unterminated string in the parse tree');
      i++;
      return out;
    }
    if (c === '<' && text[i + 1] === '>') {
      i += 2;
      return null;
    }
    if (c === ')' || c === '}') throw new PgTreeError(`unexpected '${c}' at offset ${i}`);
    return readAtom();
  };
  const root = value();
  ws();
  if (i !== n || !isNode(root) || root._type !== 'QUERY') throw new PgTreeError('the parse tree is not one Query');
  return root;
}

/** Volatile functions that only compute a value (no state outside the query). */
const VOLATILE_ALLOWED = new Set([
  'random',
  'random_normal',
  'clock_timestamp',
  'timeofday',
  'gen_random_uuid',
  'uuidv4',
  'uuidv7',
]);
const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema', 'pg_toast']);
const isSystemSchema = (s: string) => SYSTEM_SCHEMAS.has(s) || s.startsWith('pg_');

export interface PgTreeReport {
  issues: SqlIssue[];
  /** Declared relations read (`schema.name` when qualified outside the request's own schema). */
  tables: string[];
  /** `table.column` of every column reference resolved to a relation. */
  columns: string[];
  queries: number;
  maxQueryDepth: number;
}

interface Scope {
  query: PgNode;
  rtable: PgValue[];
}

/** Runs the structural malice checks on PostgreSQL's parse tree. Throws PgTreeError when unreadable. */
export function checkPgTree(tree: PgTreeText): PgTreeReport {
  let root: PgNode;
  try {
    root = parsePgNodeTree(tree.text);
  } catch (err) {
    if (err instanceof RangeError) throw new PgTreeError('the parse tree nests too deeply to read');
    throw err;
  }
  const issues: SqlIssue[] = [];
  const seen = new Set<string>();
  const add = (key: string, i: SqlIssue) => {
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(i);
    }
  };
  const tables = new Set<string>();
  const columns = new Set<string>();
  let queries = 0;
  let maxDepth = 0;
  let setOperation = false;
  const catalogReads: string[] = [];

  const relationOf = (rte: PgNode) => {
    const relid = atom(rte.relid);
    return relid && relid !== '0' ? (tree.relations[relid] ?? null) : null;
  };
  const colname = (rte: PgNode, attno: number): string | null => {
    const eref = rte.eref;
    const names = isNode(eref) ? list(eref.colnames) : [];
    const v = names[attno - 1];
    return typeof v === 'string' ? v : null;
  };

  /** Columns of base relations a Var stands for (through join aliases and grouping RTEs). */
  const baseColumns = (v: PgNode, chain: Scope[], out: Array<{ table: string; column: string }>, guard = 0): void => {
    if (guard > 64) throw new PgTreeError('Var resolution does not terminate');
    const up = Number(atom(v.varlevelsup) ?? '0');
    const scope = chain[up];
    if (!scope) throw new PgTreeError('a Var refers to a query level that does not exist');
    const rte = scope.rtable[Number(atom(v.varno)) - 1];
    if (!isNode(rte)) return; // special varnos (OUTER/INNER) do not occur in parse trees
    const attno = Number(atom(v.varattno));
    const rel = relationOf(rte);
    if (rel) {
      const names =
        attno === 0
          ? list(isNode(rte.eref) ? rte.eref.colnames : null).filter((x): x is string => typeof x === 'string')
          : [colname(rte, attno)];
      for (const c of names) if (c) out.push({ table: rel.name, column: c });
      return;
    }
    const expand = (e: PgValue | undefined) => {
      for (const inner of varsIn(e)) {
        // Vars inside join alias / grouping expressions are relative to the same query level.
        const rel2: PgNode = { ...inner, varlevelsup: String(Number(atom(inner.varlevelsup) ?? '0') + up) };
        baseColumns(rel2, chain, out, guard + 1);
      }
    };
    if (rte.joinaliasvars !== undefined) expand(attno === 0 ? rte.joinaliasvars : list(rte.joinaliasvars)[attno - 1]);
    else if (rte.groupexprs !== undefined) expand(attno === 0 ? rte.groupexprs : list(rte.groupexprs)[attno - 1]);
    // Subqueries, CTEs, functions, VALUES: their own queries are checked where they are defined.
  };

  /** Var nodes in an expression, not descending into nested Query nodes. */
  const varsIn = (e: PgValue | undefined): PgNode[] => {
    const out: PgNode[] = [];
    const walk = (x: PgValue | undefined) => {
      if (Array.isArray(x)) for (const y of x) walk(y);
      else if (isNode(x)) {
        if (x._type === 'QUERY') return;
        if (x._type === 'VAR') out.push(x);
        for (const [k, y] of Object.entries(x)) if (k !== '_type') walk(y);
      }
    };
    walk(e);
    return out;
  };

  const stripCasts = (e: PgValue | undefined): PgValue | undefined => {
    let x = e;
    for (let k = 0; k < 8 && isNode(x); k++) {
      if (x._type === 'RELABELTYPE' || x._type === 'COERCEVIAIO') x = x.arg;
      else if (
        x._type === 'FUNCEXPR' &&
        (atom(x.funcformat) === '1' || atom(x.funcformat) === '2') &&
        list(x.args).length === 1
      )
        x = list(x.args)[0];
      else break;
    }
    return x;
  };
  const constOf = (e: PgValue | undefined) => {
    const x = stripCasts(e);
    if (!isNode(x) || x._type !== 'CONST' || atom(x.constisnull) !== 'false') return null;
    const raw = list(x.constvalue);
    return {
      type: atom(x.consttype) ?? '',
      byval: atom(x.constbyval) === 'true',
      bytes: typeof raw[1] === 'string' ? raw[1] : String(x.constvalue),
    };
  };
  const intOf = (c: { type: string; byval: boolean; bytes: string }): number | null => {
    if (!c.byval || !['20', '21', '23'].includes(c.type)) return null;
    const bytes = c.bytes
      .replace(/^\[|\]$/g, '')
      .trim()
      .split(/\s+/)
      .map(Number);
    let v = 0;
    for (let k = Math.min(bytes.length, 6) - 1; k >= 0; k--) v = v * 256 + (bytes[k] & 0xff);
    return v;
  };
  const isTrueConst = (e: PgValue | undefined) => {
    const c = constOf(e);
    return c !== null && c.type === '16' && /^\[\s*1\b/.test(c.bytes);
  };
  /** An always-true comparison of literals, or a column compared with itself (`=`). */
  const alwaysTrue = (e: PgValue | undefined, position: 'whole' | 'or' | 'and'): string | null => {
    if (!isNode(e) || e._type !== 'OPEXPR') return null;
    const op = tree.operators[atom(e.opno) ?? ''] ?? '';
    const [l, r] = list(e.args);
    const a = constOf(l);
    const b = constOf(r);
    if (a && b) {
      const ia = intOf(a);
      const ib = intOf(b);
      if (ia !== null && ib !== null) {
        const t = {
          '=': ia === ib,
          '<>': ia !== ib,
          '!=': ia !== ib,
          '<': ia < ib,
          '>': ia > ib,
          '<=': ia <= ib,
          '>=': ia >= ib,
        }[op];
        return t === true ? `${ia} ${op} ${ib}` : null;
      }
      if (a.type === b.type && a.bytes === b.bytes && ['=', '<=', '>='].includes(op)) return `a literal ${op} itself`;
      return null;
    }
    if (position === 'and' || op !== '=') return null;
    const vl = stripCasts(l);
    const vr = stripCasts(r);
    if (isNode(vl) && isNode(vr) && vl._type === 'VAR' && vr._type === 'VAR') {
      const same = ['varno', 'varattno', 'varlevelsup'].every((k) => atom(vl[k]) === atom(vr[k]));
      if (same) return 'a column compared with itself';
    }
    return null;
  };
  const checkQual = (e: PgValue | undefined, position: 'whole' | 'or' | 'and', clause: string): void => {
    if (Array.isArray(e)) {
      // An implicit AND list (e.g. a JOIN's quals after analysis).
      for (const x of e) checkQual(x, e.length > 1 ? 'and' : position, clause);
      return;
    }
    if (!isNode(e)) return;
    if (e._type === 'BOOLEXPR') {
      const op = atom(e.boolop);
      if (op === 'or' && list(e.args).some(isTrueConst)) {
        add(
          `taut:${clause}:true`,
          issue(
            'tautology',
            'critical',
            `An OR with a constant TRUE operand in ${clause} makes the predicate always true.`,
            'postgres',
            { clause },
          ),
        );
      }
      if (op === 'and' || op === 'or') for (const x of list(e.args)) checkQual(x, op, clause);
      return;
    }
    const why = alwaysTrue(e, position);
    if (why !== null) {
      add(
        `taut:${clause}:${why}`,
        issue(
          'tautology',
          'critical',
          `An always-true comparison (${why}) in ${clause} (PostgreSQL parse tree).`,
          'postgres',
          { clause },
        ),
      );
    }
  };

  const visitQuery = (q: PgNode, outer: Scope[], depth: number): void => {
    queries++;
    maxDepth = Math.max(maxDepth, depth);
    const scope: Scope = { query: q, rtable: list(q.rtable) };
    const chain = [scope, ...outer];
    const command = atom(q.commandType);
    if (command !== '1' || q.utilityStmt !== null) {
      add(
        `cmd:${command}`,
        issue(
          'destructive_statement',
          'critical',
          `PostgreSQL reads a statement that is not a SELECT (command type ${command}).`,
          'postgres',
          { statement: command },
        ),
      );
    }
    if (atom(q.hasModifyingCTE) === 'true') {
      add(
        'cmd:cte',
        issue('destructive_statement', 'critical', 'PostgreSQL reads a data-modifying WITH query.', 'postgres', {
          statement: 'WITH',
        }),
      );
    }
    if (q.setOperations !== null && q.setOperations !== undefined) setOperation = true;
    for (const rte of scope.rtable) {
      if (!isNode(rte)) continue;
      const relid = atom(rte.relid);
      if (relid && relid !== '0') {
        const rel = tree.relations[relid];
        if (!rel) throw new PgTreeError(`relation oid ${relid} has no name`);
        if (isSystemSchema(rel.schema)) catalogReads.push(`${rel.schema}.${rel.name}`);
        else tables.add(rel.name);
      }
    }
    // Where-clauses: the join tree's quals (WHERE), JOIN … ON quals, HAVING.
    const jt = q.jointree;
    if (isNode(jt)) checkQual(jt.quals, 'whole', 'WHERE');
    const walkJoins = (x: PgValue | undefined) => {
      if (Array.isArray(x)) for (const y of x) walkJoins(y);
      else if (isNode(x) && x._type !== 'QUERY') {
        if (x._type === 'JOINEXPR') checkQual(x.quals, 'whole', 'ON');
        for (const [k, y] of Object.entries(x)) if (k !== '_type') walkJoins(y);
      }
    };
    if (isNode(jt)) walkJoins(jt.fromlist);
    checkQual(q.havingQual, 'whole', 'HAVING');
    // Sensitive columns: read when a non-junk select-list entry refers to them.
    const projected: Array<{ table: string; column: string }> = [];
    for (const te of list(q.targetList)) {
      if (!isNode(te) || atom(te.resjunk) === 'true') continue;
      for (const v of varsIn(te.expr)) baseColumns(v, chain, projected);
    }
    for (const u of projected) {
      columns.add(`${u.table}.${u.column}`);
      if (isSensitiveColumnName(u.column)) {
        add(
          `sensitive:${u.table}.${u.column}`.toLowerCase(),
          issue(
            'sensitive_column_read',
            'critical',
            `The query reads the sensitive column '${u.table}.${u.column}' (PostgreSQL parse tree).`,
            'postgres',
            { table: u.table, column: u.column },
          ),
        );
      }
    }
    // Every other Var of this level: referenced, not read out.
    const others: Array<{ table: string; column: string }> = [];
    const walkOthers = (x: PgValue | undefined, key: string) => {
      if (key === 'targetList' || key === 'rtable') return;
      for (const v of varsIn(x)) baseColumns(v, chain, others);
    };
    for (const [k, x] of Object.entries(q)) if (k !== '_type') walkOthers(x, k);
    for (const u of others) {
      columns.add(`${u.table}.${u.column}`);
      if (isSensitiveColumnName(u.column)) {
        add(
          `sensitive-pred:${u.table}.${u.column}`.toLowerCase(),
          issue(
            'sensitive_column_predicate',
            'warning',
            `The sensitive column '${u.table}.${u.column}' is compared in a predicate (not read out).`,
            'postgres',
            { table: u.table, column: u.column },
          ),
        );
      }
    }
    // Nested queries: sublinks, derived tables, CTEs (each one level deeper).
    const nested = (x: PgValue | undefined) => {
      if (Array.isArray(x)) for (const y of x) nested(y);
      else if (isNode(x)) {
        if (x._type === 'QUERY') visitQuery(x, chain, depth + 1);
        else for (const [k, y] of Object.entries(x)) if (k !== '_type') nested(y);
      }
    };
    for (const [k, x] of Object.entries(q)) if (k !== '_type') nested(x);
  };
  visitQuery(root, [], 0);

  // Functions by oid, whatever spelling, quoting or operator reached them.
  for (const m of tree.text.matchAll(/:(?:funcid|aggfnoid|winfnoid|opfuncid) (\d+)/g)) {
    if (m[1] === '0') continue;
    const f = tree.functions[m[1]];
    if (!f) throw new PgTreeError(`function oid ${m[1]} has no name`);
    const name = f.name.toLowerCase();
    if (SLEEP_FUNCTIONS.has(name)) {
      add(
        `fn:${name}`,
        issue('time_based_probe', 'critical', `Time-based probe: ${f.name}() (PostgreSQL parse tree).`, 'postgres', {
          function: f.name,
        }),
      );
    } else if (ADMIN_FUNCTIONS.has(name) || (f.volatility === 'v' && !VOLATILE_ALLOWED.has(name))) {
      add(
        `fn:${name}`,
        issue(
          'administrative_statement',
          'critical',
          `Function with side effects: ${f.schema}.${f.name}() (PostgreSQL parse tree).`,
          'postgres',
          { function: f.name },
        ),
      );
    }
  }
  for (const c of catalogReads) {
    const type = setOperation ? 'union_catalog_read' : 'system_catalog_read';
    add(
      `cat:${c}`,
      issue(type, 'critical', `The query reads the system catalog ${c} (PostgreSQL parse tree).`, 'postgres', {
        table: c,
      }),
    );
  }
  return { issues, tables: [...tables].sort(), columns: [...columns].sort(), queries, maxQueryDepth: maxDepth };
}
