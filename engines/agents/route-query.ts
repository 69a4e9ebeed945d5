// Which deterministic engine an agent's query belongs to (math, logic, code, SQL), and the
// engine input built from it. Anything else is not routed: the response then says that only
// the guards ran. Pure; no regex here can backtrack (fences are found with indexOf).
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

const LANG_ALIASES: Record<string, string> = { py: 'python', python3: 'python', js: 'javascript', node: 'javascript', ts: 'typescript', sh: 'bash', shell: 'bash', zsh: 'bash' };

/** The first fenced block ```lang\n…```, found without regexes. */
function fencedBlock(q: string): { lang: string; code: string } | null {
  const open = q.indexOf('```');
  if (open < 0) return null;
  const nl = q.indexOf('\n', open + 3);
  if (nl < 0) return null;
  const close = q.indexOf('```', nl + 1);
  if (close < 0) return null;
  const lang = q.slice(open + 3, nl).trim().toLowerCase();
  return { lang: LANG_ALIASES[lang] ?? lang, code: q.slice(nl + 1, close) };
}

const SQL_START = /^\s*(?:select|insert|update|delete|with|create|drop|alter|replace|merge|truncate|grant|revoke)\s/i;
const MATH_CHARS = /^[0-9A-Za-z\s+\-*/^().,=<>!_%]{1,2000}$/;
const HAS_OPERATOR = /[0-9)a-zA-Z]\s*[-+*/^=<>!%]|[a-z]\(/;
const DSL_OPERATOR_CALL = /(?:^|[^A-Za-z0-9_])[A-Z][A-Z_]{1,}\s*\(/;
const CODE_START = /^\s*(?:#!|import\s|from\s+[\w.]+\s+import\s|def\s|class\s|function\s|const\s|let\s|var\s|async\s+function|#include|package\s|public\s+class|using\s|fn\s)/;

function guessLanguage(code: string): string {
  if (/^\s*#!.*\b(?:ba|z)?sh\b/.test(code)) return 'bash';
  if (/^\s*(?:import\s|from\s+[\w.]+\s+import|def\s|class\s+\w+\s*[:(])/m.test(code)) return 'python';
  if (/^\s*(?:const|let|var|function|async\s+function)\s/m.test(code)) return 'javascript';
  return 'python';
}

export function routeQuery(query: string, opts: { schemaDdl?: string } = {}): EngineRoute | null {
  const fence = fencedBlock(query);
  if (fence) {
    if (fence.lang === 'sql') return { engine: 'sql', input: { query: fence.code, schema_ddl: opts.schemaDdl ?? '' } };
    if (fence.lang === 'logic' || fence.lang === 'smt') return { engine: 'logic', input: { query: fence.code.trim() } };
    if (fence.lang === 'math') return { engine: 'math', input: { expression: fence.code.trim() } };
    return { engine: 'code', input: { code: fence.code, language: fence.lang || guessLanguage(fence.code) } };
  }
  const q = query.trim();
  if (SQL_START.test(q)) return { engine: 'sql', input: { query: q, schema_ddl: opts.schemaDdl ?? '' } };
  if (looksLikeDsl(q) && DSL_OPERATOR_CALL.test(q)) return { engine: 'logic', input: { query: q } };
  if (CODE_START.test(q)) return { engine: 'code', input: { code: q, language: guessLanguage(q) } };
  if (MATH_CHARS.test(q) && HAS_OPERATOR.test(q) && /[0-9]|=/.test(q) && !/\s[a-z]{4,}\s[a-z]{4,}/i.test(q)) return { engine: 'math', input: { expression: q } };
  if (looksLikeDsl(q)) return { engine: 'logic', input: { query: q } };
  return null;
}
