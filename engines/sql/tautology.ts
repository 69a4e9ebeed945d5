// Always-true predicates (`1=1`, `'a'='a'`, `x=x`, `2>1`, `OR TRUE`, `OR 1`): the classic
// way to widen a WHERE clause to every row. A comparison that is true whatever the row
// is flagged wherever it stands in a WHERE / ON / HAVING / QUALIFY predicate; a bare true
// literal (`TRUE`, a non-zero number) only as an operand of OR.
//
// Two detectors: one on the AST (a small constant evaluator plus structural self-comparison),
// and one on tokens for queries the parser does not understand (and as a supplement, since
// some grammars mis-associate MySQL's `||` / `&&`).
import type { SqlDialect } from './dialects.js';
import { identName, isWord, significantTokens, type LexResult, type Token } from './lexer.js';
import { isNode, isSelect, type Node } from './parser.js';
import { issue, type SqlIssue } from './types.js';

type Value = number | string | boolean | null;
const UNKNOWN = Symbol('unknown');
type Eval = Value | typeof UNKNOWN;

const STRING_TYPES = new Set(['single_quote_string', 'string', 'natural_string', 'var_string']);

function isOr(op: string, dialect: SqlDialect): boolean {
  return op === 'OR' || (op === '||' && (dialect === 'mysql' || dialect === 'mariadb'));
}
function isAnd(op: string, dialect: SqlDialect): boolean {
  return op === 'AND' || op === '&&';
}

/** Constant value of an expression built only from literals, or UNKNOWN. */
export function constantValue(node: unknown, dialect: SqlDialect): Eval {
  if (!isNode(node)) return UNKNOWN;
  const t = node.type;
  if (t === 'number') {
    const v = typeof node.value === 'number' ? node.value : Number(node.value);
    return Number.isFinite(v) ? v : UNKNOWN;
  }
  if (typeof t === 'string' && STRING_TYPES.has(t)) return typeof node.value === 'string' ? node.value : UNKNOWN;
  if (t === 'double_quote_string') return dialect === 'sqlite' || typeof node.value !== 'string' ? UNKNOWN : node.value;
  if (t === 'bool' || t === 'boolean') return node.value === true;
  if (t === 'null') return null;
  if (t === 'unary_expr') {
    const v = constantValue(node.expr, dialect);
    if (v === UNKNOWN) return UNKNOWN;
    const op = String(node.operator).toUpperCase();
    if (op === '-') return typeof v === 'number' ? -v : UNKNOWN;
    if (op === '+') return v;
    if (op === 'NOT' || op === '!') return v === null ? null : !truthy(v);
    return UNKNOWN;
  }
  if (t !== 'binary_expr') return UNKNOWN;
  const op = String(node.operator).toUpperCase();
  if (op === 'IN' || op === 'NOT IN') {
    const left = constantValue(node.left, dialect);
    const list = isNode(node.right) && Array.isArray(node.right.value) ? node.right.value : null;
    if (left === UNKNOWN || list === null) return UNKNOWN;
    const values = list.map((v) => constantValue(v, dialect));
    if (values.some((v) => v === UNKNOWN)) return UNKNOWN;
    const hit = values.some((v) => compare(left, v as Value) === 0);
    return op === 'IN' ? hit : !hit;
  }
  if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
    const left = constantValue(node.left, dialect);
    const list = isNode(node.right) && Array.isArray(node.right.value) ? node.right.value : null;
    if (left === UNKNOWN || list === null || list.length !== 2) return UNKNOWN;
    const lo = constantValue(list[0], dialect);
    const hi = constantValue(list[1], dialect);
    if (lo === UNKNOWN || hi === UNKNOWN) return UNKNOWN;
    const a = compare(left, lo);
    const b = compare(left, hi);
    if (a === null || b === null) return null;
    const inside = a >= 0 && b <= 0;
    return op === 'BETWEEN' ? inside : !inside;
  }
  const l = constantValue(node.left, dialect);
  const r = constantValue(node.right, dialect);
  if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN;
  if (isOr(op, dialect)) return truthy(l) || truthy(r);
  if (isAnd(op, dialect)) return truthy(l) && truthy(r);
  switch (op) {
    case '=':
    case '==':
    case '<=>':
      return cmp(l, r, (c) => c === 0);
    case '<>':
    case '!=':
      return cmp(l, r, (c) => c !== 0);
    case '<':
      return cmp(l, r, (c) => c < 0);
    case '>':
      return cmp(l, r, (c) => c > 0);
    case '<=':
      return cmp(l, r, (c) => c <= 0);
    case '>=':
      return cmp(l, r, (c) => c >= 0);
    case 'IS':
      return l === r || (l !== null && r !== null && compare(l, r) === 0);
    case 'IS NOT':
      return !(l === r || (l !== null && r !== null && compare(l, r) === 0));
    case 'LIKE':
    case 'NOT LIKE': {
      if (typeof l !== 'string' || typeof r !== 'string') return UNKNOWN;
      return op === 'LIKE' ? likeMatches(l, r) : !likeMatches(l, r);
    }
    case '+':
    case '-':
    case '*':
    case '/':
    case '%': {
      const a = toNumber(l);
      const b = toNumber(r);
      if (a === null || b === null) return UNKNOWN;
      if ((op === '/' || op === '%') && b === 0) return null;
      return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : op === '/' ? a / b : a % b;
    }
    default:
      return UNKNOWN;
  }
}

function truthy(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  const n = toNumber(v);
  return n !== null && n !== 0;
}

function toNumber(v: Value): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  // `\d+(?:\.\d*)?` is the former `\d+\.?\d*` without its quadratic ambiguity.
  if (typeof v === 'string' && /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
  return null;
}

/** -1 / 0 / 1, or null when either side is NULL. Mixed number/string compares numerically when the string is numeric. */
function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = toNumber(a);
  const y = toNumber(b);
  if (x === null || y === null) {
    const s = String(a);
    const u = String(b);
    return s < u ? -1 : s > u ? 1 : 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

function cmp(a: Value, b: Value, pred: (c: number) => boolean): Value {
  const c = compare(a, b);
  return c === null ? null : pred(c);
}

const SELF_TRUE_OPS = new Set(['=', '==', '<=', '>=', '<=>', 'IS', 'LIKE']);

/** Structural copy without source positions / parenthesis markers, for self-comparison. */
function shape(node: unknown): string {
  return JSON.stringify(node, (k, v) => (k === 'loc' || k === 'parentheses' || k === 'collate' ? undefined : v));
}

function containsColumn(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsColumn);
  if (!isNode(node)) return false;
  if (node.type === 'column_ref' || node.type === 'double_quote_string') return true;
  if (node.type === 'function' || node.type === 'aggr_func' || isSelect(node) || node.ast !== undefined) return false;
  return Object.entries(node).some(([k, v]) => k !== 'loc' && typeof v === 'object' && v !== null && containsColumn(v));
}

/** Only column references, literals and arithmetic: two identical copies have the same value. */
function deterministic(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(deterministic);
  if (!isNode(node)) return true;
  if (node.type === 'function' || node.type === 'aggr_func' || isSelect(node) || node.ast !== undefined) return false;
  return Object.entries(node).every(([k, v]) => k === 'loc' || typeof v !== 'object' || v === null || deterministic(v));
}

/** A comparison of literals that is true. */
function alwaysTrueConstant(node: Node, dialect: SqlDialect): boolean {
  const v = constantValue(node, dialect);
  return v !== UNKNOWN && v !== null && truthy(v);
}

/**
 * `x = x`, `t.c <= t.c`…: true for every row where the column is not NULL, NULL otherwise.
 * As a conjunct of AND it is only `x IS NOT NULL` (TPC-DS writes such filters); it widens a
 * filter only as an operand of OR, or when it is the whole predicate. The caller decides.
 */
function selfComparison(node: Node, dialect: SqlDialect): boolean {
  if (constantValue(node, dialect) !== UNKNOWN) return false;
  if (node.type !== 'binary_expr') return false;
  const op = String(node.operator).toUpperCase();
  if (!SELF_TRUE_OPS.has(op)) return false;
  return containsColumn(node.left) && deterministic(node.left) && shape(node.left) === shape(node.right);
}

const isBareLiteral = (node: Node) =>
  node.type === 'number' ||
  node.type === 'bool' ||
  node.type === 'boolean' ||
  (typeof node.type === 'string' && STRING_TYPES.has(node.type));

export interface TautologyHit {
  clause: string;
  expression: string;
}

/** Always-true predicates anywhere in the statement (every SELECT, subqueries included). */
export function astTautologies(statement: Node, dialect: SqlDialect, render: (n: Node) => string): TautologyHit[] {
  const hits: TautologyHit[] = [];
  const check = (pred: unknown, clause: string) => {
    const visit = (node: unknown, underOr: boolean, root: boolean) => {
      if (!isNode(node)) return;
      const op = node.type === 'binary_expr' ? String(node.operator).toUpperCase() : '';
      if (isOr(op, dialect) || isAnd(op, dialect) || op === 'XOR') {
        const or = isOr(op, dialect);
        visit(node.left, or, false);
        visit(node.right, or, false);
        return;
      }
      if (
        node.type === 'unary_expr' &&
        String(node.operator).toUpperCase() === 'NOT' &&
        constantValue(node, dialect) === UNKNOWN
      ) {
        visit(node.expr, false, false);
        return;
      }
      const bare = isBareLiteral(node);
      const hit = bare
        ? underOr && truthyLiteral(node, dialect)
        : alwaysTrueConstant(node, dialect) || ((underOr || root) && selfComparison(node, dialect));
      if (hit) hits.push({ clause, expression: render(node) });
    };
    visit(pred, false, true);
  };
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isNode(node)) return;
    if (isSelect(node) || node.type === 'update' || node.type === 'delete') {
      check(node.where, 'WHERE');
      check(node.having, 'HAVING');
      check(node.qualify, 'QUALIFY');
      if (Array.isArray(node.from)) for (const f of node.from) if (isNode(f)) check(f.on, 'ON');
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'loc' && typeof v === 'object' && v !== null) walk(v);
  };
  walk(statement);
  return hits;
}

function truthyLiteral(node: Node, dialect: SqlDialect): boolean {
  if (node.type === 'bool' || node.type === 'boolean') return node.value === true;
  if (node.type === 'number') {
    const v = constantValue(node, dialect);
    return typeof v === 'number' && v !== 0;
  }
  return false;
}

// ---- token-level detector -------------------------------------------------------------

const LEFT_BOUNDARY = new Set(['WHERE', 'AND', 'OR', 'NOT', 'ON', 'HAVING', 'QUALIFY', 'XOR']);
const RIGHT_BOUNDARY = new Set([
  'AND',
  'OR',
  'XOR',
  'ORDER',
  'GROUP',
  'LIMIT',
  'HAVING',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'OFFSET',
  'FETCH',
  'WINDOW',
  'QUALIFY',
]);
const COMPARATORS = new Set(['=', '==', '<>', '!=', '<', '>', '<=', '>=', '<=>']);

function tokenValue(t: Token): Eval {
  if (t.kind === 'number') {
    const v = Number(t.value);
    return Number.isFinite(v) ? v : UNKNOWN;
  }
  if (t.kind === 'string' && t.prefix === undefined) return t.value;
  if (isWord(t, 'TRUE')) return true;
  if (isWord(t, 'FALSE')) return false;
  if (isWord(t, 'NULL')) return null;
  return UNKNOWN;
}

/** Token-level tautologies: `<lit> op <lit>`, `<id> = <id>` and `OR <true literal>` between boolean boundaries. */
export function tokenTautologies(lexed: LexResult, dialect: SqlDialect): TautologyHit[] {
  const toks = significantTokens(lexed.tokens);
  const hits: TautologyHit[] = [];
  const mysql = dialect === 'mysql' || dialect === 'mariadb';
  const leftOk = (t: Token | undefined) =>
    t !== undefined &&
    ((t.kind === 'word' && LEFT_BOUNDARY.has(t.value.toUpperCase())) ||
      (t.kind === 'punct' && t.value === '(') ||
      (mysql && t.kind === 'op' && (t.value === '||' || t.value === '&&')));
  const rightOk = (t: Token | undefined) =>
    t === undefined ||
    (t.kind === 'word' && RIGHT_BOUNDARY.has(t.value.toUpperCase())) ||
    (t.kind === 'punct' && (t.value === ')' || t.value === ';')) ||
    (mysql && t.kind === 'op' && (t.value === '||' || t.value === '&&'));
  const orBefore = (t: Token | undefined) => isWord(t, 'OR') || (mysql && t?.kind === 'op' && t.value === '||');
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    // `<a> <op> <b>`
    if (
      t.kind === 'op' &&
      COMPARATORS.has(t.value) &&
      leftOk(toks[i - 2]) &&
      rightOk(toks[i + 2]) &&
      toks[i - 1] &&
      toks[i + 1]
    ) {
      const a = toks[i - 1];
      const b = toks[i + 1];
      const va = tokenValue(a);
      const vb = tokenValue(b);
      let hit = false;
      if (va !== UNKNOWN && vb !== UNKNOWN) {
        const c = va === null || vb === null ? null : compare(va, vb);
        hit =
          c !== null &&
          ((['=', '==', '<=>'].includes(t.value) && c === 0) ||
            (['<>', '!='].includes(t.value) && c !== 0) ||
            (t.value === '<' && c < 0) ||
            (t.value === '>' && c > 0) ||
            (t.value === '<=' && c <= 0) ||
            (t.value === '>=' && c >= 0));
      } else if (['=', '==', '<=', '>=', '<=>'].includes(t.value)) {
        // `x = x` between AND boundaries is `x IS NOT NULL`; it widens only next to OR or alone.
        const andSide = isAndToken(toks[i - 2], mysql) || isAndToken(toks[i + 2], mysql);
        const orSide =
          orBefore(toks[i - 2]) || orBefore(toks[i + 2]) || isWord(toks[i + 2], 'XOR') || isWord(toks[i - 2], 'XOR');
        const na = identName(a);
        hit =
          (orSide || !andSide) &&
          na !== null &&
          a.kind === b.kind &&
          na === identName(b) &&
          !isWord(a, 'NULL', 'TRUE', 'FALSE');
      }
      if (hit) hits.push({ clause: 'predicate', expression: `${a.text} ${t.value} ${b.text}` });
    }
    // `OR TRUE`, `OR 1`
    if (orBefore(toks[i - 1]) && rightOk(toks[i + 1])) {
      const v = tokenValue(t);
      if ((v === true || (typeof v === 'number' && v !== 0)) && t.kind !== 'string') {
        hits.push({ clause: 'predicate', expression: `${toks[i - 1].text} ${t.text}` });
      }
    }
  }
  return hits;
}

function isAndToken(t: Token | undefined, mysql: boolean): boolean {
  return isWord(t, 'AND') || (mysql && t?.kind === 'op' && t.value === '&&');
}

export function tautologyIssues(hits: TautologyHit[], source: 'ast' | 'lexer'): SqlIssue[] {
  const seen = new Set<string>();
  const out: SqlIssue[] = [];
  for (const h of hits) {
    const key = `${h.clause}:${h.expression}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      issue(
        'tautology',
        'critical',
        `Always-true predicate '${h.expression}' in ${h.clause} makes the filter match every row.`,
        source,
        {
          clause: h.clause,
          expression: h.expression,
        },
      ),
    );
  }
  return out;
}

/** ECMAScript's case-insensitive Canonicalize without the `u` flag (per UTF-16 code unit). */
function canon(c: string): string {
  const u = c.toUpperCase();
  if (u.length !== 1) return c;
  if (c.charCodeAt(0) >= 128 && u.charCodeAt(0) < 128) return c;
  return u;
}

/**
 * `value LIKE pattern` (`%` any run, `_` one code unit, case-insensitive as the former
 * `/^…$/si` regular expression built from the pattern), by the two-pointer wildcard match:
 * O(value × pattern) at worst, never exponential (docs/isolation.md).
 */
export function likeMatches(value: string, pattern: string): boolean {
  let v = 0;
  let p = 0;
  let star = -1;
  let mark = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern[p] !== '%' && (pattern[p] === '_' || canon(pattern[p]!) === canon(value[v]!))) {
      v++;
      p++;
    } else if (p < pattern.length && pattern[p] === '%') {
      star = p++;
      mark = v;
    } else if (star >= 0) {
      p = star + 1;
      v = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '%') p++;
  return p === pattern.length;
}
