// The agent guards as one entry point: what the guard worker thread runs (engines stay pure).
import { scanText, scanValue, type ExfilFinding } from './exfiltration.js';
import { scanToolDefinition, type PoisonFinding } from './tool-poisoning.js';

export type { ExfilFinding } from './exfiltration.js';
export type { PoisonFinding } from './tool-poisoning.js';
export type GuardFinding = ExfilFinding | PoisonFinding;

export type GuardTask =
  | {
      op: 'verify';
      query: string;
      tool_schema?: Record<string, unknown> | null;
      schema_ddl?: string | null;
      allowed_domains: string[];
    }
  | { op: 'arguments'; arguments: Record<string, unknown>; allowed_domains: string[] };

export interface GuardReport {
  exfiltration: ExfilFinding[];
  tool_poisoning: PoisonFinding[] | null;
}

export function runGuardTask(task: GuardTask): GuardReport {
  if (task.op === 'verify') {
    const exfiltration = scanText(task.query, 'query', { allowedDomains: task.allowed_domains });
    // The DDL travels to the SQL engine with the query, so it is scanned the same way.
    if (task.schema_ddl)
      exfiltration.push(...scanText(task.schema_ddl, 'schema_ddl', { allowedDomains: task.allowed_domains }));
    const tool_poisoning = task.tool_schema
      ? scanToolDefinition(task.tool_schema).map((f) => ({ ...f, location: `tool_schema.${f.location}` }))
      : null;
    return { exfiltration, tool_poisoning };
  }
  return {
    exfiltration: scanValue(task.arguments, 'arguments', { allowedDomains: task.allowed_domains }),
    tool_poisoning: null,
  };
}
