// /metrics, /metrics/{org_id}, /metrics/prometheus (contract, "Observability endpoints").
// Imports nothing but zod.
import { z } from 'zod';

const summary = z.record(z.string(), z.unknown());

export const globalMetricsResponseSchema = z
  .looseObject({
    generated_at: z.string(),
    scope: z.literal('global'),
    totals: z.object({ verifications: z.number(), verified: z.number(), blocked: z.number() }),
    tenants: z.array(z.record(z.string(), z.unknown())),
    process: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'GlobalMetrics' });

export const orgMetricsResponseSchema = z
  .looseObject({
    org_id: z.string(),
    generated_at: z.string(),
    verifications: summary,
    last_24h: summary,
    audit_entries: z.number(),
    attestations_issued: z.number(),
    rate_limit_rejections_last_7d: z.number(),
  })
  .meta({ id: 'OrgMetrics' });
