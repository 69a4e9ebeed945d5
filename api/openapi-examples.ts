// Error examples of the API reference (issue 27, point 8): each status of each operation shows
// the real `detail`s the service answers with for that status (the constants the routes throw),
// with the `code` the error handler adds; never one 400 text under every status.
import type { Endpoint } from '../contract/endpoints.js';
import { codeForStatus, ERROR_CODES } from '../contract/error-codes.js';
import { ATTESTATION_NOT_FOUND } from '../contract/attestation.js';
import { AUDIT_LOG_NOT_FOUND } from '../contract/audit.js';
import { API_KEY_NOT_FOUND, SIGNIN_FAILED } from '../contract/auth.js';
import { ROTATION_IN_PROGRESS } from '../contract/admin.js';
import { BATCH_CAPACITY_DETAIL, BATCH_FOREIGN_DETAIL, BATCH_NOT_FOUND_DETAIL } from '../contract/batch-limits.js';
import { SANDBOX_UNAVAILABLE_MESSAGE } from '../contract/common.js';
import { CODE_TIMEOUT_DETAIL, FACT_TIMEOUT_DETAIL } from '../contract/deadlines.js';
import { SECRETS_NOT_CONFIGURED } from '../contract/health.js';
import { IMAGE_BODY_LIMIT_BYTES } from '../contract/image.js';
import { UPLOAD_CAPACITY_DETAIL } from '../contract/stats.js';
import type { Scope } from '../contract/auth.js';
import {
  INACTIVE_KEY,
  INSUFFICIENT_PERMISSIONS,
  INVALID_KEY,
  INVALID_TOKEN,
  lacksScope,
  MISSING_KEY,
} from './middleware/auth.js';
import { BODY_TIMEOUT_DETAIL, bodyLimitDetail } from './middleware/body.js';
import { MULTIPART_REQUIRED } from './middleware/csv-upload.js';
import { STORE_UNAVAILABLE } from './middleware/errors.js';
import { A2A_INVALID_KEY, A2A_MISSING_KEY } from './routes/a2a.js';
import { INVALID_AGENT_TOKEN, MISSING_AGENT_TOKEN } from './routes/agents.js';
import { BACKEND_UNAVAILABLE } from './temporal.js';
import { JSON_BODY_LIMIT } from './deps.js';
import { zodDetail } from './errors.js';

export interface ErrorExample {
  summary: string;
  value: { detail: string; code: string; request_id: string };
}

const REQUEST_ID = '6f1c2b0e-8f5d-4a53-9a57-2f0e3c1d9b21';
const ex = (status: number, summary: string, detail: string, code = codeForStatus(status)): ErrorExample => ({
  summary,
  value: { detail, code, request_id: REQUEST_ID },
});

const SCOPE_BY_TAG: Record<string, Scope> = {
  verify: 'verify:read',
  'verification-context': 'verify:read',
  agents: 'agent:write',
  attestations: 'attestation:read',
  admin: 'admin:all',
  observability: 'admin:all',
};

function badRequest(e: Endpoint): ErrorExample[] {
  const out: ErrorExample[] = [];
  if (e.body?.contentType === 'application/json') {
    const r = e.body.schema.safeParse({});
    if (!r.success) out.push(ex(400, 'A required field is missing', zodDetail(r.error), ERROR_CODES.invalidField));
    out.push(ex(400, 'The body is not JSON', 'Malformed JSON body: Unexpected end of JSON input'));
  }
  if (e.body?.contentType === 'multipart/form-data') {
    const r = e.body.schema.safeParse({});
    if (!r.success) out.push(ex(400, 'A required form field is missing', zodDetail(r.error), ERROR_CODES.invalidField));
  }
  for (const part of [e.query, e.params]) {
    if (!part) continue;
    const bad = Object.fromEntries(Object.keys(part.shape).map((k) => [k, '\u0000not valid']));
    const r = part.safeParse(bad);
    if (!r.success) out.push(ex(400, 'A parameter is not valid', zodDetail(r.error), ERROR_CODES.invalidField));
  }
  if (e.id === 'healthIdentity') return [ex(400, 'No nonce', 'nonce is required (max 128 characters)')];
  return out.length ? out : [ex(400, 'The request is not valid', 'Malformed JSON body: Unexpected end of JSON input')];
}

/** The examples of one error status of one operation, by name. */
export function errorExamples(e: Endpoint, status: number): Record<string, ErrorExample> {
  const list: ErrorExample[] = [];
  switch (status) {
    case 400:
      list.push(...badRequest(e));
      break;
    case 401:
      if (e.id === 'signin') list.push(ex(401, 'Wrong e-mail or password', SIGNIN_FAILED));
      if (e.security.includes('apiKey'))
        list.push(ex(401, 'No X-API-Key header', MISSING_KEY), ex(401, 'Unknown or pre-7.2 key', INVALID_KEY));
      if (e.security.includes('bearer')) list.push(ex(401, 'Missing or expired access token', INVALID_TOKEN));
      if (e.security.includes('agentToken'))
        list.push(
          ex(401, 'No X-Agent-Token header', MISSING_AGENT_TOKEN),
          ex(401, 'Unknown agent token', INVALID_AGENT_TOKEN),
        );
      if (e.security.includes('a2aKey'))
        list.push(ex(401, 'No gateway key', A2A_MISSING_KEY), ex(401, 'Unknown gateway key', A2A_INVALID_KEY));
      if (e.security.includes('webhookSignature'))
        list.push(ex(401, 'Signature does not verify', 'invalid webhook signature'));
      break;
    case 403: {
      const scope = SCOPE_BY_TAG[e.tag];
      if (e.id === 'getBatch') list.push(ex(403, 'Job of another organization', BATCH_FOREIGN_DETAIL));
      if (scope && e.security.includes('apiKey'))
        list.push(
          ex(403, 'The key lacks the scope', lacksScope(scope)),
          ex(403, 'Revoked or expired key', INACTIVE_KEY),
        );
      list.push(ex(403, 'Role or tenant check failed', INSUFFICIENT_PERMISSIONS));
      break;
    }
    case 404: {
      const detail: Record<string, string> = {
        getBatch: BATCH_NOT_FOUND_DETAIL,
        getAttestation: ATTESTATION_NOT_FOUND,
        auditLog: AUDIT_LOG_NOT_FOUND,
        complianceVerify: AUDIT_LOG_NOT_FOUND,
        revokeApiKey: API_KEY_NOT_FOUND,
        rotateApiKey: API_KEY_NOT_FOUND,
        a2aTrace: 'Trace not found.',
      };
      list.push(
        ex(
          404,
          'Not found (or in another organization)',
          detail[e.id] ?? (e.tag === 'agents' ? 'Agent not found.' : 'Not Found'),
        ),
      );
      break;
    }
    case 408:
      list.push(ex(408, 'The body did not arrive in time', BODY_TIMEOUT_DETAIL));
      break;
    case 409: {
      const detail: Record<string, string> = {
        signup: 'An account with this e-mail already exists.',
        rotateApiKey: ROTATION_IN_PROGRESS,
        approveToolDefinition:
          'That definition hash was never presented for this tool; present it through POST /agents/{id}/verify first.',
      };
      list.push(ex(409, 'Conflict', detail[e.id] ?? 'Conflict'));
      break;
    }
    case 413: {
      const limit = e.id === 'verifyImage' ? IMAGE_BODY_LIMIT_BYTES : JSON_BODY_LIMIT;
      list.push(
        ex(413, 'The body is too large', e.id === 'verifyStats' ? bodyLimitDetail(10_000_000) : bodyLimitDetail(limit)),
      );
      break;
    }
    case 415:
      list.push(
        ex(
          415,
          'Wrong Content-Type',
          e.body?.contentType === 'multipart/form-data'
            ? MULTIPART_REQUIRED
            : 'Unsupported Content-Type: send application/json.',
        ),
      );
      break;
    case 429:
      list.push(
        ex(429, 'Too many attempts from this address', 'Too many authentication attempts. Try again in 60 seconds.'),
      );
      break;
    case 503:
      if (e.id === 'healthIdentity') {
        list.push(ex(503, 'Secrets not configured', SECRETS_NOT_CONFIGURED));
        break;
      }
      if (e.id === 'verifyCode') list.push(ex(503, 'The scan timed out', CODE_TIMEOUT_DETAIL));
      if (e.id === 'verifyFact') list.push(ex(503, 'The check timed out', FACT_TIMEOUT_DETAIL));
      if (e.id === 'verifyBatch') list.push(ex(503, 'Too many active batch jobs', BATCH_CAPACITY_DETAIL));
      if (e.id === 'verifyStats' || e.id === 'verifyImage')
        list.push(ex(503, 'Too many uploads at once', UPLOAD_CAPACITY_DETAIL));
      if (e.id === 'verifyStats' || e.id === 'verifyConsensus')
        list.push(ex(503, 'No sandbox', SANDBOX_UNAVAILABLE_MESSAGE));
      if (e.tag === 'verify' || e.tag === 'agents')
        list.push(ex(503, 'The verification backend is down', BACKEND_UNAVAILABLE));
      list.push(ex(503, 'The store is down', STORE_UNAVAILABLE, ERROR_CODES.storeUnavailable));
      break;
    default:
      list.push(ex(status, 'Error', codeForStatus(status)));
  }
  const out: Record<string, ErrorExample> = {};
  list.forEach((x, i) => {
    out[x.value.code + (i ? `_${i}` : '')] = x;
  });
  return out;
}
