// /audit/*: the caller's organization's audit trail (JWT). docs/observability.md.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { AuditLog, auditLogView, type AuditStatusFilter } from '../../core/audit-log.js';
import { auditCsv } from '../../core/audit-csv.js';
import { HttpError } from '../errors.js';
import { principalOf, requireJwt } from '../middleware/auth.js';
import { planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';

import { AUDIT_EXPORT_MAX, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX, AUDIT_LOG_NOT_FOUND } from '../../contract/audit.js';

export { AUDIT_EXPORT_MAX, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX, AUDIT_LOG_NOT_FOUND };

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
  if (raw !== 'verified' && raw !== 'blocked') throw new HttpError(400, "Invalid query parameter 'status': must be 'verified' or 'blocked'.");
  return raw;
}

export function csvAttachment(ctx: Context, filename: string): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
}

export function registerAuditRoutes(router: Router, deps: AppDeps): void {
  const auditLog = new AuditLog(deps.store);
  // JWT, then the organization's plan budget for management routes (X-RateLimit-* headers).
  const jwt = [requireJwt(deps), planLimit(deps.counter, 'account')];

  router.get('/audit/logs', ...jwt, async (ctx) => {
    const p = principalOf(ctx);
    const limit = limitParam(ctx, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX);
    const status = statusParam(ctx);
    const logs = (await auditLog.list(p.orgId, { limit, status })).map(auditLogView);
    ctx.body = { logs, count: logs.length, limit, status: status ?? null };
  });

  router.get('/audit/logs/:log_id', ...jwt, async (ctx) => {
    const doc = await auditLog.find(principalOf(ctx).orgId, ctx.params.log_id as string);
    if (!doc) throw new HttpError(404, AUDIT_LOG_NOT_FOUND);
    ctx.body = auditLogView(doc);
  });

  router.get('/audit/export', ...jwt, async (ctx) => {
    const p = principalOf(ctx);
    // The newest 1,000 entries, written in chain order (oldest first).
    const docs = await auditLog.lastInOrder(p.orgId, AUDIT_EXPORT_MAX);
    csvAttachment(ctx, `audit-${p.orgId}.csv`);
    ctx.body = auditCsv(docs.map(auditLogView));
  });
}
