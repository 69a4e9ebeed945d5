// Outermost middleware: turns every thrown error into a JSON error body with `detail`, a stable
// machine-readable `code` and the `request_id` (also the X-Request-Id header and in the access log).
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ZodError } from 'zod';
import {
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
} from 'mongodb';
import { HttpError, zodDetail } from '../errors.js';
import { logger } from '../../core/logger.js';
import { codeForStatus, ERROR_CODES, REQUEST_ID_HEADER, REQUEST_ID_MAX } from '../../contract/error-codes.js';

const log = logger('http');

export const STORE_UNAVAILABLE = 'Store unavailable — retry shortly.';

export interface ErrorHandlerOptions {
  /** The router's path templates (e.g. `/agents/:id/verify`), for the near-miss hint of a 404. */
  routePaths?: () => readonly string[];
}

export function errorHandler(opts: ErrorHandlerOptions = {}): Middleware {
  return async (ctx, next) => {
    let code: string | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = notFoundBody(ctx, opts);
      }
    } catch (err) {
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = err.body ?? { detail: err.detail };
        code = err.code;
      } else if (err instanceof ZodError) {
        ctx.status = 400;
        ctx.body = { detail: zodDetail(err) };
        code = ERROR_CODES.invalidField;
      } else if (
        err instanceof MongoServerSelectionError ||
        err instanceof MongoNetworkError ||
        err instanceof MongoNotConnectedError ||
        err instanceof MongoTopologyClosedError
      ) {
        // Fail closed: no store, no authentication and no verdict.
        log.warn('store unavailable', { method: ctx.method, path: ctx.path, request_id: requestIdOf(ctx) });
        ctx.status = 503;
        ctx.body = { detail: STORE_UNAVAILABLE };
        code = ERROR_CODES.storeUnavailable;
      } else {
        const e = err as { status?: number; expose?: boolean; message?: string };
        if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
          ctx.status = e.status;
          ctx.body = { detail: e.message ?? 'Bad request' };
        } else {
          log.error('unhandled error', {
            method: ctx.method,
            path: ctx.path,
            request_id: requestIdOf(ctx),
            error: String(e.message ?? err),
          });
          ctx.status = 500;
          ctx.body = { detail: 'Internal server error' };
        }
      }
    }
    decorateErrorBody(ctx, code);
  };
}

/**
 * Every `{detail}` error body gains `code` (the thrower's, else one per status) and `request_id`;
 * the SVC-005 object keeps its shape and gains only `request_id`. Bodies that are results (a logic
 * BLOCKED 403, a consensus 422) are not error bodies and stay as they are.
 */
function decorateErrorBody(ctx: Context, code: string | undefined): void {
  if (ctx.status < 400) return;
  const body = ctx.body as unknown;
  if (
    !body ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    Buffer.isBuffer(body) ||
    typeof (body as { pipe?: unknown }).pipe === 'function'
  )
    return;
  const b = body as Record<string, unknown>;
  const request_id = requestIdOf(ctx);
  if (typeof b.detail === 'string') {
    const { detail, code: own, request_id: _ignored, ...rest } = b;
    ctx.body = {
      detail,
      code: typeof own === 'string' ? own : (code ?? codeForStatus(ctx.status)),
      ...rest,
      request_id,
    };
  } else if (b.error && typeof b.error === 'object') {
    ctx.body = { ...b, request_id };
  }
}

/** The route 404: `code` route_not_found, and a hint when a served path is one small typo away. */
function notFoundBody(ctx: Context, opts: ErrorHandlerOptions): Record<string, unknown> {
  if (!opts.routePaths || (ctx as { _matchedRoute?: unknown })._matchedRoute !== undefined)
    return { detail: 'Not Found' };
  const near = nearestRoute(ctx.path, opts.routePaths());
  if (!near) return { detail: 'Not Found', code: ERROR_CODES.routeNotFound };
  const prefix = ctx.originalUrl.startsWith('/v1/') ? '/v1' : '';
  const hint = `${prefix}${near}`;
  return {
    detail: `Not Found: no route ${ctx.method} ${prefix}${ctx.path}. Did you mean ${hint}?`,
    code: ERROR_CODES.routeNotFound,
    hint,
  };
}

const MAX_HINT_PATH = 256;

/**
 * The served path nearest to `path`: same number of segments, `:param` segments match any value
 * (and are filled with the caller's), literal segments compared case-insensitively by edit
 * distance; at most 2 edits in all (1 for short paths). Bounded: paths over 256 characters get no hint.
 */
export function nearestRoute(path: string, templates: readonly string[]): string | undefined {
  if (path.length > MAX_HINT_PATH) return undefined;
  const segs = path.split('/').filter(Boolean);
  let best: { d: number; path: string } | undefined;
  for (const t of new Set(templates)) {
    const tsegs = t.split('/').filter(Boolean);
    if (tsegs.length !== segs.length || tsegs.length === 0) continue;
    let d = 0;
    let literal = 0;
    const filled: string[] = [];
    for (let i = 0; i < tsegs.length && d <= 2; i++) {
      const ts = tsegs[i]!;
      if (ts.startsWith(':')) {
        filled.push(segs[i]!);
        continue;
      }
      literal += ts.length;
      d += editDistance(segs[i]!.toLowerCase(), ts.toLowerCase());
      filled.push(ts);
    }
    const limit = literal <= 6 ? 1 : 2;
    if (d === 0 || d > limit) continue;
    if (!best || d < best.d) best = { d, path: '/' + filled.join('/') };
  }
  return best?.path;
}

/** Levenshtein distance (two rows; inputs bounded by MAX_HINT_PATH). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

function saneRequestId(v: string): boolean {
  if (v.length === 0 || v.length > REQUEST_ID_MAX) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const ok =
      (c >= 48 && c <= 57) ||
      (c >= 65 && c <= 90) ||
      (c >= 97 && c <= 122) ||
      c === 45 ||
      c === 46 ||
      c === 95 ||
      c === 58;
    if (!ok) return false;
  }
  return true;
}

export function requestIdOf(ctx: Context): string {
  return (ctx.state as { requestId?: string }).requestId ?? '';
}

/** Outermost: the caller's X-Request-Id when sane, else a fresh UUID; echoed on every response. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const id = saneRequestId(incoming) ? incoming : randomUUID();
    (ctx.state as { requestId?: string }).requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    await next();
  };
}

/**
 * A method a path does not serve is a client error with a `detail`, never a 5xx: the router's
 * allowedMethods answers 405 (known method) or 501 (a method no route uses, e.g. TRACE) with an
 * Allow header and no body; both become 405 `{detail}` naming the allowed methods.
 */
export function methodNotAllowedBody(): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
      const allow = ctx.response.get('Allow');
      ctx.status = 405;
      ctx.body = { detail: `Method ${ctx.method} is not allowed on this path${allow ? `: use ${allow}` : ''}.` };
    }
  };
}

/** Hosted deployments serve the API under /v1; local servers serve the same routes at the root. */
export function versionPrefix(): Middleware {
  return async (ctx, next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) {
      ctx.path = ctx.path.slice(3) || '/';
    }
    await next();
  };
}

export function accessLog(): Middleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // Path only: query strings may carry nonces or tokens and are never logged.
      log.info('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        request_id: requestIdOf(ctx) || undefined,
        ms: Math.round((performance.now() - start) * 10) / 10,
        workflow_id: ctx.response.get('X-Workflow-Id') || undefined,
      });
    }
  };
}
