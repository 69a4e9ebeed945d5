// The worker side of the workflow input authentication (core/workflow-input-auth.ts): the input
// check every workflow runs first, and the activity interceptor that refuses any activity whose
// workflow run holds no grant from that check.
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import {
  ACTIVITY_GRANT_HEADER,
  AUTHENTICATE_INPUT_ACTIVITY,
  DEFERRED_INPUT_AUTH_HEADER,
  WORKFLOW_INPUT_REFUSED,
  authenticateInput,
  grantMac,
  sameHex,
  type ActivityGrant,
  type AuthenticateInputRequest,
  type AuthenticateInputResult,
} from '../core/workflow-input-auth.js';

/** The local activity every workflow runs first (workflows/input-auth.ts). It writes nothing. */
export function makeAuthenticateInputActivity(key: string) {
  return {
    async [AUTHENTICATE_INPUT_ACTIVITY](req: AuthenticateInputRequest): Promise<AuthenticateInputResult> {
      const run = Context.current().info.workflowExecution;
      if (!run) return { ok: false, reason: 'not run by a workflow' };
      return authenticateInput(key, req, { workflowId: run.workflowId, runId: run.runId });
    },
  };
}

/** Activities whose input names the organization they write an audit entry (or audited record) for. */
const AUDIT_WRITERS: ReadonlySet<string> = new Set([
  'appendAuditActivity',
  'completeBatchJobActivity',
  'mathBatchUnitActivity',
  'mathBatchJobActivity',
  'finishBatchJobActivity',
  'recordAgentActivityActivity',
]);

function decodeHeader<T>(p: Payload | undefined): T | null {
  if (!p) return null;
  try {
    return defaultPayloadConverter.fromPayload<T>(p);
  } catch {
    return null;
  }
}

/**
 * The organizations of a local activity's deferred input check (workflows/input-auth.ts), or
 * the refusal. The request comes from our own workflow code in this worker (local activities are
 * never scheduled by a poller elsewhere, and their headers never reach history), so its run start
 * time is the run's; the check is the one authenticateWorkflowInputActivity does.
 */
function deferredCheckOrgs(key: string, p: Payload): string[] {
  const info = Context.current().info;
  const run = info.workflowExecution;
  const req = decodeHeader<AuthenticateInputRequest>(p);
  const result: AuthenticateInputResult =
    !info.isLocal || !run || !req || typeof req !== 'object' || !Number.isFinite(req.run_started_at)
      ? { ok: false, reason: 'malformed svc-input-auth-deferred header' }
      : authenticateInput(key, req, { workflowId: run.workflowId, runId: run.runId });
  if (!result.ok)
    throw ApplicationFailure.nonRetryable(`Workflow input refused: ${result.reason}.`, WORKFLOW_INPUT_REFUSED);
  return result.grant.orgs;
}

/**
 * Worker option `interceptors.activity`: every activity but the input check itself needs a
 * valid grant for its own workflow run, or (a local activity of a run whose activities check
 * its input) an input that authenticates; audit writers only for an organization either names.
 */
export function activityGrantInterceptor(key: string): ActivityInterceptorsFactory {
  return () => ({
    inbound: {
      async execute(input, next) {
        const info = Context.current().info;
        if (info.activityType === AUTHENTICATE_INPUT_ACTIVITY) return next(input);
        const deferred = input.headers?.[DEFERRED_INPUT_AUTH_HEADER];
        let orgs: string[];
        if (deferred) {
          orgs = deferredCheckOrgs(key, deferred);
        } else {
          const grant = decodeHeader<ActivityGrant>(input.headers?.[ACTIVITY_GRANT_HEADER]);
          const run = info.workflowExecution;
          const granted =
            grant && Array.isArray(grant.orgs) && grant.orgs.every((o) => typeof o === 'string') ? grant.orgs : null;
          if (
            !run ||
            !grant ||
            !granted ||
            typeof grant.mac !== 'string' ||
            !sameHex(grant.mac, grantMac(key, run.workflowId, run.runId, granted))
          ) {
            throw ApplicationFailure.nonRetryable(
              `activity ${info.activityType} refused: its workflow's input was not authenticated`,
              WORKFLOW_INPUT_REFUSED,
            );
          }
          orgs = granted;
        }
        const first = input.args[0] as { org_id?: unknown; audit_entry?: unknown } | undefined;
        // An engine activity asked to append its verification's entry (workflows/verify.ts) is an audit writer too.
        if (AUDIT_WRITERS.has(info.activityType) || first?.audit_entry !== undefined) {
          const org = first?.org_id;
          if (typeof org !== 'string' || !orgs.includes(org)) {
            throw ApplicationFailure.nonRetryable(
              `activity ${info.activityType} refused: the organization is not named by the authenticated input`,
              WORKFLOW_INPUT_REFUSED,
            );
          }
        }
        return next(input);
      },
    },
  });
}
