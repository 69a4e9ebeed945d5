// Cost of the Temporal payload codec (core/payload-codec.ts), in-process:
//
//   npx tsx bench/payload-codec.ts [--iterations 20000]
//
// For typical payload sizes: p50/p95 µs of encode (AES-256-GCM encryption of one payload) and of
// decode, and throughput. Then the cost per verification: a /verify/code verification moves four
// encrypted payloads (workflow input, activity input, activity result, workflow result), each
// encoded once by its sender and decoded once by its receiver.
import { loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { payloadCodecFor } from '../core/payload-codec.js';

const argIter = process.argv.indexOf('--iterations');
const ITER = argIter > 0 ? Number(process.argv[argIter + 1]) : 20_000;

const codec = payloadCodecFor({
  SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify({ bench: randomBytes(32).toString('base64') }),
  SVC_TEMPORAL_PAYLOAD_KEY_ID: 'bench',
});

const text = (n: number) => 'def f(x):\n    return x * 2  # comment\n'.repeat(Math.ceil(n / 40)).slice(0, n);
const payloadOf = (bytes: number): Payload =>
  defaultPayloadConverter.toPayload({ engine: 'code', input: { code: text(bytes), language: 'python' } }) as Payload;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function measure(fn: () => void, n: number): { p50: number; p95: number; perSec: number } {
  for (let i = 0; i < Math.min(1000, n); i++) fn(); // warm-up
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    fn();
    lat.push((performance.now() - s) * 1000);
  }
  const wall = performance.now() - t0;
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p95: pct(lat, 95), perSec: (n / wall) * 1000 };
}

const f = (n: number) => n.toFixed(1);
console.log(
  `payload codec (AES-256-GCM, node:crypto), ${ITER} iterations per small size, load average ${loadavg()[0]?.toFixed(1)}`,
);
console.log('| payload | encode p50 / p95 µs | decode p50 / p95 µs | encode+decode per s |');
console.log('|-|-|-|-|');
for (const size of [256, 2048, 16 * 1024, 128 * 1024, 1024 * 1024]) {
  const p = payloadOf(size);
  const n = Math.max(200, Math.floor(ITER / Math.max(1, size / 2048)));
  const enc = measure(() => codec.encryptOne(p), n);
  const e = codec.encryptOne(p);
  const dec = measure(() => codec.decryptOne(e), n);
  const both = measure(() => codec.decryptOne(codec.encryptOne(p)), n);
  const label = size >= 1024 ? `${size / 1024} KiB` : `${size} B`;
  console.log(
    `| ${label} | ${f(enc.p50)} / ${f(enc.p95)} | ${f(dec.p50)} / ${f(dec.p95)} | ${Math.round(both.perSec)} |`,
  );
}

// One verification: 2 KiB of code in, a ~1.5 KiB verdict out; four payloads, each encoded and decoded once.
const input = payloadOf(2048);
const result = defaultPayloadConverter.toPayload({
  status: 'VERIFIED',
  developer_fields: { issues: [], note: text(1400) },
}) as Payload;
const perVerification = measure(() => {
  for (const p of [input, input, result, result]) codec.decryptOne(codec.encryptOne(p));
}, ITER);
console.log(
  `\nper /verify/code verification (4 payloads, encode + decode each): p50 ${f(perVerification.p50)} µs, p95 ${f(perVerification.p95)} µs`,
);
