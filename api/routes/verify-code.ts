// POST /verify/code: the tree-sitter security scanner as an activity.
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { bodyAsInput, engineRoute } from '../engine-route.js';
import { CODE_TIMEOUT_DETAIL } from '../../contract/code.js';

export function codeHandlers(deps: AppDeps) {
  const verifyCode = engineRoute(deps, 'verifyCode', {
    engine: 'code',
    prepare: bodyAsInput,
    respond: (ctx, { result }) => {
      if (result.developer_fields?.constraint_id === 'code_verifier.timeout')
        throw new HttpError(503, CODE_TIMEOUT_DETAIL);
      ctx.body = result;
    },
  });
  return { verifyCode };
}
