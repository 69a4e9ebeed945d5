// Activities of the provider workflow (workflows/provider-verify.ts), by the names it schedules:
// the provider steps (translation) and the engine steps after them. Defaults: a successful
// translation and a proven (or satisfiable) engine answer.
import { PROOF_REF, type Defaults } from './scripted-activities.js';

export function providerDefaults(): Defaults {
  return {
    translateNaturalLanguageActivity: () => ({ ok: true, translation: { expression: '2 + 2', claimed: '4' } }),
    finalizeNaturalLanguageActivity: () => ({ status: 'VERIFIED', proof_ref: PROOF_REF }),
    translateLogicActivity: () => ({ ok: true, dsl: '(x > 5)', reasoning: 'x exceeds five' }),
    verifyLogicActivity: () => ({ status: 'SAT', model: { x: 6 } }),
  };
}
