// Names and shapes of the workflow input authentication (core/workflow-input-auth.ts) that the
// workflow bundle needs too: pure data, no Node modules.

/** Workflow start header: the API's proof that it made the input. */
export const INPUT_AUTH_HEADER = 'svc-input-auth';
/** Activity header: the grant the input check gave this workflow run. */
export const ACTIVITY_GRANT_HEADER = 'svc-activity-grant';
/**
 * Local-activity header of a verifyWorkflow run whose input asked for its check to be done by
 * the activities themselves (`input_auth_in_engine_activity`, workflows/input-auth.ts): the same
 * request the input check gets, authenticated by the workers' activity interceptor before the
 * activity runs. Accepted only on local activities (scheduled by our own workflow code in this
 * worker, never by a rogue poller, never written to history).
 */
export const DEFERRED_INPUT_AUTH_HEADER = 'svc-input-auth-deferred';
/** The local activity every workflow runs first. */
export const AUTHENTICATE_INPUT_ACTIVITY = 'authenticateWorkflowInputActivity';
/** Failure type of a refused input or activity (non-retryable). */
export const WORKFLOW_INPUT_REFUSED = 'WorkflowInputRefused';
/**
 * The key of the value a worker's codec puts in place of a payload it did not encrypt
 * (core/payload-codec.ts, refuseUnencrypted): the plaintext is never read, and the input check
 * fails any workflow whose input holds one.
 */
export const REFUSED_PAYLOAD_MARKER = 'svc_refused_payload';

export interface InputAuthHeader {
  v: 1;
  /** ms since the epoch, on the API's clock. */
  issued_at: number;
  /** hex HMAC-SHA256 (core/workflow-input-auth.ts inputMac). */
  mac: string;
}

export interface ActivityGrant {
  /** The organizations the authenticated input names (audit entries only for these). */
  orgs: string[];
  mac: string;
}

export interface AuthenticateInputRequest {
  workflow_type: string;
  args: unknown[];
  /** The decoded svc-input-auth header, or null when absent or unreadable. */
  auth: InputAuthHeader | null;
  /** The run's start time from its history (ms since the epoch). */
  run_started_at: number;
}

export type AuthenticateInputResult = { ok: true; grant: ActivityGrant } | { ok: false; reason: string };
