// Activities of the agent workflow (workflows/agents.ts), by the names it schedules: the guard
// (its result is what each test scripts), the four routed engines, and the activity record.
import type { GuardResult, ToolGuardResult, VerifyGuardResult } from '../../../core/agent-workflow.js';
import { PROOF_REF, type Defaults } from './scripted-activities.js';

export function agentDefaults(): Defaults {
  const engine = (name: string) => () => ({
    status: 'VERIFIED',
    engine: name,
    proof_ref: PROOF_REF,
    admission: 'ADMIT',
    attestation: { id: `att_${name}` },
  });
  return {
    agentGuardActivity: (): GuardResult => verifyGuard(),
    verifyMathActivity: engine('math'),
    verifyLogicActivity: engine('logic'),
    verifyCodeActivity: () => ({
      status: 'VERIFIED',
      proof_ref: PROOF_REF,
      developer_fields: { is_safe: true, is_valid: true, issues: [] },
    }),
    verifySqlActivity: () => ({
      status: 'VERIFIED',
      proof_ref: PROOF_REF,
      developer_fields: { is_valid: true, malicious_classification: false },
    }),
    recordAgentActivityActivity: () => undefined,
  };
}

/** A clean verify request whose parts are routed as given (null: no engine matched the part). */
export function verifyGuard(over: Partial<VerifyGuardResult> = {}): VerifyGuardResult {
  return {
    kind: 'verify',
    outcome: 'clean',
    findings: [],
    tool_name: null,
    pinned_hash: null,
    presented_hash: null,
    tool_pin: 'not_run',
    tool_poisoning: 'not_run',
    parts: [{ index: 1, text: '2 + 2 = 4', route: { engine: 'math', input: { query: '2 + 2 = 4' } }, reason: null }],
    claim: '2 + 2 = 4',
    request_digest: `sha256:${'1'.repeat(64)}`,
    ...over,
  };
}

export function toolGuard(over: Partial<ToolGuardResult> = {}): ToolGuardResult {
  return {
    kind: 'tool',
    tool: 'run_query',
    category: 'sql',
    dangerous: false,
    known: true,
    reasons: [],
    findings: [],
    checks: [],
    claim: 'run_query',
    request_digest: `sha256:${'2'.repeat(64)}`,
    ...over,
  };
}
