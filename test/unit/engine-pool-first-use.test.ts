// The worker's engine pool since session 12 (workers/verification-worker.ts): its threads preload
// only the math engine; every other engine is imported inside the thread by the first task that
// needs it (docs/isolation.md, docs/performance.md "Memory"). Such a task returns exactly what
// the engine returns in-process, and a thread terminated at a deadline is replaced by one that
// again loads on first use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { runEngineTask, type EngineTask } from '../../activities/isolation/engine-tasks.js';

describe('EnginePool with only math preloaded (the worker)', () => {
  let pool: EnginePool;
  beforeAll(async () => {
    pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    await pool.warmUp();
  }, 120_000);
  afterAll(async () => {
    await pool.shutdown();
  });

  // One task of every engine the thread has not loaded yet, and math (preloaded).
  const tasks: EngineTask[] = [
    { engine: 'sql', input: { request: { query: "SELECT * FROM users WHERE name = '' OR 1=1" } } },
    { engine: 'code', input: { code: 'import os\nos.system(cmd)\n', language: 'python', timeoutMs: 5000 } },
    { engine: 'guard', input: { op: 'verify', query: 'what is 2+2?', allowed_domains: [] } },
    { engine: 'stats_query', input: { query: 'mean(price) > 3' } },
    { engine: 'process', input: { trace: '## Issue\nRule: law.\nIn this case yes. Therefore no.' } },
    { engine: 'rag', input: { chunks: [], expected_rate: '1/2' } },
    // Consensus's and natural language's math steps (session 14): their modules load on first use too.
    { engine: 'consensus_translate', input: { expression: '(x + 1)^2 = x^2 + 2*x + 1' } },
    { engine: 'consensus_math', input: { expression: '2^10 = 1024' } },
    {
      engine: 'consensus_agree',
      input: { entries: [{ answer: { kind: 'boolean', text: 'true', precision: 'exact' }, confidence: 100 }] },
    },
    { engine: 'nl_evaluate', input: { expression: '3 * 4.50', claimedAnswer: 13.5 } },
    { engine: 'math', input: { expression: 'x^2 - 1 = (x-1)*(x+1)' } as never },
  ];

  it('a task of an engine not preloaded loads it in the thread and returns what the engine returns in-process', async () => {
    // Concurrently from two organizations, so both threads meet engines they have not loaded.
    const runs = await Promise.all(
      tasks.flatMap((task) =>
        ['org_a', 'org_b'].map(async (org) => ({ task, r: await pool.run(task, { orgId: org, timeoutMs: 30_000 }) })),
      ),
    );
    for (const { task, r } of runs) {
      expect(r.kind, task.engine).toBe('ok');
      if (r.kind === 'ok') expect(JSON.stringify(r.value), task.engine).toBe(JSON.stringify(await runEngineTask(task)));
    }
  }, 120_000);

  it('a thread terminated at its deadline is replaced; the replacement loads engines on first use too', async () => {
    const before = pool.stats().totals.killed;
    expect(await pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 500 })).toEqual({
      kind: 'timeout',
      phase: 'run',
    });
    expect(pool.stats().totals.killed).toBe(before + 1);
    // Enough runs that the replacement thread takes some (piscina spreads them over idle threads).
    const code: EngineTask = {
      engine: 'code',
      input: { code: 'eval(input)\n', language: 'javascript', timeoutMs: 5000 },
    };
    const expected = JSON.stringify(await runEngineTask(code));
    for (let i = 0; i < 6; i++) {
      const r = await pool.run(code, { orgId: i % 2 ? 'org_a' : 'org_b', timeoutMs: 30_000 });
      expect(r.kind).toBe('ok');
      if (r.kind === 'ok') expect(JSON.stringify(r.value)).toBe(expected);
    }
    expect(pool.stats().threads).toBe(3);
  }, 120_000);
});
