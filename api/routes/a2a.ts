// POST /a2a/intercept: the agent-to-agent gateway (docs/a2a-gateway.md). The per-agent key
// (SVC_A2A_API_KEYS) selects the sender; the body is read here under the gateway's own cap
// (payload limit + 64 KiB envelope) and parsed strictly (core/strict-json.ts: duplicate keys
// refused, numbers exact); every message is a workflow (workflows/a2a.ts).
// GET /a2a/trace/{audit_trace_id}: the message's workflow and audit entry, for its sender.
import type { Context } from 'koa';
import { randomBytes } from 'node:crypto';
import { interceptRequestSchema } from '../../contract/a2a.js';
import { loadA2aConfig, agentForKey, A2A_ENVELOPE_BYTES } from '../../core/a2a-config.js';
import type { A2aWorkflowInput } from '../../core/a2a-workflow.js';
import { seal } from '../../core/sealed.js';
import { findA2aMessage } from '../../core/agents.js';
import { parseStrictJson, StrictJsonError } from '../../core/strict-json.js';
import { HttpError } from '../errors.js';
import { readRawBody } from '../middleware/body.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { workflows } from '../workflows.js';

export const A2A_NO_KEYS = 'The A2A gateway has no keys configured (SVC_A2A_API_KEYS): every request is denied.';
export const A2A_MISSING_KEY = 'Missing gateway key: send it in the X-API-Key header.';
export const A2A_INVALID_KEY = 'Invalid gateway key.';

export function a2aHandlers(deps: AppDeps) {
  const a2a = loadA2aConfig(deps.env);

  const authenticate = (ctx: Context): string => {
    const presented = ctx.get('X-API-Key') || undefined;
    if (a2a.keys.size === 0) throw new HttpError(401, A2A_NO_KEYS, { 'WWW-Authenticate': 'ApiKey' });
    if (!presented) throw new HttpError(401, A2A_MISSING_KEY, { 'WWW-Authenticate': 'ApiKey' });
    const agent = agentForKey(a2a, presented);
    if (!agent) throw new HttpError(401, A2A_INVALID_KEY, { 'WWW-Authenticate': 'ApiKey' });
    return agent;
  };

  const a2aIntercept = endpoint('a2aIntercept', [], async (ctx) => {
    const agentId = authenticate(ctx);
    const type = ctx.get('Content-Type');
    if (type && !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type))
      throw new HttpError(415, 'Unsupported Content-Type: send application/json.');
    const raw = await readRawBody(ctx, {
      limitBytes: a2a.maxPayloadBytes + A2A_ENVELOPE_BYTES,
      timeoutMs: deps.cfg.SVC_BODY_READ_TIMEOUT * 1000,
    });
    // The strict reader of the webhook and Verification Context routes, with exact numbers:
    // a duplicate key ("amount" twice, last one wins in JSON.parse) or a number JSON.parse
    // would round (beyond 2^53, more digits than a double holds) is a 400, never a verdict.
    let body: unknown;
    try {
      body = parseStrictJson(raw.toString('utf8'), { exactNumbers: true });
    } catch (err) {
      if (!(err instanceof StrictJsonError)) throw err;
      const detail = `Invalid JSON body (${err.code}) at ${err.path}: ${err.detail}`;
      throw new HttpError(400, detail, {}, { detail, code: err.code, path: err.path, position: err.position });
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new HttpError(400, 'Request body must be a JSON object.');
    const input = interceptRequestSchema.parse(body);
    const hex = randomBytes(16).toString('hex');
    const traceId = `a2a_${hex}`;
    const workflowId = `a2a-intercept-${hex}`;
    const engineTimeoutMs = Math.round((input.engine_timeout_seconds ?? a2a.engineTimeoutSeconds) * 1000);
    const wf: A2aWorkflowInput = {
      audit_trace_id: traceId,
      agent_id: agentId,
      claimed_sender_agent_id: input.sender_agent_id ?? null,
      receiver_agent_id: input.receiver_agent_id,
      payload_type: input.payload_type,
      sealed: seal(input.payload, deps.cfg.SVC_API_KEY_LOOKUP_SECRET, 'a2a-payload'),
      payload_bytes: Buffer.byteLength(JSON.stringify(input.payload), 'utf8'),
      max_payload_bytes: a2a.maxPayloadBytes,
      engine_timeout_ms: engineTimeoutMs,
    };
    const result = await deps.temporal.runWorkflow(workflows.a2aWorkflow, [wf], {
      taskQueue: deps.cfg.SVC_TASK_QUEUE,
      workflowId,
      timeoutMs: engineTimeoutMs + 15_000 + deps.cfg.SVC_WORKFLOW_GRACE * 1000,
      timeoutDetail: 'Gateway verification timed out.',
    });
    ctx.set('X-Workflow-Id', workflowId);
    ctx.body = { ...result, workflow_id: workflowId };
  });

  const a2aTrace = endpoint('a2aTrace', [], async (ctx, req) => {
    const agentId = authenticate(ctx);
    const trace = req.params.trace;
    if (!/^a2a_[0-9a-f]{32}$/.test(trace)) throw new HttpError(404, 'Trace not found.');
    const doc = await findA2aMessage(deps.store, trace);
    // Another agent's message is "not found" as well.
    if (!doc || doc.sender_agent_id !== agentId) throw new HttpError(404, 'Trace not found.');
    ctx.body = {
      audit_trace_id: doc.audit_trace_id,
      workflow_id: doc.workflow_id,
      audit_log_id: doc.audit_log_id,
      status: doc.status,
      engine_used: doc.engine_used,
      reason: doc.reason,
      admissible: doc.status === 'verified',
      sender_agent_id: doc.sender_agent_id,
      claimed_sender_agent_id: doc.claimed_sender_agent_id,
      receiver_agent_id: doc.receiver_agent_id,
      payload_type: doc.payload_type,
      created_at: doc.created_at.toISOString(),
    };
  });
  return { a2aIntercept, a2aTrace };
}
