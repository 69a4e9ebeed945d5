// Rows that stop the store (FerretDB) of the shared stack, so this file runs alone
// (vitest.config.ts): agent tokens are checked before any store lookup, and the plan limiter
// fails closed while the store is down. The other agent and rate-limit rows are in
// agents.test.ts and rate-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { control, get, newTenant, post, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import type { ManagedProcess } from '../../infra/stack.js';

const MATH = { expression: '1 + 1' };
const tok = (t: string) => ({ 'x-agent-token': t });

interface Agent {
  id: number;
  agent_id: string;
  agent_token: string;
}

describe('agents: store outage', () => {
  let agentA: Agent;
  beforeAll(async () => {
    const a = await newTenant();
    const res = await post('/agents/register', { name: 'alpha' }, { 'x-api-key': a.key });
    if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
    agentA = res.body;
  });
  afterAll(async () => {
    await control('start', 'ferretdb');
  });
  it('refuses a bad-checksum token with 401 without a store lookup (the store is down)', async () => {
    await control('stop', 'ferretdb');
    const flipped = agentA.agent_token.slice(0, -1) + (agentA.agent_token.endsWith('A') ? 'B' : 'A');
    const bad = await get(`/agents/${agentA.id}/budget`, tok(flipped));
    expect(bad.status).toBe(401);
    const good = await get(`/agents/${agentA.id}/budget`, tok(agentA.agent_token));
    expect(good.status).toBe(503);
  });
});

describe('plan limits: store outage', () => {
  let free: Member;
  const procs: ManagedProcess[] = [];
  beforeAll(async () => {
    free = await newTenant('free');
  });
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('fails closed while the store is down, and an API started then limits in memory', async () => {
    await control('stop', 'ferretdb');
    try {
      const res = await post('/verify/math', MATH, { 'x-api-key': free.key });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/unavailable — retry shortly\.$/);
      const { proc, url } = await startExtraApi('api-no-store', {});
      procs.push(proc);
      await control('start', 'ferretdb');
      expect(readFileSync(proc.logFile, 'utf8')).toContain('using an in-memory rate limiter until restart');
      const later = await fetch(`${url}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': free.key },
        body: JSON.stringify(MATH),
      });
      expect(later.status).toBe(200);
      expect(later.headers.get('x-ratelimit-remaining')).toBe('59');
    } finally {
      await control('start', 'ferretdb'); // a no-op when it already runs
    }
  });
});
