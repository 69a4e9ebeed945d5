// Tool-call policy: the built-in safe and dangerous lists, what each dangerous category needs,
// and how a call's arguments reach the code and SQL engines. Pure.

export type ToolCategory = 'safe' | 'shell' | 'code_execution' | 'file_deletion' | 'payment' | 'email' | 'http' | 'sql' | 'unknown';

/** Dangerous tools need the agent's explicit allow (permissions.allowed_tools). */
export const DANGEROUS_TOOLS: Readonly<Record<string, ToolCategory>> = {
  shell: 'shell', bash: 'shell', sh: 'shell', terminal: 'shell', run_command: 'shell', execute_command: 'shell', exec: 'shell', run_shell_command: 'shell', shell_exec: 'shell', cmd: 'shell', powershell: 'shell',
  code_execution: 'code_execution', execute_code: 'code_execution', run_code: 'code_execution', python: 'code_execution', run_python: 'code_execution', python_repl: 'code_execution', eval: 'code_execution', javascript: 'code_execution', run_javascript: 'code_execution', code_interpreter: 'code_execution',
  delete_file: 'file_deletion', remove_file: 'file_deletion', file_delete: 'file_deletion', rm: 'file_deletion', delete_directory: 'file_deletion', remove_directory: 'file_deletion', unlink: 'file_deletion',
  payment: 'payment', send_payment: 'payment', make_payment: 'payment', transfer_funds: 'payment', transfer_money: 'payment', charge_card: 'payment', create_charge: 'payment', refund: 'payment', wire_transfer: 'payment',
  send_email: 'email', email_send: 'email', send_mail: 'email', gmail_send: 'email', reply_email: 'email', forward_email: 'email',
  http_request: 'http', fetch_url: 'http', http_get: 'http', http_post: 'http', web_request: 'http', curl: 'http', fetch: 'http', webhook: 'http', post_request: 'http',
  sql_execute: 'sql', execute_sql: 'sql', run_sql: 'sql', sql_write: 'sql', database_write: 'sql',
};

/** Read-only or side-effect-free tools. SQL read tools are safe but their query still goes to the SQL engine. */
export const SAFE_TOOLS: Readonly<Record<string, ToolCategory>> = {
  calculator: 'safe', calculate: 'safe', search: 'safe', web_search: 'safe', get_time: 'safe', get_current_time: 'safe', get_weather: 'safe', summarize: 'safe', translate: 'safe',
  lookup: 'safe', read_docs: 'safe', list_directory: 'safe', read_file: 'safe', get_file_info: 'safe', search_files: 'safe', read_graph: 'safe', search_nodes: 'safe', convert_time: 'safe',
  sql_query: 'sql', query_database: 'sql', read_query: 'sql', sql_select: 'sql', list_tables: 'safe', describe_table: 'safe', echo: 'safe', sequentialthinking: 'safe',
};

export function normalizeToolName(name: string): string {
  return name.trim().toLowerCase().replace(/[-.\s]+/g, '_');
}

export function classifyTool(name: string): { category: ToolCategory; dangerous: boolean; known: boolean } {
  const n = normalizeToolName(name);
  const d = DANGEROUS_TOOLS[n];
  if (d) return { category: d, dangerous: true, known: true };
  const s = SAFE_TOOLS[n];
  if (s) return { category: s, dangerous: false, known: true };
  return { category: 'unknown', dangerous: false, known: false };
}

const firstString = (args: Record<string, unknown>, keys: string[]): string | null => {
  for (const k of keys) {
    const v = args[k];
    if (typeof v === 'string' && v.length > 0) return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return (v as string[]).join(' ');
  }
  return null;
};

/** The engine input a tool call's arguments need, if its category has an engine. */
export function engineInputForTool(category: ToolCategory, args: Record<string, unknown>):
  | { engine: 'code'; input: { code: string; language: string } }
  | { engine: 'sql'; input: { query: string; schema_ddl: string; dialect?: string } }
  | { engine: null; missing: string }
  | null {
  if (category === 'shell') {
    const cmd = firstString(args, ['command', 'cmd', 'script', 'commands', 'args']);
    return cmd === null ? { engine: null, missing: 'command' } : { engine: 'code', input: { code: cmd, language: 'bash' } };
  }
  if (category === 'code_execution') {
    const code = firstString(args, ['code', 'source', 'script', 'program']);
    const lang = typeof args.language === 'string' ? args.language.toLowerCase() : 'python';
    return code === null ? { engine: null, missing: 'code' } : { engine: 'code', input: { code, language: lang } };
  }
  if (category === 'sql') {
    const q = firstString(args, ['query', 'sql', 'statement']);
    const ddl = typeof args.schema_ddl === 'string' ? args.schema_ddl : '';
    const dialect = typeof args.dialect === 'string' ? args.dialect : undefined;
    return q === null ? { engine: null, missing: 'query' } : { engine: 'sql', input: { query: q, schema_ddl: ddl, ...(dialect ? { dialect } : {}) } };
  }
  return null;
}
