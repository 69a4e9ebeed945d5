// Starts one private stack for all HTTP tests (fresh data folder, test ports) and stops it
// after. Tests run in other processes, so the stack is also controlled over a small loopback
// HTTP endpoint (stop/start/kill a component) for the fail-closed and durability tests.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { Stack, TEST_PORTS, testPorts, type ManagedProcess } from '../../infra/stack.js';
import { scanForLiveKeys } from '../../core/api-keys.js';
import { PASSWORD_FOR_LEAK_SCAN } from './leak-markers.js';
import { providerEnv, startProviderServer, TEST_PROVIDER_KEY } from './provider-server.js';
import { captureEnv } from '../store-commands/env.js';
import { contractReport } from '../store-commands/contract.js';
import { ROOT } from '../../infra/stack.js';
import { testHarnessPorts } from '../../infra/ports.js';
import { SharedProcesses, type SharedRequest } from './extra-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    controlUrl: string;
    stackEnv: Record<string, string>;
    ports: typeof TEST_PORTS;
    dataDir: string;
    /** A user id the stack's codec server (only) treats as an operator; nobody has it until a test seeds it. */
    codecOperatorId: string;
    /** Where the stack's API and worker record their store commands ('' when SVC_TEST_STORE_CAPTURE=0). */
    storeCaptureDir: string;
  }
}

/** test/http/temporal-ui-browser.test.ts seeds this operator to sign in at the codec server. */
const CODEC_OPERATOR_ID = `usr_uiop${randomBytes(8).toString('hex')}`;

const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
const CONTROL_PORT = testHarnessPorts(OFFSET).control;
/**
 * The store contract (issue 22): the stack's service processes record every store command
 * (test/store-commands/capture.mjs); test/http/store-contract.test.ts and the last teardown
 * fail on a read of a growing collection that is not a point lookup (test/store-commands/contract.ts).
 */
const STORE_CAPTURE_DIR =
  process.env.SVC_TEST_STORE_CAPTURE === '0' ? '' : path.join(ROOT, '.data', `store-capture-${OFFSET}`);
/** Served by test/http/secret-scanning.test.ts: the signing-key document (/keys) and the feedback sink (/feedback). */
export const LEAK_FIXTURE_PORT = testHarnessPorts(OFFSET).leakFixture;

/** Reads a request's JSON body. */
async function jsonBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text);
}

function controlServer(stack: Stack, shared: SharedProcesses): Server {
  const byName: Record<string, ManagedProcess | null> = {
    temporal: stack.temporal,
    ferretdb: stack.ferret,
    worker: stack.worker,
    api: stack.api,
    smtp: stack.smtp,
  };
  return createServer((req, res) => {
    // Shared extra processes (test/http/extra-process.ts): one per kind and environment.
    if (req.method === 'POST' && ['/shared', '/shared/release', '/shared/stop-all'].includes(req.url ?? '')) {
      const asked = () =>
        jsonBody(req).then((body) => {
          const r = body as SharedRequest;
          const env = Object.fromEntries(Object.entries(r.env).map(([k, v]) => [k, v ?? undefined]));
          return { kind: r.kind, name: r.name, env };
        });
      const done =
        req.url === '/shared'
          ? asked().then((r) => shared.acquire(r))
          : req.url === '/shared/release'
            ? asked().then((r) => (shared.release(r), { ok: true }))
            : shared.stopAll().then(() => ({ ok: true }));
      done.then(
        (out) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out)),
        (err: Error) => res.writeHead(500).end(JSON.stringify({ ok: false, error: err.message })),
      );
      return;
    }
    const m = /^\/(stop|start|kill9)\/(temporal|ferretdb|worker|api|smtp)$/.exec(req.url ?? '');
    const proc = m ? byName[m[2] as string] : null;
    if (!m || !proc || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    // A stop answers how the process ended: 'exited' on SIGTERM, or 'killed' by the SIGKILL after the grace.
    const action: Promise<unknown> = m[1] === 'stop' ? proc.stop() : m[1] === 'kill9' ? proc.kill9() : proc.start();
    action.then(
      (ended) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ok: true, ...(typeof ended === 'string' ? { ended } : {}) })),
      (err: Error) => res.writeHead(500).end(JSON.stringify({ ok: false, error: err.message })),
    );
  });
}

interface SharedStack {
  apiUrl: string;
  stackEnv: Record<string, string>;
  dataDir: string;
  teardown: () => Promise<void>;
}

// Both HTTP projects (the parallel 'http' and the one-at-a-time 'http-serial', see
// vitest.config.ts) name this file as their global setup, and vitest runs each project's
// global setup in the same main process, one after the other: the first starts the stack, the
// second reuses it, and the last teardown stops it (after the leak scan over everything).
const shared = globalThis as typeof globalThis & { __svcTestStack?: { users: number; ready: Promise<SharedStack> } };

export default async function setup(project: TestProject) {
  shared.__svcTestStack ??= { users: 0, ready: startStack() };
  const entry = shared.__svcTestStack;
  entry.users++;
  let stack: SharedStack;
  try {
    stack = await entry.ready;
  } catch (err) {
    entry.users--;
    throw err;
  }
  project.provide('apiUrl', stack.apiUrl);
  project.provide('controlUrl', `http://127.0.0.1:${CONTROL_PORT}`);
  project.provide('stackEnv', stack.stackEnv);
  project.provide('ports', testPorts(OFFSET));
  project.provide('dataDir', stack.dataDir);
  project.provide('codecOperatorId', CODEC_OPERATOR_ID);
  project.provide('storeCaptureDir', STORE_CAPTURE_DIR);
  return async () => {
    entry.users--;
    if (entry.users > 0) return;
    delete shared.__svcTestStack;
    await stack.teardown();
  };
}

async function startStack(): Promise<SharedStack> {
  // The scripted LLM provider (OpenAI and Anthropic wire formats) on an ephemeral port.
  const providers = await startProviderServer();
  if (STORE_CAPTURE_DIR) {
    rmSync(STORE_CAPTURE_DIR, { recursive: true, force: true });
    mkdirSync(STORE_CAPTURE_DIR, { recursive: true });
  }
  const stack = new Stack({
    profile: OFFSET ? `test-${OFFSET}` : 'test',
    ports: testPorts(OFFSET),
    fresh: true,
    codecOperatorIds: [CODEC_OPERATOR_ID],
    // Tests come from loopback; trusting it lets each test tenant use its own X-Forwarded-For bucket.
    env: {
      SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1',
      // Leaked-key intake: a local key server and feedback sink (raw asked for, but the URL is not HTTPS: hashes only).
      SVC_SECRET_SCANNING_KEYS_URL: `http://127.0.0.1:${LEAK_FIXTURE_PORT}/keys`,
      SVC_LEAK_FEEDBACK_ENABLED: 'true',
      SVC_LEAK_FEEDBACK_URL: `http://127.0.0.1:${LEAK_FIXTURE_PORT}/feedback`,
      SVC_LEAK_FEEDBACK_SEND_RAW: 'true',
      ...providerEnv(providers),
      ...(STORE_CAPTURE_DIR ? captureEnv(STORE_CAPTURE_DIR) : {}),
    },
  });
  // A worker bundles its workflows and warms its engines before it is ready: on a loaded
  // 2-core machine (CI beside other jobs) that can take longer than the dev stack's 3 minutes.
  stack.worker.spec.readyTimeoutMs = Math.max(stack.worker.spec.readyTimeoutMs, 600_000);
  // What a test process sees of the stack's environment (inject('stackEnv')), read once it is up.
  const stackEnv = () =>
    Object.fromEntries(
      Object.entries(stack.env).filter(
        ([k]) => k.startsWith('SVC_') || k === 'MONGODB_URI' || k === 'TEMPORAL_ADDRESS',
      ),
    ) as Record<string, string>;
  const sharedProcs = new SharedProcesses(() => ({ stackEnv: stackEnv(), dataDir: stack.dataDir }));
  const server = controlServer(stack, sharedProcs);
  try {
    await stack.up();
  } catch (err) {
    await stack.down();
    await providers.close();
    throw err;
  }
  await new Promise<void>((r) => server.listen(CONTROL_PORT, '127.0.0.1', r));
  return {
    apiUrl: stack.apiUrl,
    stackEnv: stackEnv(),
    dataDir: stack.dataDir,
    teardown: async () => {
      server.close();
      await sharedProcs.stopAll();
      console.log(
        `shared extra processes: ${sharedProcs.counts.starts} started for ${sharedProcs.counts.requests} requests`,
      );
      let leaks: string[] = [];
      try {
        leaks = await scanForLeaks(stack);
      } finally {
        await stack.down();
        await providers.close();
      }
      if (leaks.length > 0) throw new Error(`secrets or raw keys leaked:\n${leaks.join('\n')}`);
      // The whole suite's store commands against the contract (after the stack stopped: every line flushed).
      if (STORE_CAPTURE_DIR) {
        const report = contractReport(STORE_CAPTURE_DIR);
        console.log(report.summary);
        if (report.failures.length > 0)
          throw new Error(`store contract (issue 22) broken:\n${report.failures.join('\n')}`);
      }
    },
  };
}

/**
 * After the suite: no raw API key (any checksum-valid svc_live_ key), no test password and no
 * server secret may appear in any log line or any stored document.
 */
async function scanForLeaks(stack: Stack): Promise<string[]> {
  const secrets = ['SVC_JWT_SECRET_KEY', 'SVC_API_KEY_LOOKUP_SECRET', 'SVC_AUDIT_SECRET_KEY', 'SVC_WORKFLOW_INPUT_KEY']
    .map((k) => stack.env[k])
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
  // Temporal payload keys (base64 key material) never appear either.
  const payloadKeys = Object.values(JSON.parse(stack.env.SVC_TEMPORAL_PAYLOAD_KEYS ?? '{}') as Record<string, string>);
  const needles = [PASSWORD_FOR_LEAK_SCAN, ...secrets, ...payloadKeys];
  needles.push(TEST_PROVIDER_KEY); // the LLM provider key never reaches a log line or the store
  const leaks: string[] = [];
  const check = (where: string, text: string) => {
    for (const m of scanForLiveKeys(text)) leaks.push(`${where}: raw API key ${m.key.slice(0, 12)}…`);
    for (const n of needles) if (text.includes(n)) leaks.push(`${where}: a secret or password`);
  };
  const logDir = path.join(stack.dataDir, 'logs');
  for (const f of readdirSync(logDir)) check(`log ${f}`, readFileSync(path.join(logDir, f), 'utf8'));
  const client = new MongoClient(stack.mongodbUri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    const db = client.db();
    for (const { name } of await db.listCollections().toArray()) {
      for await (const doc of db.collection(name).find({})) check(`store ${name}`, JSON.stringify(doc));
    }
  } finally {
    await client.close();
  }
  return leaks;
}
