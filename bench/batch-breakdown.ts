// Benchmark (issue 22, session 14): where a batch job's fixed cost goes, end to end, from the
// client's POST to the client holding the completed job. One job of 100 bare expressions
// (`${i} + 1`: no proof to retain, nothing to sign) is the orchestration floor; each job's
// timeline is assembled from its workflow history (server clock) and the stack's own debug log
// lines about it (admission, start, the activity's phases, the API's wait and read), on one
// machine's clock, and split into phases. Medians (and p90) per phase over --jobs jobs.
// With several --root checkouts, each gets its own fresh stack and the jobs alternate between
// them (A, B, A, B ...), so a changing load hits both alike.
//   npx tsx bench/batch-breakdown.ts [--root NAME=/path ...] [--jobs 20] [--offset 160]
// (default root: this checkout). The POST waits for the job (SVC_BATCH_WAIT_SECONDS=60), as
// bench/batch.ts does: the answer is the 200 with the completed job.
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Connection, Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { groupCpuMs } from './proc-sample.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const HERE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ROOTS = args.flatMap((a, i) => (a === '--root' && args[i + 1] ? [args[i + 1] as string] : []));
const JOBS = Number(arg('jobs', '20'));
const OFFSET = Number(arg('offset', '160'));
/** --cpu-profile: V8's sampling profiler on the API's and the worker's main threads over the measured jobs (bench/cpu-profile-hook.cjs). */
const PROFILE = args.includes('--cpu-profile');
const TOP = Number(arg('top', '25'));

const round = (n: number) => Math.round(n * 10) / 10;
const quantile = (xs: number[], q: number) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor(q * s.length))] as number) : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Target {
  name: string;
  base: string;
  key: string;
  temporal: string;
  logDir: string;
  down(): Promise<void>;
  profDir: string;
  pids(): number[];
  jobs: Array<Record<string, number>>;
  /** CPU ms by process group, read from /proc (utime+stime; load does not distort it). */
  cpu(): Record<string, number>;
  /** CPU ms by process group summed over the measured jobs. */
  spent: Record<string, number>;
}

const BARE = Array.from({ length: 100 }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));

/** The phases of one job, in ms, from its timeline (NaN where a line is missing). */
async function oneJob(t: Target, onAnswer: () => void = () => undefined): Promise<Record<string, number>> {
  const t0 = Date.now();
  const p0 = performance.now();
  const res = await fetch(`${t.base}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': t.key },
    body: JSON.stringify({ items: BARE }),
  });
  const body = (await res.json()) as { job_id: string; workflow_id: string; completed_items: number };
  const total = performance.now() - p0;
  onAnswer();
  const tEnd = t0 + total;
  if (res.status !== 200 || body.completed_items !== 100)
    throw new Error(`${t.name}: status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  const ev: Record<string, number> = {};
  const conn = await Connection.connect({ address: t.temporal });
  try {
    const history = await new Client({ connection: conn }).workflow.getHandle(body.workflow_id).fetchHistory();
    for (const e of history.events ?? []) {
      const at = Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
      const type = String(proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? e.eventType);
      ev[type] ??= at; // the first of each type
    }
  } finally {
    await conn.close();
  }
  await sleep(300); // the log lines reach their files
  const logs: Record<string, Record<string, unknown> & { at: number }> = {};
  for (const f of readdirSync(t.logDir)) {
    for (const line of readFileSync(path.join(t.logDir, f), 'utf8').split('\n')) {
      if (!line.startsWith('{') || !line.includes(body.job_id)) continue;
      try {
        const j = JSON.parse(line) as { t: string; msg: string };
        logs[j.msg] = { ...j, at: Date.parse(j.t) };
      } catch {
        // not a JSON line
      }
    }
  }
  const num = (msg: string, field: string) => Number(logs[msg]?.[field] ?? NaN);
  const at = (msg: string) => logs[msg]?.at ?? NaN;
  const unitEnd = at('batch unit timed');
  const run = num('batch unit timed', 'run_ms');
  const audit = num('batch unit timed', 'audit_ms');
  const store = num('batch unit timed', 'store_ms');
  const unitStart = unitEnd - run - audit - store;
  const activityEnd = at('batch job completed by its unit');
  const answered = at('batch job answered');
  const read = num('batch job answered', 'read_ms');
  const wfStarted = ev.EVENT_TYPE_WORKFLOW_TASK_STARTED ?? NaN;
  const wfScheduled = ev.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED ?? NaN;
  const wfCompleted = ev.EVENT_TYPE_WORKFLOW_TASK_COMPLETED ?? NaN;
  const wfClosed = ev.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED ?? NaN;
  return {
    'total (client)': total,
    'admission (API)': num('batch job answered', 'admit_ms'),
    'workflow start call (API)': num('batch job answered', 'started_ms'),
    'POST to execution started (server)': (ev.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED ?? NaN) - t0,
    'task scheduled -> started (matching)': wfStarted - wfScheduled,
    'task started -> unit starts': unitStart - wfStarted,
    // Split by the unit's log line (session 14: when its attempt was scheduled, worker clock, and
    // when the activity body began; NaN for a tree that does not log them).
    '  of which: activation (-> local activity scheduled)':
      num('batch unit timed', 'entered_at') - num('batch unit timed', 'queued_ms') - wfStarted,
    '  of which: dispatch + input check (-> activity body)': Number.isFinite(num('batch unit timed', 'entered_at'))
      ? num('batch unit timed', 'queued_ms')
      : NaN,
    'unit: engine': run,
    'unit: audit commit': audit,
    'unit: result document': store,
    'job completed + slot finished': num('batch job completed by its unit', 'complete_ms'),
    'activity end -> task completed': wfCompleted - activityEnd,
    'execution completed -> API has the result (< 0: answered before)': answered - read - wfClosed,
    'API reads the result': read,
    'API answer -> client has it': tEnd - answered,
  };
}

async function main() {
  const roots = ROOTS.length ? ROOTS : [`this=${HERE}`];
  const targets: Target[] = [];
  try {
    let i = 0;
    for (const spec of roots) {
      const [name, root] = spec.split('=') as [string, string];
      const bs = (await import(path.join(root, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
      process.env.SVC_BENCH_PORT_OFFSET = String(OFFSET + 20 * i++);
      console.error(`[${name}] starting a stack from ${root} on offset ${process.env.SVC_BENCH_PORT_OFFSET}`);
      const profDir = path.join(HERE, '.data', `breakdown-prof-${name}`);
      rmSync(profDir, { recursive: true, force: true });
      mkdirSync(profDir, { recursive: true });
      const { stack, base, key } = await bs.startBenchStack(`bench-breakdown-${name}`, 0, {
        SVC_BATCH_WAIT_SECONDS: '60',
        SVC_LOG_LEVEL: 'debug',
        ...(PROFILE
          ? {
              NODE_OPTIONS: `--require ${path.join(HERE, 'bench', 'cpu-profile-hook.cjs')}`,
              SVC_CPU_PROFILE_DIR: profDir,
            }
          : {}),
      });
      targets.push({
        name,
        base,
        key,
        temporal: stack.env.TEMPORAL_ADDRESS as string,
        logDir: path.join(stack.dataDir, 'logs'),
        down: () => stack.down(),
        profDir,
        pids: () => [stack.api.pid, ...stack.workers.map((w) => w.pid)].filter((p): p is number => p !== undefined),
        jobs: [],
        cpu: () => ({
          api: groupCpuMs(stack.api.pid),
          worker: stack.workers.reduce((a, w) => a + groupCpuMs(w.pid), 0),
          store: groupCpuMs(stack.ferret?.pid),
          temporal: groupCpuMs(stack.temporal.pid),
        }),
        spent: {},
      });
    }
    // Warm-up: bundles, JIT, connections, engine threads.
    for (const t of targets) for (let k = 0; k < 3; k++) await oneJob(t);
    const signal = () => {
      if (PROFILE) for (const t of targets) for (const pid of t.pids()) process.kill(pid, 'SIGWINCH');
    };
    signal(); // profilers on
    for (let k = 0; k < JOBS; k++)
      for (const t of targets) {
        // CPU around the job itself (the history fetch and the log scan after it are the bench's own).
        const c0 = t.cpu();
        const phases = await oneJob(t, () => {
          const c1 = t.cpu();
          for (const [g, v] of Object.entries(c1)) t.spent[g] = (t.spent[g] ?? 0) + v - (c0[g] ?? 0);
        });
        t.jobs.push(phases);
      }
    signal(); // profilers off: each process writes <pid>.cpuprofile
    if (PROFILE) await sleep(3000);
    console.log(
      `${JOBS} jobs of 100 bare expressions per target, interleaved; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const phases = Object.keys(targets[0]!.jobs[0]!);
    console.table(
      phases.map((p) =>
        Object.fromEntries([
          ['phase (ms)', p],
          ...targets.flatMap((t) => [
            [
              `${t.name} p50`,
              round(
                quantile(
                  t.jobs.map((j) => j[p]!),
                  0.5,
                ),
              ),
            ],
            [
              `${t.name} p90`,
              round(
                quantile(
                  t.jobs.map((j) => j[p]!),
                  0.9,
                ),
              ),
            ],
          ]),
        ]),
      ),
    );
    console.table(
      targets.map((t) => ({
        target: t.name,
        ...Object.fromEntries(Object.entries(t.spent).map(([g, v]) => [`CPU ms/job ${g}`, round(v / JOBS)])),
        'CPU ms/job total': round(Object.values(t.spent).reduce((a, b) => a + b, 0) / JOBS),
      })),
    );
    if (PROFILE)
      for (const t of targets)
        for (const f of readdirSync(t.profDir).filter((x) => x.endsWith('.cpuprofile')))
          summarize(`${t.name} pid ${f.replace('.cpuprofile', '')}`, path.join(t.profDir, f));
  } finally {
    for (const t of targets) await t.down().catch(() => undefined);
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** A file or package of a profile's frame: `node_modules/<pkg>`, `node:x`, or the service file. */
function where(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string);
  }
  if (url.startsWith('node:')) return url;
  const m = /dist\/service\/[^/]+\/(.+)$/.exec(url);
  return m ? (m[1] as string) : url.replace(/^file:\/\//, '');
}

/** Main-thread CPU per job of one process, by package/file and by function (self time). */
function summarize(label: string, file: string): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const byWhere = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const fn = n.callFrame.functionName || '(anonymous)';
    if (fn === '(idle)') return;
    const us = p.timeDeltas[i] ?? 0;
    total += us;
    const w = where(n.callFrame.url);
    byWhere.set(w, (byWhere.get(w) ?? 0) + us);
    const k = `${fn} ${w}:${n.callFrame.lineNumber + 1}`;
    byFn.set(k, (byFn.get(k) ?? 0) + us);
  });
  const per = (us: number) => round(us / 1000 / JOBS);
  console.log(`\n${label}: ${per(total)} ms of main-thread CPU per job (sampled, idle excluded)`);
  for (const m of [byWhere, byFn])
    console.table(
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP)
        .map(([k, us]) => ({ [m === byWhere ? 'where' : 'function']: k, 'ms/job': per(us) })),
    );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
