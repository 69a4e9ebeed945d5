// Rate limits of the contract (Limits section):
//  - per-IP limit on anonymous /auth/* routes: in-process buckets (sliding one-minute window);
//  - plan limits per organization (requests/min and /day) and named per-key limits (agent
//    registration 10/hour, attestation verify 1000/hour): counters in the shared store, one
//    document per window updated with an atomic $inc (TTL index expires old windows), so every
//    API process shares them. A store error denies the request (fail closed); if the store is
//    unreachable at start-up, an in-memory counter is used until restart and the log says so.
import type { Middleware } from 'koa';
import { clientIp, type TrustedProxies } from '../../core/client-ip.js';
import type { Store } from '../../core/store.js';
import { hitWindow, sweepExpiredWindows } from '../../core/org-events.js';
import type { Plan } from '../../core/accounts.js';
import { PRICE_PER_REQUEST_MICRO_USD } from '../../core/agents.js';
import { HttpError } from '../errors.js';
import { logger } from '../../core/logger.js';
import { backgroundTimer } from '../../core/background-timer.js';
import { principalOf } from './auth.js';

const log = logger('rate-limit');

export const PLAN_LIMITS: Record<Plan, { perMinute: number | null; perDay: number | null; batchSize: number }> = {
  free: { perMinute: 60, perDay: 1000, batchSize: 10 },
  pro: { perMinute: 600, perDay: 50_000, batchSize: 50 },
  enterprise: { perMinute: null, perDay: null, batchSize: 100 },
};

/**
 * The most an agent's own budgets may be on a plan (docs/agents.md, "Plan limits"): its hourly
 * requests no more than the organization's plan allows in an hour (the per-minute limit × 60,
 * and never above the daily limit), its daily cost no more than the plan's daily requests at the
 * agent price. Null: no plan cap (enterprise), the request schema's maxima apply.
 */
export function agentBudgetCap(plan: Plan): { requestsPerHour: number | null; costPerDayUsd: number | null } {
  const l = PLAN_LIMITS[plan] ?? PLAN_LIMITS.free;
  if (l.perMinute === null || l.perDay === null) return { requestsPerHour: null, costPerDayUsd: null };
  return {
    requestsPerHour: Math.min(l.perMinute * 60, l.perDay),
    costPerDayUsd: (l.perDay * PRICE_PER_REQUEST_MICRO_USD) / 1_000_000,
  };
}

// ---------------------------------------------------------------------------------------
// Per-IP limiter for anonymous /auth/* routes
// ---------------------------------------------------------------------------------------

export class IpLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly trusted: TrustedProxies,
  ) {}

  middleware(): Middleware {
    return async (ctx, next) => {
      // One shared bucket when the peer address is unusable: never skip the limit.
      const ip =
        clientIp(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined, this.trusted) ?? 'unknown';
      const now = Date.now();
      const windowStart = now - 60_000;
      const list = (this.hits.get(ip) ?? []).filter((t) => t > windowStart);
      if (list.length >= this.perMinute) {
        const retryAfter = Math.max(1, Math.ceil(((list[0] as number) + 60_000 - now) / 1000));
        this.hits.set(ip, list);
        throw new HttpError(429, `Too many authentication attempts. Try again in ${retryAfter} seconds.`, {
          'Retry-After': String(retryAfter),
        });
      }
      list.push(now);
      this.hits.set(ip, list);
      if (this.hits.size > 50_000) this.prune(windowStart);
      await next();
    };
  }

  private prune(windowStart: number): void {
    for (const [ip, list] of this.hits) if (!list.some((t) => t > windowStart)) this.hits.delete(ip);
  }
}

// ---------------------------------------------------------------------------------------
// Shared window counters
// ---------------------------------------------------------------------------------------

export class LimiterUnavailableError extends Error {}

export interface WindowCount {
  count: number;
  resetAt: number; // unix seconds
}

export class WindowCounter {
  private memory: Map<string, number> | null = null;

  constructor(private readonly store: Store) {}

  /** Called at start-up: if the store does not answer, count in memory until restart. */
  async init(): Promise<void> {
    // Expired windows are removed by the TTL index on MongoDB; this sweep covers stores without
    // TTL indexes (FerretDB) and costs one indexed delete every few minutes.
    // Session 24: its own phase in the 5 minutes (api/batch-jobs.ts sweeps at 20, 95 and 170 s), ±10 % per run.
    backgroundTimer(
      () => {
        if (!this.memory) void sweepExpiredWindows(this.store).catch(() => undefined);
      },
      300_000,
      { firstMs: 245_000 },
    );
    if (!(await this.store.ping())) {
      this.memory = new Map();
      log.warn('shared store unavailable at start-up: using an in-memory rate limiter until restart');
    }
  }

  get backend(): 'store' | 'memory' {
    return this.memory ? 'memory' : 'store';
  }

  async hit(key: string, windowSeconds: number): Promise<WindowCount> {
    const now = Math.floor(Date.now() / 1000);
    const start = now - (now % windowSeconds);
    const resetAt = start + windowSeconds;
    const id = `${key}:${windowSeconds}:${start}`;
    if (this.memory) {
      const count = (this.memory.get(id) ?? 0) + 1;
      this.memory.set(id, count);
      if (this.memory.size > 100_000) this.memory.clear();
      return { count, resetAt };
    }
    try {
      return { count: await hitWindow(this.store, id, new Date((resetAt + 60) * 1000)), resetAt };
    } catch (err) {
      log.error('rate-limit store error: denying request', { error: String((err as Error).message) });
      throw new LimiterUnavailableError();
    }
  }
}

export const LIMITER_UNAVAILABLE = 'Rate limiter unavailable — retry shortly.';

function rateLimitError(limit: number, resetAt: number, message = 'Rate limit exceeded'): HttpError {
  const retryAfter = Math.max(1, resetAt - Math.floor(Date.now() / 1000));
  return new HttpError(
    429,
    message,
    {
      'Retry-After': String(retryAfter),
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(resetAt),
    },
    {
      error: {
        code: 'SVC-005',
        message,
        details: { limit, reset_at: new Date(resetAt * 1000).toISOString(), retry_after: retryAfter },
      },
    },
  );
}

/**
 * The organization's plan budgets. `verify`: the verification routes (and everything else an
 * API key calls on the data plane). `account`: the management routes (JWT account and audit
 * routes, admin routes, metrics and logs), counted separately with the same plan numbers so
 * that reading the audit trail never uses up verification quota, and the other way round.
 */
export type PlanBudget = 'verify' | 'account';
const BUDGET_PREFIX: Record<PlanBudget, string> = { verify: 'org', account: 'org-account' };

/** Plan limits for the authenticated organization; sets X-RateLimit-* on every response. */
export function planLimit(counter: WindowCounter, budget: PlanBudget = 'verify'): Middleware {
  const prefix = BUDGET_PREFIX[budget];
  return async (ctx, next) => {
    const p = principalOf(ctx);
    const limits = PLAN_LIMITS[p.plan] ?? PLAN_LIMITS.free;
    const now = Math.floor(Date.now() / 1000);
    if (limits.perMinute === null || limits.perDay === null) {
      ctx.set({
        'X-RateLimit-Limit': 'unlimited',
        'X-RateLimit-Remaining': 'unlimited',
        'X-RateLimit-Reset': String(now - (now % 60) + 60),
      });
      return next();
    }
    let minute: WindowCount;
    let day: WindowCount;
    try {
      [minute, day] = await Promise.all([
        counter.hit(`${prefix}:${p.orgId}`, 60),
        counter.hit(`${prefix}:${p.orgId}`, 86_400),
      ]);
    } catch (err) {
      if (err instanceof LimiterUnavailableError) throw new HttpError(503, LIMITER_UNAVAILABLE);
      throw err;
    }
    if (day.count > limits.perDay) throw rateLimitError(limits.perDay, day.resetAt);
    if (minute.count > limits.perMinute) throw rateLimitError(limits.perMinute, minute.resetAt);
    ctx.set({
      'X-RateLimit-Limit': String(limits.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, limits.perMinute - minute.count)),
      'X-RateLimit-Reset': String(minute.resetAt),
    });
    await next();
  };
}

/** A named per-key limit (e.g. agent registration 10/hour), on top of the plan limit. */
export function keyLimit(counter: WindowCounter, name: string, limit: number, windowSeconds: number): Middleware {
  return async (ctx, next) => {
    const p = principalOf(ctx);
    const subject = p.keyId ?? p.userId ?? p.orgId;
    let w: WindowCount;
    try {
      w = await counter.hit(`${name}:${subject}`, windowSeconds);
    } catch (err) {
      if (err instanceof LimiterUnavailableError) throw new HttpError(503, LIMITER_UNAVAILABLE);
      throw err;
    }
    if (w.count > limit) throw rateLimitError(limit, w.resetAt);
    await next();
  };
}
