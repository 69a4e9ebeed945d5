// Benchmark: POST /verify/batch end to end (HTTP → batch workflow → one activity per item →
// job stored) with 100 math items, one job at a time and 10 jobs at once, next to the same
// 100 items through the engine in-process. Starts its own stack on private ports.
//   npx tsx bench/batch.ts [--runs 5] [--jobs 10] [--mode normal|local]   (SVC_ACTIVITY_MODE)
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startBenchStack } from './bench-stack.js';
import { mathBatchOutcome } from '../engines/math.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const RUNS = Number(arg('runs', '5'));
const JOBS = Number(arg('jobs', '10'));
const MODE = arg('mode', 'normal');

const MIX = ['(x+1)^2 = x^2 + 2*x + 1', '(a+b)*(a-b) = a^2 - b^2', '(x+1)^2 = x^2 + 1', '2^10 + 3*7', 'x/2 + x/2 = x', 'sqrt(16) * 3'];
const ITEMS = Array.from({ length: 100 }, (_, i) => ({ query: MIX[i % MIX.length] as string, type: 'math' }));

const round = (n: number) => Math.round(n * 10) / 10;

async function main() {
  const { stack, base, key } = await startBenchStack('bench-batch', 21_000, { SVC_BATCH_WAIT_SECONDS: '60', SVC_ACTIVITY_MODE: MODE });
  try {
    const batch = async (items = ITEMS) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/verify/batch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ items }) });
      const body = await res.json();
      if (res.status !== 200 || body.completed_items !== 100) throw new Error(`status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      const itemMs = (body.items as Array<{ latency_ms: number }>).map((i) => i.latency_ms);
      return { ms: performance.now() - t0, itemMs };
    };

    const rows: Array<Record<string, unknown>> = [];
    {
      const t0 = performance.now();
      for (const item of ITEMS) mathBatchOutcome(item.query);
      rows.push({ label: '100 math items, engine in-process (no proofs, no signing)', ms: round(performance.now() - t0) });
    }
    await batch(); // warm-up: workflow bundle caches, connections, JIT
    const single: number[] = [];
    let itemLatencies: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await batch();
      single.push(r.ms);
      itemLatencies = itemLatencies.concat(r.itemMs);
    }
    single.sort((a, b) => a - b);
    itemLatencies.sort((a, b) => a - b);
    rows.push({
      label: `1 job x 100 math items, HTTP end to end (${RUNS} runs)`,
      ms: round(single[Math.floor(single.length / 2)] as number),
      min_ms: round(single[0] as number),
      max_ms: round(single[single.length - 1] as number),
      items_per_s: round(100 / ((single[Math.floor(single.length / 2)] as number) / 1000)),
    });
    rows.push({
      label: 'per-item activity latency_ms (inside the activity)',
      ms: round(itemLatencies[Math.floor(itemLatencies.length / 2)] as number),
      min_ms: round(itemLatencies[0] as number),
      max_ms: round(itemLatencies[Math.floor(itemLatencies.length * 0.99)] as number),
    });
    {
      // Bare expressions: no proof to retain, nothing to sign: the orchestration floor.
      const bare = Array.from({ length: 100 }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push((await batch(bare)).ms);
      times.sort((a, b) => a - b);
      rows.push({
        label: `1 job x 100 bare-expression items (no proof, no signing; ${RUNS} runs)`,
        ms: round(times[Math.floor(times.length / 2)] as number),
        min_ms: round(times[0] as number),
        max_ms: round(times[times.length - 1] as number),
        items_per_s: round(100 / ((times[Math.floor(times.length / 2)] as number) / 1000)),
      });
    }
    let concurrentRate = 0;
    {
      const t0 = performance.now();
      const results = await Promise.all(Array.from({ length: JOBS }, () => batch()));
      const wall = performance.now() - t0;
      const per = results.map((r) => r.ms).sort((a, b) => a - b);
      rows.push({
        label: `${JOBS} jobs x 100 math items at once`,
        ms: round(wall),
        min_ms: round(per[0] as number),
        max_ms: round(per[per.length - 1] as number),
        items_per_s: round((JOBS * 100) / (wall / 1000)),
      });
      concurrentRate = (JOBS * 100) / (wall / 1000);
    }
    console.log(`activity mode: ${MODE}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
    console.log('columns: ms = median (single job) or wall time (concurrent jobs); min/max over jobs; max_ms of item latency = p99');
    console.table(rows);
    const p50 = single[Math.floor(single.length / 2)] as number;
    console.log(`100-item batch p50 ${round(p50)} ms (target ≤ 1500 ms): ${p50 <= 1500 ? 'met' : 'NOT met'}`);
    console.log(`${JOBS} concurrent 100-item batches: ${round(concurrentRate)} items/s (target ≥ 150 items/s): ${concurrentRate >= 150 ? 'met' : 'NOT met'}`);
  } finally {
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
