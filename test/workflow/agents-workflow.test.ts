// Workflow tier: agentWorkflow (workflows/agents.ts) with scripted activities. Proves the guard
// first (a flagged or changed-tool request runs no engine), every routed part's engine (and only
// those) with the agent's organization, a tool call's argument checks, the decision recorded in
// the audit entry and the agent's activity record, the guard's retry policy (infrastructure
// retried, GuardUnavailableError final) and the per-engine deadline from the input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWorkflow } from '../../workflows/agents.js';
import { failureOf, startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities, appendAuditDefault } from './stubs/scripted-activities.js';
import { agentDefaults, toolGuard, verifyGuard } from './stubs/agent-activities.js';

type Input = Parameters<typeof agentWorkflow>[0];

const acts = new ScriptedActivities({ ...agentDefaults(), appendAuditActivity: appendAuditDefault });
let tier: WorkflowTier;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-agents', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

const input = (kind: 'verify' | 'tool', over: Partial<Input> = {}): Input =>
  ({
    kind,
    agent: { id: 'agent_1', num: 1, org_id: 'org_agents', allowed_tools: [], denied_tools: [], allowed_domains: [] },
    sealed: { v: 1, iv: 'x', data: 'y', tag: 'z' },
    tool: kind === 'tool' ? 'run_query' : undefined,
    context: { conversation_id: 'conv_1', step_number: 3 },
    engine_timeouts_ms: { math: 3_000, logic: 3_000, code: 3_000, sql: 3_000 },
    guard_timeout_ms: 1_000,
    ...over,
  }) as Input;

const run = (id: string, req: Input) =>
  tier.client.workflow.execute(agentWorkflow, { args: [req], taskQueue: tier.taskQueue, workflowId: id });
const sequence = (id: string) => acts.log.of(id).map((c) => c.activity);
const recorded = (id: string) => acts.log.of(id, 'recordAgentActivityActivity')[0]!.input as Record<string, unknown>;
const audited = (id: string) => acts.log.of(id, 'appendAuditActivity')[0]!.input as Record<string, unknown>;

describe('agentWorkflow: verify (workflow tier)', () => {
  it('a clean request runs each routed part on its engine, then audits and records the VERIFIED decision', async () => {
    const id = 'agent-wf-verify';
    acts.script(id, 'agentGuardActivity', {
      result: verifyGuard({
        parts: [
          { index: 1, text: '2 + 2 = 4', route: { engine: 'math', input: { query: '2 + 2 = 4' } }, reason: null },
          { index: 2, text: 'SELECT 1', route: { engine: 'sql', input: { query: 'SELECT 1' } }, reason: null },
        ],
      }),
    });
    const out = await run(id, input('verify'));
    expect(sequence(id).slice(0, 1)).toEqual(['agentGuardActivity']);
    expect(sequence(id).slice(1, 3).sort()).toEqual(['verifyMathActivity', 'verifySqlActivity']);
    expect(sequence(id).slice(3)).toEqual(['appendAuditActivity', 'recordAgentActivityActivity']);
    expect(acts.log.of(id, 'agentGuardActivity')[0]!.input).toEqual(input('verify'));
    expect(acts.log.of(id, 'verifySqlActivity')[0]!.input).toEqual({
      input: { query: 'SELECT 1' },
      org_id: 'org_agents',
      workflow_id: id,
    });
    expect(audited(id)).toMatchObject({
      org_id: 'org_agents',
      workflow_id: id,
      engine: 'agent-verify',
      input: { query: '2 + 2 = 4' },
      result: { status: 'VERIFIED', admission: 'ADMIT' },
    });
    expect(audited(id).audit).toEqual({ user_id: null, key_id: 'agent_1', request_digest: `sha256:${'1'.repeat(64)}` });
    expect(recorded(id)).toMatchObject({
      agent_id: 'agent_1',
      org_id: 'org_agents',
      kind: 'verify',
      status: 'VERIFIED',
      engine: 'mixed',
      conversation_id: 'conv_1',
      step_number: 3,
      workflow_id: id,
    });
    expect(out.audit_log_id).toBe(recorded(id).audit_log_id);
  });

  it('a flagged request runs no engine and is recorded BLOCKED', async () => {
    const id = 'agent-wf-flagged';
    const finding = {
      detector: 'exfiltration' as const,
      kind: 'api_key',
      category: 'secret',
      location: 'query',
      encoding: 'plain',
      excerpt: 'svc_live_…',
    };
    acts.script(id, 'agentGuardActivity', {
      result: verifyGuard({ outcome: 'flagged', findings: [finding], parts: [], claim: 'blocked request' }),
    });
    await run(id, input('verify'));
    expect(sequence(id)).toEqual(['agentGuardActivity', 'appendAuditActivity', 'recordAgentActivityActivity']);
    expect(recorded(id)).toMatchObject({ status: 'BLOCKED', engine: null, findings: [finding] });
  });

  it('a changed tool definition runs no engine and is BLOCKED', async () => {
    const id = 'agent-wf-tool-changed';
    acts.script(id, 'agentGuardActivity', {
      result: verifyGuard({
        outcome: 'tool_changed',
        tool_name: 'search',
        pinned_hash: 'a',
        presented_hash: 'b',
        parts: [],
      }),
    });
    await run(id, input('verify'));
    expect(sequence(id)).not.toContain('verifyMathActivity');
    expect(recorded(id)).toMatchObject({ status: 'BLOCKED', tool: 'search' });
  });

  it('a part no engine checked makes the decision UNVERIFIABLE; only routed parts run', async () => {
    const id = 'agent-wf-unrouted';
    acts.script(id, 'agentGuardActivity', {
      result: verifyGuard({
        parts: [
          { index: 1, text: '2 + 2 = 4', route: { engine: 'math', input: { query: '2 + 2 = 4' } }, reason: null },
          { index: 2, text: 'the sky is green', route: null, reason: 'no engine' },
        ],
      }),
    });
    await run(id, input('verify'));
    expect(acts.attempts(id, 'verifyMathActivity')).toBe(1);
    expect(recorded(id)).toMatchObject({ status: 'UNVERIFIABLE', engine: 'math' });
  });
});

describe('agentWorkflow: tool calls (workflow tier)', () => {
  const checks = [
    {
      engine: 'code' as const,
      input: { code: 'print(1)', language: 'python' },
      location: 'arguments.cmd',
      mode: 'strict' as const,
    },
    { engine: 'sql' as const, input: { query: 'SELECT 1' }, location: 'arguments.sql', mode: 'strict' as const },
  ];

  it('every argument check runs; all passing is ALLOW', async () => {
    const id = 'agent-wf-tool-allow';
    acts.script(id, 'agentGuardActivity', { result: toolGuard({ checks }) });
    await run(id, input('tool'));
    expect(acts.attempts(id, 'verifyCodeActivity')).toBe(1);
    expect(acts.attempts(id, 'verifySqlActivity')).toBe(1);
    expect(acts.log.of(id, 'verifyCodeActivity')[0]!.input).toEqual({
      input: checks[0]!.input,
      org_id: 'org_agents',
      workflow_id: id,
    });
    expect(audited(id)).toMatchObject({ engine: 'agent-tool', result: { status: 'ALLOW' } });
    expect(recorded(id)).toMatchObject({ kind: 'tool', status: 'ALLOW', tool: 'run_query', engine: 'code' });
  });

  it('one check refused by its engine is DENY', async () => {
    const id = 'agent-wf-tool-deny';
    acts.script(id, 'agentGuardActivity', { result: toolGuard({ checks }) });
    acts.script(id, 'verifySqlActivity', {
      result: { status: 'BLOCKED', agent_message: 'DROP TABLE', developer_fields: {} },
    });
    await run(id, input('tool'));
    expect(recorded(id)).toMatchObject({ status: 'DENY' });
    expect(recorded(id).summary).toMatch(/^deny run_query: SQL engine blocked arguments\.sql/);
  });
});

describe('agentWorkflow: failures, retries and deadlines (workflow tier)', () => {
  it('a guard infrastructure failure is retried; GuardUnavailableError is final and nothing else runs', async () => {
    const flaky = 'agent-wf-guard-flaky';
    acts.script(flaky, 'agentGuardActivity', { failAttempts: 2 });
    await run(flaky, input('verify'));
    expect(acts.attempts(flaky, 'agentGuardActivity')).toBe(3);
    expect(recorded(flaky)).toMatchObject({ status: 'VERIFIED' });

    const down = 'agent-wf-guard-down';
    acts.script(down, 'agentGuardActivity', { failType: 'GuardUnavailableError' });
    expect(await failureOf(run(down, input('verify')))).toMatchObject({
      activityType: 'agentGuardActivity',
      type: 'GuardUnavailableError',
    });
    expect(sequence(down)).toEqual(['agentGuardActivity']);
  });

  it('an engine past its deadline (engine_timeouts_ms) fails the run after one attempt, with no audit entry', async () => {
    const id = 'agent-wf-engine-late';
    acts.script(id, 'verifyMathActivity', { sleepMs: 10_000 });
    const t0 = Date.now();
    expect(
      await failureOf(
        run(id, input('verify', { engine_timeouts_ms: { math: 800, logic: 3_000, code: 3_000, sql: 3_000 } })),
      ),
    ).toMatchObject({
      activityType: 'verifyMathActivity',
      timeout: true,
    });
    expect(Date.now() - t0).toBeLessThan(5_000); // the 0.8 s deadline ended it, not the engine's 10 s answer
    expect(acts.attempts(id, 'verifyMathActivity')).toBe(1);
    expect(sequence(id)).not.toContain('appendAuditActivity');
  });

  it('a failed audit append fails the run before the activity record', async () => {
    const id = 'agent-wf-audit-chain';
    acts.script(id, 'appendAuditActivity', { failType: 'AuditChainError' });
    expect(await failureOf(run(id, input('verify')))).toMatchObject({ type: 'AuditChainError' });
    expect(acts.attempts(id, 'appendAuditActivity')).toBe(1);
    expect(sequence(id)).not.toContain('recordAgentActivityActivity');
  });
});
