// In-process tier: the real Koa app (api/app.ts) with its real middleware, routes and
// TemporalGateway, but no stack. The store is absent (every store call rejects), the key
// resolution is served by the process's key cache (pre-filled with one enterprise key), and the
// gateway's Temporal client is scripted: a test says what a workflow start or its result does,
// and sees every start the API made. Proves validation and error mapping in milliseconds; the
// black-box tier (test/http/) still proves every contract row through the real processes.
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { loadConfig, type ServiceConfig } from '../../core/config.js';
import { Accounts, type ResolvedKey } from '../../core/accounts.js';
import type { Store } from '../../core/store.js';
import { generateApiKey } from '../../core/api-keys.js';
import { createApp } from '../../api/app.js';
import { setLogLevel } from '../../core/logger.js';
import { TemporalGateway } from '../../api/temporal.js';
import { IpLimiter, WindowCounter } from '../../api/middleware/rate-limit.js';
import { maxScopesForRole } from '../../core/scopes.js';
import { parseTrustedProxies } from '../../core/client-ip.js';

export interface StartCall {
  type: string;
  options: Record<string, any>;
}

/** What the scripted Temporal client does for one start: resolve with a result, or fail. */
export type Script = { result: unknown } | { resultError: unknown } | { startError: unknown };

export interface InProcessApp {
  url: string;
  /** The Koa application itself (its router: test/inproc/routes-contract.test.ts). */
  app: Koa;
  key: string;
  cfg: ServiceConfig;
  starts: StartCall[];
  /** The next starts' behaviour (a queue; the last one repeats). */
  script(...s: Script[]): void;
  close(): Promise<void>;
}

/**
 * A store that is not there: every collection method rejects (the routes under test never need one).
 * A call answers a rejected promise that also rejects on any chained call (`find().toArray()`), so
 * a background task's read fails where it is awaited: session 24's eviction sweep (3 s after start)
 * called `toArray` on the bare promise, and that promise's rejection went unhandled (clean clone 74).
 */
function absentStore(): Store {
  const reject = (): Promise<never> => {
    const p = Promise.reject(new Error('no store in the in-process tier'));
    p.catch(() => undefined); // handled here; an await of it still throws
    return new Proxy(p, {
      get: (t, prop) => {
        if (!(prop in t)) return reject;
        const v = Reflect.get(t, prop, t) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  };
  const collection = () => new Proxy({}, { get: () => reject });
  // ping() answers false, as for a store down at start-up: the rate limiter counts in memory.
  return new Proxy(
    {},
    { get: (_t, prop) => (prop === 'collection' ? collection : prop === 'ping' ? async () => false : reject) },
  ) as unknown as Store;
}

export async function startInProcessApp(): Promise<InProcessApp> {
  // The failures these tests provoke are logged as warnings by design; errors still show.
  setLogLevel('error');
  const cfg = loadConfig({
    SVC_JWT_SECRET_KEY: 'inproc-jwt-secret-inproc-jwt-secret-0001',
    SVC_API_KEY_LOOKUP_SECRET: 'inproc-lookup-secret-inproc-lookup-0002',
    SVC_AUDIT_SECRET_KEY: 'inproc-audit-secret-inproc-audit-secret-3',
    SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'off',
    SVC_WORKFLOW_INPUT_KEY: 'inproc-workflow-input-key-inproc-workflow-input-key-4',
    // An address nothing listens on: the lazy connection is never used, the client is scripted.
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  });
  const store = absentStore();
  const accounts = new Accounts(store, cfg.SVC_API_KEY_LOOKUP_SECRET as string, 3_600_000);
  const key = generateApiKey();
  const now = new Date();
  const resolved: ResolvedKey = {
    key: {
      _id: 'key-inproc',
      org_id: 'org-inproc',
      user_id: 'user-inproc',
      name: 'inproc',
      hash_scheme: 'hmac-sha256',
      lookup_digest: accounts.digest(key),
      preview: key.slice(0, 12),
      key_version: 'v2',
      scopes: [...maxScopesForRole('owner')],
      active: true,
      revoked_at: null,
      expires_at: null,
      created_at: now,
    } as ResolvedKey['key'],
    user: {
      _id: 'user-inproc',
      email: 'owner@inproc.test',
      email_lower: 'owner@inproc.test',
      password_hash: 'x',
      org_id: 'org-inproc',
      role: 'owner',
      active: true,
      created_at: now,
    },
    org: {
      _id: 'org-inproc',
      name: 'In-process',
      plan: 'enterprise',
      active: true,
      created_at: now,
    } as unknown as ResolvedKey['org'],
  };
  accounts.keyCache.set(accounts.digest(key), resolved.key._id, resolved);

  const temporal = TemporalGateway.create(cfg);
  const starts: StartCall[] = [];
  let queue: Script[] = [{ result: {} }];
  const next = (): Script => (queue.length > 1 ? (queue.shift() as Script) : (queue[0] as Script));
  (temporal.client.workflow as unknown as { start: unknown }).start = async (
    workflow: string | ((...args: never[]) => unknown),
    options: Record<string, any>,
  ) => {
    // The gateway starts workflows by reference; the type is the function's name, as the real client takes it.
    const type = typeof workflow === 'function' ? workflow.name : workflow;
    starts.push({ type, options });
    const s = next();
    if ('startError' in s) throw s.startError;
    return {
      workflowId: options.workflowId,
      result: async () => {
        if ('resultError' in s) throw s.resultError;
        return s.result;
      },
    };
  };
  const counter = new WindowCounter(store);
  await counter.init();
  const app = createApp({
    cfg,
    env: process.env,
    store,
    accounts,
    temporal,
    counter,
    ipLimiter: new IpLimiter(cfg.SVC_RATE_LIMIT_PER_IP, parseTrustedProxies('')),
  });
  // Koa's handler settles every request itself (ctx.onerror answers a failure and never rejects),
  // so its promise is not awaited: it only says when the response ended.
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    key,
    cfg,
    starts,
    script: (...s) => {
      queue = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
}

export async function send(
  app: InProcessApp,
  path: string,
  body: unknown,
  opts: { key?: string | null; raw?: string; contentType?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/json' };
  const key = opts.key === undefined ? app.key : opts.key;
  if (key) headers['x-api-key'] = key;
  const res = await fetch(`${app.url}${path}`, { method: 'POST', headers, body: opts.raw ?? JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
