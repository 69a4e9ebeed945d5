// GET /health and GET /health/identity (contract, Endpoints).
import { createHmac } from 'node:crypto';
import { SERVICE_NAME, SERVICE_VERSION } from '../../core/version.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

import { NONCE_DETAIL, SECRETS_NOT_CONFIGURED } from '../../contract/health.js';

export function healthHandlers({ cfg }: AppDeps) {
  const health = endpoint('health', [], (ctx) => {
    ctx.body = {
      status: 'healthy',
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      timestamp: new Date().toISOString(),
    };
  });

  const healthIdentity = endpoint('healthIdentity', [], (ctx) => {
    const nonce = ctx.query.nonce;
    if (typeof nonce !== 'string' || nonce.length < 1 || nonce.length > 128) {
      throw new HttpError(400, NONCE_DETAIL);
    }
    const jwtSecret = cfg.SVC_JWT_SECRET_KEY;
    const lookupSecret = cfg.SVC_API_KEY_LOOKUP_SECRET;
    if (!jwtSecret || !lookupSecret) throw new HttpError(503, SECRETS_NOT_CONFIGURED);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      identity: {
        jwt_hmac: createHmac('sha256', jwtSecret).update(`svc-server-identity-v1:jwt:${nonce}`).digest('hex'),
        lookup_hmac: createHmac('sha256', lookupSecret).update(`svc-server-identity-v1:lookup:${nonce}`).digest('hex'),
      },
    };
  });
  return { health, healthIdentity };
}
