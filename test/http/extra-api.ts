// Starts an additional API process against the test stack's Temporal and store, with its own
// environment (a second process sharing limits, a different per-IP setting, bad secrets...).
// Each gets a free loopback port of its own, so files running side by side never collide.
import { inject } from 'vitest';
import { freePort, type ManagedProcess } from '../../infra/stack.js';
import { PASSWORD, randomIp, uniqueEmail } from './helpers.js';
import { apiProcess, type SharedRequest } from './extra-process.js';

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
  const proc = apiProcess(
    name,
    env,
    port,
    { stackEnv: inject('stackEnv'), dataDir: inject('dataDir') },
    expectReady,
    entry,
  );
  await proc.start();
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** Asks the global setup's control server for a shared process (test/http/extra-process.ts); `release` hands it back. */
export async function sharedProcess(
  req: SharedRequest,
): Promise<{ url: string | null; name: string; release: () => Promise<void> }> {
  const send = (path: string) =>
    fetch(`${inject('controlUrl')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // undefined (a deleted variable) travels as null
      body: JSON.stringify({
        ...req,
        env: Object.fromEntries(Object.entries(req.env).map(([k, v]) => [k, v ?? null])),
      }),
      signal: AbortSignal.timeout(240_000),
    });
  const res = await send('/shared');
  if (res.status !== 200) throw new Error(`shared ${req.kind} ${req.name}: ${res.status} ${await res.text()}`);
  const got = (await res.json()) as { url: string | null; name: string };
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await send('/shared/release').catch(() => undefined); // at worst it lingers until the serial phase
  };
  return { ...got, release };
}

/**
 * A plain extra API shared by every file that asks for the same `env` (session 19): for rows
 * that need an API configured otherwise than the stack's, not a process of their own. Never
 * stop it (call `release` in afterAll), and assert only on your own tenants' data. `name` names
 * its log (the first asker's).
 */
export async function sharedExtraApi(
  name: string,
  env: Record<string, string | undefined>,
): Promise<{ url: string; release: () => Promise<void> }> {
  const { url, release } = await sharedProcess({ kind: 'api', name, env });
  return { url: url as string, release };
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
