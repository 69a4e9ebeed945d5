// All activities of the verification task queue, built over their shared dependencies.
import { makeVerifyMathActivity } from './verify-math.js';
import { makeAppendAuditActivity } from './audit.js';
import { makeVerifyLogicActivity } from './verify-logic.js';
import { makeVerifyCodeActivity, makeVerifySqlActivity } from './verify-diagnostic.js';
import { verifyProcessActivity, verifyRagActivity } from './verify-process-rag.js';
import { makeBatchActivities } from './verify-batch.js';
import { makeVerifyConsensusActivity } from './verify-consensus.js';
import { makeVerifyStatsActivity } from './verify-stats.js';
import type { ProofContext } from './proofs.js';
import { makeAgentActivities } from './agents.js';
import { makeA2aActivities } from './a2a.js';

export type ActivityDeps = ProofContext & {
  /** SVC_AUDIT_SECRET_KEY; unset makes every audited workflow fail closed. */
  auditSecret?: string;
  /** SVC_Z3_TIMEOUT in milliseconds. */
  z3TimeoutMs: number;
  /** Cooperative scan deadline, a little under SVC_CODE_VERIFY_TIMEOUT (the activity timeout is the hard one). */
  codeTimeoutMs: number;
  /** SVC_API_KEY_LOOKUP_SECRET: opens the sealed inputs of the agent endpoints (core/sealed.ts). */
  lookupSecret?: string;
  /** The A2A gateway's verdict signing key and deployment id (core/a2a-config.ts). */
  a2a?: { signingKeyPem?: string; deploymentId: string };
};

export function createActivities(deps: ActivityDeps) {
  const engines = {
    verifyMathActivity: makeVerifyMathActivity(deps),
    verifyLogicActivity: makeVerifyLogicActivity(deps.z3TimeoutMs),
    verifyCodeActivity: makeVerifyCodeActivity(deps, deps.codeTimeoutMs),
    verifySqlActivity: makeVerifySqlActivity(deps),
    verifyProcessActivity,
    verifyRagActivity,
    verifyConsensusActivity: makeVerifyConsensusActivity(deps),
    verifyStatsActivity: makeVerifyStatsActivity(deps),
    appendAuditActivity: makeAppendAuditActivity({ store: deps.store, auditSecret: deps.auditSecret }),
  };
  // Batch items reuse the engine activities above (workflows/batch.ts).
  return { ...engines, ...makeBatchActivities(deps, engines), ...makeAgentActivities({ store: deps.store, lookupSecret: deps.lookupSecret }),
    ...makeA2aActivities({ store: deps.store, proofContext: deps, lookupSecret: deps.lookupSecret, signingKeyPem: deps.a2a?.signingKeyPem, deploymentId: deps.a2a?.deploymentId ?? 'svc-local' }),
  };
}

export type VerificationActivities = ReturnType<typeof createActivities>;
