// Admin compliance and security endpoints (X-API-Key, owner or admin role), always limited to
// the caller's own organization. docs/observability.md describes the report contents.
import type { Context } from 'koa';
import { auditLogView, type AuditLogDoc, type AuditLogView } from '../../core/audit-log.js';
import { AuditLog } from '../../core/audit-store.js';
import { auditCsvStream } from '../../core/audit-csv.js';
import { soc2Report, threatSummary, type ReportDeps } from '../../core/compliance-report.js';
import type { Role } from '../../core/scopes.js';
import { HttpError } from '../errors.js';
import { principalOf, requireAdminKey } from '../middleware/auth.js';
import { PLAN_LIMITS, planLimit } from '../middleware/rate-limit.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { csvAttachment } from '../query-params.js';
import { attestationKeyRing } from '../attestations.js';
import { AUDIT_LOG_NOT_FOUND } from '../../contract/audit.js';
import { CROSS_ORG } from '../../contract/admin.js';

export { CROSS_ORG };
/** Members are refused (403 Insufficient permissions for this operation). */
export const COMPLIANCE_ROLES: readonly Role[] = ['owner', 'admin'];

/** 403 unless every given organization id (path or query, possibly repeated) is the caller's own. */
function ownOrg(ctx: Context, orgId: string | string[] | undefined): string {
  const p = principalOf(ctx);
  const given = orgId === undefined ? [] : Array.isArray(orgId) ? orgId : [orgId];
  if (given.some((id) => id !== p.orgId)) throw new HttpError(403, CROSS_ORG);
  return p.orgId;
}

async function* views(docs: AsyncIterable<AuditLogDoc>): AsyncIterable<AuditLogView> {
  for await (const d of docs) yield auditLogView(d);
}

export function complianceHandlers(deps: AppDeps) {
  const auditLog = new AuditLog(deps.store);
  // Role and the key's admin:all scope, then the plan budget for management routes.
  const admin = [requireAdminKey(deps, COMPLIANCE_ROLES), planLimit(deps.counter, 'account')];

  const reportDeps = async (orgId: string): Promise<ReportDeps> => {
    const ring = await attestationKeyRing(deps.cfg);
    const org = await deps.accounts.findOrg(orgId);
    return {
      store: deps.store,
      accounts: deps.accounts,
      auditLog,
      auditSecret: deps.cfg.SVC_AUDIT_SECRET_KEY,
      signingKid: ring.signingKid,
      verificationKeyCount: ring.publicJwks.length,
      planLimits: PLAN_LIMITS[org?.plan ?? 'free'] ?? PLAN_LIMITS.free,
    };
  };

  const complianceCsv = endpoint('complianceCsv', [...admin], async (ctx) => {
    const orgId = ownOrg(ctx, ctx.query.org_id);
    // The whole trail in chain order, streamed (no row cap: this is the auditor's copy).
    csvAttachment(ctx, `audit-trail-${orgId}.csv`);
    ctx.body = auditCsvStream(views(auditLog.inOrder(orgId)));
  });

  const complianceVerify = endpoint('complianceVerify', [...admin], async (ctx, req) => {
    const orgId = principalOf(ctx).orgId;
    const doc = await auditLog.find(orgId, req.params.log_id);
    if (!doc) throw new HttpError(404, AUDIT_LOG_NOT_FOUND);
    const v = await auditLog.verify(orgId, doc, deps.cfg.SVC_AUDIT_SECRET_KEY);
    ctx.body = { log_id: doc._id, seq: doc.seq, ...v };
  });

  const soc2ReportEndpoint = endpoint('soc2Report', [...admin], async (ctx, req) => {
    const orgId = ownOrg(ctx, req.params.org_id);
    const org = await deps.accounts.findOrg(orgId);
    if (!org) throw new HttpError(403, CROSS_ORG);
    ctx.body = await soc2Report(await reportDeps(orgId), org);
  });

  const threatSummaryEndpoint = endpoint('threatSummary', [...admin], async (ctx, req) => {
    const orgId = ownOrg(ctx, req.params.org_id);
    ctx.body = await threatSummary(await reportDeps(orgId), orgId);
  });
  return {
    complianceCsv,
    complianceVerify,
    soc2Report: soc2ReportEndpoint,
    threatSummary: threatSummaryEndpoint,
  };
}
