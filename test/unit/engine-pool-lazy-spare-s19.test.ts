// The worker's spare engine thread starts without its engines (session 19, engine-pool.ts): only
// `size` threads load mathjs and the math engine at start; the spare loads them when a loaded
// thread is lost (the pool sends it the `load` task at once, so it has them before it serves in
// the lost thread's place) or with its first task. SVC_ENGINE_SPARE_LAZY=0 / `lazySpare: false`
// loads every thread at start, as until session 19.
import { describe, expect, it } from 'vitest';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { runEngineTask, type EngineTask } from '../../activities/isolation/engine-tasks.js';

const MATH = { engine: 'math', input: { expression: 'x^2 - 1 = (x-1)*(x+1)' } } as EngineTask;

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const loadedCount = (answers: Array<{ loaded: boolean }>) => answers.filter((a) => a.loaded).length;

describe('EnginePool: the spare starts without its engines', () => {
  it('only `size` threads load at start; with lazySpare off every thread does', async () => {
    const lazy = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    const eager = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'], lazySpare: false });
    try {
      const [a, b] = await Promise.all([lazy.warmUp(), eager.warmUp()]);
      expect(a).toHaveLength(3);
      expect(loadedCount(a)).toBe(2);
      expect(b).toHaveLength(3);
      expect(loadedCount(b)).toBe(3);
      expect(lazy.stats()).toMatchObject({ threads: 3, loadedThreads: 2 });
      expect(eager.stats()).toMatchObject({ threads: 3, loadedThreads: 3 });
      // Runs go to the loaded threads: the spare stays without its engines while they are free.
      for (let i = 0; i < 6; i++) {
        const rs = await Promise.all(
          ['org_a', 'org_b'].map((org) => lazy.run(MATH, { orgId: org, timeoutMs: 30_000 })),
        );
        for (const r of rs) expect(r.kind).toBe('ok');
      }
      expect(loadedCount(await lazy.warmUp())).toBe(2);
    } finally {
      await Promise.all([lazy.shutdown(), eager.shutdown()]);
    }
  }, 120_000);

  it('a cut run frees its slot at once, the spare is sent its engines at once and serves', async () => {
    const pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    try {
      await pool.warmUp();
      expect(await pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 300 })).toEqual({
        kind: 'timeout',
        phase: 'run',
      });
      // The slot is free at once (the spare serves), and the spare was sent the load task.
      expect(pool.stats()).toMatchObject({ heldForReplacement: 0, inUse: 0, orgs: {} });
      expect(pool.stats().totals.spareLoads).toBe(1);
      const expected = JSON.stringify(await runEngineTask(MATH));
      const rs = await Promise.all(
        ['org_a', 'org_b', 'org_a', 'org_b'].map((org) => pool.run(MATH, { orgId: org, timeoutMs: 30_000 })),
      );
      for (const r of rs) {
        expect(r.kind).toBe('ok');
        if (r.kind === 'ok') expect(JSON.stringify(r.value)).toBe(expected);
      }
      // The live thread and the former spare have their engines; the replacement too if it took
      // one of the runs above while both were busy (a thread that serves loads them first).
      await until(() => pool.stats().threads === 3 && pool.stats().loadedThreads >= 2);
      expect(loadedCount(await pool.warmUp())).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.shutdown();
    }
  }, 120_000);

  it('two runs cut at once: the spare takes one load, the second loss is loaded by its replacement at start', async () => {
    const pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    try {
      await pool.warmUp();
      const cut = await Promise.all(
        ['org_a', 'org_b'].map((org) => pool.run({ engine: 'spin' }, { orgId: org, timeoutMs: 300 })),
      );
      expect(cut).toEqual([
        { kind: 'timeout', phase: 'run' },
        { kind: 'timeout', phase: 'run' },
      ]);
      // One spare, so one load task; the other lost thread's load went back to its replacement.
      expect(pool.stats().totals.spareLoads).toBe(1);
      const rs = await Promise.all(
        ['org_a', 'org_b', 'org_c', 'org_a'].map((org) => pool.run(MATH, { orgId: org, timeoutMs: 30_000 })),
      );
      for (const r of rs) expect(r.kind).toBe('ok');
      await until(() => pool.stats().threads === 3 && pool.stats().loadedThreads >= 2);
      expect(loadedCount(await pool.warmUp())).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.shutdown();
    }
  }, 120_000);

  it("without a spare (the API) a replacement loads at its start, and the cut run's slot waits for it", async () => {
    const pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'], spare: 0 });
    try {
      expect(loadedCount(await pool.warmUp())).toBe(2);
      expect(await pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 300 })).toEqual({
        kind: 'timeout',
        phase: 'run',
      });
      expect(pool.stats().heldForReplacement).toBe(1);
      expect(pool.stats().totals.spareLoads).toBe(0);
      await until(() => pool.stats().heldForReplacement === 0);
      await until(() => pool.stats().loadedThreads === 2);
      expect(loadedCount(await pool.warmUp())).toBe(2);
    } finally {
      await pool.shutdown();
    }
  }, 120_000);
});
