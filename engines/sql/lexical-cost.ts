// Cross-product factors from tokens, for queries that only a real engine could read (no AST):
// for every FROM clause, its items (comma-separated, CROSS JOIN, JOIN … ON/USING), and the
// WHERE conjuncts of the same SELECT that connect them. A conjunct connects the items it names
// (`alias.col`) and the items whose declared table has an unqualified column it uses (when
// exactly one item of that FROM has it). Anything unreadable counts as unconnected, so the
// figure errs towards refusing (fail closed).
import { identName, isWord, significantTokens, type LexResult, type Token } from './lexer.js';
import type { SchemaModel } from './types.js';

const CLAUSE_END = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'WINDOW',
  'QUALIFY',
  'OFFSET',
  'FETCH',
  'RETURNING',
]);
const NOT_ALIAS = new Set([
  ...CLAUSE_END,
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'OUTER',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
  'LATERAL',
  'AS',
  'TABLESAMPLE',
]);

interface Item {
  names: string[];
  table: string | null;
}

/** Largest number of unconnected FROM-item groups of one SELECT, read from tokens. */
export function lexicalCartesianFactors(lexed: LexResult, schema: SchemaModel | null): number {
  const toks = significantTokens(lexed.tokens);
  let worst = toks.length > 0 ? 1 : 0;
  for (let i = 0; i < toks.length; i++) {
    if (!isWord(toks[i], 'FROM') || !isClauseFrom(toks, i)) continue;
    worst = Math.max(worst, factorsAt(toks, i, schema));
  }
  return worst;
}

/** `FROM` of a SELECT, not of `substring(x FROM 1)`, `extract(year FROM d)`, `trim(… FROM …)`. */
function isClauseFrom(toks: Token[], i: number): boolean {
  const d = toks[i].depth;
  if (d === 0) return true;
  for (let j = i - 1; j >= 0; j--) {
    if (toks[j].depth < d) {
      // toks[j] is the '(' that opens this level: a subquery starts with SELECT / WITH.
      return isWord(toks[j + 1], 'SELECT', 'WITH');
    }
  }
  return false;
}

function factorsAt(toks: Token[], from: number, schema: SchemaModel | null): number {
  const d = toks[from].depth;
  const items: Item[] = [];
  const links: Array<[number, number]> = [];
  let j = from + 1;
  let connectToPrevious = false;
  let itemStart = true;
  const atLevel = (t: Token | undefined) => t !== undefined && t.depth === d;
  for (; j < toks.length; j++) {
    const t = toks[j];
    if (t.depth < d || (atLevel(t) && t.kind === 'punct' && t.value === ';')) break;
    if (!atLevel(t)) continue;
    if (t.kind === 'word' && CLAUSE_END.has(t.value.toUpperCase())) break;
    if (t.kind === 'punct' && t.value === ',') {
      itemStart = true;
      connectToPrevious = false;
      continue;
    }
    if (isWord(t, 'JOIN')) {
      itemStart = true;
      connectToPrevious = !isWord(toks[j - 1], 'CROSS');
      continue;
    }
    if (itemStart && !isWord(t, 'LATERAL', 'ONLY', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'NATURAL')) {
      itemStart = false;
      const item: Item = { names: [], table: null };
      if (t.kind === 'punct' && t.value === '(') {
        // derived table: skip to its closing parenthesis
        let k = j + 1;
        while (k < toks.length && toks[k].depth > d) k++;
        j = k; // the ')' at depth d
      } else {
        let k = j;
        const parts: string[] = [];
        while (identName(toks[k]) !== null) {
          parts.push(identName(toks[k])!.toLowerCase());
          if (toks[k + 1]?.kind === 'punct' && toks[k + 1].value === '.') k += 2;
          else break;
        }
        const name = parts[parts.length - 1] ?? null;
        if (name !== null) {
          item.table = name;
          item.names.push(name);
        }
        j = k;
      }
      const next = toks[j + 1];
      const aliasTok = isWord(next, 'AS') ? toks[j + 2] : next;
      if (
        aliasTok &&
        atLevel(aliasTok) &&
        identName(aliasTok) !== null &&
        !(aliasTok.kind === 'word' && NOT_ALIAS.has(aliasTok.value.toUpperCase()))
      ) {
        item.names.push(identName(aliasTok)!.toLowerCase());
      }
      items.push(item);
      if (connectToPrevious && items.length > 1) links.push([items.length - 2, items.length - 1]);
      continue;
    }
  }
  if (items.length <= 1) return items.length;
  if (isWord(toks[j], 'WHERE') && atLevel(toks[j])) {
    const byName = new Map<string, number>();
    items.forEach((it, idx) => it.names.forEach((n) => byName.set(n, idx)));
    let current = new Set<number>();
    let pendingBetween = false;
    const flush = () => {
      const m = [...current];
      for (let k = 1; k < m.length; k++) links.push([m[0], m[k]]);
      current = new Set();
    };
    for (let k = j + 1; k < toks.length; k++) {
      const t = toks[k];
      if (t.depth < d || (atLevel(t) && t.kind === 'punct' && t.value === ';')) break;
      if (atLevel(t) && t.kind === 'word' && CLAUSE_END.has(t.value.toUpperCase())) break;
      if (atLevel(t) && isWord(t, 'BETWEEN')) pendingBetween = true;
      if (atLevel(t) && isWord(t, 'AND')) {
        if (pendingBetween) pendingBetween = false;
        else flush();
        continue;
      }
      const name = identName(t);
      if (name === null || t.kind === 'string') continue;
      const lower = name.toLowerCase();
      if (toks[k + 1]?.kind === 'punct' && toks[k + 1].value === '.') {
        const idx = byName.get(lower);
        if (idx !== undefined) current.add(idx);
        continue;
      }
      if (toks[k - 1]?.kind === 'punct' && toks[k - 1].value === '.') continue;
      if (schema === null) continue;
      const owners = items
        .map((it, idx) =>
          it.table !== null && schema.tables.get(it.table)?.columns.some((c) => c.toLowerCase() === lower) ? idx : -1,
        )
        .filter((x) => x >= 0);
      if (owners.length === 1) current.add(owners[0]);
    }
    flush();
  }
  const parent = items.map((_, idx) => idx);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  for (const [a, b] of links) parent[find(a)] = find(b);
  return new Set(items.map((_, idx) => find(idx))).size;
}
