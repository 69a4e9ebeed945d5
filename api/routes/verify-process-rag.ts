// POST /verify/process (IRAC / milestones) and POST /verify/rag (chunk provenance).
import type { Context } from 'koa';
import { z } from 'zod';
import { validateProcessRequest } from '../../contract/process.js';
import { ragRequestSchema, validateRagRequest } from '../../contract/rag.js';
import { HttpError } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { engineRoute } from '../engine-route.js';

// The engines' own validators give the contract's 400 details; zod only checks it is an object.
const passThrough = z.record(z.string(), z.unknown());
const validated =
  <T extends Record<string, unknown>>(
    validate: (b: unknown) => { ok: true; value: T } | { ok: false; detail: string },
  ) =>
  (_input: unknown, _ctx: Context, raw: Record<string, unknown>) => {
    const r = validate(raw);
    if (!r.ok) throw new HttpError(400, r.detail);
    // The validated value: unknown keys are dropped, defaults filled in.
    return { input: r.value as Record<string, unknown> };
  };
const respond = (ctx: Context, { result }: { result: Record<string, unknown> }) => {
  if (result.error === 'validation_error') throw new HttpError(400, String(result.detail));
  ctx.body = result;
};

export function processRagHandlers(deps: AppDeps) {
  const verifyProcess = engineRoute(deps, 'verifyProcess', {
    engine: 'process',
    schema: passThrough,
    prepare: validated(validateProcessRequest),
    respond,
  });
  const verifyRag = engineRoute(deps, 'verifyRag', {
    engine: 'rag',
    schema: passThrough,
    // The validated value holds exact rationals (BigInt), not JSON: the caller's known fields
    // travel as given and the activity re-validates them.
    prepare: (_input, _ctx, raw) => {
      const r = validateRagRequest(raw);
      if (!r.ok) throw new HttpError(400, r.detail);
      return {
        input: Object.fromEntries(
          Object.keys(ragRequestSchema.shape)
            .filter((k) => k in raw && raw[k] !== null)
            .map((k) => [k, raw[k]]),
        ),
      };
    },
    respond,
  });
  return { verifyProcess, verifyRag };
}
