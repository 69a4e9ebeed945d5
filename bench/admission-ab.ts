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
// --at-limit <L> (session 20, the admission at the job limit; docs/performance.md "Session 20: the
// evicting admission"): three variants interleaved, each on a database of its own in the same
// FerretDB, A and B filled with L finished jobs so that every admission evicts one:
//   A: at the limit, each claim and each slot write a command of its own (478adfa);
//   B: at the limit, the process's claims and slot writes grouped while one is in flight (session 20);
//   N: below the limit, new slot numbers (the cost the evicting admission is held to).
// After each burst, outside the timing, its jobs are completed and the evicted ones deleted (as
// the service does after the POSTs answered), so the next burst evicts again. Prints the same
// figures plus the claim, slot and job commands per burst. Session 21: an admission's time is when
// the workflow's start can begin (admit answered); `--start-ms S` (default 25, session 20's median
// start) adds a start of S ms and prints when the POST could answer: admit + S; the sleep does not
// load the machine as Temporal's start does. (Session 21 measured a variant L, the slot write beside
// the start, here and in data-scale: no gain beyond noise; not adopted, docs/batch.md.)
// Ports: a private stack on the test ports shifted by SVC_BENCH_PORT_OFFSET (default 930).
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CommandStartedEvent } from 'mongodb';
import { startBenchStack } from './bench-stack.js';
import { groupSample } from './proc-sample.js';
import { Store } from '../core/store.js';
import { batchUnits } from '../core/batch.js';
import { BatchJobStore, isDuplicateKey, newBatchJob, type NewBatchJob } from '../persistence/batch.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const ROUNDS = Number(arg('rounds', '20'));
const BURST = Number(arg('burst', '10'));
const NOISE_DOCS = Number(arg('noise-docs', '100'));
const NOISE_MS = Number(arg('noise-ms', '50'));
const AT_LIMIT = Number(arg('at-limit', '0'));
const START_MS = Number(arg('start-ms', '25'));
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
  if (AT_LIMIT > 0) return atLimit();
  const { stack } = await startBenchStack('bench-admission-ab', Number(process.env.SVC_BENCH_PORT_OFFSET ?? 930));
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

/** --at-limit: A (evicting, one command per claim and slot write), B (evicting, grouped), N (new numbers), interleaved. */
async function atLimit() {
  const { stack } = await startBenchStack('bench-admission-ab', Number(process.env.SVC_BENCH_PORT_OFFSET ?? 930));
  type V = 'A' | 'B' | 'C' | 'N';
  // --variants B,N (session 21): a subset, so that more rounds fit in the same time (B needs N for its ratios).
  const variants = arg('variants', 'A,B,C,N')
    .split(',')
    .filter((v): v is V => ['A', 'B', 'C', 'N'].includes(v));
  const sent: Record<V, Array<{ key: string; n: number }>> = { A: [], B: [], C: [], N: [] };
  const stores = {} as Record<V, Store>;
  const jobsOf = {} as Record<V, BatchJobStore>;
  for (const v of variants) {
    const u = new URL(stack.mongodbUri);
    u.pathname = `/svc_ab20_${v}_${randomBytes(4).toString('hex')}`;
    const store = Store.lazy(u.toString());
    (store.client as unknown as { monitorCommands: boolean }).monitorCommands = true;
    store.client.on('commandStarted', (ev: CommandStartedEvent) => {
      const coll = ev.command[ev.commandName];
      const n = ((ev.command.documents ?? ev.command.updates ?? ev.command.deletes ?? [null]) as unknown[]).length;
      if (['insert', 'update', 'find'].includes(ev.commandName)) sent[v].push({ key: `${coll}.${ev.commandName}`, n });
    });
    stores[v] = store;
    const jobs = new BatchJobStore(store);
    if (v === 'A' || v === 'C') {
      // 478adfa's path: each claim its own insertOne, each slot write its own updateOne (C: the slot writes grouped).
      const claims = store.collection<{ _id: string }>('batch_slot_claims');
      const slots = store.collection<{ _id: string }>('batch_slots');
      Object.assign(jobs as unknown as Record<string, unknown>, {
        claimInserts: {
          insert: async (doc: { _id: string }) => {
            try {
              await claims.insertOne(doc);
              return true;
            } catch (err) {
              if (isDuplicateKey(err)) return false;
              throw err;
            }
          },
        },
      });
      if (v === 'A')
        Object.assign(jobs as unknown as Record<string, unknown>, {
          slotWrites: {
            update: async (id: string, u: Record<string, unknown>) => {
              await slots.updateOne({ _id: id }, u);
            },
          },
        });
    }
    await jobs.moveCursor('next', 0);
    jobsOf[v] = jobs;
  }
  const limitOf = (v: V) => (v === 'N' ? 1_000_000 : AT_LIMIT);
  const finishAll = async (v: V, ids: string[]) => {
    for (const id of ids)
      await jobsOf[v].complete(
        id,
        { completed_items: ITEMS.length, failed_items: 0 },
        batchUnits(ITEMS, 8).length,
        new Date(),
      );
  };
  let noise = true;
  const pad = 'x'.repeat(1000);
  // One file per database on FerretDB/SQLite: the running jobs' commits go to each variant's own.
  const noiseLoop = (async () => {
    while (noise) {
      await Promise.all(
        variants.map((v) =>
          stores[v]
            .collection('ab_noise')
            .insertMany(
              Array.from({ length: NOISE_DOCS }, () => ({ _id: randomBytes(12).toString('hex'), pad })) as never,
            )
            .catch(() => undefined),
        ),
      );
      await new Promise((r) => setTimeout(r, NOISE_MS));
    }
  })();
  const results = Object.fromEntries(
    variants.map((v) => [
      v,
      {
        slowest: [] as number[],
        median: [] as number[],
        post: [] as number[],
        storeCpu: [] as number[],
        cmds: [] as Array<Record<string, number>>,
      },
    ]),
  ) as Record<
    V,
    { slowest: number[]; median: number[]; post: number[]; storeCpu: number[]; cmds: Array<Record<string, number>> }
  >;
  const storeCpu = () => groupSample(stack.ferret?.pid).cpuMs;
  const burst = async (v: V) => {
    const ids = Array.from({ length: BURST }, () => `bj_ab20_${randomBytes(6).toString('hex')}`);
    const t0 = performance.now();
    const out = await Promise.all(
      ids.map(async (id) => {
        const a = await jobsOf[v].admit(newJob(id), ITEMS, limitOf(v));
        const ms = performance.now() - t0;
        // The POST answers once the start (S ms from here) is done.
        await new Promise((r) => setTimeout(r, START_MS));
        return { ms, post: performance.now() - t0, a };
      }),
    );
    return { ids, ms: out.map((o) => o.ms), post: out.map((o) => o.post), drop: out.flatMap((o) => o.a.drop) };
  };
  try {
    // Fill A and B to the limit with finished jobs; warm N.
    for (const v of variants.filter((x) => x !== 'N'))
      for (let k = 0; k < AT_LIMIT; k += BURST) {
        const r = await burst(v);
        await finishAll(v, r.ids);
      }
    if (variants.includes('N')) await burst('N');
    for (let r = 0; r < ROUNDS; r++) {
      // A, B, N in a rotating order: the load falls on each alike.
      for (const v of variants.map((_, i) => variants[(r + i) % variants.length]) as V[]) {
        const from = sent[v].length;
        const cpu0 = storeCpu();
        const b = await burst(v);
        results[v].storeCpu.push(storeCpu() - cpu0);
        results[v].slowest.push(Math.max(...b.ms));
        results[v].median.push(median(b.ms));
        results[v].post.push(Math.max(...b.post));
        const cmds: Record<string, number> = {};
        for (const c of sent[v].slice(from)) cmds[c.key] = (cmds[c.key] ?? 0) + 1;
        results[v].cmds.push(cmds);
        // Outside the timing: what the service does after the POSTs answered and when the jobs finish.
        if (v !== 'N') await jobsOf[v].dropEvicted(b.drop);
        await finishAll(v, b.ids);
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  } finally {
    noise = false;
    await noiseLoop;
    for (const v of variants) {
      await stores[v].db.dropDatabase().catch(() => undefined);
      await stores[v].close().catch(() => undefined);
    }
    await stack.down();
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )} on ${os.cpus().length} CPUs; ${ROUNDS} rounds per variant, interleaved; bursts of ${BURST}; limit ${AT_LIMIT}; noise ${NOISE_DOCS} docs every ${NOISE_MS} ms`,
  );
  const medCmd = (v: V, key: string) => median(results[v].cmds.map((c) => c[key] ?? 0));
  const names: Record<V, string> = {
    A: 'A: at the limit, one command per claim and slot write (478adfa)',
    B: 'B: at the limit, claims and slot writes grouped (session 20)',
    C: 'C: at the limit, claims one by one, slot writes grouped',
    N: 'N: below the limit, new slot numbers',
  };
  console.table(
    variants.map((v) => ({
      variant: names[v],
      'slowest admission of a burst, median ms': r1(median(results[v].slowest)),
      'slowest, range': `${r1(Math.min(...results[v].slowest))}-${r1(Math.max(...results[v].slowest))}`,
      'median admission, median ms': r1(median(results[v].median)),
      [`slowest POST with a ${START_MS} ms start, median ms`]: r1(median(results[v].post)),
      'claim inserts': medCmd(v, 'batch_slot_claims.insert'),
      'slot updates': medCmd(v, 'batch_slots.update'),
      'slot inserts': medCmd(v, 'batch_slots.insert'),
      'job inserts': medCmd(v, 'batch_jobs.insert'),
      'point reads (slots, queue, cursors, claims)': median(
        results[v].cmds.map((c) =>
          Object.entries(c)
            .filter(([k]) => k.endsWith('.find') && k.startsWith('batch_slot'))
            .reduce((a, [, n]) => a + n, 0),
        ),
      ),
      'store CPU ms per burst (noise included), median': r1(median(results[v].storeCpu)),
    })),
  );
  // Paired: per round (each round ran every variant under the same load).
  const ratio = (x: V, y: V) =>
    results[x] && results[y] ? results[x].slowest.map((s, i) => s / (results[y].slowest[i] as number)) : [];
  const pr = (xs: number[]) =>
    xs.length === 0 || xs.some((x) => !Number.isFinite(x))
      ? '-'
      : `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  console.log(
    `slowest admission, paired per round: B/A ${pr(ratio('B', 'A'))}, C/A ${pr(ratio('C', 'A'))}, A/N ${pr(ratio('A', 'N'))}, B/N ${pr(ratio('B', 'N'))}, C/N ${pr(ratio('C', 'N'))}`,
  );
  const postRatio = (x: V, y: V) =>
    results[x] && results[y] ? results[x].post.map((s, i) => s / (results[y].post[i] as number)) : [];
  console.log(`slowest POST with a ${START_MS} ms start, paired per round: B/N ${pr(postRatio('B', 'N'))}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
