// Issue 28 item 8 (docs/agents.md, "Plan limits" and "The registering key"): agent calls are
// charged to the organization's plan with the REST routes' limiter and headers, agent budgets
// are capped by the plan, and an agent stops working when the API key that registered it is
// revoked or expires (it follows the key through rotations).
import { beforeAll, describe, expect, it } from 'vitest';
import { db, get, http, mintKey, newTenant, post, type Member } from './helpers.js';

const del = (path: string, headers: Record<string, string>) => http('DELETE', path, { headers });

const key = (k: string) => ({ 'x-api-key': k });
const tok = (t: string) => ({ 'x-agent-token': t });
const ctx = (step = 1) => ({ conversation_id: 'limits', step_number: step });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Agent {
  id: number;
  agent_id: string;
  agent_token: string;
  max_requests_per_hour: number;
  max_cost_per_day: number;
}

async function register(apiKey: string, body: Record<string, unknown> = {}): Promise<Agent> {
  const res = await post('/agents/register', { name: 'limits-bot', ...body }, key(apiKey));
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body;
}
const verify = (a: Agent) => post(`/agents/${a.id}/verify`, { query: '1 + 1 = 2', context: ctx() }, tok(a.agent_token));
const calc = (a: Agent) => post(`/agents/${a.id}/tools/calculator`, { arguments: {} }, tok(a.agent_token));

/** The current minute window's start (the plan limiter's fixed windows); waits for a fresh one when fewer than `needSeconds` remain. */
async function minuteWindow(needSeconds: number): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  if (60 - (now % 60) < needSeconds) await sleep((60 - (now % 60) + 1) * 1000);
  const t = Math.floor(Date.now() / 1000);
  return t - (t % 60);
}

async function fillMinute(orgId: string, start: number, count: number) {
  // Registration counted already: set the window's count rather than insert it.
  await (
    await db()
  )
    .collection('rate_counters')
    .updateOne(
      { _id: `org:${orgId}:60:${start}` as never },
      { $set: { count, expires_at: new Date((start + 120) * 1000) } },
      { upsert: true },
    );
}

const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));

describe('agent calls are charged to the organization plan', () => {
  let free: Member;
  let agent: Agent;
  beforeAll(async () => {
    free = await newTenant('free');
    agent = await register(free.key);
  });

  it("carry the plan's X-RateLimit-* headers and share the REST routes' counter", async () => {
    const start = await minuteWindow(20);
    const rest = await post('/verify/math', { expression: '1 + 1 = 2' }, key(free.key));
    expect(rest.status).toBe(200);
    const r0 = remaining(rest);
    const v = await verify(agent);
    expect(v.status).toBe(200);
    expect(v.body.status).toBe('VERIFIED');
    expect(v.headers.get('x-ratelimit-limit')).toBe('60');
    expect(v.headers.get('x-ratelimit-reset')).toBe(String(start + 60));
    expect(remaining(v)).toBe(r0 - 1);
    const t = await calc(agent);
    expect(t.status).toBe(200);
    expect(t.headers.get('x-ratelimit-limit')).toBe('60');
    expect(remaining(t)).toBe(r0 - 2);
    const after = await post('/verify/math', { expression: '2 + 2 = 4' }, key(free.key));
    expect(remaining(after)).toBe(r0 - 3);
  });

  it('the reproduction: past 60 calls in a minute, the agent gets 429 SVC-005 like the REST routes, and the refused calls use none of its budget', async () => {
    const t = await newTenant('free');
    const ag = await register(t.key);
    const start = await minuteWindow(30);
    // 55 calls already made this minute (by anyone of the organization); 5 more fit.
    await fillMinute(t.orgId, start, 55);
    const ok = [];
    for (let i = 0; i < 5; i++) ok.push(i % 2 === 0 ? await verify(ag) : await calc(ag));
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(ok.map(remaining)).toEqual([4, 3, 2, 1, 0]);
    for (const over of [
      await verify(ag),
      await calc(ag),
      await post('/verify/math', { expression: '1 + 1 = 2' }, key(t.key)),
    ]) {
      expect(over.status).toBe(429);
      expect(over.body).toEqual({
        error: {
          code: 'SVC-005',
          message: 'Rate limit exceeded',
          details: {
            limit: 60,
            reset_at: new Date((start + 60) * 1000).toISOString(),
            retry_after: expect.any(Number),
          },
        },
        request_id: expect.any(String),
      });
      expect(over.headers.get('x-ratelimit-limit')).toBe('60');
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(over.headers.get('x-ratelimit-reset')).toBe(String(start + 60));
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Refused by the plan before the agent's own budget is charged; no workflow ran.
    const budget = await get(`/agents/${ag.id}/budget`, tok(ag.agent_token));
    expect(budget.status).toBe(200);
    expect(budget.body.requests.current_hour).toBe(5);
    const activity = await get(`/agents/${ag.id}/activity`, tok(ag.agent_token));
    expect(activity.body.items).toHaveLength(5);
  });

  it("the plan's daily quota applies to agent calls too", async () => {
    const t = await newTenant('free');
    const ag = await register(t.key);
    const now = Math.floor(Date.now() / 1000);
    const day = now - (now % 86_400);
    await (
      await db()
    )
      .collection('rate_counters')
      .updateOne(
        { _id: `org:${t.orgId}:86400:${day}` as never },
        { $set: { count: 1000, expires_at: new Date((day + 86_460) * 1000) } },
        { upsert: true },
      );
    const r = await calc(ag);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'SVC-005', details: { limit: 1000 } });
  });

  it("an enterprise organization's agent calls say unlimited, like its REST calls", async () => {
    const ent = await newTenant('enterprise');
    const ag = await register(ent.key);
    const r = await calc(ag);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('unlimited');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('unlimited');
  });
});

describe('agent budgets are capped by the plan', () => {
  it('free: an hourly budget of 1,000,000 (or 1,001) is refused, 1,000 is the most; an explicit daily cost above 1 USD is refused; the defaults are lowered to the cap', async () => {
    const t = await newTenant('free');
    const huge = await post('/agents/register', { name: 'greedy', max_requests_per_hour: 1_000_000 }, key(t.key));
    expect(huge.status).toBe(400);
    expect(huge.body).toEqual({
      detail:
        "Invalid field 'max_requests_per_hour': at most 1000 on the free plan (the organization's own limit per hour).",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect((await post('/agents/register', { name: 'greedy', max_requests_per_hour: 1001 }, key(t.key))).status).toBe(
      400,
    );
    const cost = await post('/agents/register', { name: 'greedy', max_cost_per_day: 10 }, key(t.key));
    expect(cost.status).toBe(400);
    expect(cost.body).toEqual({
      detail:
        "Invalid field 'max_cost_per_day': at most 1 on the free plan (the plan's daily requests at 0.001 USD each).",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const most = await register(t.key, { max_requests_per_hour: 1000, max_cost_per_day: 1 });
    expect([most.max_requests_per_hour, most.max_cost_per_day]).toEqual([1000, 1]);
    // No budget given: the default hour (100) fits; the default day (10 USD) is lowered to the plan's 1 USD.
    const dflt = await register(t.key);
    expect([dflt.max_requests_per_hour, dflt.max_cost_per_day]).toEqual([100, 1]);
    const stored = await (await db()).collection('agents').findOne({ _id: dflt.agent_id as never });
    expect([stored!.max_requests_per_hour, stored!.max_cost_per_day]).toEqual([100, 1]);
  });

  it('pro: 36,000 requests per hour (600/min) and 50 USD per day at most; enterprise: the schema maxima', async () => {
    const pro = await newTenant('pro');
    const over = await post('/agents/register', { name: 'p', max_requests_per_hour: 36_001 }, key(pro.key));
    expect(over.status).toBe(400);
    expect(over.body.detail).toBe(
      "Invalid field 'max_requests_per_hour': at most 36000 on the pro plan (the organization's own limit per hour).",
    );
    expect((await post('/agents/register', { name: 'p', max_cost_per_day: 50.01 }, key(pro.key))).status).toBe(400);
    const ok = await register(pro.key, { max_requests_per_hour: 36_000, max_cost_per_day: 50 });
    expect([ok.max_requests_per_hour, ok.max_cost_per_day]).toEqual([36_000, 50]);
    const ent = await newTenant('enterprise');
    const big = await register(ent.key, { max_requests_per_hour: 1_000_000, max_cost_per_day: 1_000_000 });
    expect([big.max_requests_per_hour, big.max_cost_per_day]).toEqual([1_000_000, 1_000_000]);
  });

  it("a plan downgrade lowers an existing agent's budgets at once", async () => {
    const t = await newTenant('enterprise');
    const ag = await register(t.key, { max_requests_per_hour: 1_000_000, max_cost_per_day: 1_000 });
    await (await db()).collection('organizations').updateOne({ _id: t.orgId as never }, { $set: { plan: 'free' } });
    const b = await get(`/agents/${ag.id}/budget`, tok(ag.agent_token));
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ requests: { max_per_hour: 1000 }, cost: { max_daily_usd: 1 } });
  });
});

describe('revoking the key that registered an agent stops the agent', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  const GONE = (why: string) =>
    `The API key that registered this agent ${why}, so the agent no longer works: register a new agent with an active key.`;

  async function expectStopped(ag: Agent, why: string) {
    for (const r of [
      await verify(ag),
      await calc(ag),
      await get(`/agents/${ag.id}/activity`, tok(ag.agent_token)),
      await get(`/agents/${ag.id}/budget`, tok(ag.agent_token)),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ detail: GONE(why), code: expect.any(String), request_id: expect.any(String) });
      expect(r.headers.get('www-authenticate')).toBe('AgentToken');
    }
  }

  it('revoked: every agent endpoint answers 401 with a clear detail; agents of other keys go on', async () => {
    const k = await mintKey(t.token, 'registers agents');
    const other = await mintKey(t.token, 'another key');
    const ag = await register(k.key);
    const bystander = await register(other.key);
    expect((await verify(ag)).status).toBe(200);
    const rev = await del(`/auth/api-keys/${k.id}`, { authorization: `Bearer ${t.token}` });
    expect(rev.status).toBe(200);
    await expectStopped(ag, 'was revoked');
    expect((await calc(bystander)).status).toBe(200);
    // Refused before anything is charged or recorded.
    const usage = await (await db()).collection('agent_activity').countDocuments({ agent_id: ag.agent_id });
    expect(usage).toBe(1);
  });

  it('rotated: the agent follows the key to its successor, and stops when the successor is revoked', async () => {
    const k = await mintKey(t.token, 'rotating key');
    const ag = await register(k.key);
    const rot = await post('/admin/keys/rotate', { key_id: k.id }, key(k.key));
    expect(rot.status).toBe(200);
    expect((await calc(ag)).status).toBe(200);
    expect((await del(`/auth/api-keys/${rot.body.key_id}`, { authorization: `Bearer ${t.token}` })).status).toBe(200);
    await expectStopped(ag, 'was revoked');
  });

  it('expired or deleted: the agent stops too', async () => {
    const k1 = await mintKey(t.token, 'expiring key');
    const ag1 = await register(k1.key);
    await (
      await db()
    )
      .collection('api_keys')
      .updateOne({ _id: k1.id as never }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    await expectStopped(ag1, 'has expired');
    const k2 = await mintKey(t.token, 'deleted key');
    const ag2 = await register(k2.key);
    await (await db()).collection('api_keys').deleteOne({ _id: k2.id as never });
    await expectStopped(ag2, 'no longer exists');
  });
});
