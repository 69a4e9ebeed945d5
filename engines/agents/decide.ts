// Final decisions of the agent endpoints from the guard result and the engine's result.
// Pure and deterministic (the workflow calls it): no I/O, no clock, no randomness.
import type { GuardFindingData, ToolGuardResult, VerifyGuardResult } from '../../core/agent-workflow.js';
import { judgeToolCheck } from './tool-judge.js';

const METHODS: Record<string, string> = {
  math: 'exact symbolic/rational evaluation by the math engine; a proven identity is retained as proof_ref and attested',
  logic:
    'SMT solving with Z3 over the logic DSL; a SAT model is re-checked by an independent evaluator (no proof_ref: never VERIFIED)',
  code: 'static security analysis of the syntax tree (tree-sitter rules); proven outcomes are retained and attested',
  sql: 'SQL parsing, schema resolution and malice classification by the SQL engine',
};

const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const PROOF_REF = /^sha256:[0-9a-f]{64}$/;

function summarizeFindings(findings: GuardFindingData[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))];
  return `${findings.length} finding(s): ${kinds.slice(0, 8).join(', ')}`;
}

export interface Decision {
  /** The request was refused by the agent security policy (the route answers 403), else answered. */
  refused: boolean;
  body: Record<string, unknown>;
  /** For the audit entry and the activity record. */
  status: string;
  summary: string;
  engine: string | null;
  proof_ref: string | null;
  admission: string | null;
  attestation_id: string | null;
}

/** The verify decision; `engineResults[i]` is the result of `g.parts[i]`'s engine (null for an unrouted part). */
export function decideVerify(
  g: VerifyGuardResult,
  engineResults: readonly unknown[],
  ctx: { agent_id: string; conversation_id: string; step_number: number },
): Decision {
  if (g.outcome === 'flagged') {
    return {
      refused: true,
      body: {
        detail: `Request blocked by the agent security policy (${summarizeFindings(g.findings)}).`,
        status: 'BLOCKED',
        findings: g.findings,
      },
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
      refused: true,
      body: {
        detail: 'tool definition changed',
        status: 'BLOCKED',
        tool: g.tool_name,
        pinned_hash: g.pinned_hash,
        presented_hash: g.presented_hash,
      },
      status: 'BLOCKED',
      summary: `blocked: tool definition of '${g.tool_name}' changed`,
      engine: null,
      proof_ref: null,
      admission: null,
      attestation_id: null,
    };
  }
  return decideParts(g, engineResults, ctx);
}

/** Characters of a part's text shown in `parts` / `unverified`; verified_claim keeps up to MAX_VERIFIED_CLAIM. */
const PART_EXCERPT = 500;
const MAX_VERIFIED_CLAIM = 2000;
/** Entries of `unverified` listed (unverified_count has them all). */
const MAX_UNVERIFIED_LISTED = 32;
const excerpt = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)}…` : t);

/**
 * One verdict for the whole query. VERIFIED only when every part was routed and its engine
 * returned VERIFIED with a well-formed proof_ref; ADMIT only when, on top of that, no part's
 * engine refused admission. A part no engine checked is listed in `unverified` and makes the
 * verdict UNVERIFIABLE (BLOCKED when an engine blocked a part); verified_claim holds only the
 * texts of VERIFIED parts.
 */
function decideParts(
  g: VerifyGuardResult,
  engineResults: readonly unknown[],
  ctx: { agent_id: string; conversation_id: string; step_number: number },
): Decision {
  const checked = g.parts
    .filter((p) => p.route !== null)
    .map((p) => {
      const r = rec(engineResults[g.parts.indexOf(p)]);
      const engine = (p.route as { engine: string }).engine;
      const proofRef = typeof r.proof_ref === 'string' && PROOF_REF.test(r.proof_ref) ? r.proof_ref : null;
      const engineStatus = typeof r.status === 'string' ? r.status : null;
      // A code scan that hit a syntax error did not read all of its text (prose glued to a block
      // is one such case): it proves nothing about that text, so the part is not VERIFIED.
      const unread =
        engine === 'code' &&
        Array.isArray(rec(r.developer_fields).issues) &&
        (rec(r.developer_fields).issues as unknown[]).some((i) => rec(i).type === 'parse_error');
      const status =
        engineStatus === 'VERIFIED' && proofRef && !unread
          ? 'VERIFIED'
          : engineStatus === 'BLOCKED'
            ? 'BLOCKED'
            : 'UNVERIFIABLE';
      // A VERIFIED part is admitted unless its engine says otherwise (code: proven unsafe → BLOCKED).
      const admission =
        status === 'VERIFIED' && (r.admission === undefined || r.admission === null || r.admission === 'ADMIT')
          ? 'ADMIT'
          : 'BLOCKED';
      const attestationId =
        status === 'VERIFIED' && typeof rec(r.attestation).id === 'string' ? (rec(r.attestation).id as string) : null;
      return {
        part: p,
        engine,
        status,
        engineStatus,
        proofRef: status === 'VERIFIED' ? proofRef : null,
        admission,
        attestationId,
        result: engineResults[g.parts.indexOf(p)] ?? null,
      };
    });
  const unverified = g.parts.filter((p) => p.route === null);
  const engines = [...new Set(checked.map((c) => c.engine))];
  const engine = engines.length === 0 ? null : engines.length === 1 ? (engines[0] as string) : 'mixed';
  const allVerified = checked.length > 0 && unverified.length === 0 && checked.every((c) => c.status === 'VERIFIED');
  const status = allVerified ? 'VERIFIED' : checked.some((c) => c.status === 'BLOCKED') ? 'BLOCKED' : 'UNVERIFIABLE';
  const admission = allVerified && checked.every((c) => c.admission === 'ADMIT') ? 'ADMIT' : 'BLOCKED';
  const first = checked[0];
  const proofRef = status === 'VERIFIED' && first ? first.proofRef : null;
  // The attestation shown with the decision must carry its admission: when a part's engine refused
  // admission, that part's attestation (which signs admission BLOCKED), never a math part's.
  const refused = checked.find((c) => c.admission === 'BLOCKED');
  const attestationId =
    status === 'VERIFIED' ? ((admission === 'BLOCKED' ? refused?.attestationId : first?.attestationId) ?? null) : null;
  const single = checked.length === 1 ? first : undefined;
  const method =
    engine === null
      ? 'no deterministic engine matches the query (math expression, logic DSL, code, SQL): only the exfiltration and tool-definition guards ran'
      : engine === 'mixed'
        ? `each part by its own engine (${engines.join(', ')}); see parts[].method`
        : (METHODS[engine] as string);
  const verifiedClaim = excerpt(
    checked
      .filter((c) => c.status === 'VERIFIED')
      .map((c) => c.part.text)
      .join('\n'),
    MAX_VERIFIED_CLAIM,
  );
  const nVerified = checked.filter((c) => c.status === 'VERIFIED').length;
  return {
    refused: false,
    body: {
      status,
      verified: status === 'VERIFIED',
      agent_id: ctx.agent_id,
      conversation_id: ctx.conversation_id,
      step_number: ctx.step_number,
      verification: {
        engine,
        method,
        verified_claim: verifiedClaim,
        engine_status: single ? single.engineStatus : null,
        proof_ref: proofRef,
        admission,
        result: single ? single.result : null,
        parts: checked.map((c) => ({
          index: c.part.index,
          engine: c.engine,
          method: METHODS[c.engine] as string,
          text: excerpt(c.part.text, PART_EXCERPT),
          status: c.status,
          engine_status: c.engineStatus,
          admission: c.admission,
          proof_ref: c.proofRef,
          result: c.result,
        })),
        unverified: unverified
          .slice(0, MAX_UNVERIFIED_LISTED)
          .map((p) => ({ index: p.index, text: excerpt(p.text, PART_EXCERPT), reason: p.reason ?? 'not checked' })),
        unverified_count: unverified.length,
      },
      guards: { exfiltration: 'clean', tool_poisoning: g.tool_poisoning, tool_pin: g.tool_pin },
    },
    status,
    summary:
      checked.length === 0
        ? 'guards only: no engine matched'
        : single && unverified.length === 0
          ? `${single.engine}: ${single.engineStatus ?? 'no status'}`
          : `${g.parts.length} part(s): ${nVerified} verified, ${checked.length - nVerified} not verified, ${unverified.length} checked by no engine`,
    engine,
    proof_ref: proofRef,
    admission,
    attestation_id: attestationId,
  };
}

const BASE_RISK: Record<string, number> = {
  safe: 0.1,
  sql: 0.3,
  http: 0.5,
  email: 0.5,
  unknown: 0.6,
  file_deletion: 0.7,
  code_execution: 0.7,
  payment: 0.8,
  shell: 0.8,
};

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
  if (allowed)
    reasons.push(
      g.dangerous
        ? `dangerous tool '${g.tool}' (${g.category}) explicitly allowed; arguments passed the checks`
        : `'${g.tool}' is on the safe list; arguments passed the checks`,
    );
  const riskScore = Math.round(Math.min(1, Math.max(0, risk)) * 100) / 100;
  return {
    refused: false,
    body: {
      decision: allowed ? 'allow' : 'deny',
      allowed,
      risk_score: riskScore,
      reasons,
      tool: g.tool,
      category: g.category,
      findings: g.findings,
    },
    status: allowed ? 'ALLOW' : 'DENY',
    summary: `${allowed ? 'allow' : 'deny'} ${g.tool}: ${reasons[0] ?? ''}`.slice(0, 300),
    engine: g.checks[0]?.engine ?? null,
    proof_ref: null,
    admission: null,
    attestation_id: null,
  };
}
