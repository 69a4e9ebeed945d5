// Query-parameter readers and the CSV attachment header shared by the audit, metrics (/logs)
// and compliance routes. Kept out of api/routes/ so no route file imports another.
import type { Context } from 'koa';
import type { AuditStatusFilter } from '../core/audit-log.js';
import { HttpError } from './errors.js';

function single(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw new HttpError(400, `Invalid query parameter '${name}': give it once.`);
  return v;
}

/** `limit` query parameter: an integer in [1, max]; anything else is a 400 (never silently clamped). */
export function limitParam(ctx: Context, def: number, max: number): number {
  const raw = single(ctx, 'limit');
  if (raw === undefined) return def;
  if (!/^[0-9]{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new HttpError(400, `Invalid query parameter 'limit': must be an integer between 1 and ${max}.`);
  }
  return Number(raw);
}

export function statusParam(ctx: Context): AuditStatusFilter | undefined {
  const raw = single(ctx, 'status');
  if (raw === undefined) return undefined;
  if (raw !== 'verified' && raw !== 'blocked')
    throw new HttpError(400, "Invalid query parameter 'status': must be 'verified' or 'blocked'.");
  return raw;
}

const CURSOR = /^[1-9][0-9]{0,15}$/;

/** `cursor` query parameter: the `next_cursor` of the previous page (a seq); pages go backwards. */
export function cursorParam(ctx: Context): number | undefined {
  const raw = single(ctx, 'cursor');
  if (raw === undefined) return undefined;
  if (!CURSOR.test(raw))
    throw new HttpError(400, "Invalid query parameter 'cursor': use the next_cursor of the previous page.");
  return Number(raw);
}

export function csvAttachment(ctx: Context, filename: string): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
}
