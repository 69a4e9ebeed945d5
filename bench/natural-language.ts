// Benchmark: POST /verify/natural_language with the `local` provider (deterministic translation
// + math evaluation + attestation + audit) over HTTP, through Temporal, next to the translator
// and the injection screen in-process. Starts its own stack on bench ports.
//   npx tsx bench/natural-language.ts [--requests 200]
import { performance } from 'node:perf_hooks';
import { percentile, startBenchStack } from './bench-stack.js';
import { translateArithmeticLocally } from '../engines/nl/local-translator.js';
import { screenText } from '../engines/nl/injection-screen.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const REQUESTS = Number(arg('requests', '200'));

const MIX = [
  'What is 15% of 200?',
  'What is the total cost of 3 notebooks at $4.50 each?',
  'Is 2 plus 2 equal to 5?',
  'What is the square root of 144?',
  'What is 200 increased by 10%?',
  'What is the sum of 3 and 4?',
  'What is 2 to the power of 10?',
  'Who wrote Hamlet?',
];

function summary(label: string, samples: number[], wallMs: number) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    label,
    n: s.length,
    p50: +percentile(s, 50).toFixed(3),
    p95: +percentile(s, 95).toFixed(3),
    p99: +percentile(s, 99).toFixed(3),
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
  const rows = [];
  {
    const lat: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS * 10; i++) {
      const q = MIX[i % MIX.length] as string;
      const s = performance.now();
      screenText(q);
      translateArithmeticLocally(q);
      lat.push(performance.now() - s);
    }
    rows.push(summary('screen + local translation in-process', lat, performance.now() - t0));
  }
  const { stack, base, key } = await startBenchStack('bench-nl', 970);
  try {
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    for (const c of [1, 4, 16]) {
      const { lat, wall } = await runConcurrent(REQUESTS, c, async (i) => {
        const res = await fetch(`${base}/verify/natural_language`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ query: MIX[i % MIX.length] }),
        });
        if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
        else {
          const body = (await res.json()) as { status: string };
          statuses.set(body.status, (statuses.get(body.status) ?? 0) + 1);
        }
      });
      rows.push(summary(`HTTP /verify/natural_language (local) c=${c}`, lat, wall));
    }
    console.log(
      `requests per HTTP row: ${REQUESTS}, failed HTTP requests: ${failures.length}${failures.length ? ` (first: ${failures[0]})` : ''}`,
    );
    console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.table(rows);
  } finally {
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
