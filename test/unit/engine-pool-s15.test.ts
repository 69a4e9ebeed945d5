// The engine pool without a spare thread (the API's since session 15, docs/isolation.md): one
// thread per admitted run. A run whose thread is terminated at its deadline keeps its
// organization's slot until the replacement thread has loaded its engines, so the other
// organization is served at once by the live thread, and the organization whose run was cut waits
// for its own replacement. With a spare (the worker's pool), a cut run's slot is free at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import type { EngineTask } from '../../activities/isolation/engine-tasks.js';

const MATH = { engine: 'math', input: { expression: '1 + 1 = 2' } } as EngineTask;

describe('EnginePool without a spare thread', () => {
  let pool: EnginePool;
  beforeAll(async () => {
    pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'], spare: 0 });
    await pool.warmUp();
  }, 120_000);
  afterAll(async () => {
    await pool.shutdown();
  });

  it('runs one thread per admitted run', () => {
    expect(pool.stats().threads).toBe(2);
    expect(pool.stats().capacity).toBe(2);
  });

  it('a run cut at its deadline holds its slot until the replacement is ready; the other organization runs at once', async () => {
    const killedBefore = pool.stats().totals.killed;
    expect(await pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 500 })).toEqual({
      kind: 'timeout',
      phase: 'run',
    });
    expect(pool.stats().totals.killed).toBe(killedBefore + 1);
    // The replacement is loading the math engine: org_a still holds the slot of its cut run.
    expect(pool.stats().heldForReplacement).toBe(1);
    expect(pool.stats().orgs).toEqual({ org_a: 1 });
    const order: string[] = [];
    const [a, b] = await Promise.all([
      pool.run(MATH, { orgId: 'org_a', timeoutMs: 60_000 }).then((r) => (order.push('org_a'), r)),
      pool.run(MATH, { orgId: 'org_b', timeoutMs: 60_000 }).then((r) => (order.push('org_b'), r)),
    ]);
    expect(a.kind).toBe('ok');
    expect(b.kind).toBe('ok');
    // org_b took the free slot and the live thread; org_a waited for its replacement thread.
    expect(order).toEqual(['org_b', 'org_a']);
    if (a.kind === 'ok' && b.kind === 'ok') expect(a.queueMs).toBeGreaterThan(b.queueMs);
    expect(pool.stats()).toMatchObject({ threads: 2, heldForReplacement: 0, inUse: 0, orgs: {} });
  }, 120_000);

  it('a run that fails inside a live thread releases its slot at once (no thread to replace)', async () => {
    const r = await pool.run({ engine: 'no_such_engine' } as unknown as EngineTask, {
      orgId: 'org_a',
      timeoutMs: 10_000,
    });
    expect(r.kind).toBe('failed');
    expect(pool.stats()).toMatchObject({ threads: 2, heldForReplacement: 0, inUse: 0, orgs: {} });
    expect((await pool.run(MATH, { orgId: 'org_a', timeoutMs: 10_000 })).kind).toBe('ok');
  }, 60_000);

  it('shutdown releases a slot held for a replacement', async () => {
    const p = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'], spare: 0 });
    await p.warmUp();
    expect(await p.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 300 })).toEqual({
      kind: 'timeout',
      phase: 'run',
    });
    expect(p.stats().heldForReplacement).toBe(1);
    await p.shutdown();
    expect(p.stats()).toMatchObject({ heldForReplacement: 0, inUse: 0 });
  }, 120_000);
});

describe('EnginePool with its spare thread (the worker)', () => {
  it('a cut run frees its slot at once: the spare serves while the thread is replaced', async () => {
    const p = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    try {
      await p.warmUp();
      expect(p.stats().threads).toBe(3);
      expect(await p.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 300 })).toEqual({
        kind: 'timeout',
        phase: 'run',
      });
      expect(p.stats()).toMatchObject({ heldForReplacement: 0, inUse: 0, orgs: {} });
      expect((await p.run(MATH, { orgId: 'org_a', timeoutMs: 60_000 })).kind).toBe('ok');
    } finally {
      await p.shutdown();
    }
  }, 120_000);
});
