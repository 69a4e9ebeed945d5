// Shared shapes of the consensus engines.
import type { Agreement, Answer, Scored } from './agreement.js';
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

/** An engine's confidence in its own answer, 0–100 (docs/consensus.md). */
export function engineConfidence(status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED', answer: Answer | null): number {
  if (!answer) return 0;
  if (status === 'VERIFIED') return 100;
  switch (answer.precision) {
    case 'exact':
      return 100;
    case 'decimal':
      return 99;
    case 'sampled':
    case 'float':
      return 95;
  }
}

/**
 * The steps of a consensus that need the math engine (mathjs): the translation of the text into
 * plain-data arithmetic, the math engine's own run, and the agreement of the answers (80-digit
 * decimals). The worker runs them in its engine threads (pooled-math.ts: the worker's main
 * thread loads no mathjs, docs/performance.md, memory); pure-math.ts runs them in the calling
 * thread (the engine thread itself, unit tests).
 */
export interface ConsensusMath {
  translate(expression: string): Promise<ArithTranslation>;
  /** The math engine's run, within `timeoutMs` (a time-out throws the engine pool's EngineTimeout). */
  math(expression: string, timeoutMs: number): Promise<EngineRun>;
  agree(entries: Scored[]): Promise<Agreement>;
}
