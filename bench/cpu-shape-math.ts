// Is the math workflow's SHAPE what costs above the eager floor (issue 22)? On the floor's harness
// (bench/eager-floor.ts: client and worker in this process sharing one connection, eager start,
// the same bundle, codec, input signature and grant), verifyWorkflow with a signed math input whose
// activity is replaced, for this measurement only, by one answering a canned result of a real one's size (no engine, no store), with and
// without the API's execution time-out, against noopWorkflow; interleaved 5 s slices at 8 clients,
// this process's CPU and Temporal's per run.
//   npx tsx bench/cpu-shape-math.ts   (ports: SVC_DEV_PORT_OFFSET)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startBenchStack } from './bench-stack.js';
import { groupCpuMs } from './proc-sample.js';
import { devPorts } from '../infra/stack.js';
import { selfCpuMs } from './eager-floor.js';
import { workflowBundle } from '../workers/workflow-bundle.js';
import { temporalDataConverter } from '../core/payload-codec.js';
import { workflowInputAuthClientInterceptor, workflowInputKey } from '../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../activities/input-auth.js';

const b = await startBenchStack(
  'bench-shape',
  0,
  {},
  { ports: devPorts(Number(process.env.SVC_DEV_PORT_OFFSET ?? 0)) },
);
const env = b.stack.env;
const temporal = Number(readFileSync(path.join(b.stack.dataDir, 'pids', 'temporal.pid'), 'utf8'));
const inputKey = workflowInputKey(env);
const taskQueue = 'shape-exp';
const connection = await NativeConnection.connect({ address: b.stack.urls.temporal_grpc as string });
const canned = {
  is_valid: true,
  result: true,
  left_side: 'x^2 + 2*x + 1',
  right_side: 'x^2 + 2*x + 1',
  simplified_difference: '0',
  is_equivalent: true,
  method: 'canonical_form',
  message: 'Identity proven: both sides reduce to the same canonical form (difference 0).',
  status: 'VERIFIED',
  proof_ref: `sha256:${'a'.repeat(64)}`,
  is_authoritative: true,
  attestation: { id: `att_${'b'.repeat(32)}`, token: 'e'.repeat(760), status: 'ISSUED' },
};
const worker = await Worker.create({
  connection,
  taskQueue,
  dataConverter: temporalDataConverter(env, { refuseUnencrypted: true }),
  workflowBundle: await workflowBundle(),
  activities: { ...makeAuthenticateInputActivity(inputKey), verifyMathActivity: async () => canned },
  interceptors: { activity: [activityGrantInterceptor(inputKey)] },
  enableNonLocalActivities: false,
});
const running = worker.run();
const client = new Client({
  connection,
  dataConverter: temporalDataConverter(env),
  interceptors: { workflow: [workflowInputAuthClientInterceptor(inputKey)] },
});
let i = 0;
const args = (orgId: string) => ({
  engine: 'math',
  input: { expression: '(x+1)**2 = x**2 + 2*x + 1' },
  org_id: orgId,
  timeout_ms: 5000,
  provider_timeout_ms: 30000,
  activity_mode: 'local',
  audit: { user_id: 'usr_x', key_id: 'key_x', request_digest: `sha256:${'c'.repeat(64)}` },
  audit_in_engine_activity: true,
  input_auth_in_engine_activity: true,
});
const kinds: Record<string, () => Promise<boolean>> = {
  noop: async () => {
    const h = await client.workflow.start('noopWorkflow', {
      taskQueue,
      workflowId: `shape-${process.pid}-${i++}`,
      requestEagerStart: true,
    });
    return (await h.result()) === 'ok';
  },
  'math shape': async () => {
    const h = await client.workflow.start('verifyWorkflow', {
      taskQueue,
      workflowId: `verify-math-org_x-${process.pid}-${i++}`,
      args: [args('org_x')],
      requestEagerStart: true,
      workflowExecutionTimeout: 15_000,
    });
    return ((await h.result()) as { status: string }).status === 'VERIFIED';
  },
  'math shape, no exec timeout': async () => {
    const h = await client.workflow.start('verifyWorkflow', {
      taskQueue,
      workflowId: `verify-math-org_x-${process.pid}-${i++}`,
      args: [args('org_x')],
      requestEagerStart: true,
    });
    return ((await h.result()) as { status: string }).status === 'VERIFIED';
  },
};
for (const f of Object.values(kinds)) {
  const ok = await f().catch((e) => {
    console.log(String(e).slice(0, 300));
    return false;
  });
  if (!ok) console.log('FAILED first run');
  for (let k = 0; k < 30; k++) await f().catch(() => false);
}
const res: Record<string, { n: number; f: number; self: number; t: number }> = {};
for (let round = 0; round < 4; round++) {
  const names = Object.keys(kinds);
  if (round % 2) names.reverse();
  for (const name of names) {
    const s0 = selfCpuMs();
    const t0 = groupCpuMs(temporal);
    let n = 0;
    let failed = 0;
    const end = performance.now() + 5000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < end)
          if (await kinds[name]!().catch(() => false)) n++;
          else failed++;
      }),
    );
    const r = (res[name] ??= { n: 0, f: 0, self: 0, t: 0 });
    r.n += n;
    r.f += failed;
    r.self += selfCpuMs() - s0;
    r.t += groupCpuMs(temporal) - t0;
  }
}
for (const [k, r] of Object.entries(res))
  console.log(
    k.padEnd(30),
    'n',
    r.n,
    'failed',
    r.f,
    'process ms',
    (r.self / (r.n + r.f)).toFixed(2),
    'temporal ms',
    (r.t / (r.n + r.f)).toFixed(2),
  );
worker.shutdown();
await running.catch(() => undefined);
await connection.close();
await b.stack.down();
process.exit(0);
