// Starts one private stack for all HTTP tests (fresh data folder, test ports) and stops it
// after. Tests run in other processes, so the stack is also controlled over a small loopback
// HTTP endpoint (stop/start/kill a component) for the fail-closed and durability tests.
import { createServer, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { Stack, TEST_PORTS, testPorts, type ManagedProcess } from '../../infra/stack.js';
import { scanForLiveKeys } from '../../core/api-keys.js';
import { PASSWORD_FOR_LEAK_SCAN } from './leak-markers.js';
import { providerEnv, startProviderServer, TEST_PROVIDER_KEY } from './provider-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    controlUrl: string;
    stackEnv: Record<string, string>;
    ports: typeof TEST_PORTS;
    dataDir: string;
  }
}

const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
const CONTROL_PORT = 18999 + OFFSET;

function controlServer(stack: Stack): Server {
  const byName: Record<string, ManagedProcess | null> = {
    temporal: stack.temporal,
    ferretdb: stack.ferret,
    worker: stack.worker,
    api: stack.api,
  };
  return createServer((req, res) => {
    const m = /^\/(stop|start|kill9)\/(temporal|ferretdb|worker|api)$/.exec(req.url ?? '');
    const proc = m ? byName[m[2] as string] : null;
    if (!m || !proc || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const action = m[1] === 'stop' ? proc.stop() : m[1] === 'kill9' ? proc.kill9() : proc.start();
    action.then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
      (err: Error) => res.writeHead(500).end(JSON.stringify({ ok: false, error: err.message })),
    );
  });
}

export default async function setup(project: TestProject) {
  // The scripted LLM provider (OpenAI and Anthropic wire formats) on an ephemeral port.
  const providers = await startProviderServer();
  const stack = new Stack({
    profile: OFFSET ? `test-${OFFSET}` : 'test',
    ports: testPorts(OFFSET),
    fresh: true,
    // Tests come from loopback; trusting it lets each test tenant use its own X-Forwarded-For bucket.
    env: { SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1', ...providerEnv(providers) },
  });
  const server = controlServer(stack);
  try {
    await stack.up();
  } catch (err) {
    await stack.down();
    await providers.close();
    throw err;
  }
  await new Promise<void>((r) => server.listen(CONTROL_PORT, '127.0.0.1', r));
  project.provide('apiUrl', stack.apiUrl);
  project.provide('controlUrl', `http://127.0.0.1:${CONTROL_PORT}`);
  project.provide(
    'stackEnv',
    Object.fromEntries(
      Object.entries(stack.env).filter(([k]) => k.startsWith('SVC_') || k === 'MONGODB_URI' || k === 'TEMPORAL_ADDRESS'),
    ) as Record<string, string>,
  );
  project.provide('ports', testPorts(OFFSET));
  project.provide('dataDir', stack.dataDir);
  return async () => {
    server.close();
    let leaks: string[] = [];
    try {
      leaks = await scanForLeaks(stack);
    } finally {
      await stack.down();
      await providers.close();
    }
    if (leaks.length > 0) throw new Error(`secrets or raw keys leaked:\n${leaks.join('\n')}`);
  };
}

/**
 * After the suite: no raw API key (any checksum-valid svc_live_ key), no test password and no
 * server secret may appear in any log line or any stored document.
 */
async function scanForLeaks(stack: Stack): Promise<string[]> {
  const secrets = ['SVC_JWT_SECRET_KEY', 'SVC_API_KEY_LOOKUP_SECRET', 'SVC_AUDIT_SECRET_KEY']
    .map((k) => stack.env[k])
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
  const needles = [PASSWORD_FOR_LEAK_SCAN, ...secrets];
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
