// Routes bound to the contract table (api/bind-endpoints.ts, issue 25 item 4), black box: the
// order of a route's answers is the route file's (credential first, then what the handler checks
// before it reads the body, then the body). The agent routes' checks of a tool definition's name
// and size and of the arguments' size are the contract's zod schemas (contract/agents.ts), so they
// answer `invalid_field` like every schema issue; the tool name in the path is checked by hand
// (`invalid_request`) before the body. Each row is refused before a workflow, a charge or an audit
// entry exists.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';

const key = (k: string) => ({ 'x-api-key': k });
const tok = (t: string) => ({ 'x-agent-token': t });
const context = { conversation_id: 'conv-bound', step_number: 0 };
const refused = (detail: string, code = 'invalid_request') => ({ detail, code, request_id: expect.any(String) });

let owner: Member;
let agent: { id: number; agent_token: string };

beforeAll(async () => {
  owner = await newTenant();
  const res = await post('/agents/register', { name: 'bound' }, key(owner.key));
  expect(res.status, res.text).toBe(200);
  agent = res.body;
});

describe('POST /agents/{id}/verify: the tool definition, checked by the schema', () => {
  it('a tool definition whose name is not a tool name: 400 naming tool_schema.name', async () => {
    const res = await post(
      `/agents/${agent.id}/verify`,
      { query: 'x = 1', context, tool_schema: { name: 'no spaces allowed' } },
      tok(agent.agent_token),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refused(
        "Invalid field 'tool_schema.name': a tool definition needs a name of 1-128 characters from [A-Za-z0-9_.:-]",
        'invalid_field',
      ),
    );
  });

  it('a tool definition over 64,000 characters of JSON: 400 naming tool_schema', async () => {
    const res = await post(
      `/agents/${agent.id}/verify`,
      { query: 'x = 1', context, tool_schema: { name: 'big_tool', description: 'd'.repeat(64_000) } },
      tok(agent.agent_token),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused("Invalid field 'tool_schema': at most 64000 characters", 'invalid_field'));
  });

  it('a schema issue is the zod answer (invalid_field), and the credential is checked before the body', async () => {
    const bad = await post(`/agents/${agent.id}/verify`, { query: 7, context }, tok(agent.agent_token));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(refused("Invalid field 'query': query must be a string", 'invalid_field'));
    const anonymous = await post(`/agents/${agent.id}/verify`, { query: 7, context });
    expect(anonymous.status).toBe(401);
  });
});

describe('POST /agents/{id}/tools/{tool}: path parameter, then body', () => {
  it('arguments over 64,000 characters of JSON: 400 naming arguments', async () => {
    const res = await post(
      `/agents/${agent.id}/tools/calculator`,
      { arguments: { text: 'a'.repeat(64_000) } },
      tok(agent.agent_token),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused("Invalid field 'arguments': at most 64000 characters of JSON", 'invalid_field'));
  });

  it('the tool name (a decoded path parameter) is checked before the body is read', async () => {
    const res = await post(
      `/agents/${agent.id}/tools/bad%20name`,
      { arguments: 'not an object' },
      tok(agent.agent_token),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused('Invalid tool name: 1-128 characters from [A-Za-z0-9_.:-].'));
  });
});

describe('POST /agents/{id}/tool-definitions/{tool}/approve: the agent before the body', () => {
  it("another organization's or an unknown agent is 404 even with a bad body", async () => {
    const res = await post('/agents/999999/tool-definitions/calc/approve', { definition_hash: 7 }, key(owner.key));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(refused('Agent not found.', 'not_found'));
  });

  it('a known agent with a bad body is the schema 400', async () => {
    const res = await post(`/agents/${agent.id}/tool-definitions/calc/approve`, { definition_hash: 7 }, key(owner.key));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_field');
    expect(res.body.detail).toMatch(/^Invalid field 'definition_hash': /);
  });
});
