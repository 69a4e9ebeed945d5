// Agent budgets capped by the plan (issue 28 item 8, docs/agents.md "Plan limits").
import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS, agentBudgetCap } from '../../api/middleware/rate-limit.js';
import { PRICE_PER_REQUEST_MICRO_USD } from '../../core/agents.js';

describe('agentBudgetCap', () => {
  it("caps the hour at the plan's hour (per minute × 60, never above the day) and the day's cost at the plan's day", () => {
    expect(agentBudgetCap('free')).toEqual({ requestsPerHour: 1000, costPerDayUsd: 1 });
    expect(agentBudgetCap('pro')).toEqual({ requestsPerHour: 36_000, costPerDayUsd: 50 });
    expect(agentBudgetCap('enterprise')).toEqual({ requestsPerHour: null, costPerDayUsd: null });
  });

  it('follows the plan table and the agent price', () => {
    for (const plan of ['free', 'pro'] as const) {
      const l = PLAN_LIMITS[plan];
      const cap = agentBudgetCap(plan);
      expect(cap.requestsPerHour).toBe(Math.min(l.perMinute! * 60, l.perDay!));
      // An agent at its daily cost cap has made at most the plan's daily requests.
      expect(Math.round((cap.costPerDayUsd! * 1_000_000) / PRICE_PER_REQUEST_MICRO_USD)).toBe(l.perDay);
    }
  });

  it('an unknown plan is treated as free (fail closed)', () => {
    expect(agentBudgetCap('platinum' as never)).toEqual(agentBudgetCap('free'));
  });
});
