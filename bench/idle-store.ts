// What the store does when nobody asks it anything (issue 22, session 24; docs/store-access.md §19):
// two stacks side by side, each idle (or serving a steady trickle of /verify/math), and the
// FerretDB process's CPU (/proc/<pid>/stat) and read syscalls and bytes (/proc/<pid>/io) per
// sampling window: every periodic task of the API and worker shows up in its own window.
//
// Each side is a stack of a code root (default this checkout; `--a-root /work/wt-base24` runs side A
// on another checkout's code, for an A/B of the code on the same state) and a state: `seeded` (the
// shapes the background tasks read, written before the API restarts, as a store filled by earlier
// processes: --slots finished job slots with their jobs and their claims, data-scale's seed form,
// and --audit-claims group-commit claims) or `empty`. The API (and its in-process worker) is
// restarted after the seed, so every process timer starts at the same moment on both sides.
//   npx tsx bench/idle-store.ts [--a seeded|empty] [--b seeded|empty] [--a-root DIR] [--b-root DIR]
//        [--minutes 11] [--window-seconds 10] [--slots 1000] [--audit-claims 2000] [--trickle-rps 0]
// Ports: SVC_BENCH_PORT_OFFSET (default 450) for side A, +25 for side B.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { groupSample } from './proc-sample.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
if (args.includes('--help')) {
  console.log(
    [
      'npx tsx bench/idle-store.ts [--a seeded|empty] [--b seeded|empty] [--a-root DIR] [--b-root DIR]',
      '     [--minutes 11] [--window-seconds 10] [--slots 1000] [--audit-claims 2000] [--trickle-rps 0]',
      'Two stacks side by side, idle (or a steady /verify/math trickle), the store process sampled per window.',
      'Default: A = seeded, B = empty, both this checkout. An A/B of code: --a-root /work/wt-base24 --a seeded --b seeded.',
      'Ports: SVC_BENCH_PORT_OFFSET (default 450) for A, +25 for B.',
    ].join('\n'),
  );
  process.exit(0);
}
const HERE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MINUTES = Number(arg('minutes', '11'));
const WINDOW_S = Number(arg('window-seconds', '10'));
const SLOTS = Number(arg('slots', '1000'));
const AUDIT_CLAIMS = Number(arg('audit-claims', '2000'));
const TRICKLE_RPS = Number(arg('trickle-rps', '0'));
const OFFSET = Number(process.env.SVC_BENCH_PORT_OFFSET ?? 450);
const DAY_MS = 86_400_000;

interface SideSpec {
  name: 'A' | 'B';
  root: string;
  state: 'seeded' | 'empty';
  offset: number;
}
const sides: SideSpec[] = [
  { name: 'A', root: path.resolve(arg('a-root', HERE)), state: arg('a', 'seeded') as 'seeded', offset: OFFSET },
  { name: 'B', root: path.resolve(arg('b-root', HERE)), state: arg('b', 'empty') as 'empty', offset: OFFSET + 25 },
];

interface Stackish {
  ferret: { pid: number | undefined } | null;
  api: { pid: number | undefined; stop(): Promise<void>; start(): Promise<void> };
  workers: Array<{ pid: number | undefined }>;
  mongodbUri: string;
  down(): Promise<void>;
}

function storeIo(pid: number | undefined) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const get = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(io)?.[1] ?? NaN);
    return { syscr: get('syscr'), rchar: get('rchar'), wchar: get('wchar') };
  } catch {
    return { syscr: NaN, rchar: NaN, wchar: NaN };
  }
}

/** The shapes the background tasks read, in the stored forms of the service (data-scale's seed of jobs; claims of group commits). */
async function seed(uri: string, orgId: string): Promise<void> {
  const mc = new MongoClient(uri);
  await mc.connect();
  const db = mc.db();
  const old = new Date(Date.now() - 3 * DAY_MS);
  for (let from = 0; from < SLOTS; from += 500) {
    const n = Math.min(500, SLOTS - from);
    const ids = Array.from({ length: n }, (_, i) => from + i);
    const job = (s: number) => `bj_idle_${s}`;
    await db.collection('batch_jobs').insertMany(
      ids.map((s) => ({
        _id: job(s),
        org_id: orgId,
        slot: s,
        status: 'completed',
        workflow_id: `batch-${orgId}-${job(s)}`,
        total_items: 100,
        completed_items: 100,
        failed_items: 0,
        progress_percent: 100,
        units: 13,
        created_at: old,
        completed_at: old,
        started: true,
        submitted_by: { user_id: null, key_id: null },
      })) as never[],
    );
    // data-scale's seed: each job's claim `<slot>:1` at its creation (days old), its slot finished at generation 1.
    await db
      .collection('batch_slot_claims')
      .insertMany(ids.map((s) => ({ _id: `${s}:1`, slot: s, gen: 1, job_id: job(s), created_at: old })) as never[]);
    await db.collection('batch_slots').insertMany(
      ids.map((s) => ({
        _id: String(s), // persistence/number-keyed.ts: the number's decimal string
        gen: 1,
        state: 'finished',
        job_id: job(s),
        claimed_at: old,
        finished_at: old,
        units: 13,
      })) as never[],
    );
  }
  for (let from = 0; from < AUDIT_CLAIMS; from += 500) {
    const n = Math.min(500, AUDIT_CLAIMS - from);
    await db.collection('audit_claims').insertMany(
      Array.from({ length: n }, (_, i) => ({
        _id: `${orgId}#${1 + 3 * (from + i)}`,
        log_ids: [0, 1, 2].map((k) => `log_${(from + i) * 3 + k}_${'0'.repeat(24)}`),
      })) as never[],
    );
  }
  await mc.close();
}

async function main() {
  const started = [] as Array<{ spec: SideSpec; stack: Stackish; base: string; key: string }>;
  try {
    for (const spec of sides) {
      const bs = await import(path.join(spec.root, 'bench/bench-stack.ts'));
      const { testPorts } = await import(path.join(spec.root, 'infra/stack.ts'));
      const b = await bs.startBenchStack(
        `idle-${spec.name}`,
        spec.offset,
        { SVC_BATCH_MAX_JOBS: String(SLOTS + 150) },
        {
          ports: testPorts(spec.offset),
        },
      );
      if (spec.state === 'seeded') await seed(b.stack.mongodbUri, b.orgId);
      started.push({ spec, stack: b.stack as Stackish, base: b.base, key: b.key });
      console.error(`[idle] ${spec.name}: ${spec.state} stack of ${spec.root} up (ports offset ${spec.offset})`);
    }
    // Every API (with its in-process worker) restarted together: the process timers start now on both sides.
    await Promise.all(
      started.map(async (s) => {
        await s.stack.api.stop();
        await s.stack.api.start();
      }),
    );
    const t0 = Date.now();
    console.error(
      `[idle] APIs restarted; sampling ${MINUTES} min in ${WINDOW_S} s windows (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
    );
    let trickle: NodeJS.Timeout | null = null;
    if (TRICKLE_RPS > 0)
      trickle = setInterval(() => {
        for (const s of started)
          void fetch(`${s.base}/verify/math`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': s.key },
            body: JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' }),
          }).then(
            (r) => r.arrayBuffer(),
            () => undefined,
          );
      }, 1000 / TRICKLE_RPS);
    const sample = () =>
      started.map((s) => ({ cpu: groupSample(s.stack.ferret?.pid).cpuMs, io: storeIo(s.stack.ferret?.pid) }));
    let prev = sample();
    const rows: Array<{ t: number; cpu: number[]; syscr: number[]; kibRead: number[] }> = [];
    const windows = Math.round((MINUTES * 60) / WINDOW_S);
    for (let w = 0; w < windows; w++) {
      await new Promise((r) => setTimeout(r, t0 + (w + 1) * WINDOW_S * 1000 - Date.now()));
      const now = sample();
      rows.push({
        t: (w + 1) * WINDOW_S,
        cpu: now.map((x, i) => x.cpu - (prev[i] as (typeof now)[0]).cpu),
        syscr: now.map((x, i) => x.io.syscr - (prev[i] as (typeof now)[0]).io.syscr),
        kibRead: now.map((x, i) => Math.round((x.io.rchar - (prev[i] as (typeof now)[0]).io.rchar) / 1024)),
      });
      prev = now;
    }
    if (trickle) clearInterval(trickle);
    const label = started.map((s) => `${s.spec.name}=${s.spec.state}@${path.basename(s.spec.root)}`).join(' ');
    console.log(
      `\nidle-store: ${label}; ${MINUTES} min, ${WINDOW_S} s windows, trickle ${TRICKLE_RPS}/s per side, slots ${SLOTS}, audit claims ${AUDIT_CLAIMS}`,
    );
    console.log(`load at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    console.log('window end (s) | store CPU ms A | B | read syscalls A | B | KiB read A | B');
    for (const r of rows)
      if (r.cpu.some((c) => c >= 30) || r.syscr.some((c) => c >= 2000))
        console.log(`${r.t} | ${r.cpu.join(' | ')} | ${r.syscr.join(' | ')} | ${r.kibRead.join(' | ')}`);
    const sum = (k: 'cpu' | 'syscr' | 'kibRead', i: number) => rows.reduce((a, r) => a + (r[k][i] as number), 0);
    const perMin = (k: 'cpu' | 'syscr' | 'kibRead', i: number) => Math.round((sum(k, i) / MINUTES) * 10) / 10;
    console.log('(windows under 30 ms and 2,000 read syscalls on both sides left out)');
    console.log(
      `per minute, store CPU ms: A ${perMin('cpu', 0)} / B ${perMin('cpu', 1)}; read syscalls: A ${perMin('syscr', 0)} / B ${perMin('syscr', 1)}; KiB read: A ${perMin('kibRead', 0)} / B ${perMin('kibRead', 1)}`,
    );
    const med = (i: number) => {
      const xs = rows.map((r) => r.cpu[i] as number).sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)];
    };
    console.log(`median window store CPU ms: A ${med(0)} / B ${med(1)}`);
  } finally {
    for (const s of started) await s.stack.down().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
