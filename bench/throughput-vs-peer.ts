// Throughput of the durable path beside the reference implementation (issue 14), same run, same
// body: `POST /verify/math` with `(x+1)**2 = x**2 + 2*x + 1` at 8 clients for a fixed time and at
// 1 client, req/s, p50 and p95 for both, the ratio, the empty-workflow round trip (the floor
// issue 22 sets: noopWorkflow with eager start, same Temporal, same run; bench/eager-floor.ts),
// and CPU milliseconds per verification by process, read from /proc, with the ratio to the floor.
//
//   npx tsx bench/throughput-vs-peer.ts [--seconds 12] [--seconds-1 12] [--peer-version 7.3.0]
//        [--peer-port 9100] [--use-running] [--no-peer] [--settle 30] [--warmup 10] [--slices 4]
//
// CPU per verification against the floor is measured as bench/cpu-ab-math.ts measures it (session
// 13: the two scripts had disagreed, 1.64x here against 1.48x there): both warmed alike
// (`--warmup` seconds of each at the same clients; JIT and connection pools warm before anything
// is counted), then `--slices` alternating slices at `--clients`, ours then the floor, so the
// machine's drift falls on both. Before, ours was counted in one run 2 s after start-up and the
// floor once at the end, cold (1 s at 1 client), in a later phase of the machine's load.
//
// The peer is installed and started by ../shared/peer/setup-qwed.sh (override the folder with
// SVC_SHARED_DIR), cached under .tools/qwed-peer/<version>/ (git-ignored; SVC_PEER_DIR overrides).
// Our side: the dev stack on SVC_DEV_PORT_OFFSET (fresh data, profile bench-peer), or with
// --use-running the dev stack already answering on those ports (profile dev's pid files).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { enterpriseKey, percentile, startBenchStack } from './bench-stack.js';
import { devPorts, ROOT, type Stack } from '../infra/stack.js';
import { ensureSecretsFile } from '../infra/secrets.js';
import { groupCpuMs } from './proc-sample.js';
import { selfCpuMs, startEagerFloor } from './eager-floor.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const flag = (name: string) => args.includes(`--${name}`);

const SECONDS = Number(arg('seconds', '12'));
const SECONDS_1 = Number(arg('seconds-1', String(SECONDS)));
const CLIENTS = Number(arg('clients', '8'));
const SETTLE = Number(arg('settle', '30'));
const WARMUP = Number(arg('warmup', '10'));
const SLICES = Math.max(1, Number(arg('slices', '4')));
const PEER_VERSION = arg('peer-version', '7.3.0');
const PEER_PORT = Number(arg('peer-port', process.env.SVC_PEER_PORT ?? '9100'));
const SHARED = process.env.SVC_SHARED_DIR ?? path.resolve(ROOT, '..', 'shared');
const PEER_DIR = process.env.SVC_PEER_DIR ?? path.join(ROOT, '.tools', 'qwed-peer', PEER_VERSION);
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Process groups whose CPU time is charged to this side, by label. */
  pids: Record<string, number>;
}

interface Row {
  label: string;
  n: number;
  failed: number;
  rps: number;
  p50: number;
  p95: number;
}

function summarize(label: string, lat: number[], failed: number, wallMs: number): Row {
  const s = [...lat].sort((a, b) => a - b);
  if (s.length === 0) {
    console.error(
      `[bench] ${label}: no successful request (${failed} failed); first failure: ${firstFailure ?? 'none'}`,
    );
    return { label, n: 0, failed, rps: 0, p50: Number.NaN, p95: Number.NaN };
  }
  return {
    label,
    n: s.length,
    failed,
    rps: +((s.length / wallMs) * 1000).toFixed(1),
    p50: +percentile(s, 50).toFixed(1),
    p95: +percentile(s, 95).toFixed(1),
  };
}

/** `clients` loops, each sending one request after the other until `seconds` have passed. */
async function drive(
  seconds: number,
  clients: number,
  fn: () => Promise<boolean>,
): Promise<{ lat: number[]; failed: number; wall: number }> {
  const lat: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        if (await fn()) lat.push(performance.now() - s);
        else failed++;
      }
    }),
  );
  return { lat, failed, wall: performance.now() - t0 };
}

let firstFailure = '';
function verifier(t: Target): () => Promise<boolean> {
  return async () => {
    try {
      const res = await fetch(`${t.url}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...t.headers },
        body: BODY,
      });
      const text = await res.text();
      // Both sides must prove the identity; anything else is a failed request, not a sample.
      const ok =
        res.status === 200 &&
        /"(status|verdict)"\s*:\s*"VERIFIED"|"is_equivalent"\s*:\s*true|"is_valid"\s*:\s*true/.test(text);
      if (!ok && !firstFailure) firstFailure = `${t.name}: ${res.status} ${text.slice(0, 300)}`;
      return ok;
    } catch (err) {
      if (!firstFailure) firstFailure = `${t.name}: ${String((err as Error).message)}`;
      return false;
    }
  };
}

function cpuSnapshot(pids: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, groupCpuMs(pid)]));
}

function cpuPerRequest(
  before: Record<string, number>,
  after: Record<string, number>,
  requests: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const k of Object.keys(before)) {
    const ms = ((after[k] as number) - (before[k] as number)) / Math.max(1, requests);
    out[k] = +ms.toFixed(1);
    total += ms;
  }
  out.total = +total.toFixed(1);
  return out;
}

/** The dev stack's pid files: the process group leaders of each component. */
function stackPids(dataDir: string): Record<string, number> {
  const read = (name: string) => Number(readFileSync(path.join(dataDir, 'pids', `${name}.pid`), 'utf8'));
  return { api: read('api'), worker: read('worker'), temporal: read('temporal'), store: read('ferretdb') };
}

async function startPeer(): Promise<{ target: Target; started: boolean }> {
  const script = path.join(SHARED, 'peer', 'setup-qwed.sh');
  if (!existsSync(script)) throw new Error(`peer set-up script not found at ${script} (set SVC_SHARED_DIR)`);
  const already = await fetch(`http://127.0.0.1:${PEER_PORT}/health`).then(
    (r) => r.ok,
    () => false,
  );
  const t0 = Date.now();
  const r = spawnSync('bash', [script, PEER_DIR, String(PEER_PORT), PEER_VERSION], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`setup-qwed.sh failed (${r.status})`);
  const url = /^QWED_URL=(.+)$/m.exec(r.stdout)?.[1];
  const key = /^QWED_API_KEY=(.+)$/m.exec(r.stdout)?.[1];
  if (!url || !key) throw new Error(`setup-qwed.sh printed no QWED_URL / QWED_API_KEY:\n${r.stdout}`);
  console.error(
    `[bench] peer qwed ${PEER_VERSION} at ${url} (${already ? 'already running' : `started in ${Date.now() - t0} ms`})`,
  );
  const pid = Number(readFileSync(path.join(PEER_DIR, 'server.pid'), 'utf8'));
  // The server runs under setsid: its process group is its own pid.
  return {
    target: { name: `qwed ${PEER_VERSION}`, url, headers: { 'x-api-key': key }, pids: { peer: pid } },
    started: !already,
  };
}

function stopPeer(): void {
  try {
    const pid = Number(readFileSync(path.join(PEER_DIR, 'server.pid'), 'utf8'));
    if (pid > 0) process.kill(-pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
}

async function main() {
  const load0 = loadavg();
  const ports = devPorts(Number(process.env.SVC_DEV_PORT_OFFSET ?? 0));
  let stack: Stack | null = null;
  let ours: Target;
  let env: NodeJS.ProcessEnv;
  let temporalAddress: string;
  if (flag('use-running')) {
    const base = `http://127.0.0.1:${ports.api}`;
    if (
      (await fetch(`${base}/health`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    )
      throw new Error(`no dev stack answers at ${base}`);
    const key = await enterpriseKey(base, `mongodb://127.0.0.1:${ports.ferret}/svc`);
    env = { ...process.env, ...ensureSecretsFile(path.join(ROOT, '.env.local')) };
    ours = { name: 'ours', url: base, headers: { 'x-api-key': key }, pids: stackPids(path.join(ROOT, '.data', 'dev')) };
    temporalAddress = `127.0.0.1:${ports.temporal}`;
  } else {
    const b = await startBenchStack('bench-peer', 0, {}, { ports });
    stack = b.stack;
    env = stack.env;
    ours = { name: 'ours', url: b.base, headers: { 'x-api-key': b.key }, pids: stackPids(stack.dataDir) };
    temporalAddress = stack.urls.temporal_grpc as string;
  }
  let peer: Target | null = null;
  let peerStarted = false;
  try {
    if (!flag('no-peer')) ({ target: peer, started: peerStarted } = await startPeer());
    const targets = [peer, ours].filter((t): t is Target => t !== null);
    // The worker warms its Z3 and PGlite threads in the background after it reports ready:
    // let that finish, or its CPU is charged to the first rows.
    if (stack) await new Promise((r) => setTimeout(r, SETTLE * 1000));
    // Warm-up: engine threads, connections, JIT; not measured.
    for (const t of targets) await drive(2, CLIENTS, verifier(t));

    const rows: Row[] = [];
    const cpu: Record<string, Record<string, number>> = {};
    // The peer: one run at the clients (its CPU is its own process group's).
    if (peer) {
      const before = cpuSnapshot(peer.pids);
      const { lat, failed, wall } = await drive(SECONDS, CLIENTS, verifier(peer));
      cpu[peer.name] = cpuPerRequest(before, cpuSnapshot(peer.pids), lat.length + failed);
      rows.push(summarize(`${peer.name} c=${CLIENTS}`, lat, failed, wall));
    }
    // The floor as issue 22 defines it (bench/eager-floor.ts): the empty workflow, EAGER start, on
    // our Temporal in this run, its client and worker in this process ('floor process' below).
    const floor = await startEagerFloor(ROOT, temporalAddress, env);
    // Both warmed alike before anything of ours is counted (JIT, pools, the store's caches).
    await drive(WARMUP, CLIENTS, verifier(ours));
    await drive(WARMUP, CLIENTS, floor.noop);
    // Ours and the floor in alternating slices at the same clients (as bench/cpu-ab-math.ts).
    const sums = {
      ours: { lat: [] as number[], failed: 0, wall: 0, cpu: {} as Record<string, number>, n: 0 },
      floor: { lat: [] as number[], failed: 0, wall: 0, cpu: {} as Record<string, number>, n: 0 },
    };
    const add = (to: Record<string, number>, b: Record<string, number>, a: Record<string, number>) => {
      for (const k of Object.keys(b)) to[k] = (to[k] ?? 0) + (a[k] as number) - (b[k] as number);
    };
    const perSlice: Array<Record<string, string | number>> = [];
    for (let i = 0; i < SLICES; i++) {
      for (const side of ['ours', 'floor'] as const) {
        const snap = (): Record<string, number> => ({
          ...cpuSnapshot(ours.pids),
          ...(side === 'floor' ? { 'floor process': selfCpuMs() } : {}),
        });
        const before = snap();
        const r = await drive(SECONDS / SLICES, CLIENTS, side === 'ours' ? verifier(ours) : floor.noop);
        const after = snap();
        add(sums[side].cpu, before, after);
        const sliceCpu = Object.keys(before).reduce((t, k) => t + (after[k] as number) - (before[k] as number), 0);
        perSlice.push({
          slice: i,
          side,
          n: r.lat.length + r.failed,
          'CPU ms each': +(sliceCpu / Math.max(1, r.lat.length + r.failed)).toFixed(1),
        });
        sums[side].lat.push(...r.lat);
        sums[side].failed += r.failed;
        sums[side].wall += r.wall;
        sums[side].n += r.lat.length + r.failed;
      }
    }
    const perRequest = (s: (typeof sums)['ours']) => {
      const zero = Object.fromEntries(Object.keys(s.cpu).map((k) => [k, 0]));
      return cpuPerRequest(zero, s.cpu, s.n);
    };
    cpu.ours = perRequest(sums.ours);
    cpu['empty workflow'] = perRequest(sums.floor);
    rows.push(summarize(`ours c=${CLIENTS}`, sums.ours.lat, sums.ours.failed, sums.ours.wall));
    rows.push(summarize(`empty workflow c=${CLIENTS}`, sums.floor.lat, sums.floor.failed, sums.floor.wall));
    for (const t of targets) {
      const { lat, failed, wall } = await drive(SECONDS_1, 1, verifier(t));
      rows.push(summarize(`${t.name} c=1`, lat, failed, wall));
    }
    {
      const { lat, failed, wall } = await drive(SECONDS_1, 1, floor.noop);
      rows.push(summarize('empty workflow c=1', lat, failed, wall));
    }
    const floorCounts = floor.counts();
    await floor.close();

    const load1 = loadavg();
    console.log(`\n/verify/math ${BODY}: ${CLIENTS} clients for ${SECONDS} s, 1 client for ${SECONDS_1} s`);
    console.log(
      `load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')} (${(await import('node:os')).cpus().length} cores)`,
    );
    console.table(rows);
    const get = (label: string) => rows.find((r) => r.label === label);
    if (peer) {
      const p8 = get(`${peer.name} c=${CLIENTS}`)!;
      const o8 = get(`ours c=${CLIENTS}`)!;
      const p1 = get(`${peer.name} c=1`)!;
      const o1 = get('ours c=1')!;
      console.log(
        `ratio ours / ${peer.name}: req/s at ${CLIENTS} clients ${(o8.rps / Math.max(p8.rps, 0.01)).toFixed(2)}x; p50 at 1 client ${o1.p50} vs ${p1.p50} ms`,
      );
    }
    console.log(
      `floor (issue 22): the empty workflow with EAGER start (${floorCounts.eager} of ${floorCounts.started} runs started eagerly), client and worker in this process, same Temporal, same run: p50 at 1 client ${get('empty workflow c=1')!.p50} ms, ${get(`empty workflow c=${CLIENTS}`)!.rps} workflows/s at ${CLIENTS} clients`,
    );
    const total = (k: string) => cpu[k]?.total ?? Number.NaN;
    console.log(
      `CPU per /verify/math / the floor's: ${total('ours').toFixed(1)} / ${total('empty workflow').toFixed(1)} ms = ${(total('ours') / total('empty workflow')).toFixed(2)}x (goal <= 1.5x)`,
    );
    console.log(
      `CPU ms per request by process (${SLICES} alternating slices of ${(SECONDS / SLICES).toFixed(1)} s each at ${CLIENTS} clients after ${WARMUP} s of warm-up of each; 'empty workflow' = per empty workflow, eager start, 'floor process' = its client and worker):`,
    );
    console.table(cpu);
    console.log('CPU ms per request of each slice (all processes; the floor with its client and worker):');
    console.table(perSlice);
    if (firstFailure) console.log(`first failed request: ${firstFailure}`);
  } finally {
    if (peerStarted) stopPeer();
    if (stack) await stack.down();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
