// All activities of the verification task queue, built over their shared dependencies.
import { makeVerifyMathActivity } from './verify-math.js';
import { makeAppendAuditActivity } from './audit.js';
import type { ProofContext } from './proofs.js';

export type ActivityDeps = ProofContext & {
  /** SVC_AUDIT_SECRET_KEY; unset makes every audited workflow fail closed. */
  auditSecret?: string;
};

export function createActivities(deps: ActivityDeps) {
  return {
    verifyMathActivity: makeVerifyMathActivity(deps),
    appendAuditActivity: makeAppendAuditActivity({ store: deps.store, auditSecret: deps.auditSecret }),
  };
}

export type VerificationActivities = ReturnType<typeof createActivities>;
