// Concurrency probe of a MongoDB-wire store (issue 22, embedded-store candidates): the batch
// path's operation mix (proof upsert, a bulk of 10 attestation upserts, an audit insertMany,
// a head compare-and-set, a hot-document $inc, a point read, a sorted slot read, now and then
// an insert into a new collection and a createIndex) from --lanes concurrent loops over three
// clients with the service's driver options (core/store.ts: three processes' pools), for
// --seconds. Prints latency per operation, errors, and what the driver's monitor saw (a
// `hello` on its own connection every 200 ms, failed heartbeats, cleared pools): a store that
// stalls its monitor connections makes the driver drop every pool, which is how a hang looks
// from the service. The store must be running already:
//   npx tsx bench/store-concurrency.ts mongodb://127.0.0.1:27017/probe [seconds 30] [lanes 60]
// Use a database of its own: it writes probe collections.
import { MongoClient } from 'mongodb';
import { STORE_CLIENT_OPTIONS } from '../core/store.js';
const uri = process.argv[2] as string;
const SECONDS = Number(process.argv[3] ?? 30);
const LANES = Number(process.argv[4] ?? 60);
const clients = [0, 1, 2].map(() => new MongoClient(uri, STORE_CLIENT_OPTIONS));
const sdam: Record<string, number> = {};
const hb: number[] = [];
for (const c of clients) {
  c.on('serverHeartbeatFailed', () => (sdam.heartbeatFailed = (sdam.heartbeatFailed ?? 0) + 1));
  c.on('connectionPoolCleared', () => (sdam.poolCleared = (sdam.poolCleared ?? 0) + 1));
  c.on('serverHeartbeatSucceeded', (e) => hb.push(e.duration));
}
await Promise.all(clients.map((c) => c.connect()));
const pinger = new MongoClient(uri, { ...STORE_CLIENT_OPTIONS, maxPoolSize: 1 });
const pings: number[] = [];
let pinging = true;
const pingLoop = (async () => {
  while (pinging) {
    const s = performance.now();
    await pinger
      .db()
      .admin()
      .command({ hello: 1 })
      .catch(() => undefined);
    pings.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, 200));
  }
})();
const lat: Record<string, number[]> = {};
const errs: Record<string, number> = {};
let n = 0;
const op = async (name: string, f: () => Promise<unknown>) => {
  const s = performance.now();
  try {
    await f();
    (lat[name] ??= []).push(performance.now() - s);
  } catch (e) {
    errs[`${name}: ${String((e as Error).message).slice(0, 80)}`] =
      (errs[`${name}: ${String((e as Error).message).slice(0, 80)}`] ?? 0) + 1;
  }
};
const end = Date.now() + SECONDS * 1000;
let coll = 0;
await Promise.all(
  Array.from({ length: LANES }, async (_, lane) => {
    const db = clients[lane % 3]!.db();
    while (Date.now() < end) {
      const k = n++;
      await op('proof upsert', () =>
        db
          .collection('proofs')
          .updateOne(
            { _id: `p${k}` as never },
            { $setOnInsert: { artifact: { x: k, pad: 'x'.repeat(500) }, created_at: new Date() } },
            { upsert: true },
          ),
      );
      await op('bulk upserts x10', () =>
        db.collection('attestations').bulkWrite(
          Array.from({ length: 10 }, (_, i) => ({
            updateOne: {
              filter: { _id: `a${k}_${i}` as never },
              update: { $setOnInsert: { token: 't'.repeat(600) } },
              upsert: true,
            },
          })),
          { ordered: false },
        ),
      );
      await op('audit insertMany x5', () =>
        db.collection('audit_logs').insertMany(
          Array.from({ length: 5 }, (_, i) => ({
            _id: `l${k}_${i}` as never,
            organization_id: `org${lane % 4}`,
            seq: k * 10 + i,
            pad: 'y'.repeat(400),
          })),
        ),
      );
      await op('head CAS {_id, seq}', () =>
        db
          .collection('audit_heads')
          .updateOne({ _id: `org${lane % 4}` as never, seq: k }, { $set: { seq: k + 1 } }, { upsert: false }),
      );
      await op('hot $inc {_id} (4 docs)', () =>
        db.collection('counters').updateOne({ _id: `hot${lane % 4}` as never }, { $inc: { n: 1 } }, { upsert: true }),
      );
      await op('findOne {_id}', () => db.collection('proofs').findOne({ _id: `p${Math.max(0, k - 5)}` as never }));
      await op('slots find sort', () =>
        db.collection('batch_slots').find({ state: 'free' }).sort({ _id: 1 }).limit(4).toArray(),
      );
      if (k % 25 === 0)
        await op('insert into a NEW collection', () =>
          db.collection(`fresh_${coll++}`).insertOne({ _id: 'x' as never }),
        );
      if (k % 50 === 0)
        await op('createIndex', () =>
          db
            .collection('audit_logs')
            .createIndex({ organization_id: 1, seq: 1 }, { unique: false, name: `i${k % 3}` })
            .catch(() => undefined),
        );
    }
  }),
);
for (const [k, v] of Object.entries(lat)) {
  v.sort((a, b) => a - b);
  console.log(
    k.padEnd(32),
    'n',
    v.length,
    'p50',
    v[Math.floor(v.length / 2)]!.toFixed(0),
    'p99',
    v[Math.floor(v.length * 0.99)]!.toFixed(0),
    'max',
    v[v.length - 1]!.toFixed(0),
  );
}
console.log('errors', errs);
pinging = false;
await pingLoop;
pings.sort((a, b) => a - b);
hb.sort((a, b) => a - b);
console.log(
  'hello on its own connection: n',
  pings.length,
  'p50',
  pings[Math.floor(pings.length / 2)]?.toFixed(0),
  'max',
  pings[pings.length - 1]?.toFixed(0),
  '; heartbeats max',
  hb[hb.length - 1],
  'sdam',
  sdam,
);
await pinger.close();
await Promise.all(clients.map((c) => c.close()));
