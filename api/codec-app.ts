// The codec server's Koa app: Temporal's remote codec protocol (POST .../encode, POST .../decode,
// contract/codec.ts) for platform operators only, with the CORS answers the Temporal UI needs.
//
// Who: the metrics endpoints' operator allow-list (SVC_METRICS_OPERATOR_USER_IDS) with their JWT,
// sent as `Authorization: Bearer` (CLI: --codec-auth) or, for the Temporal UI (which can only
// include cookies when it has no login of its own), the HttpOnly session cookie set by
// POST /session. Anonymous or invalid token: 401. Valid token of a non-operator: 403.
// docs/payload-encryption.md.
import Koa, { type Context, type Middleware } from 'koa';
import type { Payload } from '@temporalio/common';
import { codecRequestSchema, CODEC_BODY_LIMIT, type CodecPayloadJson, type CodecResponse } from '../contract/codec.js';
import type { ServiceConfig } from '../core/config.js';
import type { Accounts } from '../core/accounts.js';
import { logger } from '../core/logger.js';
import { PayloadDecryptionError, type AesGcmPayloadCodec } from '../core/payload-codec.js';
import { HttpError } from './errors.js';
import { errorHandler, requestId } from './middleware/errors.js';
import { jsonBody, bodyObject } from './middleware/body.js';
import { INSUFFICIENT_PERMISSIONS, INVALID_TOKEN, resolveJwt, type Principal } from './middleware/auth.js';
import { operatorIds } from './routes/metrics.js';

const log = logger('codec-server');

export interface CodecDeps {
  cfg: ServiceConfig;
  accounts: Accounts;
  codec: AesGcmPayloadCodec;
}

export const SESSION_COOKIE = 'svc_codec_session';
export const MISSING_TOKEN = "Missing access token: send a platform operator's access token as Authorization: Bearer.";
export const ORIGIN_NOT_ALLOWED = 'Origin not allowed to call this codec server.';
export const JSON_ONLY = 'Unsupported Content-Type: send application/json.';
export const namespaceNotServed = (ns: string) => `Namespace '${ns.slice(0, 100)}' is not served by this codec server.`;

const ALLOW_HEADERS = 'Authorization, Content-Type, X-Namespace';
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;
const BEARER = /^Bearer\s+(\S+)$/i;

export function corsOrigins(cfg: ServiceConfig): Set<string> {
  return new Set(
    cfg.SVC_CODEC_SERVER_CORS_ORIGINS.split(',')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter((s) => s.length > 0),
  );
}

/** Outermost: CORS headers for allowed origins (on errors too, so the UI can read a 401/403), and preflights. */
function cors(origins: Set<string>): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    const allowed = origin !== '' && origins.has(origin);
    ctx.vary('Origin');
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method === 'OPTIONS') {
      if (!allowed) {
        ctx.status = 403;
        ctx.body = { detail: ORIGIN_NOT_ALLOWED };
        return;
      }
      ctx.set('Access-Control-Allow-Methods', 'POST, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}

function cookieToken(ctx: Context): string | undefined {
  const header = ctx.get('Cookie');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The operator behind the request, or a 401/403. A cross-origin cookie only counts from an allowed origin. */
async function requireOperator(
  ctx: Context,
  deps: CodecDeps,
  ids: Set<string>,
  origins: Set<string>,
): Promise<Principal> {
  const authorization = ctx.get('Authorization');
  let token: string | undefined;
  if (authorization !== '') {
    token = BEARER.exec(authorization)?.[1];
    if (!token) throw new HttpError(401, INVALID_TOKEN, { 'WWW-Authenticate': 'Bearer' });
  } else {
    const origin = ctx.get('Origin');
    if (origin === '' || origins.has(origin)) token = cookieToken(ctx);
  }
  if (!token) throw new HttpError(401, MISSING_TOKEN, { 'WWW-Authenticate': 'Bearer' });
  const principal = await resolveJwt(deps, `Bearer ${token}`);
  if (!principal) throw new HttpError(401, INVALID_TOKEN, { 'WWW-Authenticate': 'Bearer' });
  if (!principal.userId || !ids.has(principal.userId)) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
  return principal;
}

const toBytes = (b64: string | undefined) => new Uint8Array(Buffer.from(b64 ?? '', 'base64'));

function fromJson(p: CodecPayloadJson): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = toBytes(v);
  return { metadata, data: toBytes(p.data) };
}

function toJson(p: Payload): CodecResponse['payloads'][number] {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array(0)).toString('base64') };
}

const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc codec server</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>svc codec server</h1>
<p>Platform operators: paste your access token (<code>POST /auth/signin</code>) to let the Temporal UI decrypt
payloads in this browser. The dev and test stacks' Temporal UI already sends the session cookie ("Include cross-origin
credentials" is on); open it at the same host as this page (127.0.0.1).</p>
<form id="f"><input id="t" type="password" autocomplete="off" size="60" placeholder="access token">
<button>Sign in</button> <button type="button" id="out">Sign out</button></form>
<p id="s" role="status"></p>
<script src="/session.js"></script>
</body></html>`;

const LOGIN_SCRIPT = `const s = document.getElementById('s');
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/session', { method: 'POST', headers: { Authorization: 'Bearer ' + document.getElementById('t').value } });
  s.textContent = r.status === 204 ? 'Signed in: the Temporal UI can now decode payloads.' : ((await r.json()).detail || 'Refused.');
});
document.getElementById('out').addEventListener('click', async () => {
  await fetch('/session', { method: 'DELETE' });
  s.textContent = 'Signed out.';
});
`;

export function createCodecApp(deps: CodecDeps): Koa {
  const app = new Koa({ proxy: false });
  const ids = operatorIds(deps.cfg);
  const origins = corsOrigins(deps.cfg);
  const body = jsonBody({ limitBytes: CODEC_BODY_LIMIT, timeoutMs: deps.cfg.SVC_BODY_READ_TIMEOUT * 1000 });

  app.use(requestId());
  // Outside CORS so that its own 403 (a refused preflight) gets `code` and `request_id` too.
  app.use(errorHandler());
  app.use(cors(origins));
  app.use(async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    const last = ctx.path.replace(/\/+$/, '').split('/').pop() ?? '';

    if (ctx.method === 'GET' && ctx.path === '/health') {
      ctx.body = { status: 'ok', encryption: deps.codec.currentKeyId === null ? 'off' : 'on' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.set(
        'Content-Security-Policy',
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'",
      );
      ctx.type = 'html';
      ctx.body = LOGIN_PAGE;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/session.js') {
      ctx.type = 'application/javascript';
      ctx.body = LOGIN_SCRIPT;
      return;
    }
    if (ctx.path === '/session' && (ctx.method === 'POST' || ctx.method === 'DELETE')) {
      if (ctx.method === 'DELETE') {
        ctx.set('Set-Cookie', `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
        ctx.status = 204;
        return;
      }
      // Only an explicit Bearer header opens a session (never a cookie).
      if (ctx.get('Authorization') === '') throw new HttpError(401, MISSING_TOKEN, { 'WWW-Authenticate': 'Bearer' });
      const p = await requireOperator(ctx, deps, ids, origins);
      const token = BEARER.exec(ctx.get('Authorization'))?.[1] as string;
      ctx.set(
        'Set-Cookie',
        `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600${ctx.secure ? '; Secure' : ''}`,
      );
      log.info('codec session opened', { user_id: p.userId });
      ctx.status = 204;
      return;
    }
    // The protocol: only the last path segment decides (the server may be mounted at any depth).
    if (ctx.method !== 'POST' || (last !== 'encode' && last !== 'decode')) {
      ctx.status = 404;
      ctx.body = { detail: 'Not Found' };
      return;
    }
    const principal = await requireOperator(ctx, deps, ids, origins);
    const namespace = ctx.get('X-Namespace');
    if (namespace !== '' && namespace !== deps.cfg.TEMPORAL_NAMESPACE)
      throw new HttpError(403, namespaceNotServed(namespace));
    // JSON only: a cross-origin JSON POST always needs a preflight, which only allowed origins pass.
    if (!JSON_TYPE.test(ctx.get('Content-Type'))) throw new HttpError(415, JSON_ONLY);
    await body(ctx, async () => undefined);
    const req = codecRequestSchema.parse(bodyObject(ctx));
    const payloads = req.payloads.map(fromJson);
    let out: Payload[];
    try {
      out = last === 'encode' ? await deps.codec.encode(payloads) : await deps.codec.decode(payloads);
    } catch (err) {
      if (err instanceof PayloadDecryptionError) {
        const index = payloads.findIndex((p) => {
          try {
            deps.codec.decryptOne(p);
            return false;
          } catch {
            return true;
          }
        });
        throw new HttpError(422, `Payload ${index} could not be decrypted: ${err.message}.`);
      }
      throw err;
    }
    // Who read what (never the payloads themselves).
    log.info(`codec ${last}`, {
      user_id: principal.userId,
      namespace: namespace || deps.cfg.TEMPORAL_NAMESPACE,
      payloads: out.length,
    });
    ctx.type = 'application/json';
    ctx.body = { payloads: out.map(toJson) } satisfies CodecResponse;
  });
  return app;
}
