// Benchmark (issue 22, session 18: the POST stall; docs/performance.md "Session 18: the POST
// stall"): the store part of a burst of admissions, A/B interleaved in one run on one store.
//   A: each admission's request and job documents as their own insert (before session 18);
//   B: the admissions of the process grouped while one is in flight (persistence/insert-coalescer.ts).
// Each round admits --burst (10) jobs at once with persistence/batch.ts admit (new slot numbers, as
// below the job limit), while a background writer commits --noise-docs (100) documents of ~1 KB
// every --noise-ms (50) into a scratch collection (a running job's proofs and audit entries hold
// SQLite's one writer the same way). Rounds alternate A, B, A, B, … so load from elsewhere falls on
// both. Prints, per variant, the median and range over rounds of each burst's slowest admission
// (its p95 for 10) and median admission, and the insert commands per burst.
//   npx tsx bench/admission-ab.ts [--rounds 20] [--burst 10] [--noise-docs 100] [--noise-ms 50]
// Ports: a private stack on the test ports shifted by SVC_BENCH_PORT_OFFSET (default 23000).
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CommandStartedEvent } from 'mongodb';
import { startBenchStack } from './bench-stack.js';
import { groupSample } from './proc-sample.js';
import { Store } from '../core/store.js';
import { batchUnits } from '../core/batch.js';
import { BatchJobStore, newBatchJob, type NewBatchJob } from '../persistence/batch.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const ROUNDS = Number(arg('rounds', '20'));
const BURST = Number(arg('burst', '10'));
const NOISE_DOCS = Number(arg('noise-docs', '100'));
const NOISE_MS = Number(arg('noise-ms', '50'));
const ITEMS = Array.from({ length: 100 }, (_, i) => ({
  query: `(x+${i})^2 = x^2 + ${2 * i}*x + ${i * i}`,
  type: 'math' as const,
}));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const r1 = (n: number) => Math.round(n * 10) / 10;

function newJob(id: string): NewBatchJob {
  return newBatchJob({
    jobId: id,
    orgId: 'org_ab',
    workflowId: `batch-org_ab-${id}`,
    totalItems: ITEMS.length,
    units: batchUnits(ITEMS, 8).length,
    createdAt: new Date(),
    submittedBy: { user_id: null, key_id: 'k_ab' },
  });
}

async function main() {
  const { stack } = await startBenchStack('bench-admission-ab', Number(process.env.SVC_BENCH_PORT_OFFSET ?? 23_000));
  const u = new URL(stack.mongodbUri);
  u.pathname = `/svc_ab_${randomBytes(4).toString('hex')}`;
  const store = Store.lazy(u.toString());
  const inserts: Array<{ coll: string; t: number }> = [];
  (store.client as unknown as { monitorCommands: boolean }).monitorCommands = true;
  store.client.on('commandStarted', (ev: CommandStartedEvent) => {
    if (ev.commandName === 'insert') inserts.push({ coll: String(ev.command.insert), t: performance.now() });
  });
  // A: one insert per document, as before session 18 (the private method replaced on this instance only).
  const a = new BatchJobStore(store);
  (a as unknown as { admissionInsert: (name: string, doc: { _id: string }) => Promise<void> }).admissionInsert = async (
    name,
    doc,
  ) => {
    await store.collection<{ _id: string }>(name).insertOne(doc);
  };
  const b = new BatchJobStore(store);
  await b.moveCursor('next', 0);
  // The background writer: a running job's big commits.
  let noise = true;
  const pad = 'x'.repeat(1000);
  const noiseLoop = (async () => {
    while (noise) {
      await store
        .collection('ab_noise')
        .insertMany(Array.from({ length: NOISE_DOCS }, () => ({ _id: randomBytes(12).toString('hex'), pad })) as never)
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, NOISE_MS));
    }
  })();
  const results: Record<'A' | 'B', { slowest: number[]; median: number[]; commands: number[]; storeCpu: number[] }> = {
    A: { slowest: [], median: [], commands: [], storeCpu: [] },
    B: { slowest: [], median: [], commands: [], storeCpu: [] },
  };
  // The store's CPU during a burst (the background writer's included, the same for both variants).
  const storeCpu = () => groupSample(stack.ferret?.pid).cpuMs;
  try {
    // Warm-up (connections, JIT), excluded.
    for (const jobs of [a, b, a, b])
      await Promise.all(
        Array.from({ length: BURST }, () =>
          jobs.admit(newJob(`bj_w_${randomBytes(6).toString('hex')}`), ITEMS, 1_000_000),
        ),
      );
    for (let r = 0; r < 2 * ROUNDS; r++) {
      const v = r % 2 === 0 ? 'A' : 'B';
      const jobs = v === 'A' ? a : b;
      const from = inserts.length;
      const cpu0 = storeCpu();
      const t0 = performance.now();
      const ms = await Promise.all(
        Array.from({ length: BURST }, async () => {
          await jobs.admit(newJob(`bj_ab_${randomBytes(6).toString('hex')}`), ITEMS, 1_000_000);
          return performance.now() - t0;
        }),
      );
      results[v].storeCpu.push(storeCpu() - cpu0);
      results[v].slowest.push(Math.max(...ms));
      results[v].median.push(median(ms));
      results[v].commands.push(
        inserts.slice(from).filter((c) => c.coll === 'batch_requests' || c.coll === 'batch_jobs').length,
      );
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    noise = false;
    await noiseLoop;
    await store.db.dropDatabase().catch(() => undefined);
    await store.close().catch(() => undefined);
    await stack.down();
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )} on ${os.cpus().length} CPUs; ${ROUNDS} rounds per variant, interleaved; bursts of ${BURST}; noise ${NOISE_DOCS} docs every ${NOISE_MS} ms`,
  );
  const row = (k: 'A' | 'B') => ({
    variant: k === 'A' ? 'A: one insert per document' : 'B: grouped (session 18)',
    'slowest admission of a burst, median ms': r1(median(results[k].slowest)),
    'slowest, range': `${r1(Math.min(...results[k].slowest))}-${r1(Math.max(...results[k].slowest))}`,
    'median admission, median ms': r1(median(results[k].median)),
    'request + job insert commands per burst': median(results[k].commands),
    'store CPU ms per burst (noise included), median': r1(median(results[k].storeCpu)),
  });
  console.table([row('A'), row('B')]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
