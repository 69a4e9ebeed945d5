// Codec server entry point (docs/payload-encryption.md): decrypts and encrypts Temporal payloads
// for platform operators' Temporal UI and CLI, on its own port (SVC_CODEC_SERVER_PORT). Refuses
// to start without the JWT secret (nobody could authenticate) or without a payload key.
import { createServer } from 'node:http';
import { loadConfig, ConfigError } from '../core/config.js';
import { logger } from '../core/logger.js';
import { Store } from '../core/store.js';
import { Accounts } from '../core/accounts.js';
import { payloadCodecFor } from '../core/payload-codec.js';
import { createCodecApp, corsOrigins } from './codec-app.js';
import { operatorIds } from './routes/metrics.js';

const log = logger('codec-server');

async function main(): Promise<void> {
  const cfg = loadConfig();
  if (!cfg.SVC_JWT_SECRET_KEY)
    throw new ConfigError(
      'SVC_JWT_SECRET_KEY is not set: the codec server refuses to start (operators authenticate with their access token)',
    );
  if (!cfg.SVC_API_KEY_LOOKUP_SECRET)
    throw new ConfigError('SVC_API_KEY_LOOKUP_SECRET is not set: the codec server refuses to start');
  const codec = payloadCodecFor(cfg);
  const store = Store.lazy(cfg.MONGODB_URI);
  const accounts = new Accounts(store, cfg.SVC_API_KEY_LOOKUP_SECRET);
  const app = createCodecApp({ cfg, accounts, codec });
  // Koa's handler settles every request itself (ctx.onerror answers a failure and never rejects),
  // so its promise is not awaited: it only says when the response ended.
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve) => server.listen(cfg.SVC_CODEC_SERVER_PORT, cfg.SVC_CODEC_SERVER_HOST, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : cfg.SVC_CODEC_SERVER_PORT;
  log.info('codec server listening', {
    url: `http://${cfg.SVC_CODEC_SERVER_HOST}:${port}`,
    operators: operatorIds(cfg).size,
    cors_origins: [...corsOrigins(cfg)],
    encrypting_with: codec.currentKeyId,
    ready: 'SVC_CODEC_READY',
  });
  if (operatorIds(cfg).size === 0) log.warn('SVC_METRICS_OPERATOR_USER_IDS is empty: every decode is refused (403)');
  const shutdown = () => {
    server.close(() => void store.close().finally(() => process.exit(0)));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err) => {
  const msg = err instanceof ConfigError ? err.message : `start-up failed: ${String(err?.message ?? err)}`;
  log.error(msg);
  process.stderr.write(`${msg}\n`);
  process.exit(1);
});
