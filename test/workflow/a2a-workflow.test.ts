// Workflow tier: a2aWorkflow (workflows/a2a.ts) with scripted activities. Proves the three steps
// in order (evaluate, the gateway's audit entry under a2a_gateway keyed by the sending agent, the
// message record under its audit_trace_id), admissible only when verified, the evaluation never
// retried and bounded by engine_timeout_ms + 10 s, the local steps' retries (infrastructure
// retried, SealError and audit-chain errors final).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aWorkflow } from '../../workflows/a2a.js';
import type { A2aEvaluation } from '../../core/a2a-workflow.js';
import { failureOf, startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault, PROOF_REF } from './stubs/scripted-activities.js';

type Input = Parameters<typeof a2aWorkflow>[0];

const evaluation = (over: Partial<A2aEvaluation> = {}): A2aEvaluation => ({
  status: 'verified',
  engine_used: 'math',
  reason: 'the arithmetic holds',
  attestation_jwt: 'eyJ.att.sig',
  proof_ref: PROOF_REF,
  request_digest: `sha256:${'3'.repeat(64)}`,
  summary: 'transfer 10 + 5 = 15',
  ...over,
});

const acts = new ScriptedActivities({
  a2aEvaluateActivity: () => evaluation(),
  appendAuditActivity: appendAuditDefault,
  recordA2aMessageActivity: () => undefined,
});
let tier: WorkflowTier;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-a2a', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

const input = (trace: string, over: Partial<Input> = {}): Input =>
  ({
    audit_trace_id: trace,
    agent_id: 'agent_sender',
    claimed_sender_agent_id: 'agent_claimed',
    receiver_agent_id: 'agent_receiver',
    payload_type: 'financial_transaction',
    sealed: { v: 1, iv: 'x', data: 'y', tag: 'z' },
    payload_bytes: 100,
    max_payload_bytes: 1_000,
    engine_timeout_ms: 3_000,
    ...over,
  }) as Input;

const run = (id: string, req: Input) =>
  tier.client.workflow.execute(a2aWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id });
const sequence = (id: string) => acts.log.of(id).map((c) => c.activity);

describe('a2aWorkflow (workflow tier)', () => {
  it('evaluates, audits under the gateway organization keyed by the sender, records the message; verified is admissible', async () => {
    const id = 'a2a-wf-verified';
    const out = await run(id, input('trace_1'));
    expect(sequence(id)).toEqual(['a2aEvaluateActivity', 'appendAuditActivity', 'recordA2aMessageActivity']);
    expect(acts.log.of(id, 'a2aEvaluateActivity')[0]!.input).toEqual({ ...input('trace_1'), workflow_id: id });
    const audit = acts.log.of(id, 'appendAuditActivity')[0]!.input as Record<string, unknown>;
    expect(audit).toEqual({
      org_id: 'a2a_gateway',
      workflow_id: id,
      engine: 'a2a',
      input: { query: 'transfer 10 + 5 = 15' },
      result: { status: 'VERIFIED', proof_ref: PROOF_REF },
      audit: { user_id: null, key_id: 'agent_sender', request_digest: `sha256:${'3'.repeat(64)}` },
    });
    expect(out).toEqual({
      status: 'verified',
      audit_trace_id: 'trace_1',
      engine_used: 'math',
      attestation_jwt: 'eyJ.att.sig',
      reason: 'the arithmetic holds',
      admissible: true,
      sender_agent_id: 'agent_sender',
      receiver_agent_id: 'agent_receiver',
      payload_type: 'financial_transaction',
      audit_log_id: out.audit_log_id,
    });
    expect(acts.log.of(id, 'recordA2aMessageActivity')[0]!.input).toEqual({
      audit_trace_id: 'trace_1',
      workflow_id: id,
      audit_log_id: out.audit_log_id,
      sender_agent_id: 'agent_sender',
      claimed_sender_agent_id: 'agent_claimed',
      receiver_agent_id: 'agent_receiver',
      payload_type: 'financial_transaction',
      status: 'verified',
      engine_used: 'math',
      reason: 'the arithmetic holds',
    });
  });

  it.each(['blocked', 'unverifiable', 'heuristic_pass', 'error'] as const)(
    '%s is not admissible and is still audited and recorded',
    async (status) => {
      const id = `a2a-wf-${status}`;
      acts.script(id, 'a2aEvaluateActivity', {
        result: evaluation({ status, proof_ref: null, attestation_jwt: null }),
      });
      const out = await run(id, input(`trace_${status}`));
      expect(out).toMatchObject({ status, admissible: false });
      expect((acts.log.of(id, 'appendAuditActivity')[0]!.input as { result: unknown }).result).toEqual({
        status: status.toUpperCase(),
        proof_ref: null,
      });
      expect(acts.attempts(id, 'recordA2aMessageActivity')).toBe(1);
    },
  );

  it('a failed evaluation is not retried and fails the run before any audit entry', async () => {
    const id = 'a2a-wf-eval-failed';
    acts.script(id, 'a2aEvaluateActivity', { failAttempts: 99 });
    expect(await failureOf(run(id, input('trace_fail')))).toMatchObject({
      activityType: 'a2aEvaluateActivity',
      message: 'store unavailable',
    });
    expect(sequence(id)).toEqual(['a2aEvaluateActivity']);
  });

  it('the local steps retry infrastructure failures; SealError and audit-chain errors are final', async () => {
    const flaky = 'a2a-wf-record-flaky';
    acts.script(flaky, 'recordA2aMessageActivity', { failAttempts: 2 });
    expect(await run(flaky, input('trace_flaky'))).toMatchObject({ status: 'verified' });
    expect(acts.attempts(flaky, 'recordA2aMessageActivity')).toBe(3);

    for (const type of ['SealError', 'AuditChainError', 'AuditConfigError']) {
      const id = `a2a-wf-audit-${type}`;
      acts.script(id, 'appendAuditActivity', { failType: type });
      expect(await failureOf(run(id, input(`trace_${type}`)))).toMatchObject({ type });
      expect(acts.attempts(id, 'appendAuditActivity')).toBe(1);
      expect(sequence(id)).not.toContain('recordA2aMessageActivity');
    }
  });
});
