// POST /verify/math: validated here, evaluated in a workflow by the math engine activity.
import type Router from '@koa/router';
import { mathRequestSchema } from '../../contract/math.js';
import { bodyObject } from '../middleware/body.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { principalOf } from '../middleware/auth.js';

export function registerMathRoutes(router: Router, deps: AppDeps): void {
  router.post('/verify/math', ...apiKeyGuard(deps, 'verify:read'), async (ctx) => {
    const input = mathRequestSchema.parse(bodyObject(ctx));
    const { result, workflowId } = await deps.temporal.runVerification('math', input, {
      orgId: principalOf(ctx).orgId,
      principal: principalOf(ctx),
      timeoutMs: deps.cfg.SVC_MATH_TIMEOUT * 1000,
      timeoutDetail: 'Math verification timed out.',
    });
    ctx.set('X-Workflow-Id', workflowId);
    ctx.body = result;
  });
}
