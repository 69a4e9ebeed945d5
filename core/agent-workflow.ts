// Data exchanged between the API, the agent workflows and their activities (types only, plus
// pure constants): the workflow bundle imports this file, so it must stay deterministic.
import type { Sealed } from './sealed.js';

export interface AgentRef {
  id: string;
  num: number;
  org_id: string;
  allowed_tools: string[];
  denied_tools: string[];
  allowed_domains: string[];
  /** Tools whose admitted calls wait for approval (docs/approvals.md); absent on runs started before it existed. */
  require_approval?: string[];
}

export type RoutedEngine = 'math' | 'logic' | 'code' | 'sql';

export interface AgentWorkflowInput {
  kind: 'verify' | 'tool';
  agent: AgentRef;
  /** The query and tool_schema (verify) or the arguments (tool), encrypted (core/sealed.ts). */
  sealed: Sealed;
  /** Tool endpoint: the tool name from the path. */
  tool?: string;
  context?: { conversation_id: string; step_number: number } | null;
  engine_timeouts_ms: Record<RoutedEngine, number>;
  guard_timeout_ms: number;
}

export interface GuardFindingData {
  detector: 'exfiltration' | 'tool_poisoning';
  kind: string;
  category: string;
  location: string;
  encoding: string;
  excerpt: string;
}

export interface EngineCall {
  engine: RoutedEngine;
  input: Record<string, unknown>;
}

/** One engine check of a tool call's arguments (engines/agents/tool-policy.ts planToolChecks). */
export interface ToolEngineCall {
  engine: 'code' | 'sql';
  input: Record<string, unknown>;
  /** Where the checked text is (`arguments.cmd`, `arguments.options.x#key` …). */
  location: string;
  /** strict: a code/command/SQL argument; lenient: any other string or key; probe: the code in another language. */
  mode: 'strict' | 'lenient' | 'probe';
}

export interface VerifyGuardResult {
  kind: 'verify';
  outcome: 'flagged' | 'tool_changed' | 'clean';
  findings: GuardFindingData[];
  tool_name: string | null;
  pinned_hash: string | null;
  presented_hash: string | null;
  tool_pin: 'pinned' | 'matched' | 'not_run';
  tool_poisoning: 'clean' | 'not_run';
  /** Every part of the query (engines/agents/route-query.ts splitQuery): each routed part runs its
   *  engine; a part without a route was checked by no engine. Empty unless the request is clean. */
  parts: VerifyPart[];
  /** What the audit entry may show of the query (the query when clean, a summary otherwise). */
  claim: string;
  request_digest: string;
}

export interface VerifyPart {
  /** 1-based, in query order. */
  index: number;
  /** The exact text the engine checks (or that no engine checked). */
  text: string;
  route: EngineCall | null;
  /** Why no engine checked the part (null when routed). */
  reason: string | null;
}

export interface ToolGuardResult {
  kind: 'tool';
  tool: string;
  category: string;
  dangerous: boolean;
  known: boolean;
  /** Reasons to deny found before any engine ran. */
  reasons: string[];
  findings: GuardFindingData[];
  /** Every engine check the arguments need (all must pass); empty when the call is already denied or needs none. */
  checks: ToolEngineCall[];
  claim: string;
  request_digest: string;
}

export type GuardResult = VerifyGuardResult | ToolGuardResult;

export interface AgentWorkflowResult {
  /** Refused by the agent security policy (403 at the route), else answered (200). */
  refused: boolean;
  body: Record<string, unknown>;
  audit_log_id: string;
}

export interface RecordActivityInput {
  agent_id: string;
  org_id: string;
  kind: 'verify' | 'tool';
  status: string;
  summary: string;
  workflow_id: string;
  audit_log_id: string;
  conversation_id: string | null;
  step_number: number | null;
  tool: string | null;
  engine: string | null;
  findings: GuardFindingData[];
}
