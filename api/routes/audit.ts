// /audit/*: the caller's organization's audit trail (JWT). docs/observability.md.
import { auditLogView } from '../../core/audit-log.js';
import { AuditLog } from '../../core/audit-store.js';
import { auditCsv } from '../../core/audit-csv.js';
import { HttpError } from '../errors.js';
import { principalOf, requireJwt } from '../middleware/auth.js';
import { planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { csvAttachment, cursorParam, limitParam, statusParam } from '../query-params.js';
import { AUDIT_EXPORT_MAX, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX, AUDIT_LOG_NOT_FOUND } from '../../contract/audit.js';

export function auditHandlers(deps: AppDeps) {
  const auditLog = new AuditLog(deps.store);
  // JWT, then the organization's plan budget for management routes (X-RateLimit-* headers).
  const jwt = [requireJwt(deps), planLimit(deps.counter, 'account')];

  const auditLogs = endpoint('auditLogs', [...jwt], async (ctx) => {
    const p = principalOf(ctx);
    const limit = limitParam(ctx, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX);
    const status = statusParam(ctx);
    // Paged by seq (docs/audit-chain.md, "Reading at scale"): `next_cursor` continues below this page.
    const page = await auditLog.page(p.orgId, { limit, status, beforeSeq: cursorParam(ctx) });
    const logs = page.docs.map(auditLogView);
    ctx.body = {
      logs,
      count: logs.length,
      limit,
      status: status ?? null,
      next_cursor: page.next === null ? null : String(page.next),
    };
  });

  const auditLogEndpoint = endpoint('auditLog', [...jwt], async (ctx, req) => {
    const doc = await auditLog.find(principalOf(ctx).orgId, req.params.log_id);
    if (!doc) throw new HttpError(404, AUDIT_LOG_NOT_FOUND);
    ctx.body = auditLogView(doc);
  });

  const auditExport = endpoint('auditExport', [...jwt], async (ctx) => {
    const p = principalOf(ctx);
    // The newest 1,000 entries, written in chain order (oldest first).
    const docs = await auditLog.lastInOrder(p.orgId, AUDIT_EXPORT_MAX);
    csvAttachment(ctx, `audit-${p.orgId}.csv`);
    ctx.body = auditCsv(docs.map(auditLogView));
  });
  return { auditLogs, auditLog: auditLogEndpoint, auditExport };
}
