// Session 18 (issue 22's memory under the mixed load): Z3's check runs synchronously on the Z3
// worker's own thread (engines/logic/z3-worker.mjs check()), not through z3-solver's async call,
// which ran every check on a pthread of its own: a nested worker with its own V8 isolate and WASM
// instance, held for the Z3 worker's life. A Z3 worker now holds two pthreads (Z3's own: its
// timeout's timer and one it starts on a first check) instead of three, and gives the same answers:
// sat with the model, unsat with the core, unknown at Z3's timeout (the pool's hard kill at the
// deadline: test/unit/logic.test.ts "pool").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogicPool, solveLogic } from '../../engines/logic/index.js';

let pool: LogicPool;
beforeAll(async () => {
  pool = new LogicPool({ size: 1, defaultTimeoutMs: 30_000, warmWorkers: 1 });
  await pool.warmUp();
}, 120_000);
afterAll(async () => {
  await pool.shutdown();
});

const pthreads = () => pool.stats().workers.map((w) => w.memory?.pthreads);

describe('Z3 check on the worker thread (session 18)', () => {
  it('sat, unsat with its core, and the worker holds two pthreads, not three', async () => {
    expect(await solveLogic('(AND (GT x 5) (LT x 7))', { pool, timeoutMs: 20_000 })).toMatchObject({
      status: 'SAT',
      model: { x: '6' },
    });
    expect(pthreads()).toEqual([2]);
    const unsat = await solveLogic('(GT x 5) (LT x 3) (EQ y 1)', { pool, timeoutMs: 20_000 });
    expect(unsat.status).toBe('UNSAT');
    // The core check (a second check on the same thread) names the two conflicting conjuncts.
    expect(unsat.status === 'UNSAT' && unsat.unsatCore?.map((c) => c.index)).toEqual([1, 2]);
    for (let i = 0; i < 10; i++)
      expect(await solveLogic(`(EQ (PLUS x ${i}) (MULT 2 y)) (GT y ${i})`, { pool, timeoutMs: 20_000 })).toMatchObject({
        status: 'SAT',
      });
    expect(pthreads()).toEqual([2]);
  }, 120_000);
});
