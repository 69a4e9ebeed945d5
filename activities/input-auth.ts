// The worker side of the workflow input authentication (core/workflow-input-auth.ts): the input
// check every workflow runs first, and the activity interceptor that refuses any activity whose
// workflow run holds no grant from that check.
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import {
  ACTIVITY_GRANT_HEADER,
  AUTHENTICATE_INPUT_ACTIVITY,
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
 * Worker option `interceptors.activity`: every activity but the input check itself needs a
 * valid grant for its own workflow run; audit writers only for an organization the grant names.
 */
export function activityGrantInterceptor(key: string): ActivityInterceptorsFactory {
  return () => ({
    inbound: {
      async execute(input, next) {
        const info = Context.current().info;
        if (info.activityType === AUTHENTICATE_INPUT_ACTIVITY) return next(input);
        const grant = decodeHeader<ActivityGrant>(input.headers?.[ACTIVITY_GRANT_HEADER]);
        const run = info.workflowExecution;
        const orgs =
          grant && Array.isArray(grant.orgs) && grant.orgs.every((o) => typeof o === 'string') ? grant.orgs : null;
        if (
          !run ||
          !grant ||
          !orgs ||
          typeof grant.mac !== 'string' ||
          !sameHex(grant.mac, grantMac(key, run.workflowId, run.runId, orgs))
        ) {
          throw ApplicationFailure.nonRetryable(
            `activity ${info.activityType} refused: its workflow's input was not authenticated`,
            WORKFLOW_INPUT_REFUSED,
          );
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
