// The shape every verification route shares: key + plan guard, contract validation, one
// workflow run of the engine (its workflow, deadline and 503 detail from the engine registry,
// core/engines.ts), X-Workflow-Id, and the engine's typed result as the body. Routes add only
// what is theirs: turning the validated request into the engine input (or answering early),
// and mapping the result to a status.
import type { Context, Middleware } from 'koa';
import type { ZodType } from 'zod';
import type { EngineName } from '../core/engines.js';
import type { EngineInput, EngineResult } from '../core/verification-io.js';
import type { RunOptions } from './temporal.js';
import { bodyObject } from './middleware/body.js';
import { principalOf } from './middleware/auth.js';
import { apiKeyGuard, type AppDeps } from './deps.js';
import type { EndpointId } from '../contract/routes.js';
import { endpoint, type BodyOf, type BoundEndpoint } from './bind-endpoints.js';

/** What a route hands to the engine: its input, and any per-request override of the registry's run. */
export interface Prepared<E extends EngineName> {
  input: EngineInput<E>;
  options?: Pick<RunOptions<E>, 'timeoutMs' | 'timeoutDetail' | 'workflow'>;
}

export interface Answered<E extends EngineName> {
  result: EngineResult<E>;
  workflowId: string;
  /** performance.now() when the request's handler began (before validation). */
  startedAt: number;
}

export interface EngineRouteSpec<E extends EngineName, I> {
  engine: E;
  /** Default: the endpoint row's request schema (contract/endpoints.ts). Another schema only where the engine validates itself. */
  schema?: ZodType<I>;
  /** Middleware between the guard and the handler (e.g. a per-key limit). */
  use?: Middleware[];
  /**
   * The engine input for a validated request (`bodyAsInput`: the request itself, where the
   * contract's body is the engine's input type). May answer the request itself (set
   * ctx.status/body) and return null: no workflow is started.
   */
  prepare: (input: I, ctx: Context, raw: Record<string, unknown>) => Prepared<E> | null;
  /** Turns the engine's result into the response (default: the result with 200). */
  respond?: (ctx: Context, answered: Answered<E> & { request: I }) => void;
}

/**
 * `prepare` of a route whose validated body is the engine's input as it is (math, code,
 * consensus): the type check at the route proves the contract's body type is the engine's input.
 */
export const bodyAsInput = <T>(input: T): { input: T } => ({ input });

/** Runs one verification of an engine for the request's principal and sets X-Workflow-Id. */
export async function runEngine<E extends EngineName>(
  deps: AppDeps,
  ctx: Context,
  engine: E,
  prepared: Prepared<E>,
): Promise<{ result: EngineResult<E>; workflowId: string }> {
  const principal = principalOf(ctx);
  const { result, workflowId } = await deps.temporal.runVerification(engine, prepared.input, {
    orgId: principal.orgId,
    principal,
    ...prepared.options,
  });
  ctx.set('X-Workflow-Id', workflowId);
  return { result, workflowId };
}

/** The handler of a verification endpoint `id` (its row's request schema validates the body). */
export function engineRoute<K extends EndpointId, E extends EngineName, I = BodyOf<K>>(
  deps: AppDeps,
  id: K,
  spec: EngineRouteSpec<E, I>,
): BoundEndpoint<K> {
  return endpoint(id, [...apiKeyGuard(deps, 'verify:read'), ...(spec.use ?? [])], async (ctx, req) => {
    const startedAt = performance.now();
    const raw = bodyObject(ctx);
    // I is the row's body type unless the spec names its own schema.
    const input = (spec.schema ? spec.schema.parse(raw) : req.body()) as I;
    const prepared = spec.prepare(input, ctx, raw);
    if (prepared === null) return;
    const { result, workflowId } = await runEngine(deps, ctx, spec.engine, prepared);
    if (spec.respond) spec.respond(ctx, { result, workflowId, startedAt, request: input });
    else ctx.body = result;
  });
}
