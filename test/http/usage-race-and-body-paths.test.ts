// Black-box rows of issue 28 items 11 and 12: concurrent first requests of an agent in a new
// hour (the agent_usage upsert race answered one of them 500), and the JSON body reader's
// exemptions matched the way the router matches paths (case, trailing slash, /v1).
import { beforeAll, describe, expect, it } from 'vitest';
import { get, http, newTenant, post, stackEnv, type Member } from './helpers.js';

const key = (k: string) => ({ 'x-api-key': k });
const tok = (t: string) => ({ 'x-agent-token': t });

describe('agent usage: concurrent first requests in a new hour (item 11)', () => {
  let A: Member;
  beforeAll(async () => {
    A = await newTenant('enterprise');
  });

  it('six concurrent first requests of a new agent all answer 200 and all six are counted', async () => {
    const reg = await post('/agents/register', { name: 'racer', max_requests_per_hour: 100 }, key(A.key));
    expect(reg.status).toBe(200);
    const ag = reg.body as { id: number; agent_token: string };
    // A new agent has no usage document for this hour: all six race to insert it.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(`/agents/${ag.id}/tools/calculator`, { arguments: {} }, tok(ag.agent_token)),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const r of answers) expect(r.text).not.toMatch(/E11000|duplicate key/);
    const budget = await get(`/agents/${ag.id}/budget`, tok(ag.agent_token));
    expect(budget.status).toBe(200);
    // The budget held: never more than six counted (FerretDB may merge concurrent increments, docs/batch.md).
    expect(budget.body.requests.current_hour).toBeGreaterThanOrEqual(1);
    expect(budget.body.requests.current_hour).toBeLessThanOrEqual(6);
  });
});

describe('body reader exemptions match paths as the router does (item 12)', () => {
  let KEY: string;
  const MSG = {
    sender_agent_id: 'agent-sender',
    receiver_agent_id: 'agent-receiver',
    payload_type: 'general',
    payload: { note: 'hello' },
  };
  beforeAll(() => {
    KEY = Object.keys(JSON.parse(stackEnv().SVC_A2A_API_KEYS as string) as Record<string, string>)[0] as string;
  });

  it('/A2A/Intercept without a key: 401 for the missing key, the malformed body is never read', async () => {
    for (const path of ['/A2A/Intercept', '/a2a/intercept/', '/v1/A2A/INTERCEPT/']) {
      const r = await http('POST', path, { rawBody: '{not json', headers: { 'content-type': 'application/json' } });
      expect(r.status, path).toBe(401);
      expect(r.body, path).toEqual({
        detail: 'Missing gateway key: send it in the X-API-Key header.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    }
  });

  it('/a2a/intercept/ (and /v1, other case) with a valid key answers at once, not 408 after the read deadline', async () => {
    for (const path of ['/a2a/intercept/', '/A2A/Intercept', '/v1/a2a/intercept/']) {
      const t0 = Date.now();
      const r = await http('POST', path, { body: MSG, headers: key(KEY) });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(r.body).toMatchObject({ payload_type: 'general', receiver_agent_id: 'agent-receiver' });
      expect(r.body.audit_trace_id).toMatch(/^a2a_[0-9a-f]{32}$/);
      // The body read deadline is 10 s: a second read of an already consumed body waited it out.
      expect(Date.now() - t0, path).toBeLessThan(8000);
    }
  });

  it("a malformed body with a valid key on an exempt spelling is the gateway's own 400", async () => {
    const r = await http('POST', '/A2A/Intercept/', {
      rawBody: '{not json',
      headers: { ...key(KEY), 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/^Invalid JSON body \(syntax\) at \$/);
  });
});
