// How one engine check of a tool call's arguments (engines/agents/tool-policy.ts planToolChecks)
// is judged. Pure, no imports but types: the agent workflow runs it.
import type { ToolEngineCall } from '../../core/agent-workflow.js';

const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Why a tool call is denied on one engine check's result, or null. Any missing or unreadable result denies (fail closed). */
export function judgeToolCheck(check: ToolEngineCall, result: unknown): string | null {
  const at = `${check.location} (${check.engine === 'sql' ? 'SQL' : String(check.input.language)})`;
  if (result === null || typeof result !== 'object') return `${check.engine} engine gave no result for ${at}`;
  const r = rec(result);
  const df = rec(r.developer_fields);
  const msg = typeof r.agent_message === 'string' ? r.agent_message : '';
  const issues = Array.isArray(df.issues) ? df.issues.map(rec) : [];
  const severe =
    issues.some((i) => i.severity === 'critical' || i.severity === 'high') ||
    (typeof df.critical_count === 'number' && df.critical_count > 0);
  const constraint = typeof df.constraint_id === 'string' ? df.constraint_id : '';
  const parseTrouble = /parse/.test(constraint) || issues.some((i) => i.type === 'parse_error');
  if (check.engine === 'sql') {
    if (r.status === 'BLOCKED') return `SQL engine blocked ${at}: ${msg}`.slice(0, 300);
    if (df.malicious_classification === true || df.is_valid === false)
      return `SQL engine rejected ${at}: ${msg}`.slice(0, 300);
    return null;
  }
  if (check.mode === 'strict') {
    if (r.status === 'BLOCKED') return `code engine blocked ${at}: ${msg}`.slice(0, 300);
    if (df.is_safe === false || df.is_valid === false)
      return `code engine found security issues in ${at}: ${msg}`.slice(0, 300);
    if (parseTrouble)
      return `${at} does not parse as ${String(check.input.language)}, so it cannot be classified (fail closed)`;
    return null;
  }
  if (check.mode === 'lenient') {
    if (severe || df.is_safe === false) return `code engine found security issues in ${at}: ${msg}`.slice(0, 300);
    // Not valid syntax of the language: it cannot run as it. Any other block (time-out, engine failure) denies.
    if (r.status === 'BLOCKED' && !parseTrouble) return `code engine could not check ${at}: ${msg}`.slice(0, 300);
    return null;
  }
  // probe
  if (r.status !== 'BLOCKED' && !parseTrouble && (df.is_safe === false || severe))
    return `code engine found security issues in ${at}, a language the call could run it in: ${msg}`.slice(0, 300);
  return null;
}
