// API entry point: validate configuration (refusing to start on bad secrets), then listen.
import { createServer } from 'node:http';
import { loadConfig, assertServerSecrets, ConfigError } from '../core/config.js';
import { logger } from '../core/logger.js';
import { createApp } from './app.js';
import { TemporalGateway } from './temporal.js';

const log = logger('api');

async function main(): Promise<void> {
  const cfg = loadConfig();
  assertServerSecrets(cfg);
  const temporal = TemporalGateway.create(cfg);
  const app = createApp({ cfg, temporal });
  const server = createServer(app.callback());
  server.requestTimeout = 0; // body deadlines are enforced per route by the body middleware
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve) => server.listen(cfg.PORT, cfg.HOST, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : cfg.PORT;
  log.info('api listening', { url: `http://${cfg.HOST}:${port}`, ready: 'SVC_API_READY' });

  const shutdown = () => {
    log.info('api shutting down');
    server.close(() => void temporal.close().finally(() => process.exit(0)));
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
