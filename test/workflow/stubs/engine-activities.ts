// The activity each engine's verification runs as (core/engines.ts, the registry), by the name
// the verification workflow schedules. Stubs answer a VERIFIED result that echoes the input.
import { PROOF_REF, type Defaults } from './scripted-activities.js';

// natural_language is not here: its route starts providerVerifyWorkflow (provider-verify-workflow.test.ts).
export const ENGINE_ACTIVITY_NAMES = {
  math: 'verifyMathActivity',
  logic: 'verifyLogicActivity',
  code: 'verifyCodeActivity',
  sql: 'verifySqlActivity',
  process: 'verifyProcessActivity',
  rag: 'verifyRagActivity',
  consensus: 'verifyConsensusActivity',
  stats: 'verifyStatsActivity',
  fact: 'verifyFactActivity',
  image: 'verifyImageActivity',
} as const;

export type StubEngine = keyof typeof ENGINE_ACTIVITY_NAMES;

/** Default answers: VERIFIED with a proof_ref, naming the engine and echoing the request. */
export function engineDefaults(): Defaults {
  return Object.fromEntries(
    Object.entries(ENGINE_ACTIVITY_NAMES).map(([engine, activity]) => [
      activity,
      (req: unknown) => ({
        status: 'VERIFIED',
        engine,
        proof_ref: PROOF_REF,
        echo: (req as { input?: unknown }).input,
      }),
    ]),
  );
}
