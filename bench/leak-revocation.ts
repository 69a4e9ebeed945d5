// Benchmark: time from the 200 of POST /webhooks/secret-scanning to the key being revoked in
// the store (what the next request with the key sees), over real keys minted through the API,
// one delivery at a time and a burst of concurrent deliveries. Starts its own stack on private
// ports with an in-process key server; the stack's SMTP sink receives the notices.
//   npx tsx bench/leak-revocation.ts [--runs 20] [--burst 10]
import os from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startBenchStack, percentile } from './bench-stack.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const RUNS = Number(arg('runs', '20'));
const BURST = Number(arg('burst', '10'));
const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = randomBytes(32).toString('hex');
  const doc = JSON.stringify({
    public_keys: [
      {
        key_identifier: keyId,
        key: signing.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        is_current: true,
      },
    ],
  });
  const keyServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(doc));
  await new Promise<void>((r) => keyServer.listen(0, '127.0.0.1', r));
  const keysUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/keys`;

  const { stack, base } = await startBenchStack('bench-leak', 940, { SVC_SECRET_SCANNING_KEYS_URL: keysUrl });
  const mc = new MongoClient(stack.mongodbUri);
  try {
    await mc.connect();
    const keys = mc.db().collection('api_keys');
    const json = { 'content-type': 'application/json' };
    const su = await (
      await fetch(`${base}/auth/signup`, {
        method: 'POST',
        headers: { ...json, 'x-forwarded-for': '198.51.100.77' },
        body: JSON.stringify({
          email: `leak-bench-${Date.now()}@example.test`,
          password: 'benchmark password 1',
          organization_name: 'leak bench',
        }),
      })
    ).json();
    const mint = async () => {
      const r = await (
        await fetch(`${base}/auth/api-keys`, {
          method: 'POST',
          headers: { ...json, authorization: `Bearer ${su.access_token}` },
          body: JSON.stringify({ name: 'leak bench' }),
        })
      ).json();
      return { id: r.id as string, key: r.key as string };
    };

    /** One delivery: ms from the 200 to `active: false` in the store (polled every 2 ms). */
    const once = async (): Promise<number> => {
      const k = await mint();
      const body = JSON.stringify([
        { token: k.key, type: 'svc_live_api_key', url: 'https://example.test/bench', source: 'content' },
      ]);
      const res = await fetch(`${base}/webhooks/secret-scanning`, {
        method: 'POST',
        headers: {
          ...json,
          'Github-Public-Key-Identifier': keyId,
          'Github-Public-Key-Signature': sign('sha256', Buffer.from(body), signing.privateKey).toString('base64'),
        },
        body,
      });
      const t200 = performance.now();
      await res.text();
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
      for (;;) {
        const d = await keys.findOne({ _id: k.id as never }, { projection: { active: 1 } });
        if (d?.active === false) return performance.now() - t200;
        if (performance.now() - t200 > 30_000) throw new Error('not revoked within 30 s');
        await sleep(2);
      }
    };

    await once(); // warm-up: key document fetch, workflow bundle caches
    const sequential: number[] = [];
    for (let i = 0; i < RUNS; i++) sequential.push(await once());
    const burst = await Promise.all(Array.from({ length: BURST }, () => once()));

    const row = (label: string, xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return {
        label,
        n: s.length,
        p50_ms: round(percentile(s, 50)),
        p95_ms: round(percentile(s, 95)),
        max_ms: round(s[s.length - 1] as number),
      };
    };
    console.log(
      `\nLeaked-key revocation: 200 → key revoked in the store (${os.cpus().length} CPUs, ${os.loadavg()[0]?.toFixed(1)} load)`,
    );
    console.table([row('one delivery at a time', sequential), row(`${BURST} deliveries at once`, burst)]);
  } finally {
    await mc.close();
    await stack.down();
    keyServer.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
