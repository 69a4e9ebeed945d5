// Final decisions of the agent endpoints from the guard result and the engine's result.
// Pure and deterministic (the workflow calls it): no I/O, no clock, no randomness.
import type { GuardFindingData, ToolGuardResult, VerifyGuardResult } from '../../core/agent-workflow.js';
import { judgeToolCheck } from './tool-judge.js';

const METHODS: Record<string, string> = {
  math: 'exact symbolic/rational evaluation by the math engine; a proven identity is retained as proof_ref and attested',
  logic: 'SMT solving with Z3 over the logic DSL; a SAT model is re-checked by an independent evaluator (no proof_ref: never VERIFIED)',
  code: 'static security analysis of the syntax tree (tree-sitter rules); proven outcomes are retained and attested',
  sql: 'SQL parsing, schema resolution and malice classification by the SQL engine',
};

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const PROOF_REF = /^sha256:[0-9a-f]{64}$/;

function summarizeFindings(findings: GuardFindingData[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))];
  return `${findings.length} finding(s): ${kinds.slice(0, 8).join(', ')}`;
}

export interface Decision {
  http_status: number;
  body: Record<string, unknown>;
  /** For the audit entry and the activity record. */
  status: string;
  summary: string;
  engine: string | null;
  proof_ref: string | null;
  admission: string | null;
  attestation_id: string | null;
}

export function decideVerify(g: VerifyGuardResult, engineResult: unknown, ctx: { agent_id: string; conversation_id: string; step_number: number }): Decision {
  if (g.outcome === 'flagged') {
    return {
      http_status: 403,
      body: { detail: `Request blocked by the agent security policy (${summarizeFindings(g.findings)}).`, status: 'BLOCKED', findings: g.findings },
      status: 'BLOCKED',
      summary: `blocked: ${summarizeFindings(g.findings)}`,
      engine: null,
      proof_ref: null,
      admission: null,
      attestation_id: null,
    };
  }
  if (g.outcome === 'tool_changed') {
    return {
      http_status: 403,
      body: { detail: 'tool definition changed', status: 'BLOCKED', tool: g.tool_name, pinned_hash: g.pinned_hash, presented_hash: g.presented_hash },
      status: 'BLOCKED',
      summary: `blocked: tool definition of '${g.tool_name}' changed`,
      engine: null,
      proof_ref: null,
      admission: null,
      attestation_id: null,
    };
  }
  const r = rec(engineResult);
  const engine = g.route?.engine ?? null;
  const proofRef = typeof r.proof_ref === 'string' && PROOF_REF.test(r.proof_ref) ? r.proof_ref : null;
  const engineStatus = typeof r.status === 'string' ? r.status : null;
  // VERIFIED only when the engine itself returned VERIFIED with a well-formed proof_ref.
  const status = engineStatus === 'VERIFIED' && proofRef ? 'VERIFIED' : engineStatus === 'BLOCKED' ? 'BLOCKED' : 'UNVERIFIABLE';
  const admission = typeof r.admission === 'string' ? r.admission : null;
  const attestationId = typeof rec(r.attestation).id === 'string' ? (rec(r.attestation).id as string) : null;
  const method = engine ? (METHODS[engine] as string) : 'no deterministic engine matches the query (math expression, logic DSL, code, SQL): only the exfiltration and tool-definition guards ran';
  return {
    http_status: 200,
    body: {
      status,
      verified: status === 'VERIFIED',
      agent_id: ctx.agent_id,
      conversation_id: ctx.conversation_id,
      step_number: ctx.step_number,
      verification: { engine, method, verified_claim: g.claim, engine_status: engineStatus, proof_ref: status === 'VERIFIED' ? proofRef : null, admission, result: engineResult ?? null },
      guards: { exfiltration: 'clean', tool_poisoning: g.tool_poisoning, tool_pin: g.tool_pin },
    },
    status,
    summary: engine ? `${engine}: ${engineStatus ?? 'no status'}` : 'guards only: no engine matched',
    engine,
    proof_ref: status === 'VERIFIED' ? proofRef : null,
    admission,
    attestation_id: attestationId,
  };
}

const BASE_RISK: Record<string, number> = { safe: 0.1, sql: 0.3, http: 0.5, email: 0.5, unknown: 0.6, file_deletion: 0.7, code_execution: 0.7, payment: 0.8, shell: 0.8 };

/** `engineResults[i]` is the result of `g.checks[i]`; every check must pass. */
export function decideTool(g: ToolGuardResult, engineResults: readonly unknown[]): Decision {
  const reasons = [...g.reasons];
  let risk = BASE_RISK[g.category] ?? 0.6;
  for (const f of g.findings) {
    reasons.push(`arguments: ${f.kind} at ${f.location} (${f.encoding})`);
    risk = Math.max(risk, f.category === 'secret' ? 1 : f.category === 'personal_data' ? 0.9 : 0.8);
  }
  g.checks.forEach((check, i) => {
    const denial = judgeToolCheck(check, engineResults[i]);
    if (denial) {
      reasons.push(denial);
      risk = Math.max(risk, 0.95);
    }
  });
  const allowed = reasons.length === 0;
  if (!allowed && g.reasons.length > 0) risk = Math.max(risk, g.known ? risk : 0.6);
  if (allowed) reasons.push(g.dangerous ? `dangerous tool '${g.tool}' (${g.category}) explicitly allowed; arguments passed the checks` : `'${g.tool}' is on the safe list; arguments passed the checks`);
  const riskScore = Math.round(Math.min(1, Math.max(0, risk)) * 100) / 100;
  return {
    http_status: 200,
    body: { decision: allowed ? 'allow' : 'deny', allowed, risk_score: riskScore, reasons, tool: g.tool, category: g.category, findings: g.findings },
    status: allowed ? 'ALLOW' : 'DENY',
    summary: `${allowed ? 'allow' : 'deny'} ${g.tool}: ${reasons[0] ?? ''}`.slice(0, 300),
    engine: g.checks[0]?.engine ?? null,
    proof_ref: null,
    admission: null,
    attestation_id: null,
  };
}
