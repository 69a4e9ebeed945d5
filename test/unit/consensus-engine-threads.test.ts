// Consensus's math steps in the engine threads (session 14, issue 22 memory): the worker runs the
// translation, the math engine and the agreement as engine-pool tasks (pooledConsensusMath) so its
// main thread loads no mathjs. The consensus must be the same as with the steps in-process, and
// the math engine's run is now cut at the consensus deadline (its thread terminated).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { runIsolated } from '../../activities/isolation/run.js';
import { pooledConsensusMath } from '../../activities/consensus/pooled-math.js';
import { inProcessConsensusMath } from '../../activities/consensus/pure-math.js';
import { runConsensus, type ConsensusComputation } from '../../activities/consensus/run.js';
import type { ConsensusMath } from '../../activities/consensus/types.js';

/** The computation without its timings (latencies differ between runs). */
const timeless = (c: ConsensusComputation) =>
  JSON.parse(
    JSON.stringify({ ...c, engineMs: 0 }, (k, v) => (k === 'latency_ms' || k === 'latencyMs' ? 0 : v)),
  ) as unknown;

describe('consensus math in the engine pool', () => {
  let pool: EnginePool;
  beforeAll(async () => {
    pool = new EnginePool({ size: 2, perOrgCap: 1, preload: ['math'] });
    await pool.warmUp();
  }, 120_000);
  afterAll(async () => {
    await pool.shutdown();
  });

  const queries = [
    '2^10 = 1024',
    '2 + 2 = 5',
    '(x + 1)^2 = x^2 + 2*x + 1',
    '1/3 + 2^-2',
    'sqrt(2)',
    'sin(pi)',
    '1/0',
    '2 = 3 = 4',
    'mean(1, 2, 3) = 2',
    'Is 2 plus 2 equal to 4?',
    'Is the sky blue?',
  ];

  it('gives the same consensus as the steps in-process, query by query', async () => {
    for (const q of queries) {
      const pooled = await runConsensus(q, 'single', { math: pooledConsensusMath(pool, 'org_a'), z3TimeoutMs: 1000 });
      const local = await runConsensus(q, 'single', { math: inProcessConsensusMath, z3TimeoutMs: 1000 });
      expect(timeless(pooled), q).toEqual(timeless(local));
    }
    // Not vacuous: the rows cover a proof, a refusal and a translation.
    const proven = await runConsensus('2^10 = 1024', 'single', {
      math: pooledConsensusMath(pool, 'org_a'),
      z3TimeoutMs: 1000,
    });
    expect(proven).toMatchObject({ status: 'VERIFIED', agreement: 'UNANIMOUS' });
    expect(proven.runs[0]?.run.proof?.engine).toBe('math');
  }, 120_000);

  it("the math engine's run ends at the consensus deadline as a BLOCKED entry, its thread terminated", async () => {
    const killed = pool.stats().totals.killed;
    // A math step that never answers (the pool's test task `spin`), bounded like consensus_math.
    const stuck: ConsensusMath = {
      ...pooledConsensusMath(pool, 'org_a'),
      math: (_e, timeoutMs) =>
        runIsolated('spin', undefined, { pool, orgId: 'org_a', timeoutMs, timeoutDetail: 'x' }) as never,
    };
    const t0 = Date.now();
    const c = await runConsensus('2 + 2 = 4', 'single', { math: stuck, z3TimeoutMs: 1000, deadlineMs: 800 });
    expect(Date.now() - t0).toBeLessThan(15_000); // the 0.8 s deadline ended it (else the test's 120 s time-out)
    expect(c.chain.map((e) => [e.engine, e.status, e.method, e.success])).toEqual([
      ['math', 'BLOCKED', 'deadline', false],
    ]);
    expect(c.status).toBe('BLOCKED');
    expect(pool.stats().totals.killed).toBe(killed + 1);
  }, 120_000);

  it('a translation step past its budget fails closed with the consensus time-out', async () => {
    const slow: ConsensusMath = {
      ...inProcessConsensusMath,
      translate: () =>
        runIsolated('spin', undefined, {
          pool,
          orgId: 'org_b',
          timeoutMs: 300,
          timeoutDetail: 'Consensus verification timed out.',
        }) as never,
    };
    await expect(runConsensus('2 + 2 = 4', 'single', { math: slow, z3TimeoutMs: 1000 })).rejects.toMatchObject({
      type: 'EngineTimeout',
      nonRetryable: true,
      message: 'Consensus verification timed out.',
    });
  }, 120_000);
});
