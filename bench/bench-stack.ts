// Shared set-up of the HTTP benchmarks: a private stack on its own ports, an enterprise tenant
// (no plan limit in the way) and one API key.
import { MongoClient } from 'mongodb';
import { Stack, testPorts, type StackPorts } from '../infra/stack.js';

export interface BenchStack {
  stack: Stack;
  base: string;
  key: string;
  /** The tenant's JWT (owner) and organization id, for the JWT-only routes. */
  token: string;
  orgId: string;
}

export async function startBenchStack(
  profile: string,
  defaultOffset: number,
  env: Record<string, string> = {},
  opts: { ports?: StackPorts; storeDebugPort?: number } = {},
): Promise<BenchStack> {
  const stack = new Stack({
    profile,
    ports: opts.ports ?? testPorts(Number(process.env.SVC_BENCH_PORT_OFFSET ?? defaultOffset)),
    fresh: true,
    ...(opts.storeDebugPort ? { storeDebugPort: opts.storeDebugPort } : {}),
    env: { SVC_LOG_LEVEL: 'warn', SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1', ...env },
  });
  // A loaded machine (other sessions' work) can take minutes to start the worker: benches wait.
  for (const p of stack.processes) p.spec.readyTimeoutMs *= 3;
  await stack.up();
  try {
    const tenant = await enterpriseTenant(stack.apiUrl, stack.mongodbUri);
    return { stack, base: stack.apiUrl, ...tenant };
  } catch (err) {
    await stack.down();
    throw err;
  }
}

/** Signs up a tenant on a running API, lifts its plan to enterprise in the store, and mints an API key. */
export async function enterpriseTenant(
  base: string,
  mongodbUri: string,
): Promise<{ key: string; token: string; orgId: string }> {
  const json = { 'content-type': 'application/json' };
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const su = await (
    await fetch(`${base}/auth/signup`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password: 'benchmark password 1', organization_name: 'bench' }),
    })
  ).json();
  const mc = new MongoClient(mongodbUri);
  await mc.connect();
  await mc
    .db()
    .collection('organizations')
    .updateOne({ _id: su.user.org_id }, { $set: { plan: 'enterprise' } });
  await mc.close();
  const key = (
    await (
      await fetch(`${base}/auth/api-keys`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${su.access_token}` },
        body: JSON.stringify({ name: 'bench' }),
      })
    ).json()
  ).key as string;
  return { key, token: su.access_token as string, orgId: su.user.org_id as string };
}

/** The enterprise tenant's API key only. */
export async function enterpriseKey(base: string, mongodbUri: string): Promise<string> {
  return (await enterpriseTenant(base, mongodbUri)).key;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
