// Routes against the contract table (issue 25 item 4). The compile-time half: api/app.ts binds
// its handlers with `bindEndpoints` (api/bind-endpoints.ts), whose map has one key per row of
// contract/endpoints.ts; the @ts-expect-error rows of `compileTimeRows` below are checked by the
// type check (`npx tsc`, part of npm test): if a missing, extra or misfiled handler ever
// compiled, tsc would fail on the unused directive. The runtime half: every row has a handler
// registered under its method and path, and every handler the router holds is a row of the
// table (or one of the few documented non-contract routes), without a stack.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import Router from '@koa/router';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { ROUTES, invalidStatusOf, pathOf, type EndpointId } from '../../contract/routes.js';
import { bindEndpoints, endpoint, type EndpointHandlers } from '../../api/bind-endpoints.js';
import { bodyAsInput, engineRoute } from '../../api/engine-route.js';
import type { AppDeps } from '../../api/deps.js';
import { errorHandler } from '../../api/middleware/errors.js';
import { jsonBody } from '../../api/middleware/body.js';
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

/** Type-level rows: never run, checked by tsc. Each directive fails the type check if its line compiles. */
export function compileTimeRows(router: Router, all: EndpointHandlers, deps: AppDeps): void {
  const { verifyMath: _missing, ...withoutMath } = all;
  // @ts-expect-error a missing handler (no verifyMath) does not compile
  bindEndpoints(router, withoutMath);
  // @ts-expect-error an extra handler, for an id the contract does not have, does not compile (even spread in)
  bindEndpoints(router, { ...all, ...{ verifyMaths: all.verifyMath } });
  // @ts-expect-error a handler filed under another endpoint's id does not compile
  bindEndpoints(router, { ...all, verifyMath: all.verifyCode });
  // @ts-expect-error a handler for an id that is not a row does not compile
  endpoint('verifyMaths', [], () => undefined);
  // @ts-expect-error the input is typed by the row: the math request has no `dialect`
  endpoint('verifyMath', [], (_ctx, req) => req.body().dialect);
  // @ts-expect-error path parameters are the row's: /agents/{id}/verify has no {tool}
  endpoint('agentVerify', [], (_ctx, req) => req.params.tool);
  // @ts-expect-error the client's paths take the row's parameters
  pathOf('agentTool', { id: '1' });
  // @ts-expect-error an approval's path parameters are the row's: its agent is {id}, not {agent_id}
  endpoint('decideAgentApproval', [], (_ctx, req) => req.params.agent_id);
  // @ts-expect-error the query is the row's: the approval list has no ?wait
  endpoint('listAgentApprovals', [], (_ctx, req) => req.query().wait);
  // @ts-expect-error a body goes to the engine as it is only where the row's body is the engine's input
  engineRoute(deps, 'verifySql', { engine: 'math', prepare: bodyAsInput });
  // Every handler under its own id compiles, and the input is the row's.
  engineRoute(deps, 'verifyMath', { engine: 'math', prepare: bodyAsInput });
  endpoint('getAgentApproval', [], (_ctx, req) => req.query().wait);
  bindEndpoints(router, all);
  endpoint('verifySql', [], (_ctx, req) => req.body().dialect);
  endpoint('decideAgentApproval', [], (_ctx, req) => [req.params.approval_id, req.body().decision]);
  endpoint('reportActionOutcome', [], (_ctx, req) => [req.params.action_id, req.body().status]);
  pathOf('agentTool', { id: '1', tool: 'read_file' });
}

describe('routes and the contract table', () => {
  it('a handler filed under another id is refused at start too (the map is built at run time)', () => {
    const all = Object.fromEntries(
      ENDPOINTS.map((e) => [e.id, endpoint(e.id as keyof typeof ROUTES, [], () => undefined)]),
    ) as unknown as EndpointHandlers;
    expect(() => bindEndpoints(new Router(), all)).not.toThrow();
    const misfiled = { ...all, verifyMath: all.verifyCode } as unknown as EndpointHandlers;
    expect(() => bindEndpoints(new Router(), misfiled)).toThrow(
      'endpoint verifyMath: its handler is filed under another id',
    );
  });

  it("the paths of contract/routes.ts are the rows' (the client builds its URLs from them)", () => {
    expect(Object.keys(ROUTES).sort()).toEqual(ENDPOINTS.map((e) => e.id).sort());
    expect(pathOf('agentTool', { id: '1', tool: 'a/b c' })).toBe('/agents/1/tools/a%2Fb%20c');
    expect(pathOf('verifyMath')).toBe('/verify/math');
  });

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

/** Every row bound to a handler that answers its path parameters and its parsed query (GET) or body (no guards). */
function echoHandlers(): EndpointHandlers {
  return Object.fromEntries(
    ENDPOINTS.map((e) => [
      e.id,
      endpoint(e.id as EndpointId, [], (ctx, req) => {
        ctx.body = { params: req.params, ...(ctx.method === 'GET' ? { query: req.query() } : { body: req.body() }) };
      }),
    ]),
  ) as unknown as EndpointHandlers;
}

describe("a body or query that fails its row's schema: the binder answers the row's status", () => {
  let url = '';
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const koa = new Koa();
    const router = new Router();
    bindEndpoints(router, echoHandlers());
    koa.use(errorHandler());
    koa.use(jsonBody({ limitBytes: 100_000, timeoutMs: 5_000 }));
    koa.use(router.routes());
    const handle = koa.callback();
    const server = createServer((req, res) => void handle(req, res)); // Koa answers its own errors
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    await close();
  });

  const post = async (path: string, body?: unknown) => {
    const res = await fetch(
      `${url}${path}`,
      body === undefined
        ? { method: 'GET' }
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    const json = (await res.json()) as Record<string, unknown>;
    delete json.request_id;
    return { status: res.status, body: json };
  };

  it('the approval rows say 422; every other JSON row keeps the 400', () => {
    const rows = ENDPOINTS.filter((e) => invalidStatusOf(e.id as EndpointId) !== 400).map((e) => e.id);
    expect(rows.sort()).toEqual(['decideAgentApproval', 'reportActionOutcome']);
    // The contract lists the status it answers (the OpenAPI document shows it).
    for (const id of rows) expect(ENDPOINTS.find((e) => e.id === id)?.responses[422]).toBeDefined();
  });

  it.each([
    [
      'a decision that is not approve or deny',
      pathOf('decideAgentApproval', { id: '7', approval_id: 'apr_3' }),
      { decision: 'maybe', reason: 'x' },
      "Invalid field 'decision': must be approve or deny",
    ],
    [
      'a decision without its reason',
      pathOf('decideAgentApproval', { id: '7', approval_id: 'apr_3' }),
      { decision: 'approve' },
      "Invalid field 'reason': reason is required",
    ],
    [
      'an outcome that is not one of the three',
      pathOf('reportActionOutcome', { id: '7', action_id: 'acn_1' }),
      { status: 'done' },
      "Invalid field 'status': must be succeeded, failed or error",
    ],
  ])('%s → 422 {detail, code: unprocessable}, as the routes answered by hand', async (_what, path, body, detail) => {
    expect(await post(path, body)).toEqual({ status: 422, body: { detail, code: 'unprocessable' } });
  });

  it('a valid approval body reaches the handler parsed, with the path parameters by name', async () => {
    const r = await post(pathOf('decideAgentApproval', { id: '7', approval_id: 'apr_3' }), {
      decision: 'deny',
      reason: ' no ',
      extra: 1,
    });
    expect(r.status).toBe(200);
    expect(r.body.params).toEqual({ id: '7', approval_id: 'apr_3' });
    expect(r.body.body).toMatchObject({ decision: 'deny' });
    expect(r.body.body).not.toHaveProperty('extra');
  });

  it('a non-object body stays 400 on a 422 row; a schema failure elsewhere is 400 invalid_field', async () => {
    const arr = await post(pathOf('decideAgentApproval', { id: '7', approval_id: 'apr_3' }), ['approve']);
    expect(arr).toEqual({
      status: 400,
      body: { detail: 'Request body must be a JSON object.', code: 'invalid_request' },
    });
    const math = await post(pathOf('verifyMath'), {});
    expect(math.status).toBe(400);
    expect(math.body.code).toBe('invalid_field');
    expect(String(math.body.detail)).toMatch(/^Invalid field '/);
  });

  it("a query parameter that fails the row's query schema is a 400 naming it; unknown parameters are dropped", async () => {
    const approval = pathOf('getAgentApproval', { id: '7', approval_id: 'apr_3' });
    expect(await post(`${approval}?wait=61`)).toEqual({
      status: 400,
      body: {
        detail: "Invalid query parameter 'wait': must be a number of seconds from 0 to 60",
        code: 'invalid_request',
      },
    });
    const list = await post(`${pathOf('listAgentApprovals', { id: '7' })}?state=pending&limit=5&other=1`);
    expect(list).toEqual({
      status: 200,
      body: { params: { id: '7' }, query: { state: 'pending', limit: 5 } },
    });
  });
});
