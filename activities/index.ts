// All activities of the verification task queue, built over their shared dependencies.
import { makeVerifyMathActivity } from './verify-math.js';
import { makeAppendAuditActivity } from './audit.js';
import { makeVerifyLogicActivity } from './verify-logic.js';
import { makeVerifyCodeActivity } from './verify-code.js';
import { makeVerifySqlActivity } from './verify-sql.js';
import { makeProcessRagActivities } from './verify-process-rag.js';
import type { EnginePool } from './isolation/engine-pool.js';
import type { LogicPool } from '../engines/logic/index.js';
import type { PgCheck } from '../engines/sql/index.js';
import { makeBatchActivities } from './verify-batch.js';
import { makeVerifyConsensusActivity } from './verify-consensus.js';
import { makeVerifyStatsActivity } from './verify-stats.js';
import type { ProofContext } from './proofs.js';
import { makeLeakRevocationActivities } from './leak-revocation.js';
import { loadLeakConfig } from '../core/secret-scanning.js';
import { makeFactBatchActivity, makeVerifyFactActivity, type FactActivityDeps } from './verify-fact.js';
import { describeImage, judgeEntailment } from './providers/index.js';
import { makeVerifyImageActivity } from './verify-image.js';
import { providerTimeoutMs, resolveProvider, type ProviderName } from '../core/providers-config.js';
import { makeNaturalLanguageActivities } from './verify-natural-language.js';
import { translateLogicActivity } from './verify-logic-nl.js';
import { makeAgentActivities } from './agents.js';
import { makeA2aActivities } from './a2a.js';
import { makeAuthenticateInputActivity } from './input-auth.js';
import { makeApprovalActivities } from './approvals.js';

export type ActivityDeps = ProofContext & {
  /** SVC_AUDIT_SECRET_KEY; unset makes every audited workflow fail closed. */
  auditSecret?: string;
  /** SVC_Z3_TIMEOUT in milliseconds. */
  z3TimeoutMs: number;
  /** Cooperative scan deadline, a little under SVC_CODE_VERIFY_TIMEOUT (the activity timeout is the hard one). */
  codeTimeoutMs: number;
  /** SVC_MATH_TIMEOUT in milliseconds: the math engine's deadline in the engine pool (default 5 s). */
  mathTimeoutMs?: number;
  /** SVC_PROOF_IN_AUDIT_ENTRY (session 24): the math activities' proofs ride in their audit entries (ProofContext). */
  proofInAuditEntry?: boolean;
  /** SVC_API_KEY_LOOKUP_SECRET: opens the sealed inputs of the agent endpoints (core/sealed.ts). */
  lookupSecret?: string;
  /** The A2A gateway's verdict signing key and deployment id (core/a2a-config.ts). */
  a2a?: { signingKeyPem?: string; deploymentId: string };
  /** SVC_WORKFLOW_INPUT_KEY: the input check every workflow runs first (core/workflow-input-auth.ts). */
  workflowInputKey: string;
  /** The environment the composition root read (core/config.ts processEnv): provider, SMTP and feedback settings. */
  env: NodeJS.ProcessEnv;
  /**
   * The thread pools, created by the worker's composition root (workers/verification-worker.ts)
   * and passed here as the sample passes its db: the engine threads (the agent guards run there
   * too, ENGINE_TASKS.guard), the Z3 threads and the PostgreSQL check (PGlite, started on demand,
   * released when idle).
   */
  pools: { engine: EnginePool; logic: LogicPool; pg: PgCheck };
};

export function createActivities(deps: ActivityDeps) {
  // Fact verification: the provider layer judges entailment; keys stay in this worker's environment.
  const factDeps: FactActivityDeps = {
    judge: (provider, claim, context) => judgeEntailment(provider as ProviderName, claim, context),
    providerTimeoutMs: providerTimeoutMs(deps.env),
  };
  const engineCtx = { store: deps.store, signer: deps.signer, enginePool: deps.pools.engine };
  const engines = {
    verifyMathActivity: makeVerifyMathActivity({
      ...engineCtx,
      ...(deps.proofInAuditEntry !== undefined ? { proofInAuditEntry: deps.proofInAuditEntry } : {}),
      mathTimeoutMs: deps.mathTimeoutMs,
      auditSecret: deps.auditSecret,
    }),
    verifyLogicActivity: makeVerifyLogicActivity(deps.z3TimeoutMs, deps.pools.logic),
    verifyCodeActivity: makeVerifyCodeActivity(engineCtx, deps.codeTimeoutMs),
    verifySqlActivity: makeVerifySqlActivity({ ...engineCtx, pg: deps.pools.pg }),
    ...makeProcessRagActivities(deps.pools.engine),
    verifyConsensusActivity: makeVerifyConsensusActivity(deps),
    verifyStatsActivity: makeVerifyStatsActivity(engineCtx),
    verifyFactActivity: makeVerifyFactActivity(factDeps),
    verifyImageActivity: makeVerifyImageActivity({
      store: deps.store,
      describe: (provider, image, claim) => describeImage(provider as ProviderName, image, claim),
      providerTimeoutMs: factDeps.providerTimeoutMs,
    }),
    appendAuditActivity: makeAppendAuditActivity({ store: deps.store, auditSecret: deps.auditSecret }),
    // Leaked-key revocation (workflows/leak-revocation.ts): SMTP and feedback settings from the environment.
    ...makeLeakRevocationActivities({
      store: deps.store,
      auditSecret: deps.auditSecret,
      config: loadLeakConfig(deps.env),
    }),
    ...makeNaturalLanguageActivities(deps),
    translateLogicActivity,
  };
  // Batch items reuse the engine activities above (workflows/batch.ts).
  return {
    ...makeAuthenticateInputActivity(deps.workflowInputKey),
    ...engines,
    ...makeBatchActivities({ ...deps, enginePool: deps.pools.engine }, engines),
    verifyFactBatchItemActivity: makeFactBatchActivity(factDeps, (requested) => resolveProvider(requested, deps.env)),
    ...makeAgentActivities({ store: deps.store, lookupSecret: deps.lookupSecret, enginePool: deps.pools.engine }),
    ...makeApprovalActivities({ store: deps.store, signer: deps.signer }),
    ...makeA2aActivities({
      store: deps.store,
      proofContext: deps,
      lookupSecret: deps.lookupSecret,
      signingKeyPem: deps.a2a?.signingKeyPem,
      deploymentId: deps.a2a?.deploymentId ?? 'svc-local',
      pools: deps.pools,
    }),
  };
}

export type VerificationActivities = ReturnType<typeof createActivities>;
