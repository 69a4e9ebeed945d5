// Session 17: the Z3 pool's warm worker is released after a quiet period too (as PGlite's
// process), and the next solve starts one on demand within its own deadline
// (engines/logic/pool.ts warmIdleReleaseMs, engines/logic/config.ts; docs/performance.md
// "Session 17: the worker and its pools").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogicPool, logicPoolOptions, solveLogic } from '../../engines/logic/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pool: LogicPool;
let kept: LogicPool;
const releases: Array<{ idleMs: number; workersLeft: number }> = [];

beforeAll(async () => {
  // As the worker's pool (size 2, one warm), with the quiet periods shortened.
  pool = new LogicPool({
    size: 2,
    perOrgCap: 1,
    defaultTimeoutMs: 30_000,
    warmWorkers: 1,
    idleReleaseMs: 1_000,
    warmIdleReleaseMs: 2_000,
    onIdleRelease: (detail) => releases.push(detail),
  });
  // Without warmIdleReleaseMs: the warm worker stays (the setting `0`, and the pool's default).
  kept = new LogicPool({ size: 1, defaultTimeoutMs: 30_000, warmWorkers: 1, idleReleaseMs: 1_000 });
  await Promise.all([pool.warmUp(), kept.warmUp()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([pool.shutdown(), kept.shutdown()]);
});

describe('Z3 pool: the warm worker released after a quiet period (session 17)', () => {
  it("the worker's composition root releases the warm worker after five idle minutes; SVC_Z3_WARM_IDLE_RELEASE_MS sets it, 0 keeps it", () => {
    expect(logicPoolOptions({})).toMatchObject({ warmWorkers: 1, idleReleaseMs: 300_000, warmIdleReleaseMs: 300_000 });
    expect(logicPoolOptions({ SVC_Z3_WARM_IDLE_RELEASE_MS: '0' }).warmIdleReleaseMs).toBe(0);
    expect(logicPoolOptions({ SVC_Z3_WARM_IDLE_RELEASE_MS: '60000' }).warmIdleReleaseMs).toBe(60_000);
    for (const bad of ['-1', 'soon', '1.5', ''])
      expect(() => logicPoolOptions({ SVC_Z3_WARM_IDLE_RELEASE_MS: bad })).toThrow(/SVC_Z3_WARM_IDLE_RELEASE_MS/);
  });

  it('a solve resets the quiet period: the warm worker is not released while solves keep coming', async () => {
    expect(pool.stats().workers).toHaveLength(1);
    for (let i = 0; i < 4; i++) {
      expect(await solveLogic(`(EQ x ${i})`, { pool, orgId: 'org-a', timeoutMs: 20_000 })).toMatchObject({
        status: 'SAT',
        model: { x: String(i) },
      });
      await sleep(900); // 3.6 s in all, each gap below the 2 s period
      expect(pool.stats().workers).toHaveLength(1);
    }
  }, 60_000);

  it('idle past warmIdleReleaseMs, the warm worker is stopped; without the setting it stays', async () => {
    const spawned = pool.stats().totals.spawned;
    await sleep(3_000);
    expect(pool.stats().workers).toHaveLength(0);
    expect(pool.stats().totals.spawned).toBe(spawned);
    expect(releases).toHaveLength(1);
    expect(releases[0]!.workersLeft).toBe(0);
    expect(releases[0]!.idleMs).toBeGreaterThanOrEqual(2_000);
    expect(kept.stats().workers).toHaveLength(1);
  }, 60_000);

  it('the next solve starts a worker on demand and is answered within its deadline; it is warm again after', async () => {
    const spawned = pool.stats().totals.spawned;
    const t0 = Date.now();
    expect(await solveLogic('(AND (GT x 5) (LT x 7))', { pool, orgId: 'org-b', timeoutMs: 20_000 })).toMatchObject({
      status: 'SAT',
      model: { x: '6' },
    });
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(pool.stats().totals.spawned - spawned).toBe(1);
    expect(pool.stats().workers).toHaveLength(1);
    // And released again after the next quiet period.
    await sleep(3_000);
    expect(pool.stats().workers).toHaveLength(0);
  }, 60_000);

  it('two workers idle: the one beyond the warm count goes at idleReleaseMs, the last at warmIdleReleaseMs', async () => {
    // Two organizations at once: two workers (perOrgCap 1 each).
    const [a, b] = await Promise.all([
      solveLogic('(EQ x 1)', { pool, orgId: 'org-a', timeoutMs: 20_000 }),
      solveLogic('(EQ y 2)', { pool, orgId: 'org-b', timeoutMs: 20_000 }),
    ]);
    expect(a.status).toBe('SAT');
    expect(b.status).toBe('SAT');
    expect(pool.stats().workers).toHaveLength(2);
    await sleep(1_600);
    expect(pool.stats().workers).toHaveLength(1);
    await sleep(1_500);
    expect(pool.stats().workers).toHaveLength(0);
  }, 60_000);
});
