// Agents: registration (API key) and the agent-token endpoints.
import type { z } from 'zod';
import type { Transport } from './http.js';
import type { JsonObject } from './types.js';
import type {
  registerAgentRequestSchema,
  registerAgentResponseSchema,
  agentVerifyRequestSchema,
  agentVerifyResponseSchema,
  agentToolRequestSchema,
  toolDecisionResponseSchema,
  activityResponseSchema,
  budgetResponseSchema,
  approveToolRequestSchema,
  approveToolResponseSchema,
} from '../contract/agents.js';
import { pathOf } from '../contract/routes.js';

export type RegisterAgentRequestBody = z.input<typeof registerAgentRequestSchema>;
export type RegisteredAgent = z.infer<typeof registerAgentResponseSchema>;
export type AgentVerifyRequestBody = z.input<typeof agentVerifyRequestSchema>;
export type AgentVerifyResponse = z.infer<typeof agentVerifyResponseSchema>;
export type AgentToolRequestBody = z.input<typeof agentToolRequestSchema>;
export type ToolDecision = z.infer<typeof toolDecisionResponseSchema>;
export type AgentActivity = z.infer<typeof activityResponseSchema>;
export type AgentBudget = z.infer<typeof budgetResponseSchema>;
export type ApproveToolRequestBody = z.input<typeof approveToolRequestSchema>;
export type ApprovedTool = z.infer<typeof approveToolResponseSchema>;

export const registerAgent = (t: Transport, body: RegisterAgentRequestBody) =>
  t.send<RegisteredAgent>({ method: 'POST', path: pathOf('registerAgent'), auth: 'key', json: body });
export const deleteAgent = (t: Transport, id: number | string) =>
  t.send<JsonObject>({ method: 'DELETE', path: pathOf('revokeAgent', { id: String(id) }), auth: 'key' });
/** A flagged request (exfiltration, poisoned tool definition) is a 403 and throws. */
export const agentVerify = (t: Transport, id: number | string, agentToken: string, body: AgentVerifyRequestBody) =>
  t.send<AgentVerifyResponse>({
    method: 'POST',
    path: pathOf('agentVerify', { id: String(id) }),
    auth: 'agent',
    agentToken,
    json: body,
  });
export const agentTool = (
  t: Transport,
  id: number | string,
  tool: string,
  agentToken: string,
  body: AgentToolRequestBody,
) =>
  t.send<ToolDecision>({
    method: 'POST',
    path: pathOf('agentTool', { id: String(id), tool }),
    auth: 'agent',
    agentToken,
    json: body,
  });
export const agentActivity = (t: Transport, id: number | string, agentToken: string, query: { limit?: number } = {}) =>
  t.send<AgentActivity>({
    method: 'GET',
    path: pathOf('agentActivity', { id: String(id) }),
    auth: 'agent',
    agentToken,
    query,
  });
export const agentBudget = (t: Transport, id: number | string, agentToken: string) =>
  t.send<AgentBudget>({ method: 'GET', path: pathOf('agentBudget', { id: String(id) }), auth: 'agent', agentToken });
export const approveToolDefinition = (t: Transport, id: number | string, tool: string, body: ApproveToolRequestBody) =>
  t.send<ApprovedTool>({
    method: 'POST',
    path: pathOf('approveToolDefinition', { id: String(id), tool }),
    auth: 'key',
    json: body,
  });
