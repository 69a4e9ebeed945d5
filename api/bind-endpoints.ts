// Routes bound to the contract table (issue 25 item 4), after ts-rest's createExpressEndpoints:
// a route file exports its handlers keyed by endpoint id (`endpoint('verifyMath', [guards], handle)`),
// and api/app.ts hands the map of every route file to `bindEndpoints`, which registers each row of
// contract/endpoints.ts under its own method and path. The map's type has one key per id, so a
// missing handler, a handler for an id the contract does not have, or a handler filed under
// another id fails to compile (test/inproc/routes-contract.test.ts holds the @ts-expect-error rows).
//
// The handler's input is typed by its row: `req.body()` is the JSON body parsed with the row's
// request schema (the first issue a 400 naming it, api/errors.ts, or the row's own
// `invalidStatus` in contract/routes.ts: the approval routes' 422), `req.params` the row's path
// parameters, `req.query()` the query string parsed with the row's query schema (a 400
// `Invalid query parameter '<name>': …`).
// The body is parsed where the handler asks for it, not before: several routes answer 404 (an
// unknown agent), 400 (a bad tool name) or 503 (upload slots full) before they read the body, and
// the black-box suite pins those answers and their order.
import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import { ENDPOINT_ROWS } from '../contract/endpoints.js';
import { invalidStatusOf, type EndpointId, type PathParams } from '../contract/routes.js';
import { HttpError, zodDetail } from './errors.js';
import { bodyObject } from './middleware/body.js';

type Row<K extends EndpointId> = Extract<(typeof ENDPOINT_ROWS)[number], { id: K }>;

/** The parsed JSON body of endpoint K (its row's request schema, output side); never when the row has none. */
export type BodyOf<K extends EndpointId> =
  Row<K> extends { body: { schema: infer S extends z.ZodType; contentType: 'application/json' } } ? z.output<S> : never;

/** The parsed query string of endpoint K (its row's query schema, output side); never when the row has none. */
export type QueryOf<K extends EndpointId> = Row<K> extends { query: infer Q extends z.ZodType } ? z.output<Q> : never;

/** A query-string issue's detail: the parameter named as such. */
export const queryDetail = (err: z.ZodError) => zodDetail(err).replace("Invalid field '", "Invalid query parameter '");

/** What a handler receives beside the context, typed by its row. */
export interface RequestOf<K extends EndpointId> {
  /** The row's path parameters (koa-router's decoded segments). */
  params: PathParams<K>;
  /** The JSON body parsed with the row's request schema: unknown keys dropped, a 400 (or the row's `invalidStatus`) naming the first issue. */
  body(): BodyOf<K>;
  /** The query string parsed with the row's query schema: unknown parameters dropped, a 400 naming the first issue. */
  query(): QueryOf<K>;
}

export type RouteContext = RouterContext;

/** One endpoint's handler: the middleware before it (credential, limits: in this order) and the handler. */
export interface BoundEndpoint<K extends EndpointId> {
  readonly id: K;
  readonly use: readonly Middleware[];
  readonly handle: (ctx: RouteContext, req: RequestOf<K>) => unknown;
}

/** The handler of endpoint `id`, run after `use` (guards and limits, outermost first). */
export function endpoint<K extends EndpointId>(
  id: K,
  use: readonly Middleware[],
  handle: (ctx: RouteContext, req: RequestOf<K>) => unknown,
): BoundEndpoint<K> {
  return { id, use, handle };
}

/** Every endpoint of the contract, each under its own id. */
export type EndpointHandlers = { [K in EndpointId]: BoundEndpoint<K> };

/** Keys that are not endpoint ids become `never`, so an extra handler (even one spread in) fails to compile. */
type Exact<H> = H & Record<Exclude<keyof H, EndpointId>, never>;

/** koa-router's form of a contract path: `{id}` → `:id`. */
export const routerPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * Registers every row of the contract, in the table's order, with its handler from `handlers`:
 * `router[method](path, ...use, handler)`, the middleware order each route file gives.
 */
export function bindEndpoints<H extends EndpointHandlers>(router: Router, handlers: Exact<H>): void {
  for (const row of ENDPOINT_ROWS) {
    const bound = handlers[row.id] as BoundEndpoint<EndpointId>;
    if (bound?.id !== row.id) throw new Error(`endpoint ${row.id}: its handler is filed under another id`);
    const schema: z.ZodType | undefined =
      'body' in row && row.body.contentType === 'application/json' ? row.body.schema : undefined;
    const invalidStatus = invalidStatusOf(row.id);
    const querySchema: z.ZodType | undefined = 'query' in row ? row.query : undefined;
    router[row.method](routerPath(row.path), ...bound.use, (ctx) => {
      const req = {
        params: ctx.params,
        body: () => {
          if (!schema) throw new Error(`endpoint ${row.id} has no JSON body`);
          const parsed = schema.safeParse(bodyObject(ctx));
          if (parsed.success) return parsed.data;
          // 400: the ZodError itself (api/middleware/errors.ts: code invalid_field); another
          // status: its own `{detail}` naming the same first issue (code by status).
          throw invalidStatus === 400 ? parsed.error : new HttpError(invalidStatus, zodDetail(parsed.error));
        },
        query: () => {
          if (!querySchema) throw new Error(`endpoint ${row.id} has no query parameters`);
          const parsed = querySchema.safeParse(ctx.query);
          if (parsed.success) return parsed.data;
          throw new HttpError(400, queryDetail(parsed.error));
        },
      };
      // One row at a time: the request is typed by the handler's own row (RequestOf<K>) where the handler is written.
      return bound.handle(ctx, req as RequestOf<EndpointId>);
    });
  }
}
