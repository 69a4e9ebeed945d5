// The shape every verification route shares: key + plan guard, zod validation, one workflow
// run under the engine budget, X-Workflow-Id, and the activity's result as the body.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import type { EngineName } from '../core/engines.js';
import { bodyObject } from './middleware/body.js';
import { principalOf } from './middleware/auth.js';
import { apiKeyGuard, type AppDeps } from './deps.js';

export interface EngineRouteSpec<I, R> {
  path: string;
  engine: EngineName;
  schema: ZodType<I>;
  /** What is sent to the workflow (default: the validated input). Must be JSON-serialisable. */
  toWorkflowInput?: (input: I, raw: Record<string, unknown>) => unknown;
  timeoutMs: (deps: AppDeps) => number;
  timeoutDetail: string;
  /** Turns the activity result into the response (default: the result with 200). */
  respond?: (ctx: Context, result: R) => void;
}

export function registerEngineRoute<I, R>(router: Router, deps: AppDeps, spec: EngineRouteSpec<I, R>): void {
  router.post(spec.path, ...apiKeyGuard(deps, 'verify:read'), async (ctx) => {
    const raw = bodyObject(ctx);
    const input = spec.schema.parse(raw);
    const principal = principalOf(ctx);
    const { result, workflowId } = await deps.temporal.runVerification<R>(
      spec.engine,
      spec.toWorkflowInput ? spec.toWorkflowInput(input, raw) : input,
      { orgId: principal.orgId, principal, timeoutMs: spec.timeoutMs(deps), timeoutDetail: spec.timeoutDetail },
    );
    ctx.set('X-Workflow-Id', workflowId);
    if (spec.respond) spec.respond(ctx, result);
    else ctx.body = result;
  });
}
