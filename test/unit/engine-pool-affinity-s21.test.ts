// Module affinity in the engine pool (session 21, activities/isolation/engine-pool.ts): an engine
// module a thread does not preload (the worker's threads preload math only) is imported by the
// first run that needs it and stays in that thread. Runs of such a module go to a thread that has
// it, so a mixed load leaves each module in one thread instead of every thread (memory: the
// worker's loaded threads grew 22 -> 28-37 MB each; docs/performance.md "Session 21: memory
// margin"). When that thread is busy a run waits for it at most `affinityWaitMs`, holding no
// admission slot, then takes another thread; a run of a preloaded engine never waits.
import { describe, expect, it } from 'vitest';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import type { EngineModuleName, EngineTask, WarmAnswer } from '../../activities/isolation/engine-tasks.js';

const SQL: EngineTask = { engine: 'sql', input: { request: { query: "SELECT * FROM users WHERE name = '' OR 1=1" } } };
const CODE: EngineTask = {
  engine: 'code',
  input: { code: 'import os\nos.system(cmd)\n', language: 'python', timeoutMs: 5000 },
};
const GUARD: EngineTask = { engine: 'guard', input: { op: 'verify', query: 'what is 2+2?', allowed_domains: [] } };
const MATH = { engine: 'math', input: { expression: 'x^2 - 1 = (x-1)*(x+1)' } } as EngineTask;
const hold = (ms: number): EngineTask => ({ engine: 'hold', input: { ms } });

/** How many threads have imported `module`, by the threads' own answers (the warm-up task). */
const threadsWith = (answers: WarmAnswer[], module: EngineModuleName) =>
  answers.filter((a) => a.modules.includes(module)).length;

const ok = async (pool: EnginePool, task: EngineTask, orgId: string) => {
  const r = await pool.run(task, { orgId, timeoutMs: 30_000 });
  expect(r.kind, task.engine).toBe('ok');
  return r;
};

const pool = (affinityWaitMs?: number) =>
  new EnginePool({
    size: 2,
    perOrgCap: 2,
    preload: ['math'],
    ...(affinityWaitMs === undefined ? {} : { affinityWaitMs }),
  });

describe('EnginePool: module affinity', () => {
  it('a mixed sequence leaves each lazily loaded module in one thread', async () => {
    const p = pool(5_000);
    try {
      await p.warmUp();
      // One after the other, then in pairs in both orders (two organizations, so both threads run).
      await ok(p, SQL, 'org_a');
      await ok(p, CODE, 'org_a');
      for (let i = 0; i < 4; i++) {
        await Promise.all([ok(p, CODE, 'org_a'), ok(p, SQL, 'org_b')]);
        await Promise.all([ok(p, SQL, 'org_a'), ok(p, CODE, 'org_b'), ok(p, MATH, 'org_c')]);
        await Promise.all([ok(p, GUARD, 'org_a'), ok(p, MATH, 'org_b')]);
      }
      const answers = await p.warmUp();
      // The probe sees the imports (not vacuous): math in both loaded threads, each module somewhere.
      expect(threadsWith(answers, 'math')).toBe(2);
      expect(threadsWith(answers, 'sql')).toBe(1);
      expect(threadsWith(answers, 'code')).toBe(1);
      expect(threadsWith(answers, 'guards')).toBe(1);
      // The first two modules went to different threads (the one with the fewest modules).
      const sqlThread = answers.find((a) => a.modules.includes('sql'))!.id;
      const codeThread = answers.find((a) => a.modules.includes('code'))!.id;
      expect(sqlThread).not.toBe(codeThread);
      expect(p.stats().totals.affinitySpills).toBe(0);
    } finally {
      await p.shutdown();
    }
  }, 120_000);

  it("concurrent runs of one module wait for the module's thread instead of importing it in another", async () => {
    const p = pool(5_000);
    try {
      await p.warmUp();
      await ok(p, SQL, 'org_a');
      await Promise.all(['org_a', 'org_b', 'org_c', 'org_d'].map((org) => ok(p, SQL, org)));
      const answers = await p.warmUp();
      expect(threadsWith(answers, 'sql')).toBe(1);
      expect(p.stats().totals.affinityWaits).toBeGreaterThan(0);
    } finally {
      await p.shutdown();
    }
  }, 120_000);

  it('the wait is bounded: past affinityWaitMs a run takes another thread, which imports the module', async () => {
    const p = pool(200);
    try {
      await p.warmUp();
      // The stats module's thread is held for 4 s; a stats run meanwhile waits 200 ms, then runs elsewhere.
      const holding = p.run(hold(4_000), { orgId: 'org_a', timeoutMs: 30_000 });
      await until(() => p.stats().threadModules.some((m) => m.includes('stats')));
      const t0 = performance.now();
      const r = await ok(p, { engine: 'stats_query', input: { query: 'mean(price) > 3' } }, 'org_b');
      const waited = performance.now() - t0;
      expect(r.kind === 'ok' && r.queueMs).toBeLessThan(3_000);
      expect(waited).toBeLessThan(3_000);
      expect(p.stats().totals.affinitySpills).toBe(1);
      expect((await holding).kind).toBe('ok');
      expect(threadsWith(await p.warmUp(), 'stats')).toBe(2);
    } finally {
      await p.shutdown();
    }
  }, 120_000);

  it('a run waiting for its module holds no slot: a math run (preloaded) goes at once meanwhile', async () => {
    const p = pool(20_000);
    try {
      await p.warmUp();
      const order: string[] = [];
      const holding = p.run(hold(3_000), { orgId: 'org_a', timeoutMs: 30_000 }).then((r) => {
        order.push('hold');
        return r;
      });
      await until(() => p.stats().threadModules.some((m) => m.includes('stats')));
      // Same organization, and one slot each left: the waiting stats run must not take the slot math needs.
      const stats = p
        .run({ engine: 'stats_query', input: { query: 'mean(price) > 3' } }, { orgId: 'org_b', timeoutMs: 30_000 })
        .then((r) => {
          order.push('stats');
          return r;
        });
      const math = p.run(MATH, { orgId: 'org_b', timeoutMs: 30_000 }).then((r) => {
        order.push('math');
        return r;
      });
      const [h, s, m] = await Promise.all([holding, stats, math]);
      expect([h.kind, s.kind, m.kind]).toEqual(['ok', 'ok', 'ok']);
      // Math ran on the other thread while stats waited for the stats module's thread.
      expect(order).toEqual(['math', 'hold', 'stats']);
      expect(threadsWith(await p.warmUp(), 'stats')).toBe(1);
    } finally {
      await p.shutdown();
    }
  }, 120_000);

  it('affinityWaitMs 0: no wait; SVC_ENGINE_AFFINITY_WAIT_MS sets the default and a bad value is refused', async () => {
    const before = process.env.SVC_ENGINE_AFFINITY_WAIT_MS;
    try {
      process.env.SVC_ENGINE_AFFINITY_WAIT_MS = '-1';
      expect(() => new EnginePool({ size: 1, preload: ['math'] })).toThrow(/SVC_ENGINE_AFFINITY_WAIT_MS/);
      process.env.SVC_ENGINE_AFFINITY_WAIT_MS = '0';
      const p = new EnginePool({ size: 2, perOrgCap: 2, preload: ['math'] });
      try {
        await p.warmUp();
        await ok(p, SQL, 'org_a');
        await Promise.all(['org_a', 'org_b'].map((org) => ok(p, SQL, org)));
        expect(p.stats().totals.affinityWaits).toBe(0);
        expect(p.stats().totals.affinitySpills).toBe(1);
      } finally {
        await p.shutdown();
      }
    } finally {
      if (before === undefined) delete process.env.SVC_ENGINE_AFFINITY_WAIT_MS;
      else process.env.SVC_ENGINE_AFFINITY_WAIT_MS = before;
    }
  }, 120_000);
});

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}
