// Starts one private stack for all HTTP tests (fresh data folder, test ports) and stops it
// after. Tests run in other processes, so the stack is also controlled over a small loopback
// HTTP endpoint (stop/start/kill a component) for the fail-closed and durability tests.
import { createServer, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { Stack, TEST_PORTS, testPorts, type ManagedProcess } from '../../infra/stack.js';

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
  const stack = new Stack({
    profile: OFFSET ? `test-${OFFSET}` : 'test',
    ports: testPorts(OFFSET),
    fresh: true,
    // Tests come from loopback; trusting it lets each test tenant use its own X-Forwarded-For bucket.
    env: { SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1' },
  });
  const server = controlServer(stack);
  try {
    await stack.up();
  } catch (err) {
    await stack.down();
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
    await stack.down();
  };
}
