// The retry table and activity time-outs of every workflow, in one place (docs/architecture.md,
// "Failure handling"). Engine outcomes are values, never exceptions, so an activity failure is
// infrastructure (store down, worker crash) or a bug: retried briefly within the deadline, never
// when the failure type (core/failure-types.ts) says retrying cannot change it.
//
// Imported by workflows: plain data and pure functions only (no I/O, no clock).
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import {
  AUDIT_CHAIN_FAILURE,
  AUDIT_CONFIG_FAILURE,
  BATCH_ITEM_TIMEOUT_FAILURE,
  DETERMINISTIC_ENGINE_FAILURE,
  ENGINE_TIMEOUT_FAILURE,
  FEEDBACK_NOT_CONFIGURED_FAILURE,
  GUARD_UNAVAILABLE_FAILURE,
  MAIL_NOT_CONFIGURED_FAILURE,
  NO_RECIPIENT_FAILURE,
  SEAL_FAILURE,
  STORE_UNREACHABLE_FAILURE,
  VALIDATION_FAILURE,
} from '../core/failure-types.js';

/** Infrastructure failures: three attempts, 100 ms then 200 ms apart (at most 1 s). */
const BRIEF = { initialInterval: '100 ms', backoffCoefficient: 2, maximumInterval: '1 s', maximumAttempts: 3 } as const;

/** Failures a retry cannot mend on the way to a verdict and its audit entry. */
const VERDICT_WRITE_FAILURES = [
  DETERMINISTIC_ENGINE_FAILURE,
  VALIDATION_FAILURE,
  ENGINE_TIMEOUT_FAILURE,
  AUDIT_CONFIG_FAILURE,
  AUDIT_CHAIN_FAILURE,
  // The store unreachable for the driver's whole selection time-out: fail closed now (issue 22's 10 s).
  STORE_UNREACHABLE_FAILURE,
];

export const RETRY = {
  /** An engine activity (one verification, an agent's engine call); math's appends its audit entry too (workflows/verify.ts). */
  engine: {
    ...BRIEF,
    nonRetryableErrorTypes: VERDICT_WRITE_FAILURES,
  },
  /** The audit append and the other short store writes that follow a verdict. */
  audit: {
    ...BRIEF,
    nonRetryableErrorTypes: VERDICT_WRITE_FAILURES,
  },
  /** The agent workflow's guard, engine and record activities (sealed input, guard pool). */
  agent: {
    ...BRIEF,
    nonRetryableErrorTypes: [
      DETERMINISTIC_ENGINE_FAILURE,
      VALIDATION_FAILURE,
      ENGINE_TIMEOUT_FAILURE,
      SEAL_FAILURE,
      GUARD_UNAVAILABLE_FAILURE,
      AUDIT_CONFIG_FAILURE,
      AUDIT_CHAIN_FAILURE,
    ],
  },
  /** The A2A gateway's record activities; its evaluation runs once (a2aEvaluate). */
  a2a: { ...BRIEF, nonRetryableErrorTypes: [SEAL_FAILURE, AUDIT_CONFIG_FAILURE, AUDIT_CHAIN_FAILURE] },
  a2aEvaluate: {
    ...BRIEF,
    maximumAttempts: 1,
    nonRetryableErrorTypes: [SEAL_FAILURE, AUDIT_CONFIG_FAILURE, AUDIT_CHAIN_FAILURE],
  },
  /** A provider (language model) call: one attempt, bounded by SVC_PROVIDER_TIMEOUT. */
  provider: { maximumAttempts: 1 },
  /** A batch item (workflows/batch.ts): an outage is waited out; an item past its time-out is final. */
  batchItem: {
    initialInterval: '200 ms',
    backoffCoefficient: 2,
    maximumInterval: '2 s',
    maximumAttempts: 4,
    nonRetryableErrorTypes: [
      BATCH_ITEM_TIMEOUT_FAILURE,
      DETERMINISTIC_ENGINE_FAILURE,
      VALIDATION_FAILURE,
      ENGINE_TIMEOUT_FAILURE,
    ],
  },
  /** Leaked-key revocation must happen: retried without limit (an outage only delays it). */
  leakRevoke: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '5 s' },
  leakAudit: {
    initialInterval: '500 ms',
    backoffCoefficient: 2,
    maximumInterval: '30 s',
    maximumAttempts: 30,
    nonRetryableErrorTypes: [AUDIT_CONFIG_FAILURE, AUDIT_CHAIN_FAILURE],
  },
  /** Notification e-mail: backs off up to a minute, for a day. */
  leakMail: {
    initialInterval: '1 s',
    backoffCoefficient: 2,
    maximumInterval: '60 s',
    nonRetryableErrorTypes: [MAIL_NOT_CONFIGURED_FAILURE, NO_RECIPIENT_FAILURE],
  },
  leakFeedback: {
    initialInterval: '1 s',
    backoffCoefficient: 2,
    maximumInterval: '60 s',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [FEEDBACK_NOT_CONFIGURED_FAILURE],
  },
} as const satisfies Record<string, RetryPolicy>;

/** Short store writes run as local activities (audit append, activity records). */
const STORE_WRITE_TIMEOUT_MS = 10_000;
export const STORE_WRITE_TIMEOUT = STORE_WRITE_TIMEOUT_MS;
/**
 * What an engine activity that appends its own audit entry (workflows/verify.ts) gets beyond the
 * engine budget: the separate append's own time-out, so the entry has the time it had before. The
 * engine itself keeps its deadline (enforced in the engine pool), and the run its execution time-out.
 */
export const AUDIT_APPEND_ALLOWANCE_MS = STORE_WRITE_TIMEOUT_MS;

/**
 * How long a normal activity task may wait for a worker to take it (issue 22): with no worker
 * alive for its task queue, the workflow fails with a schedule-to-start time-out, which the API
 * answers with the engine's time-out 503 within seconds instead of at the whole deadline. Not
 * retried (Temporal never retries a schedule-to-start time-out). Workers take activity tasks
 * at once (their slots far exceed the engine pools, where queueing is fair and inside the
 * start-to-close budget), so a live worker never comes near it.
 */
export const ACTIVITY_SCHEDULE_TO_START_MS = 5_000;

/** A normal engine activity under the engine's budget: one deadline for the attempts, a short one for finding a worker. */
export function engineActivityOptions(timeoutMs: number, retry: RetryPolicy = RETRY.engine): ActivityOptions {
  return {
    startToCloseTimeout: timeoutMs,
    scheduleToCloseTimeout: timeoutMs,
    scheduleToStartTimeout: Math.min(ACTIVITY_SCHEDULE_TO_START_MS, timeoutMs),
    retry,
  };
}

/**
 * The same budget as a local activity (no task queue, so no schedule-to-start). Schedule-to-close
 * only: the worker's core runs each local time-out as its own timer, and with a start-to-close
 * equal to the deadline a loaded worker could handle that one first, count it as a retryable
 * attempt time-out and re-run the activity after the backoff (the schedule-to-close expiry,
 * handled meanwhile, is dropped for an activity in backoff). A schedule-to-close time-out is
 * final, so an activity past its deadline runs once; failed attempts are still retried within it.
 */
export function engineLocalActivityOptions(timeoutMs: number, retry: RetryPolicy = RETRY.engine): LocalActivityOptions {
  return { scheduleToCloseTimeout: timeoutMs, retry };
}

/** A provider call: one attempt under SVC_PROVIDER_TIMEOUT (normal for remote providers, local for the embedded one). */
export function providerActivityOptions(timeoutMs: number): ActivityOptions {
  return {
    startToCloseTimeout: timeoutMs,
    scheduleToCloseTimeout: timeoutMs,
    scheduleToStartTimeout: Math.min(ACTIVITY_SCHEDULE_TO_START_MS, timeoutMs),
    retry: RETRY.provider,
  };
}
export function providerLocalActivityOptions(timeoutMs: number): LocalActivityOptions {
  return { startToCloseTimeout: timeoutMs, retry: RETRY.provider };
}

/** Local store writes after a verdict (audit append, records). */
export const STORE_WRITE_OPTIONS = {
  startToCloseTimeout: STORE_WRITE_TIMEOUT,
  retry: RETRY.audit,
} as const satisfies LocalActivityOptions;
