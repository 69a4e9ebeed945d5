// Entry point of an API process with its own worker for the eager-start engines (math,
// process, RAG; core/engines.ts EAGER_ENGINES) and one-step batch jobs (every item math, one
// local unit: api/batch-jobs.ts, session 14). The worker and the API's Temporal client share
// one native connection, so a verification's start is answered with its first workflow task
// inline (eager start) and, its activities being local, completes in that one task: no matching
// round trip, no second task. Every verification is still a workflow with its full history
// (docs/performance.md records the figures and the decision).
//
// The API process still never runs engine code on its event loop: the engine activities hand the
// input to the engine pool's threads (activities/isolation), under the engine's deadline. This
// worker polls no normal activity tasks and serves only `<SVC_TASK_QUEUE>-eager`, which the
// standalone workers poll too: when this process is busy or its worker is down, they take over.
// With SVC_API_WORKER=off the process is the plain API (api/server.ts).
// First: the threads this process starts get a capped young generation (before any is started).
import './thread-young-generation.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { workflowBundle } from './workflow-bundle.js';
import { eagerTaskQueue, type ServiceConfig } from '../core/config.js';
import type { Store } from '../core/store.js';
import { createSigner } from '../core/signer.js';
import { logger } from '../core/logger.js';
import { temporalDataConverter } from '../core/payload-codec.js';
import { workflowInputKey } from '../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../activities/input-auth.js';
import { main, exitOnStartFailure } from '../api/server.js';
import type { TemporalGateway } from '../api/temporal.js';
import { makeVerifyMathActivity } from '../activities/verify-math.js';
import { makeProcessRagActivities } from '../activities/verify-process-rag.js';
import { makeAppendAuditActivity } from '../activities/audit.js';
import { makeMathBatchActivities } from '../activities/verify-batch.js';
import { EnginePool } from '../activities/isolation/engine-pool.js';
import type { EngineModuleName } from '../activities/isolation/engine-tasks.js';

/** The engine modules the eager engines (core/engines.ts EAGER_ENGINES: math, process, RAG) run. */
const EAGER_ENGINE_MODULES: readonly EngineModuleName[] = ['math', 'process', 'rag'];

const log = logger('api-worker');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The activities an eager-start run uses (all local): the input check, its engine's and the audit
 * append; for a one-step batch job (session 14, api/batch-jobs.ts), the job's activity and the
 * finish step it falls back on (and the unit, their common body).
 */
export async function eagerActivities(cfg: ServiceConfig, store: Store, enginePool: EnginePool) {
  const signer = await createSigner(cfg);
  const appendAuditActivity = makeAppendAuditActivity({ store, auditSecret: cfg.SVC_AUDIT_SECRET_KEY });
  // The units it stores go into this process's result cache: the POST waiting on the job answers from it.
  const batch = makeMathBatchActivities(
    {
      store,
      signer,
      enginePool,
      mathTimeoutMs: cfg.SVC_MATH_TIMEOUT * 1000,
      unitCache: true,
      proofInAuditEntry: cfg.SVC_PROOF_IN_AUDIT_ENTRY,
    },
    { appendAuditActivity },
  );
  return {
    mathBatchJobActivity: batch.mathBatchJobActivity,
    mathBatchUnitActivity: batch.mathBatchUnitActivity,
    finishBatchJobActivity: batch.finishBatchJobActivity,
    ...makeAuthenticateInputActivity(workflowInputKey(cfg)),
    verifyMathActivity: makeVerifyMathActivity({
      store,
      signer,
      mathTimeoutMs: cfg.SVC_MATH_TIMEOUT * 1000,
      enginePool,
      proofInAuditEntry: cfg.SVC_PROOF_IN_AUDIT_ENTRY,
      // The math activity appends its verification's audit entry itself (workflows/verify.ts).
      auditSecret: cfg.SVC_AUDIT_SECRET_KEY,
    }),
    ...makeProcessRagActivities(enginePool),
    appendAuditActivity,
  };
}

let stopping = false;
let worker: Worker | null = null;
/** This process's engine pool: created by runEagerWorker (this file is the composition root), stopped at shutdown. */
let enginePool: EnginePool | null = null;
let connection: NativeConnection | null = null;

/**
 * Connects (retrying while Temporal is down: the API answers meanwhile through its own lazy
 * connection and the standalone workers), then runs the in-process worker; if the worker stops
 * on an error, eager start is switched off and the worker is started again.
 */
async function runEagerWorker(temporal: TemporalGateway, cfg: ServiceConfig, store: Store): Promise<void> {
  // This process's engine threads load only the eager engines' modules (math, process, RAG):
  // the code scanners and the SQL parser were ~half of each thread's memory (docs/performance.md).
  // No spare thread (session 15): a math run cut at its deadline (only a hostile input reaches
  // the 5 s) keeps its organization's slot until its replacement is ready, so the others keep
  // theirs, for one engine thread of memory less (docs/isolation.md).
  const pool = new EnginePool({ preload: EAGER_ENGINE_MODULES, spare: 0 });
  enginePool = pool;
  const bundle = await workflowBundle();
  const activities = await eagerActivities(cfg, store, pool);
  // Engine threads load their engines before this process takes a verification (as the
  // standalone worker does before it reports ready): until then every workflow goes to the
  // standalone workers, and a cold thread never spends a request's deadline loading mathjs.
  await Promise.race([
    pool.warmUp().catch((err: Error) => log.warn('engine pool warm-up failed', { error: err.message })),
    sleep(60_000),
  ]);
  let backoff = 500;
  while (!stopping) {
    try {
      connection ??= await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
      worker = await Worker.create({
        connection,
        namespace: cfg.TEMPORAL_NAMESPACE,
        taskQueue: eagerTaskQueue(cfg),
        // As the standalone workers: unencrypted payloads refused, every activity needs its run's grant.
        dataConverter: temporalDataConverter(cfg, { refuseUnencrypted: true }),
        workflowBundle: bundle,
        activities,
        interceptors: { activity: [activityGrantInterceptor(workflowInputKey(cfg))] },
        // Local activities only: normal activity tasks stay with the standalone workers.
        enableNonLocalActivities: false,
        shutdownGraceTime: '3 s',
      });
      const running = worker.run();
      temporal.useEagerStart({ connection, taskQueue: eagerTaskQueue(cfg) });
      log.info('in-process worker running: eager start on', { task_queue: eagerTaskQueue(cfg) });
      backoff = 500;
      await running;
    } catch (err) {
      if (stopping) break;
      log.warn('in-process worker unavailable: eager start off until it is back', {
        error: String((err as Error)?.message ?? err).slice(0, 200),
      });
    } finally {
      temporal.useEagerStart(null);
      worker = null;
    }
    if (stopping) break;
    await sleep(backoff);
    backoff = Math.min(10_000, backoff * 2);
  }
}

main({
  onGateway: (temporal, cfg, store) => {
    if (cfg.SVC_API_WORKER !== 'on') return;
    void runEagerWorker(temporal, cfg, store).catch((err: Error) =>
      log.error('in-process worker failed for good', { error: err.message }),
    );
  },
  onShutdown: async () => {
    stopping = true;
    if (worker && worker.getState() === 'RUNNING') worker.shutdown();
    await sleep(100);
    await enginePool?.shutdown();
    await connection?.close().catch(() => undefined);
  },
}).catch(exitOnStartFailure);
