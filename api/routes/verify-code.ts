// POST /verify/code: the tree-sitter security scanner as an activity.
import type Router from '@koa/router';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { registerEngineRoute } from '../engine-route.js';
import { CODE_TIMEOUT_DETAIL, codeRequestSchema } from '../../contract/code.js';

export function registerCodeRoutes(router: Router, deps: AppDeps): void {
  registerEngineRoute(router, deps, {
    path: '/verify/code',
    engine: 'code',
    schema: codeRequestSchema,
    respond: (ctx, { result }) => {
      if (result.developer_fields?.constraint_id === 'code_verifier.timeout')
        throw new HttpError(503, CODE_TIMEOUT_DETAIL);
      ctx.body = result;
    },
  });
}
