// Soak: 700 solves through one pool whose workers are never recycled, asserting that memory
// stays flat (Z3 allocation per worker, worker JS heap, process RSS) — i.e. every solve releases
// its Z3 context, solver and model. Z3's allocation comes back to exactly the same byte count
// after every released solve (the clean-clone run of 2,000 solves: 62,416 bytes per worker at
// the warm-up snapshot and at the end), so the bound on it can be tight: 256 KiB over the 600
// solves after the warm-up snapshot catches a Z3 leak of about 440 bytes per solve, finer than
// the 2,000-solve soak's 1 MiB over 1,700 solves (about 600 bytes), at a third of its time
// (106 s of the suite's 722 s, run alone on a busy core). Each solve allocates contexts,
// solvers and models of tens of kilobytes, so a leaked one overshoots by orders of magnitude.
import { describe, expect, it } from 'vitest';
import { LogicPool, solveLogic } from '../../engines/logic/index.js';

const TOTAL = 700;
const WARM_UP = 100;
const CONCURRENCY = 4;
const MiB = 1024 * 1024;
/** Z3 bytes the measured solves may add: TOTAL - WARM_UP solves leaking 440 bytes each exceed it. */
const Z3_GROWTH_BOUND = 256 * 1024;

// [query for i, expected status]
const MIX: Array<(i: number) => [string, 'SAT' | 'UNSAT']> = [
  (i) => [`(AND (GT x ${i}) (LT y 10) (EQ (PLUS x y) ${i + 12}))`, 'SAT'],
  (i) => [`AND(GT(x, ${i}), LT(x, ${i - 3}))`, 'UNSAT'],
  (i) => [`(VAR r Real) (EQ (MULT ${(i % 7) + 2} r) ${(i % 5) + 1})`, 'SAT'],
  (i) => [`(VAR p Bool) (VAR q Bool) (XOR p q) (IFF q (GT x ${i})) (EQ x ${i % 3 === 0 ? i + 1 : i})`, 'SAT'],
  (i) => [`(EQ x (DIV ${-i} 3)) (EQ y (MOD ${-i} 3)) (DISTINCT x y ${i + 100})`, 'SAT'],
  (i) => [`(AND (EQ (POW x 2) ${(i % 20) ** 2}) (GTE x 0))`, 'SAT'],
  (i) => [`(FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) ${i % 50}))) (LTE x ${i % 50})`, 'SAT'],
  (i) => [`(EQ (MULT 2 x) ${2 * i + 1})`, 'UNSAT'],
];

function rssBytes(): number {
  return process.memoryUsage().rss;
}

describe('logic engine soak', () => {
  it(`${TOTAL} solves keep memory flat`, async () => {
    const pool = new LogicPool({ size: 2, defaultTimeoutMs: 30_000, maxSolvesPerWorker: 0 });
    try {
      await pool.warmUp();
      let next = 0;
      const mismatches: string[] = [];
      let warm: { z3: number[]; heap: number[]; rss: number } | null = null;
      const snapshot = () => {
        const workers = pool.stats().workers;
        return {
          z3: workers.map((w) => w.memory?.z3AllocBytes ?? NaN),
          heap: workers.map((w) => w.memory?.heapUsedBytes ?? NaN),
          rss: rssBytes(),
        };
      };
      const runner = async () => {
        while (next < TOTAL) {
          const i = next++;
          const [query, expected] = MIX[i % MIX.length](i);
          const r = await solveLogic(query, { pool });
          if (r.status !== expected) mismatches.push(`${i}: ${query} -> ${JSON.stringify(r).slice(0, 200)}`);
          if (i === WARM_UP) warm = snapshot();
        }
      };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, runner));
      const elapsed = Date.now() - t0;
      const end = snapshot();
      const stats = pool.stats();
      console.log(
        `soak: ${TOTAL} solves in ${(elapsed / 1000).toFixed(1)} s; warm ${JSON.stringify(warm)}; end ${JSON.stringify(end)}; totals ${JSON.stringify(stats.totals)}`,
      );

      expect(mismatches).toEqual([]);
      // The same two workers served everything, so their memory is comparable.
      expect(stats.totals).toMatchObject({ spawned: 2, recycled: 0, killed: 0, crashed: 0 });
      expect(stats.workers.map((w) => w.solves).reduce((a, b) => a + b, 0)).toBe(TOTAL);
      expect(warm).not.toBeNull();
      const w = warm!;
      for (let k = 0; k < 2; k++) {
        // Z3's own allocation returns to its baseline after each released context.
        expect(end.z3[k]).toBeLessThanOrEqual(w.z3[k] + Z3_GROWTH_BOUND);
        expect(end.z3[k]).toBeLessThan(4 * MiB);
        // Worker JS heap: no growth beyond GC noise.
        expect(end.heap[k]).toBeLessThan(w.heap[k] + 32 * MiB);
      }
      // Whole process (main + workers + WASM heaps touched by Z3).
      expect(end.rss - w.rss).toBeLessThan(150 * MiB);
    } finally {
      await pool.shutdown();
    }
  }, 300_000);
});
