// One verified secret-scanning delivery = one workflow (id `leak-revocation-<sha256 of the raw
// body>`, so a redelivery is the same workflow). It never sees a raw token: each match arrives
// as its lookup digest, SHA-256 hash and masked preview (raw feedback over HTTPS adds a sealed
// copy, core/secret-scanning.ts). Steps:
//   1. revoke: every match looked up by digest, active keys revoked (retried until it succeeds:
//      a worker or store outage only delays it);
//   2. then, in parallel: per key revoked by this delivery, the SECRET_LEAK_AUTO_REVOKED audit
//      event and the notification e-mail (retried with backoff; a failed e-mail never undoes a
//      revocation); and the optional feedback POST (one label per match).
// docs/secret-scanning.md.
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { LeakMatchRef, LeakOutcome } from '../core/secret-scanning.js';
import type { LeakRevocationActivities, RevokedKey } from '../activities/leak-revocation.js';
import { MAIL_NOT_CONFIGURED_FAILURE } from '../core/failure-types.js';
import { RETRY } from './policies.js';

export interface LeakRevocationInput {
  /** Hex SHA-256 of the verified raw body. */
  delivery_id: string;
  received_at: string;
  matches: LeakMatchRef[];
  /** Whether the API asked for the feedback step (SVC_LEAK_FEEDBACK_ENABLED where it verified). */
  feedback: boolean;
}

export type StepStatus = 'done' | 'skipped' | 'failed';

export interface LeakRevocationResult {
  delivery_id: string;
  outcomes: { index: number; outcome: LeakOutcome; key_id: string | null }[];
  revoked_at: string | null;
  audit: Record<string, StepStatus>;
  notifications: Record<string, StepStatus>;
  feedback: StepStatus;
}

/**
 * Revocation must happen: retried without limit (an outage only delays it). A local activity:
 * it runs inside the workflow task, saving the activity task's round trips through the server
 * (bench/leak-revocation.ts); an attempt lost with a crashed worker re-runs when the workflow
 * task is retried on another (or the restarted) worker.
 */
const revoke = proxyLocalActivities<LeakRevocationActivities>({
  startToCloseTimeout: '15 s',
  retry: RETRY.leakRevoke,
});

const audit = proxyActivities<LeakRevocationActivities>({
  startToCloseTimeout: '15 s',
  retry: RETRY.leakAudit,
});

/** One attempt has a 10 s mail time-out (SVC_SMTP_TIMEOUT); attempts back off up to a minute, for a day. */
const mail = proxyActivities<LeakRevocationActivities>({
  startToCloseTimeout: '60 s',
  scheduleToCloseTimeout: '24 h',
  retry: RETRY.leakMail,
});

const feedback = proxyActivities<LeakRevocationActivities>({
  startToCloseTimeout: '30 s',
  retry: RETRY.leakFeedback,
});

function failureType(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type ? cause.type : 'error';
}

export async function leakRevocationWorkflow(input: LeakRevocationInput): Promise<LeakRevocationResult> {
  const { workflowId } = workflowInfo();
  const result = await revoke.revokeLeakedKeysActivity({
    delivery_id: input.delivery_id,
    workflow_id: workflowId,
    matches: input.matches.map((m) => ({ index: m.index, lookup_digest: m.lookup_digest })),
  });
  const byIndex = new Map(input.matches.map((m) => [m.index, m]));
  const revokedKeys: RevokedKey[] = result.revoked;

  const auditStatus: Record<string, StepStatus> = {};
  const mailStatus: Record<string, StepStatus> = {};
  let feedbackStatus: StepStatus = 'skipped';

  const perKey = revokedKeys.map(async (k) => {
    const m = byIndex.get(k.index);
    const facts = {
      delivery_id: input.delivery_id,
      workflow_id: workflowId,
      key: k,
      preview: m?.preview ?? k.preview,
      token_type: m?.type ?? '',
      url: m?.url ?? null,
      source: m?.source ?? null,
    };
    await Promise.all([
      audit.recordLeakRevocationActivity(facts).then(
        () => void (auditStatus[k.key_id] = 'done'),
        () => void (auditStatus[k.key_id] = 'failed'),
      ),
      mail.notifyLeakRevocationActivity(facts).then(
        (r) => void (mailStatus[k.key_id] = r.sent || r.duplicate ? 'done' : 'skipped'),
        (err) => void (mailStatus[k.key_id] = failureType(err) === MAIL_NOT_CONFIGURED_FAILURE ? 'skipped' : 'failed'),
      ),
    ]);
  });

  const feedbackStep = input.feedback
    ? feedback
        .sendLeakFeedbackActivity({
          delivery_id: input.delivery_id,
          matches: input.matches,
          outcomes: result.outcomes.map((o) => ({ index: o.index, outcome: o.outcome })),
        })
        .then(
          (r) => void (feedbackStatus = r.sent ? 'done' : 'skipped'),
          () => void (feedbackStatus = 'failed'),
        )
    : Promise.resolve();

  await Promise.all([...perKey, feedbackStep]);
  return {
    delivery_id: input.delivery_id,
    outcomes: result.outcomes,
    revoked_at: result.revoked_at,
    audit: auditStatus,
    notifications: mailStatus,
    feedback: feedbackStatus,
  };
}
