// Contract of the agent endpoints (docs/agents.md): requests, responses and error bodies.
// Request schemas ignore unknown keys and validate known keys strictly. Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const AGENT_TYPES = ['autonomous', 'assistant', 'workflow', 'tool'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/** Tool names: what may appear in a path segment and in permission lists. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const toolName = z.string().regex(TOOL_NAME_RE, 'must be 1-128 characters from [A-Za-z0-9_.:-]');

export { normalizeToolName } from './tool-names.js';
/** A host name or domain (no scheme, no path): `example.com`, `api.example.com`. */
const domain = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    'must be a domain name such as example.com',
  );

export const agentPermissionsSchema = nullMeansAbsent(
  z.object({
    allowed_tools: z.array(toolName).max(200).default([]),
    denied_tools: z.array(toolName).max(200).default([]),
    allowed_domains: z.array(domain).max(200).default([]),
    /** Tools whose admitted calls wait for an owner's or admin's approval (docs/approvals.md). */
    require_approval: z.array(toolName).max(200).default([]),
    /** This agent's approval time-out in seconds (default SVC_APPROVAL_TIMEOUT); no decision by then: denied. */
    approval_timeout_seconds: z.number().int().min(1).max(604_800).optional(),
  }),
);
export type AgentPermissions = z.output<typeof agentPermissionsSchema>;

export const registerAgentRequestSchema = nullMeansAbsent(
  z.object({
    name: z
      .string({ error: (i) => (i.input === undefined ? 'name is required' : 'name must be a string') })
      .trim()
      .min(1, 'must not be empty')
      .max(200),
    agent_type: z.enum(AGENT_TYPES).default('assistant'),
    description: z.string().max(2000).optional(),
    permissions: agentPermissionsSchema.default({
      allowed_tools: [],
      denied_tools: [],
      allowed_domains: [],
      require_approval: [],
    }),
    /** Requests (verify + tool calls) per clock hour. */
    max_requests_per_hour: z.number().int().min(1).max(1_000_000).default(100),
    /** USD per UTC day, at the documented price per request. */
    max_cost_per_day: z.number().positive().max(1_000_000).default(10),
  }),
);
export type RegisterAgentRequest = z.output<typeof registerAgentRequestSchema>;

export const registerAgentResponseSchema = z.object({
  id: z.number().int(),
  agent_id: z.string(),
  agent_token: z.string(),
  name: z.string(),
  agent_type: z.enum(AGENT_TYPES),
  description: z.string().nullable(),
  permissions: agentPermissionsSchema,
  max_requests_per_hour: z.number().int(),
  max_cost_per_day: z.number(),
  status: z.literal('active'),
  created_at: z.string(),
});

export const AGENT_CONTEXT_ERROR_CODE = 'SVC-AGENT-CTX-001';

/** `context` is checked separately so that its absence gets the named error code. */
export const agentContextSchema = z.object({
  conversation_id: z.string().trim().min(1).max(256),
  step_number: z.number().int().min(0).max(1_000_000_000),
});

export const MAX_AGENT_QUERY_CHARS = 100_000;

/** A tool definition or a tool call's arguments: at most this many characters of JSON. */
export const MAX_TOOL_JSON_CHARS = 64_000;

/** A tool definition sent with an agent's query: a tool name, and bounded as JSON. */
const toolDefinitionSchema = z.record(z.string(), z.unknown()).superRefine((def, ctx) => {
  const name = def.name;
  if (typeof name !== 'string' || !TOOL_NAME_RE.test(name))
    ctx.addIssue({
      code: 'custom',
      path: ['name'],
      message: 'a tool definition needs a name of 1-128 characters from [A-Za-z0-9_.:-]',
    });
  else if (JSON.stringify(def).length > MAX_TOOL_JSON_CHARS)
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_TOOL_JSON_CHARS} characters` });
});

export const agentVerifyRequestSchema = nullMeansAbsent(
  z.object({
    query: z
      .string({ error: (i) => (i.input === undefined ? 'query is required' : 'query must be a string') })
      .min(1, 'must not be empty')
      .max(MAX_AGENT_QUERY_CHARS),
    context: agentContextSchema,
    tool_schema: toolDefinitionSchema.optional(),
    provider: z.string().max(64).optional(),
    /** For SQL queries: the CREATE TABLE statements to check the query against. */
    schema_ddl: z.string().max(200_000).optional(),
  }),
);
export type AgentVerifyRequest = z.output<typeof agentVerifyRequestSchema>;

export const agentToolRequestSchema = z.object({
  arguments: z
    .record(z.string(), z.unknown(), { error: 'arguments must be an object' })
    .refine((args) => JSON.stringify(args).length <= MAX_TOOL_JSON_CHARS, {
      message: `at most ${MAX_TOOL_JSON_CHARS} characters of JSON`,
    }),
});

export const findingSchema = z.object({
  detector: z.enum(['exfiltration', 'tool_poisoning']),
  kind: z.string(),
  category: z.string(),
  location: z.string(),
  encoding: z.string(),
  excerpt: z.string(),
});
export type Finding = z.output<typeof findingSchema>;

export const agentBlockedResponseSchema = z.object({
  detail: z.string(),
  status: z.literal('BLOCKED'),
  findings: z.array(findingSchema),
  workflow_id: z.string(),
  audit_log_id: z.string(),
  /** Added by the error handler to every body with a `detail` (docs/errors.md). */
  code: z.string(),
  request_id: z.string(),
});

export const toolChangedResponseSchema = z.object({
  detail: z.literal('tool definition changed'),
  status: z.literal('BLOCKED'),
  tool: z.string(),
  pinned_hash: z.string(),
  presented_hash: z.string(),
  workflow_id: z.string(),
  audit_log_id: z.string(),
  code: z.string(),
  request_id: z.string(),
});

export const agentVerifyResponseSchema = z.object({
  status: z.enum(['VERIFIED', 'UNVERIFIABLE', 'BLOCKED']),
  verified: z.boolean(),
  agent_id: z.string(),
  conversation_id: z.string(),
  step_number: z.number().int(),
  verification: z.object({
    /** The engine of every checked part, `mixed` when they differ, null when no part was checked. */
    engine: z.string().nullable(),
    method: z.string(),
    /** The texts of the VERIFIED parts only (never text no engine checked). */
    verified_claim: z.string(),
    /** The engine's status when exactly one part was checked, else null (see parts). */
    engine_status: z.string().nullable(),
    /** The first part's proof_ref when the verdict is VERIFIED, else null. */
    proof_ref: z.string().nullable(),
    /** ADMIT only when every part is VERIFIED and admitted. */
    admission: z.enum(['ADMIT', 'BLOCKED']),
    result: z.unknown().nullable(),
    /** Every part an engine checked (each fenced block and claim), in query order. */
    parts: z.array(
      z.object({
        index: z.number().int(),
        engine: z.string(),
        method: z.string(),
        text: z.string(),
        status: z.enum(['VERIFIED', 'UNVERIFIABLE', 'BLOCKED']),
        engine_status: z.string().nullable(),
        admission: z.enum(['ADMIT', 'BLOCKED']),
        proof_ref: z.string().nullable(),
        result: z.unknown().nullable(),
      }),
    ),
    /** Parts no engine checked (at most 32 listed); any makes the verdict not VERIFIED. */
    unverified: z.array(z.object({ index: z.number().int(), text: z.string(), reason: z.string() })),
    unverified_count: z.number().int(),
  }),
  guards: z.object({
    exfiltration: z.literal('clean'),
    tool_poisoning: z.enum(['clean', 'not_run']),
    tool_pin: z.enum(['pinned', 'matched', 'not_run']),
  }),
  workflow_id: z.string(),
  audit_log_id: z.string(),
});

export const toolDecisionResponseSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  allowed: z.boolean(),
  risk_score: z.number().min(0).max(1),
  reasons: z.array(z.string()),
  tool: z.string(),
  category: z.string(),
  findings: z.array(findingSchema),
  /** An allowed call's action: report its outcome at POST /agents/{id}/actions/{action_id}/outcome (docs/approvals.md). */
  action_id: z.string().optional(),
  workflow_id: z.string(),
  audit_log_id: z.string(),
});

export const activityQuerySchema = nullMeansAbsent(
  z.object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .regex(/^act_[0-9a-f]{28}$/, 'must be a cursor returned by this endpoint')
      .optional(),
  }),
);

export const activityItemSchema = z.object({
  id: z.string(),
  /** approval: an approval's decision; outcome: a reported outcome; outcome_overdue: an action that ran unreported (docs/approvals.md). */
  kind: z.enum(['verify', 'tool', 'approval', 'outcome', 'outcome_overdue']),
  status: z.string(),
  summary: z.string(),
  workflow_id: z.string(),
  audit_log_id: z.string(),
  conversation_id: z.string().nullable(),
  step_number: z.number().nullable(),
  tool: z.string().nullable(),
  engine: z.string().nullable(),
  findings: z.array(findingSchema),
  created_at: z.string(),
});

export const activityResponseSchema = z.object({
  agent_id: z.string(),
  items: z.array(activityItemSchema),
  next_cursor: z.string().nullable(),
});

export const budgetResponseSchema = z.object({
  agent_id: z.string(),
  cost: z.object({ current_daily_usd: z.number(), max_daily_usd: z.number() }),
  requests: z.object({ current_hour: z.number().int(), max_per_hour: z.number().int() }),
  exceeded: z.boolean(),
});

export const approveToolRequestSchema = z.object({
  definition_hash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'must be a sha256:<hex> hash returned by the 403 response'),
});

export const approveToolResponseSchema = z.object({
  tool: z.string(),
  pinned_hash: z.string(),
  previous_hash: z.string().nullable(),
  approved_by: z.string(),
});

/** The `SVC-AGENT-CTX-001` 400 body. */
export const contextErrorSchema = z.object({
  detail: z.string(),
  code: z.literal(AGENT_CONTEXT_ERROR_CODE),
  request_id: z.string(),
});
/** The `SVC-005` 429 body. */
export const rateLimitErrorSchema = z.object({
  error: z.object({
    code: z.literal('SVC-005'),
    message: z.string(),
    details: z.object({ limit: z.number(), reset_at: z.string(), retry_after: z.number() }),
  }),
  request_id: z.string(),
});
export const errorSchema = z.object({ detail: z.string(), code: z.string(), request_id: z.string() });
