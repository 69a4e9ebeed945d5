// The API process's Prometheus registry (prom-client) and the middleware that feeds it.
// Label values are bounded: routes are router patterns (`/audit/logs/:log_id`, or
// `unmatched`), never raw paths, and no label carries an organization, key or query.
import type { Context, Middleware } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../core/store.js';
import { recordOrgEvent, type OrgEventKind } from '../core/org-events.js';
import type { Principal } from './middleware/auth.js';
import { logger } from '../core/logger.js';

const log = logger('metrics');

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'svc_http_requests_total',
  help: 'HTTP requests by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'HTTP request latency by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const verdicts = new Counter({
  name: 'svc_verdicts_total',
  help: 'Verification results returned, by engine and result status.',
  labelNames: ['engine', 'status'] as const,
  registers: [registry],
});

export const workflowFailures = new Counter({
  name: 'svc_workflow_failures_total',
  help: 'Verifications that ended without a result: reason unavailable (start failed), timeout or failed.',
  labelNames: ['engine', 'reason'] as const,
  registers: [registry],
});

export const rateLimitRejections = new Counter({
  name: 'svc_rate_limit_rejections_total',
  help: 'Responses with status 429, by route pattern.',
  labelNames: ['route'] as const,
  registers: [registry],
});

export const authFailures = new Counter({
  name: 'svc_auth_failures_total',
  help: 'Responses with status 401 or 403, by route pattern and status.',
  labelNames: ['route', 'status'] as const,
  registers: [registry],
});

export const STARTED_AT = new Date();

export type WorkflowFailureReason = 'unavailable' | 'timeout' | 'failed';

/** The verdict label of a result: its `status`, `verdict` or `verified` flag; bounded to a short token. */
export function recordVerdict(engine: string, result: unknown): void {
  const r = (result ?? {}) as Record<string, unknown>;
  const raw =
    typeof r.status === 'string'
      ? r.status
      : typeof r.verdict === 'string'
        ? r.verdict
        : typeof r.verified === 'boolean'
          ? r.verified
            ? 'VERIFIED'
            : 'NOT_VERIFIED'
          : 'UNKNOWN';
  const status = /^[A-Za-z_]{1,32}$/.test(raw) ? raw : 'OTHER';
  verdicts.inc({ engine, status });
}

export function recordWorkflowFailure(engine: string, reason: WorkflowFailureReason): void {
  workflowFailures.inc({ engine, reason });
}

function routeOf(ctx: Context): string {
  const matched = (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}

/** Counts and times every response; also records per-organization 429/403 counts in the store. */
export function httpMetrics(store: Store): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = routeOf(ctx);
      const status = String(ctx.status);
      const labels = { method: ctx.method, route, status };
      httpRequests.inc(labels);
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      if (ctx.status === 429) rateLimitRejections.inc({ route });
      if (ctx.status === 401 || ctx.status === 403) authFailures.inc({ route, status });
      // Only for authenticated callers: the organization is known and the counter cannot be flooded anonymously.
      const principal = ctx.state.principal as Principal | undefined;
      const kind: OrgEventKind | null = ctx.status === 429 ? 'rate_limited' : ctx.status === 403 ? 'forbidden' : null;
      if (principal && kind) {
        recordOrgEvent(store, principal.orgId, kind).catch((err: Error) =>
          log.warn('org event not recorded', { kind, error: err.message }),
        );
      }
    }
  };
}

type Row = Record<string, string | number>;

async function rows(name: string): Promise<Row[]> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return [];
  const data = await metric.get();
  return data.values.map((v) => ({ ...(v.labels as Record<string, string | number>), value: v.value }));
}

/** This process's counters as JSON (GET /metrics `process`). */
export async function processMetrics() {
  const count = (r: Row) => Number(r.value);
  const latency = new Map<string, { method: string; route: string; status: string; count: number; sum: number }>();
  for (const v of (await httpDuration.get()).values) {
    const l = v.labels as Record<string, string>;
    const key = `${l.method} ${l.route} ${l.status}`;
    const cur = latency.get(key) ?? {
      method: l.method as string,
      route: l.route as string,
      status: l.status as string,
      count: 0,
      sum: 0,
    };
    if (v.metricName === 'svc_http_request_duration_seconds_count') cur.count = v.value;
    if (v.metricName === 'svc_http_request_duration_seconds_sum') cur.sum = v.value;
    latency.set(key, cur);
  }
  return {
    started_at: STARTED_AT.toISOString(),
    uptime_seconds: Math.round((Date.now() - STARTED_AT.getTime()) / 1000),
    http_requests: (await rows('svc_http_requests_total')).map((r) => ({
      method: r.method,
      route: r.route,
      status: Number(r.status),
      count: count(r),
    })),
    http_latency: [...latency.values()]
      .filter((l) => l.count > 0)
      .map((l) => ({
        method: l.method,
        route: l.route,
        status: Number(l.status),
        count: l.count,
        mean_ms: Math.round((l.sum / l.count) * 10000) / 10,
      })),
    verdicts: (await rows('svc_verdicts_total')).map((r) => ({ engine: r.engine, status: r.status, count: count(r) })),
    workflow_failures: (await rows('svc_workflow_failures_total')).map((r) => ({
      engine: r.engine,
      reason: r.reason,
      count: count(r),
    })),
    rate_limit_rejections: (await rows('svc_rate_limit_rejections_total')).map((r) => ({
      route: r.route,
      count: count(r),
    })),
    auth_failures: (await rows('svc_auth_failures_total')).map((r) => ({
      route: r.route,
      status: Number(r.status),
      count: count(r),
    })),
  };
}
