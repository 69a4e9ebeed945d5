// Proof that the API made a workflow's input (docs/payload-encryption.md, "Workflow input
// authentication"; issue 28 item 1). Anyone who reaches the Temporal frontend can start a
// workflow on our task queue; the payload codec alone does not stop that (an operator's codec
// server encrypts on request, and an empty input has no payload at all). So:
//
//  1. Every start of the API (its Temporal clients, through `workflowInputAuthClientInterceptor`)
//     carries the header `svc-input-auth`: {v: 1, issued_at, mac}, the mac an HMAC-SHA256 under
//     SVC_WORKFLOW_INPUT_KEY of the workflow type, workflow id, issue time and every argument
//     as JSON. Only the API and the workers hold that key (not the codec server).
//  2. Before anything else runs, every workflow (workflows/input-auth.ts, a workflow interceptor
//     bundled with every workflow) sends its input and header to the local activity
//     `authenticateWorkflowInputActivity` (worker side, holds the key). A missing, malformed,
//     stale or wrong mac, or an argument the codec did not encrypt: the workflow fails at once,
//     non-retryable, before any other activity ran (no audit entry, no store write).
//  3. An accepted input yields an activity grant: an HMAC over the workflow id, run id and the
//     organizations the input names (`auditOrgsOf`). The workflow interceptor attaches it to every
//     activity it schedules (header `svc-activity-grant`); the workers' activity interceptor
//     refuses any activity without a valid grant for its own workflow run (a task forged by a
//     rogue poller has none), and an audit write for an organization the grant does not name.
//
// Node only (node:crypto): workflows import nothing from here but the header names and types.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { ConfigError } from './config.js';
import { A2A_AUDIT_ORG } from './a2a-workflow.js';
import {
  INPUT_AUTH_HEADER,
  REFUSED_PAYLOAD_MARKER,
  type AuthenticateInputRequest,
  type AuthenticateInputResult,
  type InputAuthHeader,
} from './workflow-input-auth-types.js';

export * from './workflow-input-auth-types.js';

/** How far an input's issue time may lie before the run's start (the start itself takes milliseconds). */
export const INPUT_MAX_AGE_MS = 10 * 60_000;
/** How far after the run's start it may lie (clock skew between an API host and Temporal). */
export const INPUT_MAX_SKEW_MS = 2 * 60_000;
const MIN_KEY_LENGTH = 32;

/** SVC_WORKFLOW_INPUT_KEY, checked: processes that start or run workflows refuse to start without it. */
export function workflowInputKey(env: { SVC_WORKFLOW_INPUT_KEY?: string | undefined }): string {
  const key = env.SVC_WORKFLOW_INPUT_KEY;
  if (!key)
    throw new ConfigError(
      'SVC_WORKFLOW_INPUT_KEY is not set: the API and the workers refuse to start without the workflow input key (docs/payload-encryption.md)',
    );
  if (key.length < MIN_KEY_LENGTH)
    throw new ConfigError(
      `SVC_WORKFLOW_INPUT_KEY is too short: at least ${MIN_KEY_LENGTH} characters (e.g. 32 random bytes in hex)`,
    );
  return key;
}

/** Each argument as the JSON payload converter writes it, so both ends hash the same text. */
function argText(arg: unknown): string {
  return JSON.stringify(arg) ?? 'undefined';
}

export function inputMac(
  key: string,
  workflowType: string,
  workflowId: string,
  issuedAt: number,
  args: readonly unknown[],
): string {
  const h = createHmac('sha256', key).update(
    `svc-workflow-input/v1\n${workflowType}\n${workflowId}\n${issuedAt}\n${args.length}\n`,
    'utf8',
  );
  for (const a of args) h.update(argText(a), 'utf8').update('\n', 'utf8');
  return h.digest('hex');
}

export function signWorkflowInput(
  key: string,
  workflowType: string,
  workflowId: string,
  args: readonly unknown[],
  now = Date.now(),
): InputAuthHeader {
  return { v: 1, issued_at: now, mac: inputMac(key, workflowType, workflowId, now, args) };
}

export function sameHex(a: string, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length || !/^[0-9a-f]+$/.test(a)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** The organizations a workflow's (authenticated) input names: the only ones its audit entries may be for. */
export function auditOrgsOf(workflowType: string, args: readonly unknown[]): string[] {
  const first = (args[0] ?? null) as Record<string, unknown> | null;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? [v] : []);
  switch (workflowType) {
    case 'verifyWorkflow':
    case 'providerVerifyWorkflow':
    case 'batchWorkflow':
    case 'approvalWorkflow':
    case 'actionOutcomeWorkflow':
      return str(first?.org_id);
    case 'agentWorkflow':
      return str((first?.agent as Record<string, unknown> | undefined)?.org_id);
    case 'a2aWorkflow':
      return [A2A_AUDIT_ORG];
    default:
      return [];
  }
}

function containsRefusedPayload(v: unknown, depth = 0): boolean {
  if (depth > 3 || v === null || typeof v !== 'object') return false;
  if (REFUSED_PAYLOAD_MARKER in (v as object)) return true;
  return Object.values(v as object).some((x) => containsRefusedPayload(x, depth + 1));
}

export function grantMac(key: string, workflowId: string, runId: string, orgs: readonly string[]): string {
  return createHmac('sha256', key)
    .update(`svc-activity-grant/v1\n${workflowId}\n${runId}\n${orgs.join('\n')}`, 'utf8')
    .digest('hex');
}

/**
 * The worker-side check of one workflow's input (the body of authenticateWorkflowInputActivity).
 * Pure: the caller passes the run's ids (from the activity's context) and start time (from history).
 */
export function authenticateInput(
  key: string,
  req: AuthenticateInputRequest,
  run: { workflowId: string; runId: string },
): AuthenticateInputResult {
  const args = Array.isArray(req.args) ? req.args : [];
  if (args.some((a) => containsRefusedPayload(a)))
    return { ok: false, reason: 'an input payload was not encrypted by the payload codec' };
  const auth = req.auth;
  if (!auth || typeof auth !== 'object')
    return { ok: false, reason: 'the input carries no svc-input-auth header (not started by the API)' };
  if (
    auth.v !== 1 ||
    typeof auth.issued_at !== 'number' ||
    !Number.isFinite(auth.issued_at) ||
    typeof auth.mac !== 'string'
  ) {
    return { ok: false, reason: 'malformed svc-input-auth header' };
  }
  if (!sameHex(auth.mac, inputMac(key, req.workflow_type, run.workflowId, auth.issued_at, args))) {
    return { ok: false, reason: 'the input does not authenticate (wrong or altered input, type, workflow id or key)' };
  }
  const age = req.run_started_at - auth.issued_at;
  if (age > INPUT_MAX_AGE_MS || age < -INPUT_MAX_SKEW_MS)
    return { ok: false, reason: 'the input authentication is stale (issued too long before this run started)' };
  const orgs = auditOrgsOf(req.workflow_type, args);
  return { ok: true, grant: { orgs, mac: grantMac(key, run.workflowId, run.runId, orgs) } };
}

/**
 * Client option `interceptors.workflow` of every Temporal client that starts workflows (the
 * API's, the benchmarks'): signs each start's input.
 */
export function workflowInputAuthClientInterceptor(key: string): WorkflowClientInterceptor {
  const header = (type: string, id: string, args: readonly unknown[]): Record<string, Payload> => ({
    [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(signWorkflowInput(key, type, id, args)),
  });
  return {
    async startWithDetails(input, next) {
      return next({
        ...input,
        headers: {
          ...input.headers,
          ...header(input.workflowType, input.options.workflowId, input.options.args ?? []),
        },
      });
    },
    async signalWithStart(input, next) {
      return next({
        ...input,
        headers: {
          ...input.headers,
          ...header(input.workflowType, input.options.workflowId, input.options.args ?? []),
        },
      });
    },
  };
}
