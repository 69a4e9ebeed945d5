// Starts an additional API process against the test stack's Temporal and store, with its own
// environment (a second process sharing limits, a different per-IP setting, bad secrets...).
import { inject } from 'vitest';
import path from 'node:path';
import { ManagedProcess, ROOT } from '../../infra/stack.js';

export async function startExtraApi(name: string, basePort: number, env: Record<string, string | undefined>, expectReady = true) {
  const port = basePort + Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...inject('stackEnv'), HOST: '127.0.0.1', PORT: String(port), ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  const proc = new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'api', 'server.ts')],
      env: fullEnv,
      ready: async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200,
      readyTimeoutMs: expectReady ? 90_000 : 60_000,
    },
    inject('dataDir'),
  );
  await proc.start();
  return { proc, url: `http://127.0.0.1:${port}` };
}
