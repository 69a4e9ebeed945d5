// Sandbox benchmark: cold-run latency of a trivial Python run (a fresh container each time,
// image already local) and throughput with 4 slots. Needs the image: run infra/sandbox/setup.sh.
//
//   npx tsx bench/sandbox.ts [sequentialRuns=20] [throughputRuns=40]

import { SlotPool } from '../activities/sandbox/slots.js';
import { runPython, sandboxAvailable, sandboxImage, type SandboxResult } from '../activities/sandbox/runner.js';

const sequentialRuns = Number(process.argv[2] ?? 20);
const throughputRuns = Number(process.argv[3] ?? 40);
const SLOTS = 4;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function summary(label: string, samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  return `${label}: p50 ${percentile(s, 50).toFixed(0)} ms, p95 ${percentile(s, 95).toFixed(0)} ms, min ${s[0].toFixed(0)} ms, max ${s[s.length - 1].toFixed(0)} ms (n=${s.length})`;
}

function check(r: SandboxResult, expected: string): void {
  if (r.exitCode !== 0 || r.stdout !== expected) {
    throw new Error(`unexpected result: ${JSON.stringify({ ...r, stderr: r.stderr.slice(0, 500) })}`);
  }
}

async function timed(code: string, expected: string, slots: SlotPool): Promise<{ wall: number; inside: number }> {
  const t0 = performance.now();
  const r = await runPython(code, { slots, timeoutMs: 30_000 });
  const wall = performance.now() - t0;
  check(r, expected);
  return { wall, inside: r.durationMs };
}

async function main(): Promise<void> {
  if (!(await sandboxAvailable())) {
    console.error(`sandbox unavailable (image ${sandboxImage()}): run infra/sandbox/setup.sh`);
    process.exit(1);
  }
  console.log(`image ${sandboxImage()}`);
  const one = new SlotPool({ maxConcurrent: 1, acquireTimeoutMs: 60_000 });

  await timed('print(1)', '1\n', one); // warm the page cache and the client's socket
  const trivial: number[] = [];
  const inside: number[] = [];
  for (let i = 0; i < sequentialRuns; i++) {
    const t = await timed('print(1)', '1\n', one);
    trivial.push(t.wall);
    inside.push(t.inside);
  }
  console.log(summary('cold run, print(1), end to end', trivial));
  console.log(summary('cold run, print(1), container start to exit', inside));

  const pandas: number[] = [];
  const pandasRuns = Math.max(3, Math.floor(sequentialRuns / 4));
  for (let i = 0; i < pandasRuns; i++) {
    pandas.push((await timed('import pandas, scipy.stats\nprint(1)', '1\n', one)).wall);
  }
  console.log(summary('cold run, import pandas + scipy.stats, end to end', pandas));

  const pool = new SlotPool({ maxConcurrent: SLOTS, acquireTimeoutMs: 600_000 });
  const t0 = performance.now();
  const all = await Promise.all(Array.from({ length: throughputRuns }, (_, i) => timed(`print(${i})`, `${i}\n`, pool)));
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `throughput, ${SLOTS} slots, ${throughputRuns} trivial runs: ${(throughputRuns / seconds).toFixed(2)} runs/s ` +
      `(${seconds.toFixed(1)} s total)`,
  );
  console.log(
    summary(
      `  latency per run incl. slot wait`,
      all.map((t) => t.wall),
    ),
  );
}

await main();
