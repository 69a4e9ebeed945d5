// A/B of CPU per `/verify/math` between two source trees, interleaved in short slices so that a
// loaded machine's drift falls on both alike (a whole-run A/B on the shared 2-core machine moved
// the same code's figure by ±25 %). Both stacks run at once on their own ports (fresh data,
// compiled trees); each slice drives one of them at `--clients` for `--slice` seconds and charges
// the CPU its processes used in that slice (/proc, process groups, threads included) to it. Every
// other round also drives each side's empty workflow (noopWorkflow through one client on its
// Temporal, as bench/throughput-vs-peer.ts does): the floor, and each side's ratio to it.
//   npx tsx bench/cpu-ab-math.ts --a <tree> --b <tree> [--slices 8] [--slice 6] [--clients 8]
//   (ports: SVC_DEV_PORT_OFFSET for A, +50 for B; a tree is a checkout with node_modules)
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { groupCpuMs } from './proc-sample.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const TREES = { A: path.resolve(arg('a', '.')), B: path.resolve(arg('b', '.')) };
const SLICES = Number(arg('slices', '8'));
const SLICE_S = Number(arg('slice', '6'));
const CLIENTS = Number(arg('clients', '8'));
const OFFSET = Number(process.env.SVC_DEV_PORT_OFFSET ?? 0);
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });

interface Side {
  name: 'A' | 'B';
  /** One empty workflow (noopWorkflow, signed, encrypted) through a client of this process on the side's Temporal. */
  noop: () => Promise<boolean>;
  closeNoop: () => Promise<void>;
  floor: Record<string, number>;
  floorN: number;
  base: string;
  key: string;
  pids: Record<string, number>;
  down: () => Promise<void>;
  cpu: Record<string, number>;
  n: number;
  failed: number;
}

async function startSide(name: 'A' | 'B', tree: string, offset: number): Promise<Side> {
  // Each tree's own supervisor and compiled service (dynamic import: the tree's ROOT is its own).
  const bench = (await import(path.join(tree, 'bench', 'bench-stack.ts'))) as typeof import('./bench-stack.js');
  const infra = (await import(path.join(tree, 'infra', 'stack.ts'))) as typeof import('../infra/stack.js');
  const b = await bench.startBenchStack(`bench-ab-${name}`, 0, {}, { ports: infra.devPorts(offset) });
  const read = (n: string) => Number(readFileSync(path.join(b.stack.dataDir, 'pids', `${n}.pid`), 'utf8'));
  const pids = { api: read('api'), worker: read('worker'), temporal: read('temporal'), store: read('ferretdb') };
  // The floor as bench/throughput-vs-peer.ts measures it: the empty workflow through one client on the same Temporal.
  const codec = (await import(
    path.join(tree, 'core', 'payload-codec.ts')
  )) as typeof import('../core/payload-codec.js');
  const auth = (await import(
    path.join(tree, 'core', 'workflow-input-auth.ts')
  )) as typeof import('../core/workflow-input-auth.js');
  const env = b.stack.env;
  const conn = await Connection.connect({ address: b.stack.urls.temporal_grpc as string });
  const client = new Client({
    connection: conn,
    dataConverter: codec.temporalDataConverter(env),
    interceptors: { workflow: [auth.workflowInputAuthClientInterceptor(auth.workflowInputKey(env))] },
  });
  let i = 0;
  const noop = () =>
    client.workflow
      .execute('noopWorkflow', {
        taskQueue: env.SVC_TASK_QUEUE ?? 'svc-verification',
        workflowId: `bench-ab-noop-${name}-${Date.now()}-${i++}`,
      })
      .then(
        () => true,
        () => false,
      );
  return {
    name,
    noop,
    closeNoop: () => conn.close(),
    floor: Object.fromEntries(Object.keys(pids).map((k) => [k, 0])),
    floorN: 0,
    base: b.base,
    key: b.key,
    pids,
    down: () => b.stack.down(),
    cpu: Object.fromEntries(Object.keys(pids).map((k) => [k, 0])),
    n: 0,
    failed: 0,
  };
}

async function drive(side: Side, seconds: number, floor = false): Promise<{ n: number; failed: number }> {
  let n = 0;
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        if (floor) {
          if (await side.noop()) n++;
          else failed++;
          continue;
        }
        const res = await fetch(`${side.base}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': side.key },
          body: BODY,
        }).catch(() => null);
        const text = res ? await res.text() : '';
        if (res?.status === 200 && text.includes('"VERIFIED"')) n++;
        else failed++;
      }
    }),
  );
  return { n, failed };
}

async function main() {
  const load0 = loadavg();
  const sides: Side[] = [];
  try {
    sides.push(await startSide('A', TREES.A, OFFSET));
    sides.push(await startSide('B', TREES.B, OFFSET + 50));
    await new Promise((r) => setTimeout(r, Number(arg('settle', '15')) * 1000));
    for (const s of sides) await drive(s, 3); // warm-up, not counted
    for (const s of sides) await drive(s, 1, true);
    const perSlice: Array<{ side: string; n: number; total: number }> = [];
    for (let i = 0; i < SLICES; i++) {
      // A B, then B A: neither side always follows the other.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        const before = Object.fromEntries(Object.entries(s.pids).map(([k, p]) => [k, groupCpuMs(p)]));
        const r = await drive(s, SLICE_S);
        let total = 0;
        for (const [k, p] of Object.entries(s.pids)) {
          const d = groupCpuMs(p) - (before[k] as number);
          s.cpu[k] = (s.cpu[k] as number) + d;
          total += d;
        }
        s.n += r.n;
        s.failed += r.failed;
        perSlice.push({ side: s.name, n: r.n, total: +(total / Math.max(1, r.n + r.failed)).toFixed(1) });
      }
      // The empty workflow, every other round, on each side (its CPU charged to that side's floor).
      if (i % 2 === 1)
        for (const s of order) {
          const before = Object.fromEntries(Object.entries(s.pids).map(([k, p]) => [k, groupCpuMs(p)]));
          const r = await drive(s, SLICE_S, true);
          for (const [k, p] of Object.entries(s.pids))
            s.floor[k] = (s.floor[k] as number) + groupCpuMs(p) - (before[k] as number);
          s.floorN += r.n + r.failed;
        }
    }
    const load1 = loadavg();
    console.log(
      `A = ${TREES.A}\nB = ${TREES.B}\n${SLICES} slices of ${SLICE_S} s per side, ${CLIENTS} clients; load average before ${load0.map((l) => l.toFixed(1)).join(' ')}, after ${load1.map((l) => l.toFixed(1)).join(' ')}`,
    );
    console.log('CPU ms per verification of each slice (all processes):');
    console.table(perSlice);
    const rows = Object.fromEntries(
      sides.map((s) => {
        const per = Object.fromEntries(
          Object.entries(s.cpu).map(([k, v]) => [k, +(v / Math.max(1, s.n + s.failed)).toFixed(1)]),
        );
        const total = Object.values(s.cpu).reduce((a, b) => a + b, 0) / Math.max(1, s.n + s.failed);
        return [s.name, { n: s.n, failed: s.failed, ...per, total: +total.toFixed(1) }];
      }),
    );
    console.log('CPU ms per verification by process, all slices:');
    console.table(rows);
    const floors = Object.fromEntries(
      sides.map((s) => {
        const per = Object.fromEntries(
          Object.entries(s.floor).map(([k, v]) => [k, +(v / Math.max(1, s.floorN)).toFixed(1)]),
        );
        const total = Object.values(s.floor).reduce((a, b) => a + b, 0) / Math.max(1, s.floorN);
        const ours = Object.values(s.cpu).reduce((a, b) => a + b, 0) / Math.max(1, s.n + s.failed);
        return [s.name, { n: s.floorN, ...per, total: +total.toFixed(1), ratio: +(ours / total).toFixed(2) }];
      }),
    );
    console.log("The empty workflow's CPU ms by process on each side, and /verify/math's ratio to it:");
    console.table(floors);
  } finally {
    for (const s of sides) await s.closeNoop().catch(() => undefined);
    for (const s of sides) await s.down().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
