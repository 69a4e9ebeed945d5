// Black-box rows of durable tool-call approvals and action outcomes (issue 26 part 2,
// docs/approvals.md) through the real stack: a tool the agent's policy marks waits for an owner's
// or admin's decision (an approval workflow), the agent long-polls it, the time-out denies it,
// every decision is audited, attested and in the agent's feed; admitted actions report their
// outcome once, and one that never does is flagged and counted. Workflow logic in depth:
// test/workflow/approval-workflow.test.ts. Durability across restarts: agent-approvals-restart.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { z, type ZodType } from 'zod';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { addMember, get, http, newTenant, post, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';

const key = (k: string) => ({ 'x-api-key': k });
const tok = (t: string) => ({ 'x-agent-token': t });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Agent {
  id: number;
  agent_id: string;
  agent_token: string;
}

async function register(m: Member, permissions: Record<string, unknown>, base = ''): Promise<Agent> {
  const res = await http('POST', `${base}/agents/register`, {
    body: { name: 'approval-bot', permissions, max_requests_per_hour: 10_000 },
    headers: key(m.key),
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body;
}
const call = (a: Agent, tool: string, args: Record<string, unknown> = {}) =>
  post(`/agents/${a.id}/tools/${tool}`, { arguments: args }, tok(a.agent_token));
const decide = (m: Member, a: Agent, approvalId: string, body: unknown) =>
  post(`/agents/${a.id}/approvals/${approvalId}`, body, key(m.key));
/**
 * A decision that must settle: 200 with the settled approval, or 202 (recorded, not applied within
 * the route's 10 s: a loaded machine's worker) followed by the agent's wait, which returns it settled.
 */
async function decideSettled(m: Member, a: Agent, approvalId: string, body: unknown) {
  const d = await decide(m, a, approvalId, body);
  if (d.status !== 202) return d;
  expect(d.body.state).toBe('pending');
  return get(`/agents/${a.id}/approvals/${approvalId}?wait=60`, tok(a.agent_token));
}
const feed = async (a: Agent) =>
  (await get(`/agents/${a.id}/activity?limit=200`, tok(a.agent_token))).body.items as any[];

let owner: Member;
let admin: Member;
let member: Member;
let other: Member;
let agent: Agent;
let quick: Agent;

beforeAll(async () => {
  owner = await newTenant();
  [admin, member, other] = await Promise.all([
    addMember(owner.orgId, 'admin'),
    addMember(owner.orgId, 'member'),
    newTenant(),
  ]);
  agent = await register(owner, { require_approval: ['calculator', 'shell'], approval_timeout_seconds: 600 });
  quick = await register(owner, { require_approval: ['calculator'], approval_timeout_seconds: 2 });
}, 120_000);

describe('the policy', () => {
  it('registration keeps require_approval and approval_timeout_seconds', async () => {
    const a = await post(
      '/agents/register',
      { name: 'p', permissions: { require_approval: ['Send_Email'], approval_timeout_seconds: 30 } },
      key(owner.key),
    );
    expect(a.status).toBe(200);
    expect(a.body.permissions).toEqual({
      allowed_tools: [],
      denied_tools: [],
      allowed_domains: [],
      require_approval: ['Send_Email'],
      approval_timeout_seconds: 30,
    });
  });

  it.each([
    [
      { require_approval: ['bad tool!'] },
      "Invalid field 'permissions.require_approval.0': must be 1-128 characters from [A-Za-z0-9_.:-]",
    ],
    [{ require_approval: 'calculator' }, "Invalid field 'permissions.require_approval'"],
    [{ approval_timeout_seconds: 0 }, "Invalid field 'permissions.approval_timeout_seconds'"],
    [{ approval_timeout_seconds: 604_801 }, "Invalid field 'permissions.approval_timeout_seconds'"],
    [{ approval_timeout_seconds: 1.5 }, "Invalid field 'permissions.approval_timeout_seconds'"],
  ])('bad policy %j → 400 naming the field, no agent', async (permissions, detail) => {
    const r = await post('/agents/register', { name: 'bad', permissions }, key(owner.key));
    expect(r.status).toBe(400);
    expect(r.body.detail.startsWith(detail), r.body.detail).toBe(true);
  });
});

describe('a tool call that needs approval', () => {
  let approvalId: string;
  let actionId: string;

  it('answers 202 pending_approval with its approval_id and action_id (after the usual checks)', async () => {
    const r = await call(agent, 'calculator', { expression: '2 + 2' });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({
      decision: 'pending_approval',
      allowed: false,
      tool: 'calculator',
      category: 'safe',
      findings: [],
    });
    expect(r.body.approval_id).toMatch(/^apr_[1-9][0-9]*$/);
    expect(r.body.action_id).toMatch(/^acn_[0-9a-f]{32}$/);
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(590_000);
    expect(r.body.workflow_id).toMatch(/^agent-tool-/);
    approvalId = r.body.approval_id;
    actionId = r.body.action_id;
  });

  it('the agent reads it (pending, nothing decided); ?wait holds the answer until the wait ends', async () => {
    const r = await get(`/agents/${agent.id}/approvals/${approvalId}`, tok(agent.agent_token));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      approval_id: approvalId,
      agent_id: agent.agent_id,
      tool: 'calculator',
      action_id: actionId,
      state: 'pending',
      reason: null,
      decided_by: null,
      decided_at: null,
      attestation: null,
      timeout_seconds: 600,
      decision_audit_log_id: null,
    });
    const t0 = Date.now();
    const w = await get(`/agents/${agent.id}/approvals/${approvalId}?wait=1`, tok(agent.agent_token));
    expect(w.status).toBe(200);
    expect(w.body.state).toBe('pending');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('owners and admins list it by state; members are refused (403); another organization gets 404', async () => {
    const pending = await get(`/agents/${agent.id}/approvals?state=pending`, key(admin.key));
    expect(pending.status).toBe(200);
    expect(pending.body.agent_id).toBe(agent.agent_id);
    expect(pending.body.items.map((i: any) => i.approval_id)).toContain(approvalId);
    const approved = await get(`/agents/${agent.id}/approvals?state=approved`, key(owner.key));
    expect(approved.body.items.map((i: any) => i.approval_id)).not.toContain(approvalId);
    expect((await get(`/agents/${agent.id}/approvals`, key(member.key))).status).toBe(403);
    expect((await decide(member, agent, approvalId, { decision: 'approve', reason: 'me' })).status).toBe(403);
    const foreign = await get(`/agents/${agent.id}/approvals`, key(other.key));
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Agent not found.');
    const foreignDecide = await decide(other, agent, approvalId, { decision: 'approve', reason: 'not mine' });
    expect(foreignDecide.status).toBe(404);
    expect(foreignDecide.body.detail).toBe('Agent not found.');
    // Another organization's own agent with the same approval number: its own approvals only.
    const otherAgent = await register(other, { require_approval: ['calculator'] });
    expect((await get(`/agents/${otherAgent.id}/approvals/${approvalId}`, key(other.key))).status).toBe(404);
    const noToken = await get(`/agents/${agent.id}/approvals`);
    expect(noToken.status).toBe(401);
  });

  it.each([
    [
      'a bad state',
      '?state=open',
      "Invalid query parameter 'state': must be one of pending, approved, denied, expired",
    ],
    ['a bad limit', '?limit=0', "Invalid query parameter 'limit': must be an integer from 1 to 100"],
    ['a bad cursor', '?cursor=abc', "Invalid query parameter 'cursor': must be a cursor returned by this endpoint"],
  ])('list with %s → 400 with detail', async (_what, query, detail) => {
    const r = await get(`/agents/${agent.id}/approvals${query}`, key(owner.key));
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe(detail);
  });

  it.each([
    ['wait=61', "Invalid query parameter 'wait': must be a number of seconds from 0 to 60"],
    ['wait=-1', "Invalid query parameter 'wait': must be a number of seconds from 0 to 60"],
    ['wait=soon', "Invalid query parameter 'wait': must be a number of seconds from 0 to 60"],
  ])('GET ?%s → 400 with detail', async (query, detail) => {
    const r = await get(`/agents/${agent.id}/approvals/${approvalId}?${query}`, tok(agent.agent_token));
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe(detail);
  });

  it.each([
    [
      'an unknown decision',
      { decision: 'maybe', reason: 'x' },
      422,
      "Invalid field 'decision': must be approve or deny",
    ],
    ['no decision', { reason: 'x' }, 422, "Invalid field 'decision': decision is required: approve or deny"],
    ['no reason', { decision: 'approve' }, 422, "Invalid field 'reason': reason is required"],
    ['an empty reason', { decision: 'approve', reason: '   ' }, 422, "Invalid field 'reason': must not be empty"],
    ['a numeric reason', { decision: 'deny', reason: 5 }, 422, "Invalid field 'reason': reason must be a string"],
    ['a non-object body', ['approve'], 400, null],
  ])('deciding with %s → 4xx with detail, nothing changed', async (_what, body, status, detail) => {
    const r = await decide(owner, agent, approvalId, body);
    expect(r.status).toBe(status);
    expect(typeof r.body.detail).toBe('string');
    if (detail) expect(r.body.detail).toBe(detail);
    expect((await get(`/agents/${agent.id}/approvals/${approvalId}`, tok(agent.agent_token))).body.state).toBe(
      'pending',
    );
  });

  it('malformed JSON → 400; an unknown or malformed approval id → 404', async () => {
    const bad = await http('POST', `/agents/${agent.id}/approvals/${approvalId}`, {
      rawBody: '{"decision": ',
      headers: { ...key(owner.key), 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    for (const id of ['apr_999999', 'apr_0', 'xyz']) {
      const r = await decide(owner, agent, id, { decision: 'approve', reason: 'x' });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe('Approval not found.');
      expect((await get(`/agents/${agent.id}/approvals/${id}`, tok(agent.agent_token))).status).toBe(404);
    }
    expect((await get(`/agents/${agent.id}/approvals/${approvalId}`, tok(agent.agent_token))).body.state).toBe(
      'pending',
    );
  });

  it('an outcome for an action still waiting for approval → 409', async () => {
    const r = await post(
      `/agents/${agent.id}/actions/${actionId}/outcome`,
      { status: 'succeeded' },
      tok(agent.agent_token),
    );
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('Only an admitted or approved action has an outcome; this action is pending approval.');
  });

  it('approve: the agent’s long poll answers at once with approved; attestation, audit entry and feed show the decision', async () => {
    const t0 = Date.now();
    const wait = get(`/agents/${agent.id}/approvals/${approvalId}?wait=30`, tok(agent.agent_token));
    await sleep(500);
    const d = await decideSettled(admin, agent, approvalId, {
      decision: 'approve',
      reason: 'ok for the report',
      extra: 'ignored',
    });
    expect(d.status, d.text).toBe(200);
    expect(d.body).toMatchObject({
      approval_id: approvalId,
      state: 'approved',
      reason: 'ok for the report',
      decided_by: admin.userId,
    });
    expect(d.body.decision_audit_log_id).toMatch(/^log_/);
    const w = await wait;
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ state: 'approved', decided_by: admin.userId, reason: 'ok for the report' });
    expect(Date.now() - t0).toBeLessThan(20_000);
    // The attestation the agent can present: signed, about this approval, never VERIFIED.
    const att = w.body.attestation;
    expect(att.id).toMatch(/^att_/);
    const claims = decodeJwt(att.token) as any;
    expect(claims.svc.result).toEqual({
      status: 'APPROVED',
      verified: false,
      engine: 'agent-approval',
      confidence: 1,
      admission: 'ADMIT',
    });
    const stored = await get(`/attestation/${att.id}`, key(owner.key));
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      id: att.id,
      token: att.token,
      engine: 'agent-approval',
      verification: { valid: true },
    });
    // The audit entry: who, when, why.
    let final = w.body;
    for (let i = 0; i < 40 && !final.decision_audit_log_id; i++) {
      await sleep(250);
      final = (await get(`/agents/${agent.id}/approvals/${approvalId}`, tok(agent.agent_token))).body;
    }
    const audit = await get(`/audit/logs/${final.decision_audit_log_id}`, { authorization: `Bearer ${owner.token}` });
    expect(audit.status).toBe(200);
    expect(audit.body).toMatchObject({
      engine: 'agent-approval',
      user_id: admin.userId,
      key_id: admin.keyId,
      status: 'APPROVED',
      admission: 'ADMIT',
      verified: false,
      attestation_id: att.id,
      workflow_id: final.workflow_id,
    });
    expect(audit.body.query).toContain(`approval ${approvalId}`);
    expect(audit.body.query).toContain(`approved at ${final.decided_at}`);
    const items = await feed(agent);
    expect(items.find((i) => i.kind === 'tool' && i.workflow_id === final.request_workflow_id)).toMatchObject({
      status: 'PENDING_APPROVAL',
      tool: 'calculator',
    });
    const decided = items.find((i) => i.kind === 'approval' && i.summary.startsWith(`${approvalId} `));
    expect(decided).toMatchObject({
      status: 'APPROVED',
      audit_log_id: final.decision_audit_log_id,
      tool: 'calculator',
    });
    expect(decided.summary).toContain('ok for the report');
  });

  it('a decided approval cannot be decided again (409), by anyone, either way', async () => {
    for (const [m, decision] of [
      [owner, 'deny'],
      [admin, 'approve'],
    ] as const) {
      const r = await decide(m, agent, approvalId, { decision, reason: 'again' });
      expect(r.status).toBe(409);
      expect(r.body.detail).toBe('Approval already decided: approved. A decided approval cannot be decided again.');
    }
    expect((await get(`/agents/${agent.id}/approvals/${approvalId}`, key(owner.key))).body).toMatchObject({
      state: 'approved',
      reason: 'ok for the report',
    });
  });

  it('the approved action reports its outcome once (joined to the action); a second report is 409', async () => {
    const r = await post(
      `/agents/${agent.id}/actions/${actionId}/outcome`,
      { status: 'succeeded', detail: 'result 4' },
      tok(agent.agent_token),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      action_id: actionId,
      agent_id: agent.agent_id,
      tool: 'calculator',
      state: 'approved',
      approval_id: approvalId,
      outcome: { status: 'succeeded', detail: 'result 4' },
      overdue_flagged_at: null,
    });
    const again = await post(
      `/agents/${agent.id}/actions/${actionId}/outcome`,
      { status: 'failed' },
      tok(agent.agent_token),
    );
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('The outcome of this action was already reported.');
    expect((await feed(agent)).find((i) => i.kind === 'outcome' && i.summary.includes(actionId))).toMatchObject({
      status: 'SUCCEEDED',
      tool: 'calculator',
    });
  });
});

describe('deny, time-out, guard denial', () => {
  it('deny: state denied with the reason; its action has no outcome (409)', async () => {
    const r = await call(agent, 'calculator', { expression: '1 + 1' });
    expect(r.status).toBe(202);
    const d = await decideSettled(owner, agent, r.body.approval_id, { decision: 'deny', reason: 'not now' });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ state: 'denied', reason: 'not now', decided_by: owner.userId });
    expect((decodeJwt(d.body.attestation.token) as any).svc.result).toMatchObject({
      status: 'DENIED',
      verified: false,
      admission: 'BLOCKED',
    });
    const o = await post(
      `/agents/${agent.id}/actions/${r.body.action_id}/outcome`,
      { status: 'succeeded' },
      tok(agent.agent_token),
    );
    expect(o.status).toBe(409);
    expect(o.body.detail).toBe('Only an admitted or approved action has an outcome; this action is denied.');
    const denied = await get(`/agents/${agent.id}/approvals?state=denied`, key(owner.key));
    expect(denied.body.items.map((i: any) => i.approval_id)).toContain(r.body.approval_id);
  });

  it('no decision within the time-out → expired (denied, reason time-out): fail closed; deciding afterwards is 409', async () => {
    const r = await call(quick, 'calculator', { expression: '3 * 3' });
    expect(r.status).toBe(202);
    const t0 = Date.now();
    const w = await get(`/agents/${quick.id}/approvals/${r.body.approval_id}?wait=20`, tok(quick.agent_token));
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ state: 'expired', reason: 'time-out', decided_by: null, timeout_seconds: 2 });
    expect(Date.now() - t0).toBeLessThan(19_000);
    expect((decodeJwt(w.body.attestation.token) as any).svc.result).toMatchObject({
      status: 'EXPIRED',
      admission: 'BLOCKED',
    });
    const late = await decide(owner, quick, r.body.approval_id, { decision: 'approve', reason: 'too late' });
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe('Approval already decided: expired. A decided approval cannot be decided again.');
    const o = await post(
      `/agents/${quick.id}/actions/${r.body.action_id}/outcome`,
      { status: 'succeeded' },
      tok(quick.agent_token),
    );
    expect(o.status).toBe(409);
    const expired = await get(`/agents/${quick.id}/approvals?state=expired`, key(owner.key));
    expect(expired.body.items).toHaveLength(1);
    expect(expired.body.next_cursor).toBeNull();
  }, 60_000);

  it('a call the guard denies stays denied: no approval is created', async () => {
    const r = await call(agent, 'shell', { command: 'ls' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decision: 'deny', allowed: false, tool: 'shell' });
    expect(r.body.approval_id).toBeUndefined();
    expect(r.body.action_id).toBeUndefined();
  });
});

describe('action outcomes of admitted calls', () => {
  let actionId: string;
  it('an allowed call carries its action_id; outcome rows: bad input 422, unknown 404, once 200, again 409', async () => {
    const r = await call(agent, 'get_time', {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decision: 'allow', allowed: true });
    expect(r.body.action_id).toMatch(/^acn_[0-9a-f]{32}$/);
    actionId = r.body.action_id;
    const path = `/agents/${agent.id}/actions/${actionId}/outcome`;
    const bad = await post(path, { status: 'done' }, tok(agent.agent_token));
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toBe("Invalid field 'status': must be succeeded, failed or error");
    const missing = await post(path, { detail: 'x' }, tok(agent.agent_token));
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toBe("Invalid field 'status': status is required: succeeded, failed or error");
    const long = await post(path, { status: 'error', detail: 'x'.repeat(2001) }, tok(agent.agent_token));
    expect(long.status).toBe(422);
    expect(long.body.detail).toBe("Invalid field 'detail': at most 2000 characters");
    for (const id of ['acn_' + '0'.repeat(32), 'act_123', 'nope']) {
      const u = await post(
        `/agents/${agent.id}/actions/${id}/outcome`,
        { status: 'succeeded' },
        tok(agent.agent_token),
      );
      expect(u.status).toBe(404);
      expect(u.body.detail).toBe('Action not found.');
    }
    // Another agent of the same organization cannot report it.
    expect(
      (await post(`/agents/${quick.id}/actions/${actionId}/outcome`, { status: 'succeeded' }, tok(quick.agent_token)))
        .status,
    ).toBe(404);
    expect((await post(path, { status: 'succeeded' })).status).toBe(401);
    const ok = await post(path, { status: 'error', detail: null }, tok(agent.agent_token));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      action_id: actionId,
      state: 'admitted',
      approval_id: null,
      outcome: { status: 'error', detail: null },
    });
    expect((await post(path, { status: 'succeeded' }, tok(agent.agent_token))).status).toBe(409);
  });
});

describe('an admitted action with no outcome in time is flagged and counted (an API with SVC_ACTION_OUTCOME_TIMEOUT=2)', () => {
  let api: ExtraApi;
  beforeAll(async () => {
    api = await startExtraApi('api-action-outcome', {
      SVC_ACTION_OUTCOME_TIMEOUT: '2',
      SVC_METRICS_OPERATOR_USER_IDS: owner.userId,
    });
  }, 120_000);
  afterAll(async () => {
    await api?.proc.stop();
  });

  it('flagged in the feed and on the action, counted in svc_agent_actions_unreported_total; a late report is still joined', async () => {
    const at = (p: string, init: RequestInit = {}) =>
      fetch(`${api.url}${p}`, init).then(async (r) => ({
        status: r.status,
        body: (await r.json().catch(() => null)) as any,
      }));
    const metric = async () => {
      const res = await fetch(`${api.url}/metrics/prometheus`, { headers: key(owner.key) });
      expect(res.status).toBe(200);
      const m = /^svc_agent_actions_unreported_total (\d+)/m.exec(await res.text());
      return m ? Number(m[1]) : -1;
    };
    const counted = await metric();
    expect(counted).toBeGreaterThanOrEqual(0);
    const r = await at(`/agents/${agent.id}/tools/get_time`, {
      method: 'POST',
      headers: { ...tok(agent.agent_token), 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: {} }),
    });
    expect(r.status).toBe(200);
    const actionId = r.body.action_id as string;
    let flagged: any = null;
    for (let i = 0; i < 80 && !flagged; i++) {
      await sleep(250);
      flagged = (await feed(agent)).find((f) => f.kind === 'outcome_overdue' && f.summary.includes(actionId)) ?? null;
    }
    expect(flagged).toMatchObject({ status: 'UNREPORTED', tool: 'get_time' });
    expect(await metric()).toBeGreaterThanOrEqual(counted + 1);
    const late = await post(
      `/agents/${agent.id}/actions/${actionId}/outcome`,
      { status: 'succeeded' },
      tok(agent.agent_token),
    );
    expect(late.status).toBe(200);
    expect(late.body.outcome).toMatchObject({ status: 'succeeded' });
    expect(typeof late.body.overdue_flagged_at).toBe('string');
  }, 60_000);
});

describe('real responses match the contract (contract/endpoints.ts)', () => {
  const byId = new Map(ENDPOINTS.map((e) => [e.id, e]));
  function check(id: string, res: { status: number; body: unknown; text: string }) {
    const declared = byId.get(id)?.responses[res.status];
    expect(declared, `${id} ${res.status} is declared: ${res.text.slice(0, 200)}`).toBeDefined();
    const schema = declared!.schema as ZodType;
    // Closed where the schema is an object: every field returned is in the contract.
    const parsed = (schema instanceof z.ZodObject ? schema.strict() : schema).safeParse(res.body);
    expect(parsed.success, `${id} ${res.status}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }

  it('tool call 202/200, approval get/list/decide 200/409, outcome 200/409 and their errors', async () => {
    const pending = await call(agent, 'calculator', { expression: '5 + 5' });
    check('agentTool', pending);
    const allowed = await call(agent, 'get_time', {});
    check('agentTool', allowed);
    const id = pending.body.approval_id;
    check('getAgentApproval', await get(`/agents/${agent.id}/approvals/${id}`, tok(agent.agent_token)));
    check('getAgentApproval', await get(`/agents/${agent.id}/approvals/${id}?wait=x`, tok(agent.agent_token)));
    check('listAgentApprovals', await get(`/agents/${agent.id}/approvals?limit=2`, key(owner.key)));
    check('decideAgentApproval', await decide(owner, agent, id, { decision: 'nope', reason: 'x' }));
    check('decideAgentApproval', await decide(owner, agent, id, { decision: 'approve', reason: 'fine' }));
    check('decideAgentApproval', await decide(owner, agent, id, { decision: 'approve', reason: 'fine' }));
    check('decideAgentApproval', await decide(member, agent, id, { decision: 'approve', reason: 'fine' }));
    const outcome = `/agents/${agent.id}/actions/${allowed.body.action_id}/outcome`;
    check('reportActionOutcome', await post(outcome, { status: 'nope' }, tok(agent.agent_token)));
    check('reportActionOutcome', await post(outcome, { status: 'succeeded' }, tok(agent.agent_token)));
    check('reportActionOutcome', await post(outcome, { status: 'succeeded' }, tok(agent.agent_token)));
    check(
      'reportActionOutcome',
      await post(
        `/agents/${agent.id}/actions/acn_${'1'.repeat(32)}/outcome`,
        { status: 'succeeded' },
        tok(agent.agent_token),
      ),
    );
  });
});
