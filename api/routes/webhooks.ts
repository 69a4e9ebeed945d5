// POST /webhooks/secret-scanning: signed leaked-key reports (contract section of the same
// name, and "Events"). Order of work, so that nothing in an unverified body is parsed, logged
// or persisted:
//   1. the two headers, checked as text (the signature header capped before decoding);
//   2. the raw body, streamed under the 1 MiB cap (413 as soon as it is exceeded);
//   3. the signature, against the code host's published key (fetched on demand);
//   4. only then the JSON: a non-empty array of at most 500 match objects (400 otherwise);
//   5. one revocation workflow per delivery (id from the body digest), then 200.
// The global JSON reader skips this path (api/middleware/body.ts, RAW_BODY_PATHS).
// docs/secret-scanning.md.
import type { Context } from 'koa';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  INVALID_WEBHOOK_SIGNATURE,
  KEY_ID_HEADER,
  MALFORMED_WEBHOOK_JSON,
  NOT_A_MATCH_ARRAY,
  SIGNATURE_HEADER,
  SIGNING_KEYS_UNAVAILABLE,
  TOO_MANY_MATCHES,
  WEBHOOK_BACKEND_UNAVAILABLE,
  WEBHOOK_BODY_LIMIT_BYTES,
  WEBHOOK_MAX_MATCHES,
  secretScanningRequestSchema,
  type SecretScanningResponse,
} from '../../contract/webhooks.js';
import {
  LEAK_WORKFLOW_PREFIX,
  SigningKeyStore,
  SigningKeysUnavailableError,
  checkKeyIdHeader,
  decodeSignatureHeader,
  feedbackSealKey,
  loadLeakConfig,
  matchRefs,
  rawFeedbackAllowed,
  sha256Hex,
  verifyBodySignature,
} from '../../core/secret-scanning.js';
import { parseStrictJson } from '../../core/strict-json.js';
import { logger } from '../../core/logger.js';
import { LEAK_HOLD_MS } from '../../core/accounts.js';
import { ConfigError } from '../../core/config.js';
import { HttpError, zodDetail } from '../errors.js';
import { readRawBody } from '../middleware/body.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import type { LeakRevocationInput } from '../../workflows/leak-revocation.js';
import { workflows } from '../workflows.js';

const log = logger('webhooks');

export const SECRET_SCANNING_PATH = '/webhooks/secret-scanning';

/** The generic 401 of every signature failure (an unread body is not kept alive for). */
const invalidSignature = (bodyRead: boolean) =>
  new HttpError(401, INVALID_WEBHOOK_SIGNATURE, bodyRead ? {} : { Connection: 'close' });

export function webhookHandlers(deps: AppDeps) {
  let config;
  try {
    config = loadLeakConfig(deps.env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const keyStore = new SigningKeyStore(config.keysUrl);
  const lookupSecret = deps.cfg.SVC_API_KEY_LOOKUP_SECRET as string;
  // Raw tokens only ever travel sealed, and only when raw feedback over HTTPS is configured.
  const sealKey = rawFeedbackAllowed(config.feedback) ? feedbackSealKey(lookupSecret) : null;
  if (config.feedback?.sendRaw && !sealKey)
    log.warn('SVC_LEAK_FEEDBACK_SEND_RAW ignored: the feedback URL is not HTTPS; hashes are sent');

  const secretScanning = endpoint('secretScanning', [], async (ctx: Context) => {
    // 1. Headers, as text: nothing is decoded beyond the length cap.
    const keyId = checkKeyIdHeader(ctx.get(KEY_ID_HEADER) || undefined);
    const signature = decodeSignatureHeader(ctx.get(SIGNATURE_HEADER) || undefined);
    if (keyId === null || signature === null) throw invalidSignature(false);

    // 2. The raw body under the cap (Content-Length checked up front, then while streaming).
    const body = await readRawBody(ctx, {
      limitBytes: WEBHOOK_BODY_LIMIT_BYTES,
      timeoutMs: deps.cfg.SVC_BODY_READ_TIMEOUT * 1000,
    });

    // 3. The signature.
    let key;
    try {
      key = await keyStore.get(keyId);
    } catch (err) {
      if (err instanceof SigningKeysUnavailableError) {
        log.warn('secret-scanning signing keys unavailable', { reason: err.message });
        throw new HttpError(503, SIGNING_KEYS_UNAVAILABLE, { 'Retry-After': '5' });
      }
      throw err;
    }
    if (key === null || !verifyBodySignature(body, signature, key)) throw invalidSignature(true);

    // 4. Verified: now, and only now, the body is parsed.
    let json: unknown;
    try {
      json = parseStrictJson(body.toString('utf8'));
    } catch {
      throw new HttpError(400, MALFORMED_WEBHOOK_JSON);
    }
    if (!Array.isArray(json) || json.length === 0) throw new HttpError(400, NOT_A_MATCH_ARRAY);
    if (json.length > WEBHOOK_MAX_MATCHES) throw new HttpError(400, TOO_MANY_MATCHES);
    const parsed = secretScanningRequestSchema.safeParse(json);
    if (!parsed.success) throw new HttpError(400, zodDetail(parsed.error));

    // 5. One workflow per delivery: a redelivery (same body) is the same workflow.
    const deliveryId = sha256Hex(body);
    const workflowId = `${LEAK_WORKFLOW_PREFIX}${deliveryId}`;
    const input: LeakRevocationInput = {
      delivery_id: deliveryId,
      received_at: new Date().toISOString(),
      matches: matchRefs(parsed.data, lookupSecret, sealKey),
      feedback: config.feedback !== null,
    };
    // The revocation runs in a worker: until it is done, this process asks the store for these
    // keys on every request instead of its key cache (docs/performance.md).
    for (const m of input.matches) deps.accounts.keyCache.hold(m.lookup_digest, LEAK_HOLD_MS);
    let redelivery = false;
    try {
      await deps.temporal.startWorkflow(
        workflows.leakRevocationWorkflow,
        {
          workflowId,
          args: [input],
          // Completed: never run again (no second e-mail); a failed or terminated run may be retried
          // by a redelivery. Running: the same run answers.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
          workflowIdConflictPolicy: 'USE_EXISTING',
        },
        {
          detail: WEBHOOK_BACKEND_UNAVAILABLE,
          headers: { 'Retry-After': '5' },
          passThrough: [WorkflowExecutionAlreadyStartedError],
          startDeadlineMs: 5000,
        },
      );
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      redelivery = true;
    }
    log.info('secret-scanning delivery accepted', {
      workflow_id: workflowId,
      matches: input.matches.length,
      redelivery,
    });
    ctx.set('X-Workflow-Id', workflowId);
    ctx.status = 200;
    ctx.body = {
      status: 'accepted',
      delivery_id: deliveryId,
      matches: input.matches.length,
    } satisfies SecretScanningResponse;
  });
  return { secretScanning };
}
