// Figures for the compliance report, the threat summary and the per-tenant metrics: verdict
// counts from the audit chain's roll-ups (core/audit-rollup.ts, stored per organization as entries
// are appended: one document per organization, never an aggregate over the entries),
// the key and user inventory, attestation counts and security counters.
import type { Store } from './store.js';
import type { Accounts } from './accounts.js';
import type { AuditLogDoc, ChainIntegrity } from './audit-log.js';
import { attestationsOf, rowsSince, summarize, type AuditRollup, type VerificationSummary } from './audit-rollup.js';
import { orgEventCounts } from './org-events.js';

export type { VerdictCounts, VerificationSummary } from './audit-rollup.js';

/** How many of the newest entries the reports re-verify (hash, signature, link, head). */
export const INTEGRITY_WINDOW = 1000;

/** What the reports read from the audit chain (persistence/audit.ts's AuditLog). */
export interface AuditReader {
  rollup(orgId: string): Promise<{ seq: number; rollup: AuditRollup | null }>;
  list(orgId: string, opts: { limit: number }): Promise<AuditLogDoc[]>;
  entryAt(orgId: string, seq: number): Promise<AuditLogDoc | null>;
  integrity(orgId: string, window: number, secret: string | undefined): Promise<ChainIntegrity>;
}

const noRollup = (): AuditRollup => ({ seq: 0, all: [], hours: [] });

/** Verdict counts of one roll-up, in total or for the hours overlapping [since, now]. */
export function verificationSummary(rollup: AuditRollup | null, sinceMs?: number): VerificationSummary {
  const r = rollup ?? noRollup();
  return summarize(sinceMs === undefined ? r.all : rowsSince(r, sinceMs));
}

/** Attestations named by the organization's entries (the roll-up's count). */
export const attestationsIssued = (rollup: AuditRollup | null): number => attestationsOf((rollup ?? noRollup()).all);

/** Verdict counts of every organization (GET /metrics `tenants`), largest first. */
export function tenantBreakdown(
  rollups: Array<{ orgId: string; rollup: AuditRollup | null }>,
): Array<{ org_id: string } & VerificationSummary> {
  return rollups
    .map(({ orgId, rollup }) => ({ org_id: orgId, ...verificationSummary(rollup) }))
    .filter((t) => t.total > 0)
    .sort((a, b) => b.total - a.total);
}

/** API keys of the organization with masked previews only (never digests or secrets). */
export async function keyInventory(accounts: Accounts, orgId: string, now = new Date()) {
  const keys = await accounts.listOrgKeys(orgId); // directory positions + point lookups (persistence/accounts.ts)
  const expired = (k: (typeof keys)[number]) => k.expires_at !== null && k.expires_at.getTime() <= now.getTime();
  const live = keys.filter((k) => k.active && k.revoked_at === null && !expired(k));
  return {
    total: keys.length,
    active: live.length,
    revoked: keys.filter((k) => k.revoked_at !== null || !k.active).length,
    expired: keys.filter((k) => k.active && k.revoked_at === null && expired(k)).length,
    active_without_expiry: live.filter((k) => k.expires_at === null).length,
    active_with_admin_scope: live.filter((k) => k.scopes.includes('admin:all')).length,
    keys: keys.map((k) => ({
      id: k._id,
      name: k.name,
      preview: k.preview,
      user_id: k.user_id,
      scopes: k.scopes,
      state: k.revoked_at !== null || !k.active ? 'revoked' : expired(k) ? 'expired' : 'active',
      created_at: k.created_at.toISOString(),
      expires_at: k.expires_at ? k.expires_at.toISOString() : null,
      revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
    })),
  };
}

export async function userInventory(accounts: Accounts, orgId: string) {
  const users = await accounts.listOrgUsers(orgId); // directory positions + point lookups; password hashes never leave this function
  const byRole: Record<string, number> = {};
  for (const u of users) byRole[u.role] = (byRole[u.role] ?? 0) + 1;
  return {
    total: users.length,
    active: users.filter((u) => u.active).length,
    by_role: byRole,
    users: users.map((u) => ({
      id: u._id,
      email: u.email,
      role: u.role,
      active: u.active,
      created_at: u.created_at.toISOString(),
    })),
  };
}

export interface ReportDeps {
  store: Store;
  accounts: Accounts;
  auditLog: AuditReader;
  auditSecret: string | undefined;
  signingKid: string | null;
  verificationKeyCount: number;
  planLimits: { perMinute: number | null; perDay: number | null; batchSize: number };
}

async function auditPeriod(auditLog: AuditReader, orgId: string) {
  // Point lookups by position: the newest entry and the one at position 1.
  const [last] = await auditLog.list(orgId, { limit: 1 });
  const first = last ? await auditLog.entryAt(orgId, 1) : null;
  return {
    first_entry_at: first ? String(first.timestamp) : null,
    last_entry_at: last ? String(last.timestamp) : null,
  };
}

/** GET /admin/compliance/report/soc2/{org_id}. */
export async function soc2Report(
  deps: ReportDeps,
  org: { _id: string; name: string; plan: string; active: boolean; created_at: Date },
  now = new Date(),
) {
  const orgId = org._id;
  const [{ rollup }, integrity, period, keys, users, events] = await Promise.all([
    deps.auditLog.rollup(orgId),
    deps.auditLog.integrity(orgId, INTEGRITY_WINDOW, deps.auditSecret),
    auditPeriod(deps.auditLog, orgId),
    keyInventory(deps.accounts, orgId, now),
    userInventory(deps.accounts, orgId),
    orgEventCounts(deps.store, orgId, 30, now),
  ]);
  const verifications = verificationSummary(rollup);
  const attestations = attestationsIssued(rollup);
  return {
    report: 'soc2',
    generated_at: now.toISOString(),
    organization: {
      id: orgId,
      name: org.name,
      plan: org.plan,
      active: org.active,
      created_at: org.created_at.toISOString(),
    },
    period,
    controls: {
      audit_logging: {
        secret_configured: Boolean(deps.auditSecret),
        entries_total: integrity.head_seq,
        hashing: 'SHA-256 over the RFC 8785 canonical payload, chained per organization',
        signature: 'HMAC-SHA256 of entry_hash under SVC_AUDIT_SECRET_KEY',
        chain_integrity: { window: INTEGRITY_WINDOW, ...integrity },
      },
      access_control: { users, api_keys: keys },
      verification_integrity: {
        ...verifications,
        attestations_issued: attestations,
        attestation_signing_key_id: deps.signingKid,
        attestation_verification_keys: deps.verificationKeyCount,
      },
      rate_limiting: {
        plan: org.plan,
        limits: {
          per_minute: deps.planLimits.perMinute,
          per_day: deps.planLimits.perDay,
          batch_size: deps.planLimits.batchSize,
        },
        rejections_last_30_days: events.rate_limited,
      },
    },
  };
}

/** GET /admin/security/threats/{org_id}. */
export async function threatSummary(deps: ReportDeps, orgId: string, now = new Date()) {
  const ago = (hours: number) => now.getTime() - hours * 3600_000;
  const [{ rollup }, integrity, keys, events1, events7] = await Promise.all([
    deps.auditLog.rollup(orgId),
    deps.auditLog.integrity(orgId, INTEGRITY_WINDOW, deps.auditSecret),
    keyInventory(deps.accounts, orgId, now),
    orgEventCounts(deps.store, orgId, 1, now),
    orgEventCounts(deps.store, orgId, 7, now),
  ]);
  // From the roll-up's hour buckets: "last 24 h" is every hour that overlaps the last 24 h (≤ 25 h).
  const day = verificationSummary(rollup, ago(24));
  const week = verificationSummary(rollup, ago(24 * 7));
  const all = verificationSummary(rollup);
  const engines = (s: VerificationSummary) =>
    Object.fromEntries(
      Object.entries(s.by_engine)
        .filter(([, c]) => c.blocked > 0)
        .map(([e, c]) => [e, c.blocked]),
    );
  const revokedLast30 = keys.keys.filter(
    (k) => k.revoked_at !== null && Date.parse(k.revoked_at) >= now.getTime() - 30 * 86_400_000,
  ).length;
  const findings: string[] = [];
  if (!integrity.valid) findings.push('audit_chain_integrity_failed');
  if (day.blocked > 0) findings.push('blocked_verifications_last_24h');
  if (day.unsafe_findings > 0) findings.push('unsafe_findings_last_24h');
  if (events1.rate_limited > 0) findings.push('rate_limited_last_24h');
  if (events1.forbidden > 0) findings.push('forbidden_requests_last_24h');
  if (keys.active_without_expiry > 0) findings.push('active_keys_without_expiry');
  const level = !integrity.valid ? 'high' : findings.some((f) => f.endsWith('_24h')) ? 'elevated' : 'low';
  return {
    organization_id: orgId,
    generated_at: now.toISOString(),
    threat_level: level,
    findings,
    blocked_verifications: {
      last_24h: day.blocked,
      last_7d: week.blocked,
      total: all.blocked,
      by_engine_last_7d: engines(week),
    },
    unsafe_findings: { last_24h: day.unsafe_findings, last_7d: week.unsafe_findings, total: all.unsafe_findings },
    rate_limit_rejections: { last_24h: events1.rate_limited, last_7d: events7.rate_limited },
    forbidden_requests: { last_24h: events1.forbidden, last_7d: events7.forbidden },
    api_keys: {
      active: keys.active,
      active_without_expiry: keys.active_without_expiry,
      active_with_admin_scope: keys.active_with_admin_scope,
      expired: keys.expired,
      revoked_last_30d: revokedLast30,
    },
    audit_chain: { window: INTEGRITY_WINDOW, ...integrity },
  };
}
