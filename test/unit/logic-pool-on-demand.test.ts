// The Z3 pool with one warm worker (the worker's setting, engines/logic/config.ts): a second
// worker starts only for a solve that may run (another organization's while the first holds its
// share), serves it, and stops once idle (docs/performance.md, memory; docs/isolation.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogicPool, logicPoolOptions, solveLogic } from '../../engines/logic/index.js';

// Fermat n=3 over positive integers: Z3 can neither find a model nor refute it (holds a worker).
const PATHOLOGICAL = '(AND (GT x 0) (GT y 0) (GT z 0) (EQ (PLUS (POW x 3) (POW y 3)) (POW z 3)))';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pool: LogicPool;

beforeAll(async () => {
  pool = new LogicPool({ size: 2, perOrgCap: 1, defaultTimeoutMs: 30_000, warmWorkers: 1, idleReleaseMs: 1_000 });
  await pool.warmUp();
}, 120_000);

afterAll(async () => {
  await pool.shutdown();
});

describe('Z3 pool: one warm worker, the second on demand', () => {
  it("the worker's composition root keeps one of the two warm and releases the other after five idle minutes", () => {
    expect(logicPoolOptions({})).toMatchObject({ size: 2, perOrgCap: 1, warmWorkers: 1, idleReleaseMs: 300_000 });
    expect(logicPoolOptions({ SVC_Z3_POOL_SIZE: '1' })).toMatchObject({ size: 1, warmWorkers: 1 });
  });

  it('warmUp starts only the warm worker', () => {
    expect(pool.stats().workers).toHaveLength(1);
    expect(pool.stats().totals.spawned).toBe(1);
  });

  it('one organization at its cap waits for its own worker and starts no second one', async () => {
    const spawned = pool.stats().totals.spawned;
    const [slow, queued] = [
      solveLogic(PATHOLOGICAL, { pool, orgId: 'org-a', timeoutMs: 1_500 }),
      solveLogic('(EQ x 3)', { pool, orgId: 'org-a', timeoutMs: 20_000 }),
    ];
    await sleep(300);
    expect(pool.stats().workers).toHaveLength(1);
    expect((await slow).status).toBe('ERROR'); // the 1.5 s deadline ended it
    expect(await queued).toMatchObject({ status: 'SAT', model: { x: '3' } });
    // The killed worker's replacement is the only start.
    expect(pool.stats().totals.spawned - spawned).toBe(1);
  }, 60_000);

  it("another organization's solve starts the second worker while the first holds its share; it stops once idle", async () => {
    await sleep(1_500); // any replacement beyond the warm one released
    const spawned = pool.stats().totals.spawned;
    const busy = solveLogic(PATHOLOGICAL, { pool, orgId: 'org-a', timeoutMs: 20_000 });
    await sleep(300);
    // B is answered within its own deadline while A's solve still runs (A's deadline is 20 s).
    const t0 = Date.now();
    expect(await solveLogic('(AND (GT x 5) (LT x 7))', { pool, orgId: 'org-b', timeoutMs: 15_000 })).toMatchObject({
      status: 'SAT',
      model: { x: '6' },
    });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(pool.stats().totals.spawned - spawned).toBe(1);
    expect(pool.stats().workers).toHaveLength(2);
    // Idle past idleReleaseMs (1 s here): the second worker is stopped, the warm one stays busy with A.
    await sleep(2_500);
    expect(pool.stats().workers).toHaveLength(1);
    expect((await busy).status).toBe('ERROR');
    expect(pool.stats().workers).toHaveLength(1);
  }, 60_000);
});
