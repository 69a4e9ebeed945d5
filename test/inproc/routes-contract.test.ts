// Routes against the contract table (issue 25 item 4, the runtime half): every row of
// contract/endpoints.ts has a handler registered under its method and path, and every handler
// the router holds is a row of the table (or one of the few documented non-contract routes).
// A missing or extra route fails here, in the in-process tier, without a stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Router from '@koa/router';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { startInProcessApp, type InProcessApp } from './harness.js';

/** Served by the API but not contract rows: the API reference itself. */
// /mcp speaks JSON-RPC (MCP), not the REST contract: its tools are the contract's rows (contract/mcp.ts, docs/mcp.md).
const NOT_IN_CONTRACT = new Set([
  'post /mcp',
  'get /openapi.json',
  'get /docs',
  'get /docs/assets/:file',
  'get /docs/init.js',
]);

let app: InProcessApp;
beforeAll(async () => {
  app = await startInProcessApp();
});
afterAll(async () => {
  await app?.close();
});

/** `method path` of every handler of the app's router (koa-router paths: `:id`). */
function registered(): string[] {
  const dispatch = app.app.middleware.find((m) => (m as { router?: unknown }).router) as { router: Router } | undefined;
  if (!dispatch) throw new Error('the app has no router middleware');
  return dispatch.router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${String(layer.path)}`),
  );
}
/** The contract's `{id}` path parameters in koa-router's syntax. */
const routeKey = (e: { method: string; path: string }) => `${e.method} ${e.path.replace(/\{(\w+)\}/g, ':$1')}`;

describe('routes and the contract table', () => {
  it('every contract row has exactly one handler under its method and path', () => {
    const routes = registered();
    const missing = ENDPOINTS.filter((e) => !routes.includes(routeKey(e))).map((e) => `${e.id}: ${routeKey(e)}`);
    expect(missing).toEqual([]);
    const twice = ENDPOINTS.filter((e) => routes.filter((r) => r === routeKey(e)).length > 1).map((e) => e.id);
    expect(twice).toEqual([]);
  });

  it('every handler is a contract row (or the API reference)', () => {
    const rows = new Set(ENDPOINTS.map(routeKey));
    const extra = registered().filter((r) => !rows.has(r) && !NOT_IN_CONTRACT.has(r));
    expect(extra).toEqual([]);
    // The exceptions are real routes (the list cannot go stale).
    expect([...NOT_IN_CONTRACT].filter((r) => !registered().includes(r))).toEqual([]);
  });

  it('ids are unique', () => {
    const ids = ENDPOINTS.map((e) => e.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});
