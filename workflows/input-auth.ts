// Workflow interceptor bundled with every workflow (workers/workflow-bundle.ts): before the
// workflow function runs, its input and the API's `svc-input-auth` header go to the local
// activity authenticateWorkflowInputActivity (activities/input-auth.ts, holds the key); a refused
// input fails the workflow at once (non-retryable), before any other activity ran. An accepted
// one yields a grant that goes with every activity this run schedules (header
// `svc-activity-grant`), checked by the workers' activity interceptor. core/workflow-input-auth.ts.
//
// A verifyWorkflow run in local activity mode whose input asks for it (`input_auth_in_engine_activity`,
// set by the API) skips the separate check: each of its local activities carries the same check
// request (header `svc-input-auth-deferred`) and the workers' activity interceptor authenticates it
// before the activity runs, so the engine activity refuses a bad input before any work or write, and
// the run fails with the same non-retryable WorkflowInputRefused failure. One local activity and one
// activation fewer per verification (docs/performance.md, "CPU per /verify/math"). A batch job that
// is one local math unit (`one_step_job`, session 13) does the same in its one activity (docs/batch.md).
import {
  ActivityFailure,
  ApplicationFailure,
  defaultPayloadConverter,
  patched,
  proxyLocalActivities,
  workflowInfo,
  type Payload,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import {
  ACTIVITY_GRANT_HEADER,
  AUTHENTICATE_INPUT_ACTIVITY,
  DEFERRED_INPUT_AUTH_HEADER,
  INPUT_AUTH_HEADER,
  WORKFLOW_INPUT_REFUSED,
  type ActivityGrant,
  type AuthenticateInputRequest,
  type AuthenticateInputResult,
  type InputAuthHeader,
} from '../core/workflow-input-auth-types.js';
import { earlyPatches } from './early-patches.js';

const check = proxyLocalActivities<
  Record<typeof AUTHENTICATE_INPUT_ACTIVITY, (req: AuthenticateInputRequest) => Promise<AuthenticateInputResult>>
>({
  startToCloseTimeout: '10 s',
  // The check itself never throws; a failed attempt is infrastructure (a worker lost mid-task).
  retry: { maximumAttempts: 3, initialInterval: '100 ms' },
});

function readHeader(p: Payload | undefined): InputAuthHeader | null {
  if (!p) return null;
  try {
    const v = defaultPayloadConverter.fromPayload<InputAuthHeader>(p);
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** Longest engine budget a run whose activities check its input may ask for (math's is seconds). */
const MAX_DEFERRED_TIMEOUT_MS = 3_600_000;

/**
 * Whether this run's activities check its input themselves: verifyWorkflow, every activity local,
 * asked for by the input. Read before the input is authenticated, so a forged input can set it:
 * then each of its activities refuses it (activities/input-auth.ts), as the separate check would.
 */
function checkedByActivities(workflowType: string, args: readonly unknown[]): boolean {
  const first = args[0] as
    | { engine?: unknown; timeout_ms?: unknown; activity_mode?: unknown; input_auth_in_engine_activity?: unknown }
    | null
    | undefined;
  // Only an input whose first step is surely the math local activity (workflows/verify.ts): a
  // forged input that would make the workflow throw before scheduling any activity (an unknown
  // engine, a time-out that is not a duration) gets the separate check, which refuses it.
  if (workflowType === 'batchWorkflow') return oneStepBatchJob(args);
  return (
    workflowType === 'verifyWorkflow' &&
    args.length === 1 &&
    typeof first === 'object' &&
    first !== null &&
    first.engine === 'math' &&
    Number.isSafeInteger(first.timeout_ms) &&
    (first.timeout_ms as number) > 0 &&
    (first.timeout_ms as number) <= MAX_DEFERRED_TIMEOUT_MS &&
    first.activity_mode === 'local' &&
    first.input_auth_in_engine_activity === true
  );
}

/**
 * A batch job that runs as one local activity (workflows/batch.ts, `one_step_job`, session 13):
 * every item math, no more than one unit holds, local units, a sane item time-out and lane count,
 * so that the workflow's first step is surely that local activity (which checks the input) and
 * nothing before it throws. Any other shape gets the separate check.
 */
function oneStepBatchJob(args: readonly unknown[]): boolean {
  const first = args[0] as Record<string, unknown> | null | undefined;
  if (args.length !== 1 || typeof first !== 'object' || first === null || first.one_step_job !== true) return false;
  const { items, math_unit_max: max, item_timeout_ms: timeout, concurrency } = first;
  const positive = (n: unknown, limit: number) =>
    Number.isSafeInteger(n) && (n as number) > 0 && (n as number) <= limit;
  return (
    (first.unit_mode ?? first.activity_mode) === 'local' &&
    positive(max, 1000) &&
    positive(timeout, MAX_DEFERRED_TIMEOUT_MS) &&
    positive(concurrency, 1000) &&
    Array.isArray(items) &&
    items.length > 0 &&
    items.length <= (max as number) &&
    items.every(
      (it: unknown) =>
        typeof it === 'object' &&
        it !== null &&
        (it as { type?: unknown }).type === 'math' &&
        typeof (it as { query?: unknown }).query === 'string',
    )
  );
}

/**
 * Whether the run's input was made by an API that only ever starts runs with the input check
 * (`input_auth_no_patch_marker`, set by api/temporal.ts since session 19): the check then runs
 * without `patched('svc-input-auth')`, whose marker and TemporalChangeVersion upsert only tell
 * apart histories written before the check existed. In the input, not a patch marker: runs
 * started without it (an older API, a history written before) keep the marker, so both replay.
 */
function withoutPatchMarker(args: readonly unknown[]): boolean {
  const first = args[0] as { input_auth_no_patch_marker?: unknown } | null | undefined;
  return typeof first === 'object' && first !== null && first.input_auth_no_patch_marker === true;
}

/** The refusal of a deferred check by an activity's interceptor, as the run's own failure. */
function refusedInActivity(err: unknown): ApplicationFailure | null {
  const cause = err instanceof ActivityFailure ? err.cause : null;
  return cause instanceof ApplicationFailure &&
    cause.type === WORKFLOW_INPUT_REFUSED &&
    cause.message.startsWith('Workflow input refused: ')
    ? ApplicationFailure.nonRetryable(cause.message, WORKFLOW_INPUT_REFUSED)
    : null;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  // Per workflow run: the factory is called once for each run.
  let grant: ActivityGrant | null = null;
  // The check request every local activity carries when the run's activities check its input.
  let deferred: Payload | null = null;
  const withGrant = <T extends { activityType: string; headers: Record<string, Payload> }>(input: T): T =>
    grant && input.activityType !== AUTHENTICATE_INPUT_ACTIVITY
      ? { ...input, headers: { ...input.headers, [ACTIVITY_GRANT_HEADER]: defaultPayloadConverter.toPayload(grant) } }
      : input;
  const withDeferredCheck = <T extends { activityType: string; headers: Record<string, Payload> }>(input: T): T =>
    deferred ? { ...input, headers: { ...input.headers, [DEFERRED_INPUT_AUTH_HEADER]: deferred } } : withGrant(input);
  return {
    inbound: [
      {
        async execute(input, next) {
          // Runs started before this check existed replay without it (their activities then
          // have no grant and are refused: let running batch jobs finish before upgrading).
          // A one-step batch job (`one_step_job`, session 13) only ever ran with the check: no
          // patch marker (and its search attribute upsert) to record, none on replay either.
          const oneStepBatch = workflowInfo().workflowType === 'batchWorkflow' && oneStepBatchJob(input.args);
          // A run whose input says it was started by an API that always has its input checked
          // (`input_auth_no_patch_marker`, session 19) records no patch marker either: two history
          // events and a visibility update fewer per verification (docs/performance.md). Read
          // before the check, so a forged input can set it: it then skips the marker, never the check.
          // On replay such a run still calls patched(): a worker from before session 19 ignores the
          // flag and recorded the marker (an API upgraded before its workers), which replay must
          // consume again (nondeterminism otherwise); absent, patched() returns false and sends nothing.
          const flagged = !oneStepBatch && withoutPatchMarker(input.args);
          if (flagged && workflowInfo().unsafe.isReplaying) patched('svc-input-auth');
          if (oneStepBatch || flagged || patched('svc-input-auth')) {
            const info = workflowInfo();
            const req: AuthenticateInputRequest = {
              workflow_type: info.workflowType,
              args: input.args,
              auth: readHeader(input.headers[INPUT_AUTH_HEADER]),
              run_started_at: info.runStartTime.getTime(),
            };
            if (checkedByActivities(info.workflowType, input.args)) {
              // In the input, not a patch marker (as audit_in_engine_activity): runs started
              // without it, and histories written before, keep the separate check.
              deferred = defaultPayloadConverter.toPayload(req);
              try {
                return await next(input);
              } catch (err) {
                throw refusedInActivity(err) ?? err;
              }
            }
            // The patches the workflow decides right after the check, decided before it (session
            // 21, workflows/early-patches.ts): their markers go in the run's first task.
            const early = earlyPatches(info.workflowType, input.args);
            early.decide();
            const result = await check[AUTHENTICATE_INPUT_ACTIVITY](req);
            if (!result.ok)
              throw ApplicationFailure.nonRetryable(
                `Workflow input refused: ${result.reason}.`,
                WORKFLOW_INPUT_REFUSED,
              );
            grant = result.grant;
            await early.settle();
          }
          return next(input);
        },
      },
    ],
    outbound: [
      {
        // A run whose activities check its input schedules none but local ones; a normal one
        // would go without a grant and be refused.
        scheduleActivity: (input, next) => next(withGrant(input)),
        scheduleLocalActivity: (input, next) => next(withDeferredCheck(input)),
      },
    ],
  };
};
