// The floor of the durable path: an empty workflow started and awaited through one client, on a
// private Temporal dev server, with a worker in this process. Compares the ways a client can
// reach the server (grpc-js Connection, the worker's NativeConnection, eager start over the
// shared NativeConnection) and the dev server's settings, with Temporal's CPU per workflow.
// The default, eager, is the floor issue 22 defines; it prints how many runs started eagerly.
//   npx tsx bench/empty-workflow-floor.ts [--mode grpcjs|native|eager] [--seconds 10] [--port 26233] -- [server flags]
// e.g. -- --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ROOT } from '../infra/stack.js';
import { percentile } from './bench-stack.js';
import { workflowBundle } from '../workers/workflow-bundle.js';
import { randomBytes } from 'node:crypto';
import { workflowInputAuthClientInterceptor } from '../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../activities/input-auth.js';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
const own = dash >= 0 ? args.slice(0, dash) : args;
const serverFlags =
  dash >= 0 ? args.slice(dash + 1) : ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];
const arg = (name: string, def: string) => {
  const i = own.indexOf(`--${name}`);
  return i >= 0 && own[i + 1] ? (own[i + 1] as string) : def;
};
const MODE = arg('mode', 'eager');
const SECONDS = Number(arg('seconds', '10'));
const PORT = Number(arg('port', '26233'));
const dir = path.join(ROOT, '.data', `bench-floor-${PORT}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const cpuMs = (pid: number) => {
  const rest = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = rest.slice(rest.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = spawn(
  path.join(ROOT, '.tools', 'bin', 'temporal'),
  [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(PORT),
    '--ui-port',
    String(PORT + 1000),
    '--db-filename',
    path.join(dir, 'temporal.sqlite'),
    '--log-level',
    'warn',
    ...serverFlags,
  ],
  { detached: true, stdio: 'ignore' },
);

async function main() {
  let native: NativeConnection | undefined;
  for (let i = 0; i < 120 && !native; i++)
    native = await NativeConnection.connect({ address: `127.0.0.1:${PORT}` }).catch(() =>
      sleep(500).then(() => undefined),
    );
  if (!native) throw new Error('the Temporal dev server did not start');
  // Every workflow of the bundle checks its input first (core/workflow-input-auth.ts): the floor includes that check.
  const inputKey = randomBytes(32).toString('hex');
  const worker = await Worker.create({
    connection: native,
    taskQueue: 'floor',
    workflowBundle: await workflowBundle(),
    activities: makeAuthenticateInputActivity(inputKey),
    interceptors: { activity: [activityGrantInterceptor(inputKey)] },
  });
  const running = worker.run();
  const conn = MODE === 'grpcjs' ? await Connection.connect({ address: `127.0.0.1:${PORT}` }) : native;
  const client = new Client({
    connection: conn,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(inputKey)] },
  });
  let n = 0;
  let eager = 0;
  const one = async () => {
    const h = await client.workflow.start('noopWorkflow', {
      taskQueue: 'floor',
      workflowId: `floor-${n++}`,
      requestEagerStart: MODE === 'eager',
    });
    if (h.eagerlyStarted) eager++;
    return h.result();
  };
  for (let i = 0; i < 30; i++) await one();
  const rows = [];
  for (const c of [8, 1]) {
    const t0cpu = cpuMs(server.pid as number);
    const u0 = process.cpuUsage();
    const lat: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: c }, async () => {
        while (performance.now() < t0 + SECONDS * 1000) {
          const s = performance.now();
          await one();
          lat.push(performance.now() - s);
        }
      }),
    );
    const wall = performance.now() - t0;
    lat.sort((a, b) => a - b);
    const u = process.cpuUsage(u0);
    rows.push({
      mode: MODE,
      clients: c,
      n: lat.length,
      'wf/s': +((lat.length / wall) * 1000).toFixed(1),
      p50: +percentile(lat, 50).toFixed(1),
      p95: +percentile(lat, 95).toFixed(1),
      'temporal CPU ms/wf': +((cpuMs(server.pid as number) - t0cpu) / lat.length).toFixed(1),
      'client+worker CPU ms/wf': +((u.user + u.system) / 1000 / lat.length).toFixed(1),
    });
  }
  console.log(`server flags: ${serverFlags.join(' ')}`);
  // Issue 22's floor is the eager mode (the API's in-process worker starts math eagerly); the other
  // modes are for comparison. On a private dev server: the stack's own is measured by
  // bench/throughput-vs-peer.ts and bench/cpu-ab-math.ts (bench/eager-floor.ts).
  console.log(
    `mode ${MODE}${MODE === 'eager' ? ' (the floor issue 22 defines)' : ' (NOT the floor issue 22 defines: that is --mode eager)'}: ${eager} of ${n} runs started eagerly`,
  );
  console.table(rows);
  worker.shutdown();
  await running;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    try {
      process.kill(-(server.pid as number), 'SIGTERM');
    } catch {
      /* gone */
    }
    process.exit();
  });
