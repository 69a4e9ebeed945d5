// The agent-token guard of the agent routes (api/routes/agents.ts, api/routes/agent-approvals.ts):
// X-Agent-Token for the agent in the path. Bad shapes and checksums are refused before any
// store lookup; the agent works only while it and the key that registered it stand.
import type { Context, Middleware } from 'koa';
import { AGENT_PREFIX, inspectApiKey } from '../core/api-keys.js';
import type { Agents, AgentDoc } from '../core/agents.js';
import { HttpError } from './errors.js';
import type { Principal } from './middleware/auth.js';
import type { AppDeps } from './deps.js';

export const MISSING_AGENT_TOKEN = 'Missing agent token: send it in the X-Agent-Token header.';
export const INVALID_AGENT_TOKEN = 'Invalid agent token.';
export const REVOKED_AGENT = 'Agent token is revoked.';
/** An agent works only while the API key that registered it stands (docs/agents.md, "The registering key"). */
export const registeringKeyGone = (why: 'revoked' | 'expired' | 'missing') =>
  `The API key that registered this agent ${why === 'expired' ? 'has expired' : why === 'missing' ? 'no longer exists' : 'was revoked'}, so the agent no longer works: register a new agent with an active key.`;

export const agentUnauthorized = (detail: string) => new HttpError(401, detail, { 'WWW-Authenticate': 'AgentToken' });

export function agentTokenGuard(deps: AppDeps, agents: Agents): Middleware {
  return async (ctx, next) => {
    const raw = ctx.get('X-Agent-Token');
    if (!raw) throw agentUnauthorized(MISSING_AGENT_TOKEN);
    const shape = inspectApiKey(raw);
    if (!shape.ok || shape.prefix !== AGENT_PREFIX) throw agentUnauthorized(INVALID_AGENT_TOKEN);
    const agent = await agents.findByToken(raw);
    if (!agent) throw agentUnauthorized(INVALID_AGENT_TOKEN);
    // Another agent's token for this path: the same answer as an unknown token.
    if (String(agent.num) !== ctx.params.id) throw agentUnauthorized(INVALID_AGENT_TOKEN);
    if (agent.status !== 'active') throw agentUnauthorized(REVOKED_AGENT);
    const org = await deps.accounts.findOrg(agent.org_id);
    if (!org || !org.active) throw agentUnauthorized(INVALID_AGENT_TOKEN);
    // The agent acts under the key that registered it (followed through rotations): revoked,
    // expired or deleted, its agents stop with it. Every agent is registered with a key; a
    // record without one is refused (fail closed).
    const standing =
      agent.created_by_key_id === null
        ? 'missing'
        : await deps.accounts.keyStanding(agent.org_id, agent.created_by_key_id);
    if (standing !== 'active') throw agentUnauthorized(registeringKeyGone(standing));
    const principal: Principal = {
      via: 'agent',
      orgId: agent.org_id,
      userId: null,
      keyId: null,
      role: null,
      plan: org.plan,
      scopes: [],
      agentId: agent._id,
    };
    ctx.state.principal = principal;
    ctx.state.agent = agent;
    await next();
  };
}

export const agentOf = (ctx: Context) => ctx.state.agent as AgentDoc;
