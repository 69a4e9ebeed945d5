// Worker for the `svc-verification` task queue: runs verification workflows and engine activities.
// First: the threads this process starts get a capped young generation (before any is started).
import './thread-young-generation.js';
import { workflowBundle } from './workflow-bundle.js';
import { NativeConnection, Runtime, Worker as SdkWorker } from '@temporalio/worker';
import { WorkerSharingWorkflowThread } from './shared-workflow-thread.js';
import { eagerTaskQueue, loadConfig, loadSqlEngineConfig, processEnv } from '../core/config.js';
import { loadA2aConfig } from '../core/a2a-config.js';
import { Store } from '../core/store.js';
import { createSigner } from '../core/signer.js';
import { logger } from '../core/logger.js';
import { temporalDataConverter } from '../core/payload-codec.js';
import { workflowInputKey } from '../core/workflow-input-auth.js';
import { createActivities } from '../activities/index.js';
import { activityGrantInterceptor } from '../activities/input-auth.js';
import { LogicPool, logicPoolOptions } from '../engines/logic/index.js';
import { EnginePool } from '../activities/isolation/engine-pool.js';
import type { EngineModuleName } from '../activities/isolation/engine-tasks.js';
import { PgCheck } from '../engines/sql/pg-check.js';
import { preloadConfiguredSdks } from '../activities/providers/clients.js';

const log = logger('worker');

/**
 * The engine modules each engine thread of this worker loads before it takes a task: math only.
 * Math is the one whose import is slow (1.3-2.4 s of a thread's CPU on the loaded 2-core
 * machine), and batch math items run a 25-item unit within one item's 5 s budget, so a cold
 * import there could fail items. The others load inside the thread on the first task that needs
 * them, within its deadline (measured at load 16: code 41-49 ms, the agent guards 104-234 ms, SQL
 * 637-672 ms against a 10 s budget, process 34, RAG 11, the stats query parser 19). Single
 * verifications of math, process and RAG run in the API's own worker (workers/api-process.ts),
 * so under a math or logic load these threads never load the code scanners, the SQL parser or
 * the guards: about 19 MB less per thread (docs/performance.md, memory). Never on the event loop:
 * the import runs in the engine thread, never on the worker's main thread.
 */
const WORKER_PRELOADED_ENGINES: readonly EngineModuleName[] = ['math'];

async function main(): Promise<void> {
  const cfg = loadConfig();
  // Refuses to start without a payload key (unless encryption is explicitly off): docs/payload-encryption.md.
  // A payload the codec did not encrypt is never read (refused; the input check fails its workflow).
  const dataConverter = temporalDataConverter(cfg, { refuseUnencrypted: true });
  // Refuses to start without the workflow input key: every workflow's input is checked with it.
  const inputKey = workflowInputKey(cfg);
  const env = processEnv();
  const a2aCfg = loadA2aConfig(env);
  // Lazy store: the worker starts (and activities fail, then retry) while the store is down.
  const store = Store.lazy(cfg.MONGODB_URI);
  store
    .ensureIndexes()
    .catch((err) => log.warn('index creation deferred: store unavailable', { error: String(err?.message ?? err) }));
  // The thread pools: created here, and only here, and passed to the activities
  // (createActivities' deps, as the sample passes its db); nothing reaches them by name.
  //   - engine: the engine threads, which also run the agent guards (ENGINE_TASKS.guard: no pool
  //     of their own). They load the math engine at start (WORKER_PRELOADED_ENGINES) and every
  //     other engine inside the thread on its first task;
  //   - logic: the Z3 threads: one warm at start, a second on demand; each stopped after five
  //     idle minutes (the warm one too since session 17: SVC_Z3_WARM_IDLE_RELEASE_MS);
  //   - pg: PostgreSQL's check of /verify/sql (PGlite): not started here. It starts on the first
  //     postgresql request, which waits for it within its budget, and is released after
  //     SVC_SQL_PG_IDLE_RELEASE_MS without one (docs/sql-engine.md, docs/performance.md).
  const pools = {
    engine: new EnginePool({ preload: WORKER_PRELOADED_ENGINES }),
    logic: new LogicPool({
      ...logicPoolOptions(env),
      // Session 17: the warm one too, after SVC_Z3_WARM_IDLE_RELEASE_MS (engines/logic/config.ts).
      onIdleRelease: (detail) => log.info('Z3 worker released after its idle period', detail),
    }),
    pg: new PgCheck(loadSqlEngineConfig(env).pgCheck, (event, detail) =>
      event === 'failed'
        ? log.warn('PGlite did not start; postgresql SQL checks are not run (UNVERIFIABLE)', detail)
        : event === 'cache_failed'
          ? log.warn(
              "PGlite's data directory cache could not be used (not written, or no copy on disk: this start keeps it in memory); the check runs on",
              detail,
            )
          : log.info(event === 'started' ? 'PGlite started' : 'PGlite released after its idle period', detail),
    ),
  };
  // Z3 workers take a few seconds to start: warm them in the background (a logic task that
  // arrives first simply waits for its worker inside the solve deadline).
  pools.logic
    .warmUp()
    .catch((err: Error) =>
      log.warn('Z3 pool warm-up failed; solves will start workers on demand', { error: err.message }),
    );
  // Sandbox containers left by a crashed worker are removed by this process's first sandbox run
  // (activities/sandbox/runner.ts reapOnce), not here: the start loads neither dockerode nor sharp
  // (issue 22, memory; docs/performance.md "Memory", session 16). Docker may be absent: the
  // sandboxed engines then fail closed, the others are unaffected.
  const signer = await createSigner(cfg);
  // SVC_WORKER_METRICS_ADDRESS (host:port): the SDK's own Prometheus metrics (task latencies,
  // slots, sticky cache) on /metrics; docs/deployment.md. Must be installed before any connection.
  const metricsAddress = env.SVC_WORKER_METRICS_ADDRESS;
  if (metricsAddress) {
    Runtime.install({
      telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress, countersTotalSuffix: true } } },
    });
    log.info('worker metrics exporter listening', { url: `http://${metricsAddress}/metrics` });
  }
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  // One prebuilt bundle (dist/, workers/workflow-bundle.ts) for both workers below.
  const bundle = await workflowBundle();
  const activities = createActivities({
    store,
    signer,
    auditSecret: cfg.SVC_AUDIT_SECRET_KEY,
    z3TimeoutMs: cfg.SVC_Z3_TIMEOUT * 1000,
    codeTimeoutMs: Math.max(500, cfg.SVC_CODE_VERIFY_TIMEOUT * 1000 - 500),
    mathTimeoutMs: cfg.SVC_MATH_TIMEOUT * 1000,
    proofInAuditEntry: cfg.SVC_PROOF_IN_AUDIT_ENTRY,
    lookupSecret: cfg.SVC_API_KEY_LOOKUP_SECRET,
    a2a: { signingKeyPem: a2aCfg.signingKeyPem, deploymentId: a2aCfg.deploymentId },
    workflowInputKey: inputKey,
    env,
    pools,
  });
  const common = {
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    dataConverter,
    workflowBundle: bundle,
    activities,
    // No activity runs without the grant of its workflow's input check (core/workflow-input-auth.ts).
    interceptors: { activity: [activityGrantInterceptor(inputKey)] },
    shutdownGraceTime: '5 s' as const,
  };
  // Both Workers below parse the bundle once and run their workflows in one workflow thread
  // (session 19: one isolate and one copy of the bundle fewer; workers/shared-workflow-thread.ts).
  // SVC_WORKER_SHARED_WORKFLOW_THREAD=0: a workflow thread per Worker, as until session 19.
  const Worker = env.SVC_WORKER_SHARED_WORKFLOW_THREAD === '0' ? SdkWorker : WorkerSharingWorkflowThread();
  const worker = await Worker.create({ ...common, taskQueue: cfg.SVC_TASK_QUEUE });
  // The eager-start queue (workers/api-process.ts): served here too, so those verifications run
  // when an API process's own worker is busy or down, or the API runs without one.
  const eagerWorker = await Worker.create({
    ...common,
    taskQueue: eagerTaskQueue(cfg),
    enableNonLocalActivities: false,
  });
  // Engine threads load the engines (docs/isolation.md): started once the workflow bundle is
  // built, so the two do not compete for the CPU, and awaited (at most a minute) so the first
  // requests do not spend their deadline waiting for a thread.
  const enginesWarm = pools.engine
    .warmUp()
    .catch((err: Error) =>
      log.warn('engine pool warm-up failed; runs will wait for their threads', { error: err.message }),
    );
  await Promise.race([enginesWarm, new Promise((r) => setTimeout(r, 60_000).unref())]);
  // The supervisor waits for this marker; it is printed whatever the log level.
  process.stdout.write(
    `${JSON.stringify({ t: new Date().toISOString(), component: 'worker', msg: 'worker ready', task_queue: cfg.SVC_TASK_QUEUE, ready: 'SVC_WORKER_READY' })}\n`,
  );
  // The configured remote providers' SDKs, now that the worker is ready (session 21: not at the
  // start's imports, so a deployment without them never loads them; docs/performance.md).
  // A failed preload is logged (provider and error class only; session 22), and the worker runs on.
  void preloadConfiguredSdks(env).then((sdks) => {
    if (sdks.length) log.info('provider SDKs loaded', { providers: sdks });
  });
  await Promise.all([worker.run(), eagerWorker.run()]);
  await pools.logic.shutdown();
  await pools.engine.shutdown();
  // The PGlite thread too: left running, it kept the process alive after SIGTERM until the
  // supervisor's SIGKILL (8 s later in the stack; never, under a supervisor that only waits).
  await pools.pg.shutdown();
  await connection.close();
  await store.close();
}

main().catch((err) => {
  log.error('worker failed', { error: String(err?.message ?? err) });
  process.exit(1);
});
