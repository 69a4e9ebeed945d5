// Benchmark: issue #16 items 1–4 with two tenants (docs/isolation.md). For each finding,
// organization B's trivial request is timed at rest, then again while organization A runs the
// finding's reproduction; prints B's p50/p95 in both phases, their ratio (goal: within 2×) and
// B's non-200 answers (goal: none). Starts its own stack on private ports.
//   npx tsx bench/isolation.ts [--requests 20]
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { startBenchStack, percentile } from './bench-stack.js';

const args = process.argv.slice(2);
const ri = args.indexOf('--requests');
const N = ri >= 0 ? Number(args[ri + 1]) : 20;

const { stack, base, key: keyA } = await startBenchStack('bench-isolation', 450);
const json = { 'content-type': 'application/json' };

async function tenant(name: string): Promise<string> {
  const email = `bench-${name}-${Date.now()}@example.test`;
  const su = await (
    await fetch(`${base}/auth/signup`, {
      method: 'POST',
      headers: { ...json, 'x-forwarded-for': '198.51.100.7' },
      body: JSON.stringify({ email, password: 'benchmark password 1', organization_name: name }),
    })
  ).json();
  const mc = new MongoClient(stack.mongodbUri);
  await mc.connect();
  await mc
    .db()
    .collection('organizations')
    .updateOne({ _id: su.user.org_id }, { $set: { plan: 'enterprise' } });
  await mc.close();
  return (
    await (
      await fetch(`${base}/auth/api-keys`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${su.access_token}` },
        body: JSON.stringify({ name: 'bench' }),
      })
    ).json()
  ).key as string;
}

const keyB = await tenant('org-b');
const postJson = (key: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { ...json, 'x-api-key': key }, body: JSON.stringify(body) });

function statsUpload(key: string): Promise<Response> {
  const fd = new FormData();
  fd.append('query', 'mean(qty)'); // unknown column: answered before the sandbox
  fd.append('file', new Blob(['name,price\napple,10\n'], { type: 'text/csv' }), 'data.csv');
  return fetch(`${base}/verify/stats`, { method: 'POST', body: fd, headers: { 'x-api-key': key } });
}

interface Scenario {
  item: string;
  /** B's trivial request. */
  trivial: () => Promise<Response>;
  /** Starts A's attack; returns its stop function. */
  attack: () => Promise<() => Promise<void>>;
}

/** Keeps `lanes` copies of A's request in flight until stopped. */
function loop(lanes: number, send: () => Promise<Response>): () => Promise<void> {
  let stopped = false;
  const codes: Record<number, number> = {};
  const lanesDone = Array.from({ length: lanes }, async () => {
    while (!stopped) {
      const r = await send().catch(() => null);
      if (r) {
        codes[r.status] = (codes[r.status] ?? 0) + 1;
        await r.text();
      }
    }
  });
  return async () => {
    stopped = true;
    await Promise.all(lanesDone);
    console.log(`    A's answers: ${JSON.stringify(codes)}`);
  };
}

const HARD = (k: number) => `(AND (GT x ${k}) (GT y 0) (GT z 0) (EQ (PLUS (POW x 3) (POW y 3)) (POW z 3)))`;
const scenarios: Scenario[] = [
  {
    item: '1 process regex (60k spaces) ×2',
    trivial: () => postJson(keyB, '/verify/math', { expression: 'x + x = 2*x' }),
    attack: async () => loop(2, () => postJson(keyA, '/verify/process', { trace: `#${' '.repeat(60_000)}z` })),
  },
  {
    item: '2 code nesting (lambda × 25k) ×2',
    trivial: () => postJson(keyB, '/verify/math', { expression: 'x + x = 2*x' }),
    attack: async () => loop(2, () => postJson(keyA, '/verify/code', { code: `${'lambda: '.repeat(25_000)}1` })),
  },
  {
    item: '3 Z3 hard queries ×2',
    trivial: () => postJson(keyB, '/verify/logic', { query: '(AND (GT x 5) (LT x 10))' }),
    attack: async () => {
      let k = 0;
      return loop(2, () => postJson(keyA, '/verify/logic', { query: HARD(k++) }));
    },
  },
  {
    item: '4 eight stalled uploads',
    trivial: () => statsUpload(keyB),
    attack: async () => {
      const url = new URL(base);
      const socks: net.Socket[] = [];
      for (let i = 0; i < 8; i++) {
        const s = net.connect(Number(url.port), url.hostname);
        await new Promise<void>((r) => s.once('connect', () => r()));
        s.on('error', () => undefined);
        s.write(
          `POST /verify/stats HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keyA}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000000\r\n\r\n--b\r\n`,
        );
        socks.push(s);
      }
      return async () => {
        for (const s of socks) s.destroy();
      };
    },
  },
];

async function measure(send: () => Promise<Response>): Promise<{ lat: number[]; failures: Record<number, number> }> {
  const lat: number[] = [];
  const failures: Record<number, number> = {};
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const r = await send();
    await r.text();
    lat.push(performance.now() - t);
    if (r.status !== 200) failures[r.status] = (failures[r.status] ?? 0) + 1;
  }
  lat.sort((x, y) => x - y);
  return { lat, failures };
}

const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;
try {
  // Warm the engine threads and Z3 workers.
  for (const s of scenarios) for (let i = 0; i < 3; i++) await (await s.trivial()).text();
  console.log(`B's trivial request, ${N} sequential requests per phase (machine: shared, see docs/performance.md)`);
  for (const s of scenarios) {
    const rest = await measure(s.trivial);
    const stop = await s.attack();
    await new Promise((r) => setTimeout(r, 1000));
    const busy = await measure(s.trivial);
    await stop();
    const p = (x: { lat: number[] }, q: number) => percentile(x.lat, q);
    console.log(`  item ${s.item}`);
    console.log(
      `    at rest:      p50 ${fmt(p(rest, 50))}  p95 ${fmt(p(rest, 95))}  non-200 ${JSON.stringify(rest.failures)}`,
    );
    console.log(
      `    under attack: p50 ${fmt(p(busy, 50))}  p95 ${fmt(p(busy, 95))}  non-200 ${JSON.stringify(busy.failures)}`,
    );
    console.log(
      `    ratio:        p50 ${(p(busy, 50) / p(rest, 50)).toFixed(2)}×  p95 ${(p(busy, 95) / p(rest, 95)).toFixed(2)}×`,
    );
  }
} finally {
  await stack.down();
}
