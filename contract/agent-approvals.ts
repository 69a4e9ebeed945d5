// Contract of durable tool-call approvals and action outcomes (docs/approvals.md): requests,
// responses and query parameters. Unknown keys ignored, known keys strict. Imports only zod.
import { z } from 'zod';
import { nullAsAbsent, nullMeansAbsent } from './common.js';
import { findingSchema } from './agents.js';

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired'] as const;
export const OUTCOME_STATUSES = ['succeeded', 'failed', 'error'] as const;

export const approvalIdSchema = z.string().regex(/^apr_[1-9][0-9]{0,14}$/, 'must be an approval id (apr_<n>)');
export const actionIdSchema = z.string().regex(/^acn_[0-9a-f]{32}$/, 'must be an action id (acn_<32 hex>)');

export const approvalParamsSchema = z.object({ id: z.string(), approval_id: z.string() });
export const actionParamsSchema = z.object({ id: z.string(), action_id: z.string() });

export const approvalListQuerySchema = nullMeansAbsent(
  z.object({
    state: z.enum(APPROVAL_STATES, { error: `must be one of ${APPROVAL_STATES.join(', ')}` }).optional(),
    limit: z.coerce
      .number({ error: 'must be an integer from 1 to 100' })
      .int('must be an integer from 1 to 100')
      .min(1, 'must be an integer from 1 to 100')
      .max(100, 'must be an integer from 1 to 100')
      .default(50),
    /** `next_cursor` of the previous page. */
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,14}$/, 'must be a cursor returned by this endpoint')
      .optional(),
  }),
);

export const approvalWaitQuerySchema = nullMeansAbsent(
  z.object({
    /** Long poll: answer as soon as the approval is decided, at the latest after this many seconds. */
    // Wrapped explicitly: coercion reads null as 0, which nullMeansAbsent would leave undeclared in the document.
    wait: nullAsAbsent(
      z.coerce
        .number({ error: 'must be a number of seconds from 0 to 60' })
        .int('must be a whole number of seconds from 0 to 60')
        .min(0, 'must be a number of seconds from 0 to 60')
        .max(60, 'must be a number of seconds from 0 to 60')
        .default(0),
    ),
  }),
);

export const decideApprovalRequestSchema = z.object({
  decision: z.enum(['approve', 'deny'], {
    error: (i) => (i.input === undefined ? 'decision is required: approve or deny' : 'must be approve or deny'),
  }),
  reason: z
    .string({ error: (i) => (i.input === undefined ? 'reason is required' : 'reason must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(1000, 'at most 1000 characters'),
});
export type DecideApprovalRequest = z.output<typeof decideApprovalRequestSchema>;

export const approvalSchema = z.object({
  approval_id: z.string(),
  agent_id: z.string(),
  tool: z.string(),
  action_id: z.string(),
  state: z.enum(APPROVAL_STATES),
  /** The decision's reason (`time-out` when expired); null while pending. */
  reason: z.string().nullable(),
  /** The deciding user's id; null while pending and when the time-out decided. */
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  requested_at: z.string(),
  expires_at: z.string(),
  timeout_seconds: z.number().int(),
  risk_score: z.number().nullable(),
  reasons: z.array(z.string()),
  /** ES256 attestation of the decision (engine `agent-approval`, never VERIFIED; admission ADMIT only when approved). */
  attestation: z.object({ id: z.string(), token: z.string() }).nullable(),
  workflow_id: z.string(),
  request_workflow_id: z.string(),
  request_audit_log_id: z.string(),
  decision_audit_log_id: z.string().nullable(),
});

export const approvalListResponseSchema = z.object({
  agent_id: z.string(),
  items: z.array(approvalSchema),
  /** Pass as `cursor` for older approvals; null: none left. */
  next_cursor: z.string().nullable(),
});

/** POST /agents/{id}/tools/{tool} for a tool the agent's policy marks as needing approval (202). */
export const pendingApprovalResponseSchema = z.object({
  decision: z.literal('pending_approval'),
  allowed: z.literal(false),
  approval_id: z.string(),
  action_id: z.string(),
  expires_at: z.string(),
  risk_score: z.number().min(0).max(1),
  reasons: z.array(z.string()),
  tool: z.string(),
  category: z.string(),
  findings: z.array(findingSchema),
  workflow_id: z.string(),
  audit_log_id: z.string(),
});

export const reportOutcomeRequestSchema = nullMeansAbsent(
  z.object({
    status: z.enum(OUTCOME_STATUSES, {
      error: (i) =>
        i.input === undefined ? 'status is required: succeeded, failed or error' : 'must be succeeded, failed or error',
    }),
    detail: z.string({ error: 'detail must be a string' }).max(2000, 'at most 2000 characters').optional(),
  }),
);

export const actionSchema = z.object({
  action_id: z.string(),
  agent_id: z.string(),
  tool: z.string(),
  state: z.enum(['admitted', 'pending_approval', 'approved', 'denied', 'expired']),
  approval_id: z.string().nullable(),
  workflow_id: z.string(),
  created_at: z.string(),
  outcome: z
    .object({ status: z.enum(OUTCOME_STATUSES), detail: z.string().nullable(), reported_at: z.string() })
    .nullable(),
  /** Set when no outcome was reported in time (SVC_ACTION_OUTCOME_TIMEOUT). */
  overdue_flagged_at: z.string().nullable(),
});
