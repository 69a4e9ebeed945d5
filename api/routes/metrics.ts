// Observability: platform-operator metrics (JSON and Prometheus text), one tenant's metrics,
// and the tenant's verification log. docs/observability.md.
import type { Middleware } from 'koa';
import { auditLogView } from '../../core/audit-log.js';
import { AuditLog } from '../../core/audit-store.js';
import { attestationsIssued, tenantBreakdown, verificationSummary } from '../../core/compliance-report.js';
import { orgEventCounts } from '../../core/org-events.js';
import type { ServiceConfig } from '../../core/config.js';
import { HttpError } from '../errors.js';
import { INSUFFICIENT_PERMISSIONS, principalOf, requireKeyOrJwt } from '../middleware/auth.js';
import { processMetrics, registry } from '../metrics.js';
import { planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { cursorParam, limitParam, statusParam } from '../query-params.js';
import { AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX } from '../../contract/audit.js';
import { CROSS_ORG } from '../../contract/admin.js';

export function operatorIds(cfg: ServiceConfig): Set<string> {
  return new Set(
    cfg.SVC_METRICS_OPERATOR_USER_IDS.split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );
}

/** Platform operators only: the authenticated user's id must be listed (unset list: nobody). Roles grant nothing. */
function requireOperator(deps: AppDeps): Middleware {
  const ids = operatorIds(deps.cfg);
  return async (ctx, next) => {
    const p = principalOf(ctx);
    if (!p.userId || !ids.has(p.userId)) throw new HttpError(403, INSUFFICIENT_PERMISSIONS);
    await next();
  };
}

export function metricsHandlers(deps: AppDeps) {
  const auditLog = new AuditLog(deps.store);
  // Either credential, then the organization's plan budget for management routes.
  const auth = [requireKeyOrJwt(deps, 'verify:read'), planLimit(deps.counter, 'account')];
  const operator = requireOperator(deps);

  const metrics = endpoint('metrics', [...auth, operator], async (ctx) => {
    // One roll-up document per organization (the bounded heads collection), never the entries.
    const [proc, rollups] = await Promise.all([processMetrics(), auditLog.allRollups()]);
    const tenants = tenantBreakdown(rollups);
    const totals = tenants.reduce(
      (t, o) => ({
        verifications: t.verifications + o.total,
        verified: t.verified + o.verified,
        blocked: t.blocked + o.blocked,
      }),
      { verifications: 0, verified: 0, blocked: 0 },
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { generated_at: new Date().toISOString(), scope: 'global', totals, tenants, process: proc };
  });

  // Registered before /metrics/:org_id so that "prometheus" is never read as an organization id.
  const metricsPrometheus = endpoint('metricsPrometheus', [...auth, operator], async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });

  const orgMetrics = endpoint('orgMetrics', [...auth], async (ctx, req) => {
    const p = principalOf(ctx);
    if (req.params.org_id !== p.orgId) throw new HttpError(403, CROSS_ORG);
    // The organization's head with its roll-up (one point lookup) and the 7 day buckets of org events.
    const [{ seq, rollup }, events] = await Promise.all([
      auditLog.rollup(p.orgId),
      orgEventCounts(deps.store, p.orgId, 7),
    ]);
    const all = verificationSummary(rollup);
    // Every hour of the roll-up that overlaps the last 24 h (at most 25 h).
    const day = verificationSummary(rollup, Date.now() - 24 * 3600_000);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      org_id: p.orgId,
      generated_at: new Date().toISOString(),
      verifications: all,
      last_24h: day,
      audit_entries: seq,
      attestations_issued: attestationsIssued(rollup),
      rate_limit_rejections_last_7d: events.rate_limited,
    };
  });

  // The tenant's verification log (its audit entries), most recent first; `cursor` pages backwards.
  const logs = endpoint('logs', [...auth], async (ctx) => {
    const p = principalOf(ctx);
    const limit = limitParam(ctx, AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX);
    const status = statusParam(ctx);
    const page = await auditLog.page(p.orgId, { limit, status, beforeSeq: cursorParam(ctx) });
    ctx.body = {
      logs: page.docs.map(auditLogView),
      next_cursor: page.next === null ? null : String(page.next),
    };
  });
  return { metrics, metricsPrometheus, orgMetrics, logs };
}
