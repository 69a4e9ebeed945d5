// All activities of the verification task queue, built over their shared dependencies.
import { makeVerifyMathActivity } from './verify-math.js';
import type { ProofContext } from './proofs.js';

export type ActivityDeps = ProofContext;

export function createActivities(deps: ActivityDeps) {
  return {
    verifyMathActivity: makeVerifyMathActivity(deps),
  };
}

export type VerificationActivities = ReturnType<typeof createActivities>;
