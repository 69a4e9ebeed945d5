// Outermost middleware: turns every thrown error into a JSON error body with `detail`.
import type { Middleware } from 'koa';
import { ZodError } from 'zod';
import { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } from 'mongodb';
import { HttpError, zodDetail } from '../errors.js';
import { logger } from '../../core/logger.js';

const log = logger('http');

export const STORE_UNAVAILABLE = 'Store unavailable — retry shortly.';

export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: 'Not Found' };
      }
    } catch (err) {
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = err.body ?? { detail: err.detail };
      } else if (err instanceof ZodError) {
        ctx.status = 400;
        ctx.body = { detail: zodDetail(err) };
      } else if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError || err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) {
        // Fail closed: no store, no authentication and no verdict.
        log.warn('store unavailable', { method: ctx.method, path: ctx.path });
        ctx.status = 503;
        ctx.body = { detail: STORE_UNAVAILABLE };
      } else {
        const e = err as { status?: number; expose?: boolean; message?: string };
        if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
          ctx.status = e.status;
          ctx.body = { detail: e.message ?? 'Bad request' };
        } else {
          log.error('unhandled error', { method: ctx.method, path: ctx.path, error: String(e.message ?? err) });
          ctx.status = 500;
          ctx.body = { detail: 'Internal server error' };
        }
      }
    }
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
        ms: Math.round((performance.now() - start) * 10) / 10,
        workflow_id: ctx.response.get('X-Workflow-Id') || undefined,
      });
    }
  };
}
