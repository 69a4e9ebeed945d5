// POST /verify/process (IRAC / milestones) and POST /verify/rag (chunk provenance).
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { validateProcessRequest } from '../../contract/process.js';
import { validateRagRequest } from '../../contract/rag.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { registerEngineRoute } from '../engine-route.js';

// The engines' own validators give the contract's 400 details; zod only checks it is an object.
const passThrough = z.record(z.string(), z.unknown());
const validated =
  (validate: (b: unknown) => { ok: true } | { ok: false; detail: string }) => (_input: unknown, raw: Record<string, unknown>) => {
    const r = validate(raw);
    if (!r.ok) throw new HttpError(400, r.detail);
    return raw;
  };
const respond = (ctx: Context, result: Record<string, unknown>) => {
  if (result.error === 'validation_error') throw new HttpError(400, String(result.detail));
  ctx.body = result;
};

export function registerProcessRagRoutes(router: Router, deps: AppDeps): void {
  registerEngineRoute(router, deps, {
    path: '/verify/process',
    engine: 'process',
    schema: passThrough,
    toWorkflowInput: validated(validateProcessRequest),
    timeoutMs: () => 5_000,
    timeoutDetail: 'Process verification timed out.',
    respond,
  });
  registerEngineRoute(router, deps, {
    path: '/verify/rag',
    engine: 'rag',
    schema: passThrough,
    toWorkflowInput: validated(validateRagRequest),
    timeoutMs: () => 5_000,
    timeoutDetail: 'RAG verification timed out.',
    respond,
  });
}
