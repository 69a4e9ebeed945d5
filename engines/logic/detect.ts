// Decides whether a query is meant as DSL or is natural language (which needs an LLM
// translation step before it can be solved).
//
// DSL when, after leading whitespace, the query starts with '(' or ')' or with an identifier
// immediately followed by '(' (call form), or with a known operator/VAR followed by
// whitespace and '('. Anything that looks like DSL is parsed and policed by the DSL rules,
// so e.g. `(SYSTEM ...)` is BLOCKED rather than sent to a translator.

import { DECLARATION_KEYWORD, lookupOperator } from './operators.js';

const CALL_START = /^([A-Za-z_][A-Za-z0-9_]*)(\s*)\(/;

export function looksLikeDsl(query: string): boolean {
  const q = query.trimStart();
  if (q.startsWith('(') || q.startsWith(')')) return true;
  const m = CALL_START.exec(q);
  if (m === null) return false;
  if (m[2] === '') return true;
  return lookupOperator(m[1]) !== null || m[1].toUpperCase() === DECLARATION_KEYWORD;
}
