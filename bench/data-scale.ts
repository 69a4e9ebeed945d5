// Benchmark: is the service flat with data? Measures POST /verify/math (8 clients, 12 s, the
// issue-14 body) and the list endpoints on an empty store, then seeds the store directly
// (insertMany in chunks, through the store layer: valid hash-chained audit entries with their
// position index, proofs, attestation records) with 100,000 verifications of the benchmark
// organization plus other organizations, and measures the same again in the same run.
//   npx tsx bench/data-scale.ts [--entries 100000] [--other-orgs 3] [--other-entries 10000] [--seconds 12] [--clients 8]
// Ports: a private stack on the test ports shifted by SVC_BENCH_PORT_OFFSET (default 23000).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { startBenchStack, percentile } from './bench-stack.js';
import { Store } from '../core/store.js';
import { buildEntry } from '../core/audit-chain.js';
import { seqKey, type AuditLogDoc, type AuditSeqDoc, type AuditHeadDoc } from '../core/audit-log.js';
import { sha256Ref } from '../core/canonical-json.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const ENTRIES = Number(arg('entries', '100000'));
const OTHER_ORGS = Number(arg('other-orgs', '3'));
const OTHER_ENTRIES = Number(arg('other-entries', '10000'));
const SECONDS = Number(arg('seconds', '12'));
const CLIENTS = Number(arg('clients', '8'));
const CHUNK = 1000;
const BODY = JSON.stringify({ expression: '(x+1)**2 = x**2 + 2*x + 1' });

const round = (n: number) => Math.round(n * 10) / 10;

interface Load {
  rps: number;
  p50: number;
  p95: number;
  errors: number;
}

async function load(base: string, key: string): Promise<Load> {
  const lat: number[] = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const res = await fetch(`${base}/verify/math`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: BODY }).catch(() => null);
        if (res?.status === 200) {
          await res.arrayBuffer();
          lat.push(performance.now() - s);
        } else {
          errors++;
          await res?.arrayBuffer();
        }
      }
    }),
  );
  const wall = performance.now() - t0;
  lat.sort((a, b) => a - b);
  return { rps: round((lat.length / wall) * 1000), p50: round(percentile(lat, 50)), p95: round(percentile(lat, 95)), errors };
}

/** Per call: a list endpoint slower than this is reported as such instead of waited for. */
const CALL_TIMEOUT_MS = 60_000;

/** Median of 5 calls of each list endpoint (after one warm-up call); reports (`/metrics/{org_id}`) are timed once. */
async function lists(base: string, key: string, token: string, orgId: string, phase: string): Promise<Record<string, number | string>> {
  const bearer = { authorization: `Bearer ${token}` };
  const apiKey = { 'x-api-key': key };
  const endpoints: Array<[string, string, Record<string, string>]> = [
    ['GET /audit/logs (limit 50)', '/audit/logs', bearer],
    ['GET /audit/logs?limit=200', '/audit/logs?limit=200', bearer],
    ['GET /audit/logs?status=verified', '/audit/logs?status=verified', bearer],
    ['GET /audit/logs?status=blocked', '/audit/logs?status=blocked', bearer],
    ['GET /logs?limit=50 + next page', '/logs?limit=50', apiKey],
    ['GET /audit/export (1,000 rows)', '/audit/export', bearer],
    ['GET /auth/api-keys', '/auth/api-keys', bearer],
    // A report (verdict counts aggregate the organization's entries): timed once, not a list.
    [`GET /metrics/{org_id} (report, 1 call)`, `/metrics/${orgId}`, apiKey],
  ];
  const out: Record<string, number | string> = {};
  for (const [label, path, headers] of endpoints) {
    const times: number[] = [];
    const calls = path.startsWith('/metrics/') ? 1 : 6;
    for (let i = 0; i < calls; i++) {
      const s = performance.now();
      const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }).catch(() => null);
      if (!res) {
        out[label] = `> ${CALL_TIMEOUT_MS}`;
        break;
      }
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
      if (path.startsWith('/logs')) {
        const next = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        if (next) await (await fetch(`${base}/logs?limit=50&cursor=${next}`, { headers })).text();
      }
      if (i > 0 || calls === 1) times.push(performance.now() - s);
    }
    if (out[label] === undefined) {
      times.sort((a, b) => a - b);
      out[label] = round(percentile(times, 50));
    }
    console.error(`[${phase}] ${label}: ${out[label]} ms`);
  }
  return out;
}

/** Appends `n` valid entries (with proofs and attestation records) to `orgId`'s chain, directly in the store. */
async function seedOrg(store: Store, orgId: string, n: number, secret: string): Promise<void> {
  const heads = store.collection<AuditHeadDoc>('audit_heads');
  const head = await heads.findOne({ _id: orgId });
  let seq = head?.seq ?? 0;
  let prev = head?.head_hash ?? null;
  const stamp = Date.now().toString(36);
  for (let done = 0; done < n; done += CHUNK) {
    const logs: AuditLogDoc[] = [];
    const idx: AuditSeqDoc[] = [];
    const proofs: Array<Record<string, unknown>> = [];
    const atts: Array<Record<string, unknown>> = [];
    for (let i = 0; i < Math.min(CHUNK, n - done); i++) {
      seq++;
      const k = done + i;
      // Mostly VERIFIED identities, every tenth BLOCKED (the status filters have something to find).
      const blocked = k % 10 === 9;
      const artifact = { engine: 'math', expression: `(x+${k})^2 = x^2 + ${2 * k}*x + ${k * k}`, seeded: stamp };
      const proofRef = sha256Ref(artifact);
      const jti = `att_seed_${stamp}_${orgId.slice(-6)}_${k}`;
      const workflowId = `seed-${stamp}-${orgId}-${k}`;
      const entry = buildEntry(
        {
          organization_id: orgId,
          user_id: null,
          query: artifact.expression,
          result: blocked
            ? { status: 'BLOCKED', admission: null, proof_ref: null, attestation_id: null, key_id: null, workflow_id: workflowId, request_digest: null }
            : { status: 'VERIFIED', admission: null, proof_ref: proofRef, attestation_id: jti, key_id: null, workflow_id: workflowId, request_digest: null },
          verified: !blocked,
          domain: 'math',
          timestamp: new Date(),
        },
        prev,
        secret,
      );
      const logId = `log_${randomBytes(16).toString('hex')}`;
      logs.push({ _id: logId, seq, ...entry });
      idx.push({ _id: seqKey(orgId, seq), log_id: logId, verified: !blocked, blocked });
      prev = entry.entry_hash;
      if (!blocked) {
        proofs.push({ _id: proofRef, artifact, engine: 'math', org_id: orgId, created_at: new Date() });
        atts.push({ _id: jti, org_id: orgId, token: 'seeded', claims: {}, status: 'ISSUED', engine: 'math', proof_ref: proofRef, created_at: new Date() });
      }
    }
    await store.collection<AuditLogDoc>('audit_logs').insertMany(logs, { ordered: false });
    await store.collection<AuditSeqDoc>('audit_seq').insertMany(idx, { ordered: false });
    if (proofs.length) await store.collection('proofs').insertMany(proofs as never[], { ordered: false });
    if (atts.length) await store.collection('attestations').insertMany(atts as never[], { ordered: false });
  }
  if (head) await heads.updateOne({ _id: orgId }, { $set: { seq, head_hash: prev as string, updated_at: new Date() } });
  else await heads.insertOne({ _id: orgId, seq, head_hash: prev as string, updated_at: new Date() });
}

async function main() {
  const { stack, base, key, token, orgId } = await startBenchStack('bench-scale', Number(process.env.SVC_BENCH_PORT_OFFSET ?? 23_000), {});
  const secret = stack.env.SVC_AUDIT_SECRET_KEY as string;
  try {
    // Warm-up (workflow bundle, JIT, connections), then the empty-store figures.
    await load(base, key).catch(() => undefined);
    const emptyLoad = await load(base, key);
    const emptyLists = await lists(base, key, token, orgId, 'empty');
    console.error(`[empty] /verify/math ${JSON.stringify(emptyLoad)}`);

    const store = await Store.connect(stack.mongodbUri);
    const t0 = performance.now();
    await seedOrg(store, orgId, ENTRIES, secret);
    for (let o = 0; o < OTHER_ORGS; o++) await seedOrg(store, `org_seed_${o}_${randomBytes(4).toString('hex')}`, OTHER_ENTRIES, secret);
    const seedS = (performance.now() - t0) / 1000;
    console.error(`seeded in ${round(seedS)} s`);
    // (No count queries: on FerretDB even estimatedDocumentCount reads the collection.)
    const counts = { audit_entries: ENTRIES + OTHER_ORGS * OTHER_ENTRIES, proofs_and_attestations: Math.round((ENTRIES + OTHER_ORGS * OTHER_ENTRIES) * 0.9) };
    await store.close();

    const fullLoad = await load(base, key);
    console.error(`[seeded] /verify/math ${JSON.stringify(fullLoad)}`);
    const fullLists = await lists(base, key, token, orgId, 'seeded');

    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs; seeded in ${round(seedS)} s: ${JSON.stringify(counts)}`);
    console.log(`POST /verify/math, ${CLIENTS} clients, ${SECONDS} s each:`);
    console.table([
      { store: 'empty', ...emptyLoad },
      { store: `${ENTRIES.toLocaleString('en')} entries (+${OTHER_ORGS} orgs x ${OTHER_ENTRIES.toLocaleString('en')})`, ...fullLoad },
    ]);
    const ratio = fullLoad.rps / Math.max(emptyLoad.rps, 0.001);
    console.log(`throughput seeded / empty = ${(ratio * 100).toFixed(0)} % (goal: within 10 %): ${ratio >= 0.9 ? 'met' : 'NOT met'}`);
    console.log('list endpoints, median ms of 5 calls:');
    console.table(Object.keys(emptyLists).map((label) => ({ endpoint: label, empty_ms: emptyLists[label], seeded_ms: fullLists[label] })));
  } finally {
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
