// Lingering close, as nginx does it (lingering_close): a request refused before its body was
// read (413 over a cap, 408 too slow, 400 on a bad Content-Length, 401 before a signed body) is
// answered at once with `Connection: close`; the body readers never buffer past the cap and
// never parse what follows. Closing the socket while the client is still writing would make the
// kernel send a reset, and a client that reads the answer only after it has sent its body
// (Node's fetch, undici) would see "fetch failed" instead of the 413. So after the answer the
// write side is closed (FIN) and whatever the client still sends is read and dropped, nothing
// kept, until its body has arrived or a bound is reached: LINGER_MAX_BYTES in all,
// LINGER_MAX_MS in all, or LINGER_IDLE_MS without a byte. Then the socket is closed.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Middleware } from 'koa';

/** At most this much of a refused body is read and dropped (the largest cap, 10 MiB + envelope, several times over). */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;
/** At most this long after the refusal. */
export const LINGER_MAX_MS = 30_000;
/** A client that sends nothing for this long is done (or stalled: the 408 case). */
export const LINGER_IDLE_MS = 2_000;

export interface LingerBounds {
  maxBytes: number;
  maxMs: number;
  idleMs: number;
}

const DEFAULT_BOUNDS: LingerBounds = { maxBytes: LINGER_MAX_BYTES, maxMs: LINGER_MAX_MS, idleMs: LINGER_IDLE_MS };

/** Sockets currently lingering, and the bytes they dropped (observability and tests). */
export const lingerStats = { active: 0, droppedBytes: 0, cutAtBound: 0 };

/**
 * Keeps reading and dropping the rest of `req`'s body after its response, then closes. Takes
 * over the socket's destroySoon, which Node's HTTP server calls once a `Connection: close`
 * response is written.
 */
export function lingerAfterResponse(req: IncomingMessage, socket: Socket, bounds: LingerBounds = DEFAULT_BOUNDS): void {
  type Closable = Socket & { destroySoon?: () => void };
  const s = socket as Closable;
  if (typeof s.destroySoon !== 'function' || s.destroyed) return;
  const original = s.destroySoon;
  let dropped = 0;
  let bodyDone = false;
  let responded = false;
  let finished = false;
  lingerStats.active++;

  const finish = (atBound: boolean) => {
    if (finished) return;
    finished = true;
    lingerStats.active--;
    if (atBound) lingerStats.cutAtBound++;
    clearTimeout(total);
    clearTimeout(idle);
    req.off('data', onData);
    req.off('end', onEnd);
    s.destroySoon = original;
    // Ends the write side if still open and destroys the socket once written.
    original.call(s);
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    lingerStats.droppedBytes += chunk.length;
    idle.refresh();
    if (dropped > bounds.maxBytes) finish(true);
  };
  const onEnd = () => {
    bodyDone = true;
    if (responded) finish(false);
  };
  const total = setTimeout(() => finish(true), bounds.maxMs);
  const idle = setTimeout(() => finish(true), bounds.idleMs);
  total.unref();
  idle.unref();

  s.destroySoon = function lingeringDestroySoon(this: Closable) {
    responded = true;
    // The answer is written; FIN after it, reading goes on (the HTTP server allows half-open sockets).
    if (this.writable) this.end();
    if (bodyDone) finish(false);
  };
  socket.once('close', () => finish(false));
  req.on('data', onData);
  req.once('end', onEnd);
  if (req.complete) bodyDone = true;
  req.resume();
}

/**
 * Outermost (after the error handler has set the answer): a response that closes the
 * connection before the request body was read lingers instead of resetting it.
 */
export function lingeringClose(bounds: LingerBounds = DEFAULT_BOUNDS): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const connection = String(ctx.response.get('Connection') ?? '');
      if (!ctx.req.complete && /\bclose\b/i.test(connection)) lingerAfterResponse(ctx.req, ctx.socket, bounds);
    }
  };
}
