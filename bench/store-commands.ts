// Which commands does the service send to the store, per request? (issue 22). Starts a private
// stack whose API and worker processes preload test/store-commands/capture.mjs (the driver's
// command monitoring; no service code changed), runs a short workload in phases, and prints the
// classification of the recorded commands per phase: per collection (point by _id, _id range,
// scan, sort, count, upsert, insert) and per code site, with the round trips per request.
//   npx tsx bench/store-commands.ts [--verifications 10] [--batch-items 10] [--out .data/store-commands-capture]
// Ports: the test ports shifted by SVC_TEST_PORT_OFFSET (default 800).
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBenchStack } from './bench-stack.js';
import { testPorts, ROOT } from '../infra/stack.js';
import { classify, readCapture, summarize, violations, type Classified } from '../test/store-commands/classify.js';
import { captureEnv } from '../test/store-commands/env.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : def;
};
const VERIFICATIONS = Number(arg('verifications', '10'));
const BATCH_ITEMS = Number(arg('batch-items', '10'));
const OUT = path.resolve(arg('out', path.join(ROOT, '.data', 'store-commands-capture')));
const SITES = args.includes('--sites');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const offset = Number(process.env.SVC_TEST_PORT_OFFSET ?? 800);
  const { stack, base, key, token, orgId } = await startBenchStack(
    'store-commands',
    offset,
    { ...captureEnv(OUT), SVC_BATCH_WAIT_SECONDS: '60' },
    { ports: testPorts(offset) },
  );
  const phases: Array<{ name: string; from: number; to: number; requests: number }> = [];
  const phase = async (name: string, requests: number, fn: () => Promise<void>) => {
    await sleep(1500); // let the previous phase's trailing writes (audit, coalesced upserts) land
    const from = Date.now();
    await fn();
    await sleep(1500);
    phases.push({ name, from, to: Date.now(), requests });
    console.error(`[phase] ${name}: ${Date.now() - from} ms`);
  };
  const json = { 'content-type': 'application/json', 'x-api-key': key };
  const expect200 = async (res: Response, what: string) => {
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${body.slice(0, 300)}`);
    return body;
  };
  try {
    // Warm-up: connections, the workflow bundle, JIT (its commands are not counted).
    await expect200(
      await fetch(`${base}/verify/math`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ expression: '(x+2)^2 = x^2 + 4*x + 4' }),
      }),
      'warm-up',
    );
    await phase('idle (background only, 5 s)', 0, async () => void (await sleep(5000)));
    let attestationId = '';
    await phase(`/verify/math x${VERIFICATIONS}, distinct identities, sequential`, VERIFICATIONS, async () => {
      for (let i = 0; i < VERIFICATIONS; i++) {
        const body = JSON.parse(
          await expect200(
            await fetch(`${base}/verify/math`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ expression: `(x+${i + 3})^2 = x^2 + ${2 * (i + 3)}*x + ${(i + 3) ** 2}` }),
            }),
            'verify/math',
          ),
        );
        attestationId = body.attestation?.id ?? attestationId;
      }
    });
    await phase(`/verify/math x${VERIFICATIONS * 2}, 8 concurrent clients`, VERIFICATIONS * 2, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < VERIFICATIONS * 2) {
            const i = next++;
            await expect200(
              await fetch(`${base}/verify/math`, {
                method: 'POST',
                headers: json,
                body: JSON.stringify({ expression: `(z+${i + 1})^2 = z^2 + ${2 * (i + 1)}*z + ${(i + 1) ** 2}` }),
              }),
              'verify/math',
            );
          }
        }),
      );
    });
    await phase(`/verify/math x${VERIFICATIONS}, the same identity again (proof exists)`, VERIFICATIONS, async () => {
      for (let i = 0; i < VERIFICATIONS; i++) {
        await expect200(
          await fetch(`${base}/verify/math`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ expression: '(x+3)^2 = x^2 + 6*x + 9' }),
          }),
          'verify/math',
        );
      }
    });
    let jobId = '';
    await phase(`POST /verify/batch, ${BATCH_ITEMS} math items (waits for completion)`, BATCH_ITEMS, async () => {
      const items = Array.from({ length: BATCH_ITEMS }, (_, i) => ({
        type: 'math',
        query: `(y+${i + 1})*(y-${i + 1}) = y^2 - ${(i + 1) ** 2}`,
      }));
      const t0 = performance.now();
      const body = JSON.parse(
        await expect200(
          await fetch(`${base}/verify/batch`, { method: 'POST', headers: json, body: JSON.stringify({ items }) }),
          'batch',
        ),
      );
      jobId = body.job_id;
      console.error(
        `batch ${jobId}: ${body.completed_items}/${BATCH_ITEMS} in ${Math.round(performance.now() - t0)} ms`,
      );
    });
    await phase('GET /verify/batch/{job_id} x1', 1, async () => {
      await expect200(await fetch(`${base}/verify/batch/${jobId}`, { headers: json }), 'batch get');
    });
    const bearer = { authorization: `Bearer ${token}` };
    const logs = JSON.parse(
      await expect200(await fetch(`${base}/audit/logs?limit=1`, { headers: bearer }), 'audit logs'),
    ) as { logs: Array<{ id: string }> };
    const logId = logs.logs[0]?.id ?? 'none';
    for (const [label, url, headers] of [
      ['GET /audit/logs/{log_id}', `/audit/logs/${logId}`, bearer],
      ['GET /attestation/{id}', `/attestation/${attestationId}`, { 'x-api-key': key }],
      ['GET /badge/attestation/{id}', `/badge/attestation/${attestationId}`, {}],
      ['GET /admin/compliance/verify/{log_id}', `/admin/compliance/verify/${logId}`, { 'x-api-key': key }],
      ['GET /admin/compliance/report/soc2/{org_id}', `/admin/compliance/report/soc2/${orgId}`, { 'x-api-key': key }],
      ['GET /admin/security/threats/{org_id}', `/admin/security/threats/${orgId}`, { 'x-api-key': key }],
      ['GET /admin/compliance/export/csv', '/admin/compliance/export/csv', { 'x-api-key': key }],
      ['GET /audit/logs', '/audit/logs', bearer],
      ['GET /logs?limit=50', '/logs?limit=50', { 'x-api-key': key }],
      ['GET /audit/export', '/audit/export', bearer],
      ['GET /metrics/{org_id}', `/metrics/${orgId}`, { 'x-api-key': key }],
      ['GET /auth/api-keys', '/auth/api-keys', bearer],
    ] as Array<[string, string, Record<string, string>]>) {
      await phase(
        `${label} x1`,
        1,
        async () => void (await expect200(await fetch(`${base}${url}`, { headers }), label)),
      );
    }
  } finally {
    await stack.down();
  }

  const all = readCapture(OUT);
  console.log(`captured ${all.length} commands from ${new Set(all.map((c) => c.role)).size} process roles in ${OUT}`);
  for (const ph of phases) {
    const commands = all.filter(
      (c) =>
        c.t >= ph.from &&
        c.t <= ph.to &&
        !['endSessions', 'ping', 'killCursors', 'createIndexes', 'listIndexes'].includes(c.cmd),
    );
    const ops: Classified[] = commands.flatMap(classify).filter((o) => o.cls !== 'admin' && o.cls !== 'getMore');
    const s = summarize(ops);
    const per = (n: number) => (ph.requests ? ` (${(n / ph.requests).toFixed(1)} per request)` : '');
    console.log(
      `\n## ${ph.name}: ${commands.length} round trips${per(commands.length)}, ${ops.length} operations${per(ops.length)}; ${violations(ops).length} read a growing collection without a key`,
    );
    console.table(s.byCollection);
    if (SITES)
      console.table(
        s.bySite.map((r) => ({ ...r, per_request: ph.requests ? Math.round((r.n / ph.requests) * 10) / 10 : r.n })),
      );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
