// Shared shapes of the consensus engines.
import type { Answer } from './agreement.js';
import type { ArithTranslation } from './arith.js';
import type { StatisticalClaim } from './query.js';

export type ConsensusEngine = 'math' | 'python' | 'z3' | 'stats';
export type ChainStatus = 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';

/** What one engine concluded (before timing and proof retention). */
export interface EngineRun {
  engine: ConsensusEngine;
  method: string;
  status: ChainStatus;
  /** null: the engine gave no answer (failed, refused, not applicable, or too late). */
  answer: Answer | null;
  /** Why there is no answer, or a short note on the answer. */
  message: string;
  /** Advisory engines (Python, statistics) are never VERIFIED. */
  advisory: boolean;
  /** The proof artifact of a VERIFIED run, and the engine it is retained under. */
  proof?: { engine: string; artifact: Record<string, unknown> };
  /** The sandbox could not run this engine: the HTTP layer answers 503. */
  sandboxFailure?: 'unavailable' | 'capacity';
  /** Engine-specific detail (counterexample, sample points, ...), JSON only. */
  detail?: Record<string, unknown>;
}

/** The claim as every engine needs it. */
export interface ArithmeticClaim {
  /** The text the math engine evaluates (for a statistical query: its definitional rewrite). */
  expression: string;
  translation: ArithTranslation;
  statistic: StatisticalClaim | null;
}

export interface EngineContext {
  /** Absolute time (ms since epoch) by which every engine must have answered. */
  deadline: number;
  z3TimeoutMs: number;
  pythonTimeoutMs: number;
}
