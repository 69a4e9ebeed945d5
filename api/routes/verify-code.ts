// POST /verify/code: the tree-sitter security scanner as an activity.
import type Router from '@koa/router';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import type { DiagnosticActivityResult } from '../../activities/verify-diagnostic.js';
import type { AppDeps } from '../app.js';
import { registerEngineRoute } from './engine-route.js';

export const CODE_TIMEOUT_DETAIL = 'Code verification timed out.';

// Empty code and unsupported languages are verdicts (BLOCKED), not request errors: only the types are checked here.
export const codeRequestSchema = z.object({
  code: z.string(),
  language: z.string().max(64).optional(),
});

export function registerCodeRoutes(router: Router, deps: AppDeps): void {
  registerEngineRoute<z.infer<typeof codeRequestSchema>, DiagnosticActivityResult>(router, deps, {
    path: '/verify/code',
    engine: 'code',
    schema: codeRequestSchema,
    timeoutMs: (d) => d.cfg.SVC_CODE_VERIFY_TIMEOUT * 1000,
    timeoutDetail: CODE_TIMEOUT_DETAIL,
    respond: (ctx, result) => {
      if (result.developer_fields?.constraint_id === 'code_verifier.timeout') throw new HttpError(503, CODE_TIMEOUT_DETAIL);
      ctx.body = result;
    },
  });
}
