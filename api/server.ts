// API entry point: validate configuration (refusing to start on bad secrets), connect the
// store lazily (requests fail closed while it is down), then listen.
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, assertServerSecrets, ConfigError, processEnv, type ServiceConfig } from '../core/config.js';
import { logger } from '../core/logger.js';
import { Store } from '../core/store.js';
import { Accounts, runStartupMigrations } from '../core/accounts.js';
import { parseTrustedProxies, TrustedProxyConfigError } from '../core/client-ip.js';
import { createApp } from './app.js';
import { TemporalGateway } from './temporal.js';
import { IpLimiter, WindowCounter } from './middleware/rate-limit.js';
import { payloadCodecFor } from '../core/payload-codec.js';
import { backgroundTimer } from '../core/background-timer.js';
import { AUDIT_CLAIM_SWEEP_MS, sweepOldAuditClaims } from '../core/audit-store.js';

const log = logger('api');

/** What a process entry that embeds more than the API (workers/api-process.ts) hooks in once the gateway exists. */
export interface ApiHooks {
  onGateway?: (temporal: TemporalGateway, cfg: ServiceConfig, store: Store) => void;
  onShutdown?: () => Promise<void>;
}

export async function main(hooks: ApiHooks = {}): Promise<void> {
  const cfg = loadConfig();
  assertServerSecrets(cfg);
  payloadCodecFor(cfg); // refuses to start without a Temporal payload key (docs/payload-encryption.md)
  let trusted;
  try {
    trusted = parseTrustedProxies(cfg.SVC_AUTH_TRUSTED_PROXIES);
  } catch (err) {
    if (err instanceof TrustedProxyConfigError) throw new ConfigError(`SVC_AUTH_TRUSTED_PROXIES: ${err.message}`);
    throw err;
  }
  const store = Store.lazy(cfg.MONGODB_URI);
  const counter = new WindowCounter(store);
  await counter.init();
  // Review s24 B2: audit claims no writer retires, by computed ids (persistence/audit.ts), its own
  // phase (the batch sweeps run at 20, 95 s, the rate windows' at 245 s into their 5 minutes).
  backgroundTimer(
    () =>
      void sweepOldAuditClaims(store).catch((err: Error) =>
        log.warn('audit claims pass failed (next run)', { error: err.message }),
      ),
    AUDIT_CLAIM_SWEEP_MS,
    { firstMs: 135_000 },
  );
  store
    .ensureIndexes()
    .catch((err) => log.warn('index creation deferred: store unavailable', { error: String(err?.message ?? err) }));
  const temporal = TemporalGateway.create(cfg);
  hooks.onGateway?.(temporal, cfg, store);
  const accounts = new Accounts(store, cfg.SVC_API_KEY_LOOKUP_SECRET as string, cfg.SVC_API_KEY_CACHE_TTL * 1000);
  // Pointers for records older than them (once per store, in the background: persistence/migrations.ts).
  const migrate = (attempt: number): void =>
    void runStartupMigrations(store).catch((err) => {
      log.warn('pointer backfill deferred: store unavailable', { error: String(err?.message ?? err), attempt });
      if (attempt < 20) setTimeout(() => migrate(attempt + 1), 30_000).unref();
    });
  migrate(1);
  const ipLimiter = new IpLimiter(cfg.SVC_RATE_LIMIT_PER_IP, trusted);
  const app = createApp({ cfg, env: processEnv(), store, accounts, temporal, counter, ipLimiter });
  // Koa's handler settles every request itself (ctx.onerror answers a failure and never rejects),
  // so its promise is not awaited: it only says when the response ended.
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.requestTimeout = 0; // body deadlines are enforced per route by the body middleware
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve) => server.listen(cfg.PORT, cfg.HOST, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : cfg.PORT;
  log.info('api listening', { url: `http://${cfg.HOST}:${port}`, limiter: counter.backend, ready: 'SVC_API_READY' });

  const shutdown = () => {
    log.info('api shutting down');
    server.close(
      () =>
        void Promise.allSettled([hooks.onShutdown?.(), temporal.close(), store.close()]).finally(() => process.exit(0)),
    );
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

export function exitOnStartFailure(err: unknown): never {
  const e = err as { message?: string } | undefined;
  const msg = err instanceof ConfigError ? err.message : `start-up failed: ${String(e?.message ?? err)}`;
  log.error(msg);
  process.stderr.write(`${msg}\n`);
  process.exit(1);
}

// Entry point of an API process without an in-process worker (workers/api-process.ts adds one).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch(exitOnStartFailure);
}
