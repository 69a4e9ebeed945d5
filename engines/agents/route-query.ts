// Which deterministic engine each part of an agent's query belongs to (math, logic, code, SQL),
// and the engine input built from it. A query is split into parts first (splitQuery): every
// fenced block is a part, and the text around the blocks is split into claims (lines and
// sentences) unless an engine that reads a whole text (SQL, code, logic) takes it as one part.
// A part no engine matches is reported as unverified: the verdict of the whole query is then
// never VERIFIED (engines/agents/decide.ts). Pure; no regex here can backtrack (fences and
// sentence ends are found by scanning).
import { looksLikeDsl } from '../logic/index.js';

export type EngineRoute =
  | { engine: 'math'; input: { expression: string } }
  | { engine: 'logic'; input: { query: string } }
  | { engine: 'code'; input: { code: string; language: string } }
  | { engine: 'sql'; input: { query: string; schema_ddl: string; dialect?: string } };

export const ENGINE_METHODS: Record<EngineRoute['engine'], string> = {
  math: 'exact symbolic/rational evaluation by the math engine; a proven identity is retained as proof_ref and attested',
  logic: 'SMT solving with Z3 over the logic DSL; a SAT model is re-checked by an independent evaluator',
  code: 'static security analysis of the syntax tree (tree-sitter rules); proven outcomes are retained and attested',
  sql: 'SQL parsing, schema resolution and malice classification by the SQL engine',
};

/** At most this many parts of one query go to an engine; any further part is unverified. */
export const MAX_QUERY_PARTS = 16;

export const NO_ENGINE_REASON = 'no deterministic engine matches this text (math expression, logic DSL, code, SQL)';
export const UNCLOSED_FENCE_REASON = 'unclosed code fence: the block was not checked';
export const TOO_MANY_PARTS_REASON = `not checked: at most ${MAX_QUERY_PARTS} parts of a query are checked`;
/** At most this many parts are listed (the guard result travels in the workflow history); the rest is one unverified part. */
export const MAX_LISTED_PARTS = 64;
export const UNREAD_REST_REASON = `not checked: a query is read as at most ${MAX_LISTED_PARTS} parts`;
/** Characters of a part's text kept in the list (the engine input keeps the whole text). */
export const MAX_PART_TEXT = 2000;
const clip = (t: string) => (t.length > MAX_PART_TEXT ? `${t.slice(0, MAX_PART_TEXT)}…` : t);

/** One part of a query: the exact text an engine checks (route), or text no engine checked (reason). */
export interface QueryPart {
  /** 1-based, in query order. */
  index: number;
  text: string;
  route: EngineRoute | null;
  /** Why the part is not routed (null when routed). */
  reason: string | null;
}

const LANG_ALIASES: Record<string, string> = {
  py: 'python',
  python3: 'python',
  js: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
};

type Segment =
  { kind: 'prose'; text: string } | { kind: 'fence'; lang: string; code: string } | { kind: 'unclosed'; text: string };

/** Fenced blocks ```lang\n…``` and the prose around them, in order, found without regexes. */
function segments(q: string): Segment[] {
  const out: Segment[] = [];
  let pos = 0;
  for (;;) {
    const open = q.indexOf('```', pos);
    if (open < 0) {
      out.push({ kind: 'prose', text: q.slice(pos) });
      return out;
    }
    out.push({ kind: 'prose', text: q.slice(pos, open) });
    const nl = q.indexOf('\n', open + 3);
    const close = nl < 0 ? -1 : q.indexOf('```', nl + 1);
    if (close < 0) {
      out.push({ kind: 'unclosed', text: q.slice(open) });
      return out;
    }
    const lang = q
      .slice(open + 3, nl)
      .trim()
      .toLowerCase();
    out.push({ kind: 'fence', lang: LANG_ALIASES[lang] ?? lang, code: q.slice(nl + 1, close) });
    pos = close + 3;
  }
}

function routeFence(lang: string, code: string, schemaDdl: string): EngineRoute {
  if (lang === 'sql') return { engine: 'sql', input: { query: code, schema_ddl: schemaDdl } };
  if (lang === 'logic' || lang === 'smt') return { engine: 'logic', input: { query: code.trim() } };
  if (lang === 'math') return { engine: 'math', input: { expression: code.trim() } };
  return { engine: 'code', input: { code, language: lang || guessLanguage(code) } };
}

const SQL_START = /^\s*(?:select|insert|update|delete|with|create|drop|alter|replace|merge|truncate|grant|revoke)\s/i;
const MATH_CHARS = /^[0-9A-Za-z\s+\-*/^().,=<>!_%]{1,2000}$/;
const HAS_OPERATOR = /[0-9)a-zA-Z]\s*[-+*/^=<>!%]|[a-z]\(/;
const DSL_OPERATOR_CALL = /(?:^|[^A-Za-z0-9_])[A-Z][A-Z_]{1,}\s*\(/;
const CODE_START =
  /^\s*(?:#!|import\s|from\s+[\w.]+\s+import\s|def\s|class\s|function\s|const\s|let\s|var\s|async\s+function|#include|package\s|public\s+class|using\s|fn\s)/;

function guessLanguage(code: string): string {
  if (/^\s*#!.*\b(?:ba|z)?sh\b/.test(code)) return 'bash';
  if (/^\s*(?:import\s|from\s+[\w.]+\s+import|def\s|class\s+\w+\s*[:(])/m.test(code)) return 'python';
  if (/^\s*(?:const|let|var|function|async\s+function)\s/m.test(code)) return 'javascript';
  return 'python';
}

/** The engine of one fence-free text, or null. */
function routeText(q: string, schemaDdl: string): EngineRoute | null {
  if (SQL_START.test(q)) return { engine: 'sql', input: { query: q, schema_ddl: schemaDdl } };
  if (looksLikeDsl(q) && DSL_OPERATOR_CALL.test(q)) return { engine: 'logic', input: { query: q } };
  if (CODE_START.test(q)) return { engine: 'code', input: { code: q, language: guessLanguage(q) } };
  if (MATH_CHARS.test(q) && HAS_OPERATOR.test(q) && /[0-9]|=/.test(q) && !/\s[a-z]{4,}\s[a-z]{4,}/i.test(q))
    return { engine: 'math', input: { expression: q } };
  if (looksLikeDsl(q)) return { engine: 'logic', input: { query: q } };
  return null;
}

const SENTENCE_END = new Set(['.', '!', '?', ';']);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** Lines, then sentences (a `.`, `!`, `?` or `;` followed by whitespace), terminators dropped. */
function claims(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let start = 0;
    for (let i = 0; i <= line.length; i++) {
      const end =
        i === line.length || (SENTENCE_END.has(line[i] as string) && (i + 1 === line.length || isSpace(line[i + 1])));
      if (!end) continue;
      const piece = line.slice(start, i).trim();
      if (piece) out.push(piece);
      start = i + 1;
    }
  }
  return out;
}

/**
 * Every part of the query with its engine input. Whitespace between parts is the only text
 * that belongs to no part; fence markers and sentence terminators separate parts.
 */
export function splitQuery(query: string, opts: { schemaDdl?: string } = {}): QueryPart[] {
  const ddl = opts.schemaDdl ?? '';
  const parts: Array<Omit<QueryPart, 'index'>> = [];
  for (const s of segments(query)) {
    if (s.kind === 'fence') {
      parts.push({ text: s.code.trim(), route: routeFence(s.lang, s.code, ddl), reason: null });
    } else if (s.kind === 'unclosed') {
      parts.push({ text: s.text.trim(), route: null, reason: UNCLOSED_FENCE_REASON });
    } else {
      const t = s.text.trim();
      if (!t) continue;
      // Engines that read a whole text check all of it (trailing prose included): one part.
      const whole = routeText(t, ddl);
      if (whole && whole.engine !== 'math') {
        parts.push({ text: t, route: whole, reason: null });
        continue;
      }
      for (const c of claims(t)) {
        const route = routeText(c, ddl);
        parts.push({ text: c, route, reason: route ? null : NO_ENGINE_REASON });
      }
    }
  }
  if (parts.length > MAX_LISTED_PARTS) {
    const rest = parts.splice(MAX_LISTED_PARTS - 1);
    parts.push({ text: rest.map((p) => p.text).join('\n'), route: null, reason: UNREAD_REST_REASON });
  }
  let routed = 0;
  return parts.map((p, i) => {
    if (p.route && ++routed > MAX_QUERY_PARTS)
      return { index: i + 1, text: clip(p.text), route: null, reason: TOO_MANY_PARTS_REASON };
    return { index: i + 1, ...p, text: clip(p.text) };
  });
}

/** The engine of a query that is exactly one checkable part (nothing else in it), or null. */
export function routeQuery(query: string, opts: { schemaDdl?: string } = {}): EngineRoute | null {
  const parts = splitQuery(query, opts);
  return parts.length === 1 && parts[0]?.route ? parts[0].route : null;
}
