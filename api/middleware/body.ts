// Reads and parses JSON request bodies with the contract's caps: a byte limit enforced before
// parsing (from Content-Length up front, and while streaming for chunked bodies), and a read
// deadline. Over-cap bodies are rejected as soon as the cap is exceeded, never fully buffered;
// the rest is read and dropped after the answer (lingering-close.ts).
import type { Middleware, Context } from 'koa';
import { HttpError } from '../errors.js';
import { JSON_MAX_DEPTH, jsonDepthExceededAt } from '../../core/strict-json.js';

export const BODY_TIMEOUT_DETAIL = 'Request body not received in time.';
export const jsonTooDeepDetail = (position: number) =>
  `Malformed JSON body: nesting deeper than ${JSON_MAX_DEPTH} levels at position ${position}.`;
export const bodyLimitDetail = (limit: number) => `Request body exceeds the ${limit} byte limit for this endpoint.`;

export interface BodyOptions {
  limitBytes: number;
  timeoutMs: number;
}

/** Reads the raw body into a Buffer under the caps (shared by JSON and upload routes). */
export function readRawBody(ctx: Context, { limitBytes, timeoutMs }: BodyOptions): Promise<Buffer> {
  const req = ctx.req;
  const lengthHeader = req.headers['content-length'];
  if (lengthHeader !== undefined) {
    if (!/^\d+$/.test(lengthHeader)) throw new HttpError(400, 'Invalid Content-Length header.');
    if (Number(lengthHeader) > limitBytes) {
      throw new HttpError(413, bodyLimitDetail(limitBytes), { Connection: 'close' });
    }
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (err: HttpError | null, value?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(value as Buffer);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        finish(new HttpError(413, bodyLimitDetail(limitBytes), { Connection: 'close' }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null, Buffer.concat(chunks, received));
    const onError = () => finish(new HttpError(400, 'Request body could not be read.', { Connection: 'close' }));
    const onAborted = () => finish(new HttpError(400, 'Request body could not be read.', { Connection: 'close' }));
    const timer = setTimeout(() => finish(new HttpError(408, BODY_TIMEOUT_DETAIL, { Connection: 'close' })), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

const JSON_TYPES = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const MULTIPART_TYPE = /^multipart\/form-data\s*(?:;|$)/i;
/** Routes whose multipart bodies the JSON reader leaves unread (paths after the /v1 prefix is stripped). */
/**
 * Routes that read their own raw body whatever its type (the signed webhook: nothing is parsed
 * before its signature verifies). Compared case-insensitively and without trailing slashes,
 * as the router matches them.
 */
export const RAW_BODY_PATHS: ReadonlySet<string> = new Set(['/webhooks/secret-scanning']);
/**
 * A path as the router matches it (@koa/router: case-insensitive, a trailing slash ignored; the
 * /v1 prefix is already stripped by versionPrefix): every exemption below is looked up by it, so
 * `/A2A/Intercept` or `/a2a/intercept/` is exempt exactly when the router serves it as the route.
 */
export const routeKey = (path: string) => path.toLowerCase().replace(/\/+$/, '') || '/';
const isRawBodyPath = (path: string) => RAW_BODY_PATHS.has(routeKey(path));
export const STREAMED_UPLOAD_PATHS: ReadonlySet<string> = new Set(['/verify/stats', '/verify/image']);
/** Routes that read their own body under their own cap (the A2A gateway: payload limit + 64 KiB). */
export const OWN_BODY_PATHS: ReadonlySet<string> = new Set(['/a2a/intercept']);

/** Parses a JSON body into ctx.request.body; keeps the raw text in ctx.state.rawBody. */
export function jsonBody(opts: BodyOptions): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    const type = ctx.get('Content-Type');
    // Upload routes stream their own multipart body under their own caps (api/middleware/csv-upload.ts).
    if (MULTIPART_TYPE.test(type) && STREAMED_UPLOAD_PATHS.has(routeKey(ctx.path))) return next();
    if (isRawBodyPath(ctx.path)) return next();
    if (OWN_BODY_PATHS.has(routeKey(ctx.path))) return next();
    const raw = await readRawBody(ctx, opts);
    if (type && !JSON_TYPES.test(type) && raw.length > 0) {
      throw new HttpError(415, 'Unsupported Content-Type: send application/json.');
    }
    const text = raw.toString('utf8');
    ctx.state.rawBody = text;
    if (text.trim() === '') {
      (ctx.request as { body?: unknown }).body = undefined;
    } else {
      // Bounded before parsing: deep nesting would overflow the stack of later recursive walks.
      const deepAt = jsonDepthExceededAt(text, JSON_MAX_DEPTH);
      if (deepAt >= 0) throw new HttpError(400, jsonTooDeepDetail(deepAt));
      try {
        (ctx.request as { body?: unknown }).body = JSON.parse(text);
      } catch (err) {
        throw new HttpError(400, `Malformed JSON body: ${(err as Error).message}`);
      }
    }
    return next();
  };
}

/** The parsed JSON body, which must be an object for every JSON route. */
export function bodyObject(ctx: Context): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body;
  if (body === undefined) throw new HttpError(400, 'Request body is required (a JSON object).');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'Request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}
