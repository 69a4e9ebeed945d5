// Worker for the `svc-verification` task queue: runs verification workflows and engine activities.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../core/config.js';
import { Store } from '../core/store.js';
import { createSigner } from '../core/signer.js';
import { logger } from '../core/logger.js';
import { createActivities } from '../activities/index.js';
import { getLogicPool, shutdownLogicPool } from '../activities/engines/logic/index.js';

const log = logger('worker');

async function main(): Promise<void> {
  const cfg = loadConfig();
  // Lazy store: the worker starts (and activities fail, then retry) while the store is down.
  const store = Store.lazy(cfg.MONGODB_URI);
  store.ensureIndexes().catch((err) => log.warn('index creation deferred: store unavailable', { error: String(err?.message ?? err) }));
  // Z3 workers take a few seconds to start: warm them before taking tasks.
  await getLogicPool().warmUp();
  const signer = await createSigner(cfg);
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    taskQueue: cfg.SVC_TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
    activities: createActivities({
      store,
      signer,
      auditSecret: cfg.SVC_AUDIT_SECRET_KEY,
      z3TimeoutMs: cfg.SVC_Z3_TIMEOUT * 1000,
      codeTimeoutMs: Math.max(500, cfg.SVC_CODE_VERIFY_TIMEOUT * 1000 - 500),
    }),
    shutdownGraceTime: '5 s',
  });
  log.info('worker ready', { task_queue: cfg.SVC_TASK_QUEUE, ready: 'SVC_WORKER_READY' });
  await worker.run();
  await shutdownLogicPool();
  await connection.close();
  await store.close();
}

main().catch((err) => {
  log.error('worker failed', { error: String(err?.message ?? err) });
  process.exit(1);
});
