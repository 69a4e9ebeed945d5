// Benchmark: POST /verify/batch end to end (HTTP → batch workflow → math units → job stored)
// with 100 math items, one job at a time and 10 jobs at once, next to the same 100 items
// through the engine in-process. Starts its own stack on private ports (SVC_BENCH_PORT_OFFSET).
// With --peer (or QWED_URL and QWED_API_KEY set, as ../shared/peer/setup-qwed.sh prints them)
// the same rows run against the reference in the same run, one after the other, and the
// ratios are printed (issue 22's goals). --profile prints where one job's time goes (its
// workflow history: task and activity events, offsets from the start) and the API's share.
// --seed N (session 11, issue 22: realistic state) first verifies N distinct math items on each
// target through its own API (POST /verify/batch, 100-item jobs, 4 at a time: proofs,
// attestations, audit entries and finished jobs, as real use leaves them), prints how long each
// took, then measures both on their seeded stores.
//   npx tsx bench/batch.ts [--runs 5] [--jobs 10] [--mode auto|normal|local] [--peer URL KEY] [--profile]
//        [--seed N]
import os from 'node:os';
import { execSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Connection, Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { startBenchStack } from './bench-stack.js';
import { mathBatchOutcome } from '../engines/math.js';
import { MATH_ITEM_MIX } from './math-items.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const RUNS = Number(arg('runs', '5'));
const JOBS = Number(arg('jobs', '10'));
const MODE = arg('mode', 'auto');
const PROFILE = args.includes('--profile');
const SEED = Number(arg('seed', '0'));
const peerAt = args.indexOf('--peer');
const PEER =
  peerAt >= 0 && args[peerAt + 2]
    ? { url: args[peerAt + 1] as string, key: args[peerAt + 2] as string }
    : process.env.QWED_URL && process.env.QWED_API_KEY
      ? { url: process.env.QWED_URL, key: process.env.QWED_API_KEY }
      : null;

const MIX = MATH_ITEM_MIX;
const ITEMS = Array.from({ length: 100 }, (_, i) => ({ query: MIX[i % MIX.length] as string, type: 'math' }));

const round = (n: number) => Math.round(n * 10) / 10;

interface Figures {
  rows: Array<Record<string, unknown>>;
  singleMs: number;
  singleMin: number;
  /** Median of the 100-bare-expression job (the orchestration floor: a job's fixed cost). */
  bareMs: number;
  concurrentRate: number;
  concurrentWall: number;
}

/** The rows for one target (our stack or the reference): same items, same order. */
async function measure(base: string, key: string, who: string): Promise<Figures> {
  const batch = async (items = ITEMS) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ items }),
    });
    const body = await res.json();
    if (res.status !== 200 || body.completed_items !== 100)
      throw new Error(`${who}: status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    const itemMs = (body.items as Array<{ latency_ms: number }>).map((i) => i.latency_ms);
    return { ms: performance.now() - t0, itemMs, workflowId: body.workflow_id as string | undefined };
  };
  const rows: Array<Record<string, unknown>> = [];
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
  const med = single[Math.floor(single.length / 2)] as number;
  rows.push({
    label: `${who}: 1 job x 100 math items, HTTP end to end (${RUNS} runs)`,
    ms: round(med),
    min_ms: round(single[0] as number),
    max_ms: round(single[single.length - 1] as number),
    items_per_s: round(100 / (med / 1000)),
  });
  rows.push({
    label: `${who}: per-item latency_ms (inside the activity)`,
    ms: round(itemLatencies[Math.floor(itemLatencies.length / 2)] as number),
    min_ms: round(itemLatencies[0] as number),
    max_ms: round(itemLatencies[Math.floor(itemLatencies.length * 0.99)] as number),
  });
  let bareMs = NaN;
  {
    // Bare expressions: no proof to retain, nothing to sign: the orchestration floor.
    const bare = Array.from({ length: 100 }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push((await batch(bare)).ms);
    times.sort((a, b) => a - b);
    const m = times[Math.floor(times.length / 2)] as number;
    bareMs = m;
    rows.push({
      label: `${who}: 1 job x 100 bare expressions (${RUNS} runs)`,
      ms: round(m),
      min_ms: round(times[0] as number),
      max_ms: round(times[times.length - 1] as number),
      items_per_s: round(100 / (m / 1000)),
    });
  }
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: JOBS }, () => batch()));
  const wall = performance.now() - t0;
  const per = results.map((r) => r.ms).sort((a, b) => a - b);
  rows.push({
    label: `${who}: ${JOBS} jobs x 100 math items at once`,
    ms: round(wall),
    min_ms: round(per[0] as number),
    max_ms: round(per[per.length - 1] as number),
    items_per_s: round((JOBS * 100) / (wall / 1000)),
  });
  return {
    rows,
    singleMs: med,
    singleMin: single[0] as number,
    bareMs,
    concurrentRate: (JOBS * 100) / (wall / 1000),
    concurrentWall: wall,
  };
}

/** One 100-bare-expression job, submit to completed (POST waits), in ms. */
async function bareJob(base: string, key: string): Promise<number> {
  const items = Array.from({ length: 100 }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));
  const t0 = performance.now();
  const res = await fetch(`${base}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ items }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.completed_items !== 100)
    throw new Error(`bare job: status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - t0;
}

/** The bare job on both targets, alternating, `n` times each: medians and their ratio. */
async function interleavedBare(
  ours: [string, string],
  ref: [string, string],
  n: number,
): Promise<{ rows: Array<Record<string, unknown>>; ratio: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    a.push(await bareJob(...ours));
    b.push(await bareJob(...ref));
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  const row = (who: string, xs: number[]) => ({
    label: `${who}: 1 job x 100 bare expressions, interleaved with the other (${n} runs)`,
    ms: round(med(xs)),
    min_ms: round(Math.min(...xs)),
    max_ms: round(Math.max(...xs)),
    items_per_s: round(100 / (med(xs) / 1000)),
  });
  const ratio = med(a) / med(b);
  console.log(
    `session 12, bare job interleaved: svc ${round(med(a))} ms vs reference ${round(med(b))} ms (ratio ${ratio.toFixed(2)}; goal ≤ 2.00): ${ratio <= 2 ? 'met' : 'NOT met'}`,
  );
  return { rows: [row('svc', a), row('reference', b)], ratio };
}

/**
 * Verifies `n` distinct math items on a target through its own API (100-item jobs, 4 at a
 * time), so that both stores hold what real use leaves behind. Items are distinct per job
 * (salted identities and a few other shapes), never the measured ITEMS.
 */
async function seed(base: string, key: string, who: string, n: number): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  let next = 0;
  let failed = 0;
  const jobs = Math.ceil(n / 100);
  const one = async (j: number) => {
    const size = Math.min(100, n - j * 100);
    const items = Array.from({ length: size }, (_, i) => {
      const k = 1_000_000 + j * 100 + i;
      return {
        type: 'math',
        query:
          i % 4 === 0
            ? `(s+${k})^2 = s^2 + ${2 * k}*s + ${k * k}`
            : i % 4 === 1
              ? `${k} * 2 = ${k * 2}`
              : i % 4 === 2
                ? `(a+${k})*(a-${k}) = a^2 - ${k * k}`
                : `sin(${k})^2 + cos(${k})^2 = 1`,
      };
    });
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ items }),
      });
      const body = (await res.json().catch(() => ({}))) as { failed_items?: number };
      if (res.status === 200) {
        failed += body.failed_items ?? 0;
        return;
      }
      if (attempt >= 20)
        throw new Error(`${who}: seeding: status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 1000)); // 429/503: the target is busy, wait
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(4, jobs) }, async () => {
      while (next < jobs) await one(next++);
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.error(`[${who}] seeded ${n} verifications in ${s.toFixed(1)} s`);
  return {
    label: `${who}: seeded ${n} verifications (${jobs} jobs through its own API, 4 at a time)`,
    ms: round(s * 1000),
    items_per_s: round(n / s),
    failed_items: failed,
  };
}

/**
 * Where one job's time goes: its workflow history and the stack's own log lines about it (the
 * math unit's and the finish step's phase times, the API's admission, start, wait and read),
 * each at its offset from the POST (the processes share this machine's clock).
 */
async function profile(
  base: string,
  key: string,
  temporalAddress: string,
  logDir: string,
  items: Array<{ query: string; type: string }>,
  label: string,
): Promise<void> {
  const t0 = Date.now();
  const res = await fetch(`${base}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ items }),
  });
  const body = await res.json();
  const answered = Date.now() - t0;
  const lines: Array<[number, string]> = [];
  const conn = await Connection.connect({ address: temporalAddress });
  try {
    const history = await new Client({ connection: conn }).workflow.getHandle(body.workflow_id).fetchHistory();
    for (const e of history.events ?? []) {
      const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6);
      // The event's name (a local activity's completion is a MARKER_RECORDED event).
      const type = String(proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? e.eventType).replace(
        'EVENT_TYPE_',
        '',
      );
      lines.push([at - t0, `history  ${type}`]);
    }
  } finally {
    await conn.close();
  }
  await new Promise((r) => setTimeout(r, 200)); // the log lines reach their files
  const logged = execSync(`grep -h -e "${body.job_id}" -e "${body.workflow_id}" ${logDir}/*.log || true`, {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  for (const line of logged.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const { t, msg, level: _l, component: _c, job_id: _j, workflow_id: _w, pid: _p, ...rest } = JSON.parse(line);
      lines.push([Date.parse(t) - t0, `log      ${msg} ${JSON.stringify(rest)}`]);
    } catch {
      // not a JSON line
    }
  }
  lines.sort((a, b) => a[0] - b[0]);
  console.log(`profile of ${label} (POST answered after ${answered} ms; offsets from the POST):`);
  console.log(lines.map(([ms, what]) => `${String(ms).padStart(6)} ms  ${what}`).join('\n'));
}

async function main() {
  const { stack, base, key } = await startBenchStack('bench-batch', 900, {
    SVC_BATCH_WAIT_SECONDS: '60',
    SVC_ACTIVITY_MODE: MODE,
    ...(PROFILE ? { SVC_LOG_LEVEL: 'debug' } : {}),
  });
  try {
    const rows: Array<Record<string, unknown>> = [];
    {
      const t0 = performance.now();
      for (const item of ITEMS) mathBatchOutcome(item.query);
      rows.push({
        label: '100 math items, engine in-process (no proofs, no signing)',
        ms: round(performance.now() - t0),
      });
    }
    if (SEED > 0) {
      // Both targets seeded before either is measured, so that neither runs beside the other's seeding.
      rows.push(await seed(base, key, 'svc', SEED));
      if (PEER) rows.push(await seed(PEER.url, PEER.key, 'reference', SEED));
    }
    const ours = await measure(base, key, 'svc');
    rows.push(...ours.rows);
    if (PROFILE) {
      const logDir = `${stack.dataDir}/logs`;
      const bare = Array.from({ length: 100 }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));
      await profile(base, key, stack.env.TEMPORAL_ADDRESS as string, logDir, ITEMS, 'one 100-item job');
      for (let i = 0; i < 3; i++)
        await profile(base, key, stack.env.TEMPORAL_ADDRESS as string, logDir, bare, 'one 100-bare-expression job');
    }
    const peer = PEER ? await measure(PEER.url, PEER.key, 'reference') : null;
    if (peer) rows.push(...peer.rows);
    // Session 12: the bare-expression job (a job's fixed cost) on both, interleaved (svc,
    // reference, svc, ...), so that a load that changes during the run hits both alike.
    const inter = PEER ? await interleavedBare([base, key], [PEER.url, PEER.key], 2 * RUNS) : null;
    if (inter) rows.push(...inter.rows);
    console.log(
      `activity mode: ${MODE}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    console.log(
      'columns: ms = median (single job) or wall time (concurrent jobs); min/max over jobs; max_ms of item latency = p99',
    );
    console.log(
      SEED > 0
        ? `state: both stores seeded with ${SEED} verifications through their own APIs before measuring`
        : 'state: fresh stores (--seed N for realistic state)',
    );
    console.table(rows);
    console.log(
      `100-item batch p50 ${round(ours.singleMs)} ms (target ≤ 1500 ms): ${ours.singleMs <= 1500 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `${JOBS} concurrent 100-item batches: ${round(ours.concurrentRate)} items/s (target ≥ 150 items/s): ${ours.concurrentRate >= 150 ? 'met' : 'NOT met'}`,
    );
    if (peer) {
      console.log(
        `issue 22, one job: svc ${round(ours.singleMs)} ms vs reference ${round(peer.singleMs)} ms (ratio ${(ours.singleMs / peer.singleMs).toFixed(2)}; goal ≤ 1.00): ${ours.singleMs <= peer.singleMs ? 'met' : 'NOT met'}`,
      );
      console.log(
        `session 12, one job of 100 bare expressions (a job's fixed cost): svc ${round(ours.bareMs)} ms vs reference ${round(peer.bareMs)} ms (ratio ${(ours.bareMs / peer.bareMs).toFixed(2)}; goal ≤ 2.00): ${ours.bareMs <= 2 * peer.bareMs ? 'met' : 'NOT met'}`,
      );
      console.log(
        `issue 22, ${JOBS} jobs at once: svc ${round(ours.concurrentRate)} items/s vs reference ${round(peer.concurrentRate)} items/s (ratio ${(ours.concurrentRate / peer.concurrentRate).toFixed(2)}; goal ≥ 1.50): ${ours.concurrentRate >= 1.5 * peer.concurrentRate ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
