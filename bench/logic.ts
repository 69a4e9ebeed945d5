// In-process latency benchmark of the logic engine (parse + Z3 worker pool + independent check).
// Usage: npx tsx bench/logic.ts [solvesPerQuery=100] [concurrency=1]
// Prints p50/p95/max per query kind and overall. The pool is warmed up first, so worker
// start-up is not counted.

import { LogicPool, solveLogic } from '../engines/logic/index.js';

const QUERIES: Array<[string, string]> = [
  ['linear Int SAT', '(AND (GT x 5) (LT y 10) (EQ (PLUS x y) 12))'],
  ['linear Int UNSAT', '(AND (GT x 5) (LT x 3))'],
  ['call form SAT', 'AND(GT(x, 5), LT(y, 10))'],
  ['Real rational', '(VAR x Real) (EQ (MULT 3 x) 1)'],
  ['Bool XOR/IFF', '(VAR p Bool) (VAR q Bool) (VAR r Bool) (XOR p q) (IFF q r) (IMPLIES r (NOT p))'],
  ['DIV/MOD', '(EQ x (DIV -7 2)) (EQ y (MOD -7 2)) (EQ z (MOD x 3))'],
  ['POW nonlinear', '(AND (EQ (POW x 2) 49) (LT x 0))'],
  ['DISTINCT', '(DISTINCT a b c d) (GTE a 0) (LTE a 3) (GTE b 0) (LTE b 3) (GTE c 0) (LTE c 3) (GTE d 0) (LTE d 3)'],
  ['FORALL', '(FORALL ((n Int)) (IMPLIES (GT n 0) (GT (PLUS n x) 5))) (LTE x 5)'],
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1).padStart(8);
  return `${f(percentile(s, 50))} ${f(percentile(s, 95))} ${f(s[s.length - 1])}`;
}

async function main(): Promise<void> {
  const perQuery = Number(process.argv[2] ?? 100);
  const concurrency = Number(process.argv[3] ?? 1);
  if (!Number.isInteger(perQuery) || perQuery < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error('usage: bench/logic.ts [solvesPerQuery>=1] [concurrency>=1]');
  }
  const pool = new LogicPool();
  const t0 = performance.now();
  await pool.warmUp();
  console.log(
    `pool: ${pool.size} workers, ready in ${(performance.now() - t0).toFixed(0)} ms; ${perQuery} solves per query, concurrency ${concurrency}`,
  );

  const all: number[] = [];
  console.log(`${'query'.padEnd(18)}      p50      p95      max  (ms per solve)`);
  try {
    for (const [name, query] of QUERIES) {
      const lat: number[] = [];
      let next = 0;
      const runner = async () => {
        while (next < perQuery) {
          next++;
          const s = performance.now();
          const r = await solveLogic(query, { pool });
          lat.push(performance.now() - s);
          if (r.status !== 'SAT' && r.status !== 'UNSAT') throw new Error(`${name}: unexpected ${JSON.stringify(r)}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, runner));
      all.push(...lat);
      console.log(`${name.padEnd(18)} ${summary(lat)}`);
    }
    console.log(`${'ALL'.padEnd(18)} ${summary(all)}`);
    const st = pool.stats();
    console.log(`workers recycled ${st.totals.recycled}, killed ${st.totals.killed}; Z3 ${st.z3Version}`);
  } finally {
    await pool.shutdown();
  }
}

await main();
