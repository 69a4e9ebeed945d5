// Benchmark tool (issue 22, session 15): the timeline of each burst of batch jobs, from the
// stack's debug logs (one machine, one clock): when the POSTs were answered, when each job's
// math unit entered the worker, finished its engine runs, its audit commit and its result
// document, when the job was stored completed, and when the client's GET saw it completed.
// Load inflates every step alike, so the split (not the wall time) is what to compare.
//   npx tsx bench/burst-timeline.ts <logs dir> [--min-jobs 5]
// The stack must run with SVC_LOG_LEVEL=debug (bench/data-scale.ts: SVC_BENCH_LOG_LEVEL=debug).
// A burst is a run of at least --min-jobs jobs, each POST started within 400 ms of the one before.
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const dir = args[0] && !args[0].startsWith('--') ? args[0] : '.data/bench-scale/logs';
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const MIN_JOBS = Number(arg('min-jobs', '5'));

interface Line {
  t: string;
  msg: string;
  [k: string]: unknown;
}
const lines = (file: string): Line[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => {
          try {
            return JSON.parse(l) as Line;
          } catch {
            return null;
          }
        })
        .filter((l): l is Line => l !== null && typeof l.t === 'string')
    : [];
const at = (l: Line) => Date.parse(l.t);

interface Job {
  id: string;
  postStart?: number;
  postEnd?: number;
  unitEntered?: number;
  unitQueuedMs?: number;
  engineDone?: number;
  auditDone?: number;
  unitStored?: number;
  completed?: number;
  gets: Array<{ start: number; end: number; ms: number }>;
}
const jobs = new Map<string, Job>();
const job = (id: string) => {
  let j = jobs.get(id);
  if (!j) jobs.set(id, (j = { id, gets: [] }));
  return j;
};

const api = lines(path.join(dir, 'api.log'));
const worker = lines(path.join(dir, 'worker.log'));
for (const l of [...api, ...worker]) {
  const id = typeof l.job_id === 'string' ? l.job_id : null;
  if (l.msg === 'request' && typeof l.path === 'string' && l.path.includes('/verify/batch')) {
    const ms = Number(l.ms);
    const end = at(l);
    const m = /\/verify\/batch\/(bj_[0-9a-f]+)/.exec(l.path);
    if (l.method === 'GET' && m) job(m[1] as string).gets.push({ start: end - ms, end, ms });
    else if (l.method === 'POST' && typeof l.workflow_id === 'string') {
      const j = job(l.workflow_id.replace(/^batch-org_[0-9a-f]+-/, ''));
      j.postStart = end - ms;
      j.postEnd = end;
    }
  } else if (id && l.msg === 'batch unit timed') {
    const j = job(id);
    const end = at(l);
    const entered = Number(l.entered_at);
    j.unitQueuedMs = Number(l.queued_ms);
    j.unitEntered = entered;
    j.engineDone = entered + Number(l.run_ms);
    j.auditDone = (j.engineDone ?? 0) + Number(l.audit_ms);
    j.unitStored = end;
  } else if (id && (l.msg === 'batch job completed by its unit' || l.msg === 'batch job completed')) {
    job(id).completed = at(l);
  }
}

const all = [...jobs.values()].filter((j) => j.postStart !== undefined).sort((a, b) => a.postStart! - b.postStart!);
const bursts: Job[][] = [];
for (const j of all) {
  const last = bursts.at(-1);
  if (last && j.postStart! - (last.at(-1) as Job).postStart! < 400) last.push(j);
  else bursts.push([j]);
}
const max = (xs: Array<number | undefined>) => Math.max(...xs.filter((x): x is number => x !== undefined));
const r = (n: number) => (Number.isFinite(n) ? Math.round(n) : '-');
console.log(
  'burst  jobs  last POST answered  last unit entered  last engine done  last audit done  last unit stored  last completed  last seen  | GETs while running: n, median ms',
);
let n = 0;
for (const b of bursts.filter((x) => x.length >= MIN_JOBS)) {
  const t0 = Math.min(...b.map((j) => j.postStart!));
  // The GET that saw the job completed is its last one; the ones before it saw it running.
  const seen = b.map((j) => j.gets.at(-1)?.end);
  const running = b.flatMap((j) => j.gets.slice(0, -1).map((g) => g.ms)).sort((x, y) => x - y);
  const rel = (x: number) => r(x - t0);
  console.log(
    [
      `#${++n}`.padEnd(6),
      String(b.length).padEnd(5),
      String(rel(max(b.map((j) => j.postEnd)))).padEnd(19),
      String(rel(max(b.map((j) => j.unitEntered)))).padEnd(18),
      String(rel(max(b.map((j) => j.engineDone)))).padEnd(17),
      String(rel(max(b.map((j) => j.auditDone)))).padEnd(16),
      String(rel(max(b.map((j) => j.unitStored)))).padEnd(17),
      String(rel(max(b.map((j) => j.completed)))).padEnd(15),
      String(rel(max(seen))).padEnd(10),
      `| ${running.length}, ${r(running[Math.floor(running.length / 2)] ?? NaN)}`,
    ].join(' '),
  );
  if (args.includes('--jobs'))
    for (const j of b)
      console.log(
        `   ${j.id} post ${r(j.postStart! - t0)}-${r(j.postEnd! - t0)} entered ${r((j.unitEntered ?? NaN) - t0)} (queued ${j.unitQueuedMs}) engine ${r((j.engineDone ?? NaN) - t0)} audit ${r((j.auditDone ?? NaN) - t0)} stored ${r((j.unitStored ?? NaN) - t0)} completed ${r((j.completed ?? NaN) - t0)} gets ${j.gets.map((g) => `${r(g.start - t0)}+${r(g.ms)}`).join(' ')}`,
      );
}
