// Agent endpoints (docs/agents.md): registration with an API key (agent:write), then the
// agent's own endpoints authenticated by X-Agent-Token. Verification and tool calls run as
// workflows (workflows/agents.ts) whose inputs carry the request sealed (core/sealed.ts).
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import {
  AGENT_CONTEXT_ERROR_CODE,
  TOOL_NAME_RE,
  agentContextSchema,
  normalizeToolName,
} from '../../contract/agents.js';
import { Agents, PRICE_PER_REQUEST_MICRO_USD, type AgentDoc } from '../../core/agents.js';
import type { AgentRef, AgentWorkflowInput } from '../../core/agent-workflow.js';
import { seal } from '../../core/sealed.js';
import { HttpError, zodDetail } from '../errors.js';
import { bodyObject } from '../middleware/body.js';
import { principalOf, requireAdminKey, requireApiKey } from '../middleware/auth.js';
import { agentOf, agentTokenGuard } from '../agent-auth.js';
import { trackToolDecision } from '../agent-actions.js';
import { agentBudgetCap, planLimit, LimiterUnavailableError, LIMITER_UNAVAILABLE } from '../middleware/rate-limit.js';
import type { Plan } from '../../core/accounts.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { ENGINES } from '../../core/engines.js';
import { workflows } from '../workflows.js';

export { MISSING_AGENT_TOKEN, INVALID_AGENT_TOKEN, REVOKED_AGENT, registeringKeyGone } from '../agent-auth.js';
export const AGENT_REGISTRATIONS_PER_HOUR = 10;
export const GUARD_TIMEOUT_MS = 5000;

function sv005(limit: number, resetAt: number, extra: Record<string, unknown> = {}): HttpError {
  const retryAfter = Math.max(1, resetAt - Math.floor(Date.now() / 1000));
  return new HttpError(
    429,
    'Rate limit exceeded',
    {
      'Retry-After': String(retryAfter),
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(resetAt),
    },
    {
      error: {
        code: 'SVC-005',
        message: 'Rate limit exceeded',
        details: { limit, reset_at: new Date(resetAt * 1000).toISOString(), retry_after: retryAfter },
      },
      ...extra,
    },
  );
}

function agentRef(a: AgentDoc): AgentRef {
  return {
    id: a._id,
    num: a.num,
    org_id: a.org_id,
    allowed_tools: a.permissions.allowed_tools,
    denied_tools: a.permissions.denied_tools,
    allowed_domains: a.permissions.allowed_domains,
    require_approval: a.permissions.require_approval ?? [],
  };
}

function agentView(a: AgentDoc) {
  return {
    id: a.num,
    agent_id: a._id,
    name: a.name,
    agent_type: a.agent_type,
    description: a.description,
    permissions: a.permissions,
    max_requests_per_hour: a.max_requests_per_hour,
    max_cost_per_day: a.max_cost_per_day,
    status: a.status,
    created_at: a.created_at.toISOString(),
  };
}

const micro = (usd: number) => Math.round(usd * 1_000_000);
const usd = (microUsd: number) => Math.round(microUsd) / 1_000_000;

/** The agent's budgets as its organization's current plan caps them (a plan downgrade lowers them at once). */
function effectiveBudget(agent: AgentDoc, plan: Plan): { perHour: number; costPerDay: number } {
  const cap = agentBudgetCap(plan);
  return {
    perHour:
      cap.requestsPerHour === null
        ? agent.max_requests_per_hour
        : Math.min(agent.max_requests_per_hour, cap.requestsPerHour),
    costPerDay:
      cap.costPerDayUsd === null ? agent.max_cost_per_day : Math.min(agent.max_cost_per_day, cap.costPerDayUsd),
  };
}

export function agentHandlers(deps: AppDeps) {
  const agents = new Agents(deps.store, deps.cfg.SVC_API_KEY_LOOKUP_SECRET as string);

  const requireAgent = agentTokenGuard(deps, agents);

  /** One request against the agent's hour and day (its budgets as the plan caps them now); over either limit: 429 SVC-005. */
  async function charge(agent: AgentDoc, plan: Plan): Promise<void> {
    const limits = effectiveBudget(agent, plan);
    // Atomic increment first (concurrent requests cannot overshoot), refunded when over a limit.
    const u = await agents.charge(agent._id);
    const hourOver = u.requestsThisHour > limits.perHour;
    const dayOver = u.costTodayMicroUsd > micro(limits.costPerDay);
    if (hourOver || dayOver) {
      await agents.refund(agent._id);
      if (hourOver) throw sv005(limits.perHour, u.hourResetAt);
      throw sv005(limits.costPerDay, u.dayResetAt);
    }
  }

  async function run(
    ctx: Context,
    input: Omit<AgentWorkflowInput, 'engine_timeouts_ms' | 'guard_timeout_ms'>,
  ): Promise<void> {
    const cfg = deps.cfg;
    // Each routed engine's deadline, from the registry (core/engines.ts).
    const timeouts = {
      math: ENGINES.math.deadlineMs(cfg),
      logic: ENGINES.logic.deadlineMs(cfg),
      code: ENGINES.code.deadlineMs(cfg),
      sql: ENGINES.sql.deadlineMs(),
    };
    const workflowId = `agent-${input.kind}-${input.agent.org_id}-${randomUUID()}`;
    const budget = GUARD_TIMEOUT_MS + 2000 + Math.max(...Object.values(timeouts)) + cfg.SVC_WORKFLOW_GRACE * 1000;
    const result = await deps.temporal.runWorkflow(
      workflows.agentWorkflow,
      [{ ...input, engine_timeouts_ms: timeouts, guard_timeout_ms: GUARD_TIMEOUT_MS }],
      {
        taskQueue: cfg.SVC_TASK_QUEUE,
        workflowId,
        timeoutMs: budget,
        timeoutDetail: 'Agent verification timed out.',
      },
    );
    ctx.set('X-Workflow-Id', workflowId);
    ctx.status = result.refused ? 403 : 200;
    ctx.body = { ...result.body, workflow_id: workflowId, audit_log_id: result.audit_log_id };
  }

  // POST /agents/register
  const registerAgent = endpoint(
    'registerAgent',
    [requireApiKey(deps, 'agent:write'), planLimit(deps.counter)],
    async (ctx, req) => {
      const p = principalOf(ctx);
      const raw = bodyObject(ctx);
      const input = req.body();
      // Budgets are capped by the plan: an explicit value above the cap is refused, a default is lowered to it.
      const cap = agentBudgetCap(p.plan);
      if (cap.requestsPerHour !== null && input.max_requests_per_hour > cap.requestsPerHour) {
        if (raw.max_requests_per_hour !== undefined) {
          throw new HttpError(
            400,
            `Invalid field 'max_requests_per_hour': at most ${cap.requestsPerHour} on the ${p.plan} plan (the organization's own limit per hour).`,
          );
        }
        input.max_requests_per_hour = cap.requestsPerHour;
      }
      if (cap.costPerDayUsd !== null && input.max_cost_per_day > cap.costPerDayUsd) {
        if (raw.max_cost_per_day !== undefined) {
          throw new HttpError(
            400,
            `Invalid field 'max_cost_per_day': at most ${cap.costPerDayUsd} on the ${p.plan} plan (the plan's daily requests at ${usd(PRICE_PER_REQUEST_MICRO_USD)} USD each).`,
          );
        }
        input.max_cost_per_day = cap.costPerDayUsd;
      }
      let w;
      try {
        w = await deps.counter.hit(`agent-register:${p.orgId}`, 3600);
      } catch (err) {
        if (err instanceof LimiterUnavailableError) throw new HttpError(503, LIMITER_UNAVAILABLE);
        throw err;
      }
      if (w.count > AGENT_REGISTRATIONS_PER_HOUR) throw sv005(AGENT_REGISTRATIONS_PER_HOUR, w.resetAt);
      const { doc, token } = await agents.register({
        org_id: p.orgId,
        created_by_user_id: p.userId,
        created_by_key_id: p.keyId,
        name: input.name,
        agent_type: input.agent_type,
        description: input.description ?? null,
        permissions: input.permissions,
        max_requests_per_hour: input.max_requests_per_hour,
        max_cost_per_day: input.max_cost_per_day,
      });
      ctx.body = { ...agentView(doc), agent_token: token };
    },
  );

  // DELETE /agents/{id}: revoke (API key of the same organization with agent:write).
  const revokeAgent = endpoint('revokeAgent', [requireApiKey(deps, 'agent:write')], async (ctx, req) => {
    const num = Number(req.params.id);
    if (!Number.isSafeInteger(num) || num < 1) throw new HttpError(404, 'Agent not found.');
    const doc = await agents.revoke(principalOf(ctx).orgId, num);
    if (!doc) {
      const existing = await agents.findByNum(principalOf(ctx).orgId, num);
      if (!existing) throw new HttpError(404, 'Agent not found.');
      ctx.body = agentView(existing);
      return;
    }
    ctx.body = agentView(doc);
  });

  // POST /agents/{id}/verify
  const agentVerify = endpoint('agentVerify', [requireAgent, planLimit(deps.counter)], async (ctx, req) => {
    const raw = bodyObject(ctx);
    const c = agentContextSchema.safeParse(raw.context);
    if (!c.success) {
      const detail =
        raw.context === undefined
          ? 'context is required: send context.conversation_id (non-empty string) and context.step_number (non-negative integer).'
          : `Invalid context: ${zodDetail(c.error).replace("Invalid field '", "'context.")}; context.conversation_id (non-empty string) and context.step_number (non-negative integer) are required.`;
      throw new HttpError(400, detail, {}, { code: AGENT_CONTEXT_ERROR_CODE, detail });
    }
    const input = req.body(); // the tool definition's name and size are the contract's (agentVerifyRequestSchema)
    const agent = agentOf(ctx);
    await charge(agent, principalOf(ctx).plan);
    await run(ctx, {
      kind: 'verify',
      agent: agentRef(agent),
      sealed: seal(
        { query: input.query, tool_schema: input.tool_schema ?? null, schema_ddl: input.schema_ddl ?? null },
        deps.cfg.SVC_API_KEY_LOOKUP_SECRET,
        'agent-verify',
      ),
      context: input.context,
    });
  });

  // POST /agents/{id}/tools/{tool}
  const agentTool = endpoint('agentTool', [requireAgent, planLimit(deps.counter)], async (ctx, req) => {
    const tool = req.params.tool;
    if (!TOOL_NAME_RE.test(tool)) throw new HttpError(400, 'Invalid tool name: 1-128 characters from [A-Za-z0-9_.:-].');
    const input = req.body(); // the arguments' size is the contract's (agentToolRequestSchema)
    const agent = agentOf(ctx);
    await charge(agent, principalOf(ctx).plan);
    await run(ctx, {
      kind: 'tool',
      agent: agentRef(agent),
      tool,
      sealed: seal({ arguments: input.arguments }, deps.cfg.SVC_API_KEY_LOOKUP_SECRET, 'agent-tool'),
      context: null,
    });
    // An allowed call gets its action (outcome watch); one waiting for approval its approval workflow (docs/approvals.md).
    await trackToolDecision(deps, ctx, agent);
  });

  // GET /agents/{id}/activity
  const agentActivity = endpoint(
    'agentActivity',
    [requireAgent, planLimit(deps.counter, 'account')],
    async (ctx, req) => {
      const q = req.query(); // activityQuerySchema: a bad parameter is a 400 naming it
      const agent = agentOf(ctx);
      const docs = await agents.listActivity(agent._id, q.limit + 1, q.cursor);
      const page = docs.slice(0, q.limit);
      ctx.body = {
        agent_id: agent._id,
        items: page.map((d) => ({
          id: d._id,
          kind: d.kind,
          status: d.status,
          summary: d.summary,
          workflow_id: d.workflow_id,
          audit_log_id: d.audit_log_id,
          conversation_id: d.conversation_id,
          step_number: d.step_number,
          tool: d.tool,
          engine: d.engine,
          findings: d.findings,
          created_at: d.created_at.toISOString(),
        })),
        next_cursor: docs.length > q.limit ? (page[page.length - 1]?._id ?? null) : null,
      };
    },
  );

  // GET /agents/{id}/budget
  const agentBudget = endpoint('agentBudget', [requireAgent, planLimit(deps.counter, 'account')], async (ctx) => {
    const agent = agentOf(ctx);
    const limits = effectiveBudget(agent, principalOf(ctx).plan);
    const u = await agents.usageOf(agent._id);
    const body = {
      agent_id: agent._id,
      cost: { current_daily_usd: usd(u.costTodayMicroUsd), max_daily_usd: limits.costPerDay },
      requests: { current_hour: u.requestsThisHour, max_per_hour: limits.perHour },
      price_per_request_usd: usd(PRICE_PER_REQUEST_MICRO_USD),
      exceeded: false,
    };
    const hourFull = u.requestsThisHour >= limits.perHour;
    const dayFull = u.costTodayMicroUsd + PRICE_PER_REQUEST_MICRO_USD > micro(limits.costPerDay);
    if (hourFull) throw sv005(limits.perHour, u.hourResetAt, { ...body, exceeded: true });
    if (dayFull) throw sv005(limits.costPerDay, u.dayResetAt, { ...body, exceeded: true });
    ctx.body = body;
  });

  // POST /agents/{id}/tool-definitions/{tool}/approve: owner or admin re-approves a changed definition.
  const approveToolDefinition = endpoint(
    'approveToolDefinition',
    [requireAdminKey(deps, ['owner', 'admin'])],
    async (ctx, req) => {
      const p = principalOf(ctx);
      const num = Number(req.params.id);
      const agent = Number.isSafeInteger(num) ? await agents.findByNum(p.orgId, num) : null;
      if (!agent) throw new HttpError(404, 'Agent not found.');
      const input = req.body();
      // The pin's identity is the normalised name (WX.Weather and wx_weather are one tool).
      const tool = normalizeToolName(req.params.tool);
      const r = await agents.approvePin(agent._id, tool, input.definition_hash, p.userId ?? 'unknown');
      if (r === 'no_pin') throw new HttpError(404, `No pinned definition for tool '${tool}'.`);
      if (r === 'not_pending')
        throw new HttpError(
          409,
          'That definition hash was never presented for this tool; present it through POST /agents/{id}/verify first.',
        );
      ctx.body = { tool, pinned_hash: r.pinned, previous_hash: r.previous, approved_by: p.userId };
    },
  );
  return { registerAgent, revokeAgent, agentVerify, agentTool, agentActivity, agentBudget, approveToolDefinition };
}
