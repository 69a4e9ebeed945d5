// Workflow interceptor bundled with every workflow (workers/workflow-bundle.ts): before the
// workflow function runs, its input and the API's `svc-input-auth` header go to the local
// activity authenticateWorkflowInputActivity (activities/input-auth.ts, holds the key); a refused
// input fails the workflow at once (non-retryable), before any other activity ran. An accepted
// one yields a grant that goes with every activity this run schedules (header
// `svc-activity-grant`), checked by the workers' activity interceptor. core/workflow-input-auth.ts.
import {
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
  INPUT_AUTH_HEADER,
  WORKFLOW_INPUT_REFUSED,
  type ActivityGrant,
  type AuthenticateInputRequest,
  type AuthenticateInputResult,
  type InputAuthHeader,
} from '../core/workflow-input-auth-types.js';

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

export const interceptors: WorkflowInterceptorsFactory = () => {
  // Per workflow run: the factory is called once for each run.
  let grant: ActivityGrant | null = null;
  const withGrant = <T extends { activityType: string; headers: Record<string, Payload> }>(input: T): T =>
    grant && input.activityType !== AUTHENTICATE_INPUT_ACTIVITY
      ? { ...input, headers: { ...input.headers, [ACTIVITY_GRANT_HEADER]: defaultPayloadConverter.toPayload(grant) } }
      : input;
  return {
    inbound: [
      {
        async execute(input, next) {
          // Runs started before this check existed replay without it (their activities then
          // have no grant and are refused: let running batch jobs finish before upgrading).
          if (patched('svc-input-auth')) {
            const info = workflowInfo();
            const result = await check[AUTHENTICATE_INPUT_ACTIVITY]({
              workflow_type: info.workflowType,
              args: input.args,
              auth: readHeader(input.headers[INPUT_AUTH_HEADER]),
              run_started_at: info.runStartTime.getTime(),
            });
            if (!result.ok)
              throw ApplicationFailure.nonRetryable(
                `Workflow input refused: ${result.reason}.`,
                WORKFLOW_INPUT_REFUSED,
              );
            grant = result.grant;
          }
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(withGrant(input)),
        scheduleLocalActivity: (input, next) => next(withGrant(input)),
      },
    ],
  };
};
