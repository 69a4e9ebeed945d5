// Benchmark: /verify/math over HTTP (through Temporal) at several concurrency levels, next to
// the same engine called in-process and an empty workflow round trip, so the workflow
// engine's overhead is visible as a ratio. Starts its own stack on bench ports.
//   npx tsx bench/math.ts [--requests 300] [--mode normal|local]
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { startBenchStack } from './bench-stack.js';
import { verifyMath } from '../engines/math.js';
import { workflowInputAuthClientInterceptor, workflowInputKey } from '../core/workflow-input-auth.js';
import { temporalDataConverter } from '../core/payload-codec.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const REQUESTS = Number(arg('requests', '300'));
const MODE = arg('mode', 'normal');

const MIX = [
  '(x+1)^2 = x^2 + 2*x + 1',
  '2^10 + 3*7',
  '0.1 + 0.2 = 0.3',
  '(a+b)*(a-b) = a^2 - b^2',
  'sqrt(16) * 3',
  'x/2 + x/2 = x',
  '(x+1)^2 = x^2 + 1',
  '8/2(2+2)',
];

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
function summary(label: string, samples: number[], wallMs: number) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    label,
    n: s.length,
    p50: +pct(s, 50).toFixed(2),
    p95: +pct(s, 95).toFixed(2),
    p99: +pct(s, 99).toFixed(2),
    rps: +((s.length / wallMs) * 1000).toFixed(1),
  };
}

async function runConcurrent(n: number, concurrency: number, fn: (i: number) => Promise<void>) {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await fn(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  return { lat, wall: performance.now() - t0 };
}

async function main() {
  const { stack, base, key } = await startBenchStack(`bench-math-${MODE}`, 950, { SVC_ACTIVITY_MODE: MODE });
  try {
    const rows = [];
    // In-process engine.
    {
      const lat: number[] = [];
      const t0 = performance.now();
      for (let i = 0; i < REQUESTS * 3; i++) {
        const s = performance.now();
        verifyMath({ expression: MIX[i % MIX.length] as string });
        lat.push(performance.now() - s);
      }
      rows.push(summary('engine in-process', lat, performance.now() - t0));
    }
    // Empty workflow round trip.
    const conn = await Connection.connect({ address: stack.urls.temporal_grpc });
    // Signed as the API signs its starts: the workers run no other input (core/workflow-input-auth.ts).
    const client = new Client({
      connection: conn,
      dataConverter: temporalDataConverter(stack.env),
      interceptors: { workflow: [workflowInputAuthClientInterceptor(workflowInputKey(stack.env))] },
    });
    for (const c of [1, 8]) {
      const { lat, wall } = await runConcurrent(REQUESTS, c, async (i) => {
        await client.workflow.execute('noopWorkflow', {
          taskQueue: 'svc-verification',
          workflowId: `bench-noop-${Date.now()}-${i}-${c}`,
        });
      });
      rows.push(summary(`empty workflow c=${c}`, lat, wall));
    }
    await conn.close();
    // HTTP end to end.
    const failures: string[] = [];
    for (const c of [1, 4, 16]) {
      const { lat, wall } = await runConcurrent(REQUESTS, c, async (i) => {
        const res = await fetch(`${base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ expression: MIX[i % MIX.length] }),
        });
        if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
        else await res.arrayBuffer();
      });
      rows.push(summary(`HTTP /verify/math c=${c}`, lat, wall));
    }
    console.log(
      `activity mode: ${MODE}, requests per row: ${REQUESTS}, failed HTTP requests: ${failures.length}${failures.length ? ` (first: ${failures[0]})` : ''}`,
    );
    console.table(rows);
    const engineP50 = rows[0]!.p50;
    const httpP50 = rows.find((r) => r.label === 'HTTP /verify/math c=1')!.p50;
    const noopP50 = rows.find((r) => r.label === 'empty workflow c=1')!.p50;
    console.log(
      `overhead: HTTP p50 / engine p50 = ${(httpP50 / Math.max(engineP50, 0.001)).toFixed(0)}x; empty workflow p50 = ${noopP50} ms (${((noopP50 / httpP50) * 100).toFixed(0)}% of the HTTP p50)`,
    );
  } finally {
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
