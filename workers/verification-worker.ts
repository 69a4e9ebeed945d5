// Worker for the `svc-verification` task queue: runs verification workflows and engine activities.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../core/config.js';
import { Store } from '../core/store.js';
import { createSigner } from '../core/signer.js';
import { logger } from '../core/logger.js';
import { createActivities } from '../activities/index.js';

const log = logger('worker');

async function main(): Promise<void> {
  const cfg = loadConfig();
  const store = await Store.connect(cfg.MONGODB_URI);
  const signer = await createSigner(cfg);
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    taskQueue: cfg.SVC_TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
    activities: createActivities({ store, signer, auditSecret: cfg.SVC_AUDIT_SECRET_KEY }),
    shutdownGraceTime: '5 s',
  });
  log.info('worker ready', { task_queue: cfg.SVC_TASK_QUEUE, ready: 'SVC_WORKER_READY' });
  await worker.run();
  await connection.close();
  await store.close();
}

main().catch((err) => {
  log.error('worker failed', { error: String(err?.message ?? err) });
  process.exit(1);
});
