// Tool-call policy: the built-in safe and dangerous lists, what each dangerous category needs,
// and how a call's arguments reach the code and SQL engines. Pure.

import { normalizeToolName } from '../../contract/tool-names.js';
import type { ToolEngineCall } from '../../core/agent-workflow.js';
import { maskKeyShaped } from '../agent-guards/text.js';

export type ToolCategory =
  'safe' | 'shell' | 'code_execution' | 'file_deletion' | 'payment' | 'email' | 'http' | 'sql' | 'unknown';

/** Dangerous tools need the agent's explicit allow (permissions.allowed_tools). */
export const DANGEROUS_TOOLS: Readonly<Record<string, ToolCategory>> = {
  shell: 'shell',
  bash: 'shell',
  sh: 'shell',
  terminal: 'shell',
  run_command: 'shell',
  execute_command: 'shell',
  exec: 'shell',
  run_shell_command: 'shell',
  shell_exec: 'shell',
  cmd: 'shell',
  powershell: 'shell',
  code_execution: 'code_execution',
  execute_code: 'code_execution',
  run_code: 'code_execution',
  python: 'code_execution',
  run_python: 'code_execution',
  python_repl: 'code_execution',
  eval: 'code_execution',
  javascript: 'code_execution',
  run_javascript: 'code_execution',
  code_interpreter: 'code_execution',
  delete_file: 'file_deletion',
  remove_file: 'file_deletion',
  file_delete: 'file_deletion',
  rm: 'file_deletion',
  delete_directory: 'file_deletion',
  remove_directory: 'file_deletion',
  unlink: 'file_deletion',
  payment: 'payment',
  send_payment: 'payment',
  make_payment: 'payment',
  transfer_funds: 'payment',
  transfer_money: 'payment',
  charge_card: 'payment',
  create_charge: 'payment',
  refund: 'payment',
  wire_transfer: 'payment',
  send_email: 'email',
  email_send: 'email',
  send_mail: 'email',
  gmail_send: 'email',
  reply_email: 'email',
  forward_email: 'email',
  http_request: 'http',
  fetch_url: 'http',
  http_get: 'http',
  http_post: 'http',
  web_request: 'http',
  curl: 'http',
  fetch: 'http',
  webhook: 'http',
  post_request: 'http',
  sql_execute: 'sql',
  execute_sql: 'sql',
  run_sql: 'sql',
  sql_write: 'sql',
  database_write: 'sql',
};

/** Read-only or side-effect-free tools. SQL read tools are safe but their query still goes to the SQL engine. */
export const SAFE_TOOLS: Readonly<Record<string, ToolCategory>> = {
  calculator: 'safe',
  calculate: 'safe',
  search: 'safe',
  web_search: 'safe',
  get_time: 'safe',
  get_current_time: 'safe',
  get_weather: 'safe',
  summarize: 'safe',
  translate: 'safe',
  lookup: 'safe',
  read_docs: 'safe',
  list_directory: 'safe',
  read_file: 'safe',
  get_file_info: 'safe',
  search_files: 'safe',
  read_graph: 'safe',
  search_nodes: 'safe',
  convert_time: 'safe',
  sql_query: 'sql',
  query_database: 'sql',
  read_query: 'sql',
  sql_select: 'sql',
  list_tables: 'safe',
  describe_table: 'safe',
  echo: 'safe',
  sequentialthinking: 'safe',
};

export { normalizeToolName };

/** Whether the agent's policy (permissions.require_approval) makes an admitted call of `tool` wait for a person's approval (docs/approvals.md). */
export function needsApproval(tool: string, requireApproval: readonly string[]): boolean {
  const n = normalizeToolName(tool);
  return requireApproval.some((t) => normalizeToolName(t) === n);
}

export function classifyTool(name: string): { category: ToolCategory; dangerous: boolean; known: boolean } {
  const n = normalizeToolName(name);
  const d = DANGEROUS_TOOLS[n];
  if (d) return { category: d, dangerous: true, known: true };
  const s = SAFE_TOOLS[n];
  if (s) return { category: s, dangerous: false, known: true };
  return { category: 'unknown', dangerous: false, known: false };
}

// ---------------------------------------------------------------------------------------
// Tool-call arguments: which strings are checked, in which language, and how strictly
// ---------------------------------------------------------------------------------------

/** Tools whose name fixes the language they run: the caller's `language` never overrides it. */
const FIXED_LANGUAGE: Readonly<Record<string, string>> = {
  python: 'python',
  run_python: 'python',
  python_repl: 'python',
  javascript: 'javascript',
  run_javascript: 'javascript',
};
/** Shell tools whose language no checker here reads: their calls are denied (fail closed). */
const UNCHECKABLE_SHELLS: Readonly<Record<string, string>> = { powershell: 'PowerShell' };
/** Languages the code tools accept from the caller (the code engine's own names and aliases). */
const CODE_LANGUAGES: Readonly<Record<string, string>> = {
  python: 'python',
  py: 'python',
  python3: 'python',
  py3: 'python',
  javascript: 'javascript',
  js: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
  'node.js': 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ecmascript: 'javascript',
  typescript: 'typescript',
  ts: 'typescript',
  tsx: 'tsx',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  go: 'go',
  golang: 'go',
  java: 'java',
  ruby: 'ruby',
  rb: 'ruby',
  php: 'php',
};
/** A generic code tool runs the caller's language; its code is also probed in these (deny when it parses cleanly there and is unsafe). */
export const PROBE_LANGUAGES = ['python', 'javascript', 'bash', 'ruby', 'php'] as const;

/** Argument names whose value is the code, command or query the tool runs. */
export const CODE_ARGUMENT_NAMES = new Set([
  'command',
  'commands',
  'cmd',
  'cmds',
  'script',
  'scripts',
  'code',
  'source',
  'source_code',
  'src',
  'program',
  'snippet',
  'cell',
  'args',
  'argv',
  'exec',
  'run',
  'line',
  'lines',
  'expression',
  'expr',
  'shell',
  'bash',
  'python',
  'js',
  'javascript',
  'query',
  'queries',
  'sql',
  'statement',
  'statements',
  'sql_query',
  'q',
]);
/** Argument names the guard knows as parameters (their names are not checked; their values still are). */
const KNOWN_PARAMETER_NAMES = new Set([
  ...CODE_ARGUMENT_NAMES,
  'language',
  'lang',
  'dialect',
  'schema_ddl',
  'schema',
  'timeout',
  'timeout_ms',
  'cwd',
  'working_directory',
  'workdir',
  'env',
  'description',
  'title',
  'name',
  'limit',
  'input',
  'stdin',
  'body',
  'arguments',
  'database',
  'db',
  'params',
  'parameters',
  'options',
  'shell_type',
  'restart',
]);
/** A tool call may need at most this many engine checks; more is denied (unclassifiable in time). */
export const MAX_TOOL_ENGINE_CHECKS = 24;

/** Check modes: see ToolEngineCall.mode (core/agent-workflow.ts) and judgeToolCheck below. */
export type ToolCheck = ToolEngineCall;

export interface ToolCheckPlan {
  checks: ToolCheck[];
  /** Reasons to deny found while planning (an argument that cannot be classified). */
  denials: string[];
}

interface ArgString {
  location: string;
  text: string;
  /** The value of a code-bearing argument (its own name, or an enclosing one, is in CODE_ARGUMENT_NAMES). */
  code: boolean;
  key: boolean;
  /** The argument's own name, lower-cased (for the language/dialect selectors). */
  name: string;
}

/** Every string of the arguments, keys included, nested to any depth (bounded); arrays of strings also as one space-joined command line. */
function argumentStrings(args: Record<string, unknown>): { strings: ArgString[]; overflow: boolean } {
  const out: ArgString[] = [];
  let overflow = false;
  const stack: Array<{ v: unknown; path: string; code: boolean; name: string; depth: number }> = [
    { v: args, path: 'arguments', code: false, name: '', depth: 0 },
  ];
  while (stack.length) {
    const { v, path, code, name, depth } = stack.pop()!;
    if (out.length > 4000 || depth > 32) {
      overflow = true;
      break;
    }
    if (typeof v === 'string') out.push({ location: path, text: v, code, key: false, name });
    else if (Array.isArray(v)) {
      if (v.length > 0 && v.every((x) => typeof x === 'string'))
        out.push({ location: `${path}[*]`, text: (v as string[]).join(' '), code, key: false, name });
      v.forEach((x, i) => stack.push({ v: x, path: `${path}[${i}]`, code, name, depth: depth + 1 }));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const lk = normalizeToolName(k);
        // Locations reach the response, the activity record and the audit summary: never a key-shaped key.
        const seg = maskKeyShaped(k.slice(0, 256)).slice(0, 64);
        out.push({ location: `${path}.${seg}#key`, text: k, code: false, key: true, name: lk });
        stack.push({
          v: x,
          path: `${path}.${seg}`,
          code: code || CODE_ARGUMENT_NAMES.has(lk),
          name: lk,
          depth: depth + 1,
        });
      }
    }
  }
  return { strings: out, overflow };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Text that cannot change a SQL statement it is put into: letters, digits, spaces and harmless punctuation, no SQL word that joins or starts statements. */
const SQL_DATA_CHARS = /^[\p{L}\p{N} _.,:@/+-]{0,512}$/u;
const SQL_WORDS =
  /(?:^|[^A-Za-z0-9_])(?:select|insert|update|delete|drop|alter|create|truncate|grant|revoke|with|merge|replace|exec|execute|call|attach|detach|pragma|vacuum|copy|load|set|begin|commit|rollback|union|declare|shutdown|or|and|into|from|where|table)(?:[^A-Za-z0-9_]|$)/i;

export function isSqlData(text: string): boolean {
  return SQL_DATA_CHARS.test(text) && !text.includes('--') && !SQL_WORDS.test(text);
}

/**
 * The engine checks a tool call needs (docs/agents.md "Tool-call arguments"): every string
 * argument that can carry code, a command or SQL, keys and nested values included, in the
 * language the tool itself runs. Null for tools without an engine check (safe tools, e-mail,
 * HTTP, payments, file deletion).
 */
export function planToolChecks(
  tool: string,
  category: ToolCategory,
  args: Record<string, unknown>,
): ToolCheckPlan | null {
  if (category !== 'shell' && category !== 'code_execution' && category !== 'sql') return null;
  const name = normalizeToolName(tool);
  const denials: string[] = [];
  const { strings, overflow } = argumentStrings(args);
  if (overflow)
    return {
      checks: [],
      denials: [`'${name}' arguments are nested too deeply or hold too many strings to check (fail closed)`],
    };
  const checks: ToolCheck[] = [];
  const seen = new Set<string>();
  const add = (c: ToolCheck, text: string) => {
    const id = `${c.engine}|${c.mode}|${String(c.input.language ?? '')}|${text}`;
    if (seen.has(id)) return;
    seen.add(id);
    checks.push(c);
  };

  if (category === 'sql') {
    const ddl = typeof args.schema_ddl === 'string' ? args.schema_ddl : '';
    const dialect = typeof args.dialect === 'string' ? args.dialect : undefined;
    const sqlInput = (q: string) => ({ query: q, schema_ddl: ddl, ...(dialect ? { dialect } : {}) });
    let statements = 0;
    for (const s of strings) {
      if (s.text.trim() === '') continue;
      if (s.location === 'arguments.schema_ddl' || (s.location === 'arguments.dialect' && IDENTIFIER.test(s.text)))
        continue;
      if (s.key) {
        if (KNOWN_PARAMETER_NAMES.has(s.name) || IDENTIFIER.test(s.text)) continue;
        add({ engine: 'sql', input: sqlInput(s.text), location: s.location, mode: 'strict' }, s.text);
        continue;
      }
      if (s.code) statements++;
      // A query argument is SQL; any other text that could change a statement it is put into is checked as SQL too.
      if (s.code || !isSqlData(s.text))
        add({ engine: 'sql', input: sqlInput(s.text), location: s.location, mode: 'strict' }, s.text);
    }
    if (statements === 0)
      denials.push(
        `'${name}' arguments lack a query (query, sql or statement), so the SQL check cannot run (fail closed)`,
      );
  } else {
    // Shell tools run bash; python/javascript tools their own language; generic code tools the caller's `language`.
    let language: string | null;
    let probes: readonly string[] = [];
    if (category === 'shell') {
      if (UNCHECKABLE_SHELLS[name])
        return {
          checks: [],
          denials: [
            `'${name}' runs ${UNCHECKABLE_SHELLS[name]}, which no checker here reads, so its command cannot be classified (fail closed)`,
          ],
        };
      language = 'bash';
    } else if (FIXED_LANGUAGE[name]) {
      language = FIXED_LANGUAGE[name] as string;
    } else {
      const asked =
        typeof args.language === 'string' ? args.language : typeof args.lang === 'string' ? args.lang : 'python';
      language = CODE_LANGUAGES[asked.trim().toLowerCase()] ?? null;
      if (!language)
        return {
          checks: [],
          denials: [
            `'${name}' arguments ask for language '${asked.slice(0, 40)}', which the code check does not read (fail closed)`,
          ],
        };
      probes = PROBE_LANGUAGES.filter((l) => l !== language && !(language === 'typescript' && l === 'javascript'));
    }
    let codeArgs = 0;
    for (const s of strings) {
      if (s.text.trim() === '') continue;
      // The language selector is a parameter, not code, when it names a language.
      if ((s.name === 'language' || s.name === 'lang') && !s.key && CODE_LANGUAGES[s.text.trim().toLowerCase()])
        continue;
      if (s.key && KNOWN_PARAMETER_NAMES.has(s.name)) continue;
      if (s.code && !s.key) {
        codeArgs++;
        add({ engine: 'code', input: { code: s.text, language }, location: s.location, mode: 'strict' }, s.text);
        for (const p of probes)
          add({ engine: 'code', input: { code: s.text, language: p }, location: s.location, mode: 'probe' }, s.text);
      } else {
        add({ engine: 'code', input: { code: s.text, language }, location: s.location, mode: 'lenient' }, s.text);
      }
    }
    if (codeArgs === 0)
      denials.push(
        `'${name}' arguments lack a ${category === 'shell' ? 'command (command, cmd or script)' : 'code argument (code, source or script)'}, so the ${category} check cannot run (fail closed)`,
      );
  }
  if (checks.length > MAX_TOOL_ENGINE_CHECKS)
    return {
      checks: [],
      denials: [
        `'${name}' arguments need ${checks.length} engine checks, more than the ${MAX_TOOL_ENGINE_CHECKS} a call may have: they cannot all be classified (fail closed)`,
      ],
    };
  return { checks, denials };
}
