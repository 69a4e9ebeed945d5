// POST /mcp: the MCP server over Streamable HTTP (protocol revision 2025-11-25, the SDK's
// StreamableHTTPServerTransport in stateless mode: a server and a transport per request, no
// session to keep or lose; docs/mcp.md). The caller's API key (X-API-Key, or Authorization:
// Bearer svc_live_…) is checked before the transport sees the request: missing or wrong → 401
// with the usual {detail}. Scopes and plan limits are not decided here: each tool call is the
// REST request of its endpoint, run with the same key through this app (api/mcp/loopback.ts).
// GET and DELETE /mcp answer 405 (no server-initiated stream, no session to delete).
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { RequestListener } from 'node:http';
import { requireApiKey } from '../middleware/auth.js';
import { HttpError } from '../errors.js';
import { logger } from '../../core/logger.js';
import type { AppDeps } from '../deps.js';
import { Loopback } from '../mcp/loopback.js';

const log = logger('mcp');

/**
 * The MCP SDK (with ajv and its formats) and the tool table load on the first POST /mcp, not at
 * the API's start: ~10 MB of the API's resident memory that a deployment without MCP clients
 * never needs (issue 22, memory; docs/performance.md "Memory", session 16). Once loaded they stay.
 */
let mcpModules:
  | Promise<{
      Transport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
      mcpServer: typeof import('../mcp/server.js').mcpServer;
    }>
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('../mcp/server.js'),
  ]).then(([t, s]) => ({ Transport: t.StreamableHTTPServerTransport, mcpServer: s.mcpServer })));

export const MCP_BODY_REQUIRED_DETAIL = 'Request body is required (a JSON-RPC message or batch).';

/** `Authorization: Bearer svc_…` is the same API key as X-API-Key (X-API-Key wins when both are sent). */
const bearerAsApiKey: Middleware = async (ctx, next) => {
  if (ctx.get('X-API-Key') === '') {
    const auth = ctx.get('Authorization');
    if (auth.slice(0, 7).toLowerCase() === 'bearer ') {
      const token = auth.slice(7).trim();
      if (token !== '') ctx.req.headers['x-api-key'] = token;
    }
  }
  await next();
};

/** `appHandler`: the app's own request handler (app.callback()), asked for on the first tool call. */
export function registerMcpRoutes(router: Router, deps: AppDeps, appHandler: () => RequestListener): void {
  const loopback = new Loopback(appHandler);
  router.post('/mcp', bearerAsApiKey, requireApiKey(deps, null), async (ctx) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (body === undefined) throw new HttpError(400, MCP_BODY_REQUIRED_DETAIL);
    const apiKey = ctx.get('X-API-Key');
    const { Transport, mcpServer } = await loadMcp();
    const server = mcpServer(loopback, apiKey);
    const transport = new Transport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // The transport answers on the raw response (JSON or an SSE stream); Koa stays out of it.
    ctx.respond = false;
    ctx.res.on('close', () => {
      transport.close().catch(() => undefined);
      server.close().catch(() => undefined);
    });
    try {
      await transport.handleRequest(ctx.req, ctx.res, body);
    } catch (err) {
      log.warn('mcp request failed', { error: String((err as Error)?.message ?? err) });
      if (!ctx.res.headersSent) {
        ctx.res.writeHead(500, { 'Content-Type': 'application/json' });
        ctx.res.end(JSON.stringify({ detail: 'Internal server error' }));
      }
    }
  });
}
