// Starts an additional API process against the test stack's Temporal and store, with its own
// environment (a second process sharing limits, a different per-IP setting, bad secrets...).
// Each gets a free loopback port of its own, so files running side by side never collide.
import { inject } from 'vitest';
import { freePort, ManagedProcess } from '../../infra/stack.js';
import { serviceArgs } from '../../infra/service-build.js';
import { PASSWORD, randomIp, uniqueEmail } from './helpers.js';

export type ExtraApi = { proc: ManagedProcess; url: string };

/**
 * `entry` 'api' is the plain API (api/server.ts); 'api-process' is what the stack runs, the API
 * with its in-process worker for eager starts (workers/api-process.ts).
 */
export async function startExtraApi(
  name: string,
  env: Record<string, string | undefined>,
  expectReady = true,
  entry: 'api' | 'api-process' = 'api',
): Promise<ExtraApi> {
  const port = await freePort();
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...inject('stackEnv'),
    HOST: '127.0.0.1',
    PORT: String(port),
    ...env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  const proc = new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: serviceArgs(entry === 'api' ? 'api/server.ts' : 'workers/api-process.ts', fullEnv),
      env: fullEnv,
      ready: async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200,
      readyTimeoutMs: expectReady ? 90_000 : 60_000,
    },
    inject('dataDir'),
  );
  await proc.start();
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** Starts several extra APIs side by side; if one fails to start, stops the others and throws its error. */
export async function startExtraApis(
  specs: Array<[name: string, env: Record<string, string | undefined>]>,
): Promise<ExtraApi[]> {
  const settled = await Promise.allSettled(specs.map(([name, env]) => startExtraApi(name, env)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    for (const s of settled) if (s.status === 'fulfilled') await s.value.proc.stop();
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<ExtraApi>).value);
}

/**
 * Signs up a new organization on an extra API (its own store or queue) and mints an API key
 * there: what the shared stack's newTenant() does, against `url`.
 */
export async function keyOnExtraApi(url: string, tag: string): Promise<string> {
  const signup = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
    body: JSON.stringify({ email: uniqueEmail(tag), password: PASSWORD, organization_name: tag }),
  });
  if (signup.status !== 200) throw new Error(`signup on ${url}: ${signup.status} ${await signup.text()}`);
  const { access_token } = (await signup.json()) as { access_token: string };
  const minted = await fetch(`${url}/auth/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ name: tag }),
  });
  if (minted.status !== 200) throw new Error(`api key on ${url}: ${minted.status} ${await minted.text()}`);
  return ((await minted.json()) as { key: string }).key;
}
