// The statistical query language of /verify/stats (docs/stats.md). A query is parsed here, in
// TypeScript, into a whitelisted operation; the sandboxed Python program receives only that
// operation as JSON data. Caller text is never executed, and never pasted into code.
//
//   query      = aggregate [ comparator number ]
//   aggregate  = "count" [ "(" [ column ] ")" ]
//              | unary "(" column ")"
//              | "corr" "(" column "," column ")"
//   unary      = mean | median | stdev | std | variance | var | min | max | sum
//   comparator = ">" | ">=" | "<" | "<=" | "=" | "==" | "!="
//   column     = identifier | "double-quoted name" | `backquoted name`
//   number     = [-+] digits [ "." digits ] [ e [-+] digits ]
//
// Function names are case-insensitive; column names are case-sensitive.

export const STATS_OPERATIONS = ['count', 'mean', 'median', 'stdev', 'variance', 'min', 'max', 'sum', 'corr'] as const;
export type StatsOperation = (typeof STATS_OPERATIONS)[number];
export type StatsComparator = '>' | '>=' | '<' | '<=' | '==' | '!=';

/** What the Python program receives (JSON only). */
export interface StatsSpec {
  op: StatsOperation;
  /** The columns the operation reads: none (count of rows), one, or two (corr). */
  columns: string[];
  comparator: StatsComparator | null;
  /** The claimed value as written (decimal text), when there is a comparison. */
  value: string | null;
}

export const MAX_QUERY_LENGTH = 1000;

const ALIASES: Record<string, StatsOperation> = {
  count: 'count',
  mean: 'mean',
  avg: 'mean',
  average: 'mean',
  median: 'median',
  stdev: 'stdev',
  std: 'stdev',
  variance: 'variance',
  var: 'variance',
  min: 'min',
  max: 'max',
  sum: 'sum',
  corr: 'corr',
};

export type StatsQueryParse =
  | { ok: true; spec: StatsSpec; normalized: string }
  | { ok: false; kind: 'unsupported'; message: string }
  /** Looks like an attempt to smuggle code: refused by policy (HTTP 403). */
  | { ok: false; kind: 'security_policy'; message: string; rule: string };

// Markers of code in the unquoted part of a query. The grammar would reject all of these
// anyway; naming them separately turns an injection attempt into a policy block (403).
const POLICY_RULES: Array<[string, RegExp]> = [
  ['dunder', /__/],
  ['import', /\bimport\b/i],
  ['eval_exec', /\b(?:eval|exec|compile|getattr|setattr|globals|locals|breakpoint)\b/i],
  ['file_or_process', /\b(?:open|os|sys|subprocess|shutil|socket|pathlib)\s*[.(]/i],
  ['lambda', /\blambda\b/i],
  ['statement_separator', /[;\n\r]/],
];

type Token =
  | { t: 'ident'; v: string; pos: number }
  | { t: 'name'; v: string; pos: number }
  | { t: 'num'; v: string; pos: number }
  | { t: 'cmp'; v: StatsComparator; pos: number }
  | { t: 'punct'; v: '(' | ')' | ','; pos: number };

class QueryError extends Error {}

/** Blanks out quoted column names, so that the policy rules see only the query's own text. */
function unquotedText(query: string): string {
  return query.replace(/"[^"]*"|`[^`]*`/g, (m) => ' '.repeat(m.length));
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i] as string;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: 'punct', v: c, pos: i });
      i++;
      continue;
    }
    if (c === '"' || c === '`') {
      const end = query.indexOf(c, i + 1);
      if (end < 0) throw new QueryError(`Unterminated quoted column name at position ${i}.`);
      const name = query.slice(i + 1, end);
      if (name === '') throw new QueryError(`Empty column name at position ${i}.`);
      if (/[\u0000-\u001f]/.test(name))
        throw new QueryError(`Control characters are not allowed in a column name (position ${i}).`);
      tokens.push({ t: 'name', v: name, pos: i });
      i = end + 1;
      continue;
    }
    const cmp = /^(?:>=|<=|==|!=|>|<|=)/.exec(query.slice(i));
    if (cmp) {
      tokens.push({ t: 'cmp', v: (cmp[0] === '=' ? '==' : cmp[0]) as StatsComparator, pos: i });
      i += cmp[0].length;
      continue;
    }
    const num = /^[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d{1,3})?/.exec(query.slice(i));
    if (num && /[-+.\d]/.test(c)) {
      tokens.push({ t: 'num', v: num[0], pos: i });
      i += num[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i));
    if (ident) {
      tokens.push({ t: 'ident', v: ident[0], pos: i });
      i += ident[0].length;
      continue;
    }
    throw new QueryError(`Unexpected character ${JSON.stringify(c)} at position ${i}.`);
  }
  return tokens;
}

const quoteName = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !Object.hasOwn(ALIASES, name.toLowerCase()) ? name : `"${name}"`;

/** Parses a statistical query; never throws. */
export function parseStatsQuery(raw: string): StatsQueryParse {
  const query = raw.trim();
  if (query === '') return { ok: false, kind: 'unsupported', message: 'The query is empty.' };
  if (query.length > MAX_QUERY_LENGTH) {
    return { ok: false, kind: 'unsupported', message: `The query is longer than ${MAX_QUERY_LENGTH} characters.` };
  }
  const visible = unquotedText(query);
  for (const [rule, pattern] of POLICY_RULES) {
    if (pattern.test(visible)) {
      return {
        ok: false,
        kind: 'security_policy',
        rule,
        message:
          'The query contains code constructs; only the statistical query language is accepted (see docs/stats.md).',
      };
    }
  }
  try {
    const tokens = tokenize(query);
    let k = 0;
    const peek = () => tokens[k];
    const take = () => {
      const t = tokens[k++];
      if (!t) throw new QueryError('The query ends too early.');
      return t;
    };
    const expectPunct = (v: '(' | ')' | ',') => {
      const t = take();
      if (t.t !== 'punct' || t.v !== v) throw new QueryError(`Expected "${v}" at position ${t.pos}.`);
    };
    const column = (): string => {
      const t = take();
      if (t.t === 'ident' || t.t === 'name') return t.v;
      throw new QueryError(`Expected a column name at position ${t.pos}.`);
    };

    const head = take();
    const op = head.t === 'ident' ? ALIASES[head.v.toLowerCase()] : undefined;
    if (!op) {
      throw new QueryError(
        `Unsupported query: expected one of ${STATS_OPERATIONS.join(', ')} at position ${head.pos}.`,
      );
    }
    const columns: string[] = [];
    if (op === 'count') {
      const next = peek();
      if (next?.t === 'punct' && next.v === '(') {
        take();
        const close = peek();
        if (!(close?.t === 'punct' && close.v === ')')) columns.push(column());
        expectPunct(')');
      }
    } else {
      expectPunct('(');
      columns.push(column());
      if (op === 'corr') {
        expectPunct(',');
        columns.push(column());
      }
      expectPunct(')');
    }
    let comparator: StatsComparator | null = null;
    let value: string | null = null;
    const next = peek();
    if (next) {
      const c = take();
      if (c.t !== 'cmp')
        throw new QueryError(
          `Expected a comparison (>, >=, <, <=, =, !=) or the end of the query at position ${c.pos}.`,
        );
      const n = take();
      if (n.t !== 'num') throw new QueryError(`Expected a number at position ${n.pos}.`);
      comparator = c.v;
      value = n.v;
      const rest = peek();
      if (rest) throw new QueryError(`Unexpected text at position ${rest.pos}: one comparison per query.`);
    }
    const args = columns.map(quoteName).join(', ');
    const aggregate = op === 'count' && columns.length === 0 ? 'count' : `${op}(${args})`;
    const normalized = comparator ? `${aggregate} ${comparator} ${value}` : aggregate;
    return { ok: true, spec: { op, columns, comparator, value }, normalized };
  } catch (err) {
    if (err instanceof QueryError) return { ok: false, kind: 'unsupported', message: err.message };
    throw err;
  }
}
