// /verify/consensus: runs the mode's engines in parallel under one aggregate deadline, then
// combines their answers (agreement.ts). Engines that miss the deadline are reported as
// BLOCKED chain entries. Proof retention and attestation are the activity's job
// (activities/verify-consensus.ts); this module does no store I/O.
// No value import of agreement.ts, arith-translate.ts or math-engine.ts: their steps (mathjs)
// come through `opts.math` (ConsensusMath), run in the engine threads by the worker.
import type { AgreementStatus } from './agreement.js';
import { runPythonEngine } from './python-engine.js';
import { classifyQuery, type ClassifiedQuery } from './query.js';
import { formatNumber, translateArithmeticLocally } from '../../engines/nl/local-translator.js';
import { runStatsEngine } from './stats-engine.js';
import { ApplicationFailure } from '@temporalio/common';
import { ENGINE_TIMEOUT_FAILURE } from '../../core/failure-types.js';
import {
  engineConfidence,
  type ArithmeticClaim,
  type ChainStatus,
  type ConsensusEngine,
  type ConsensusMath,
  type EngineRun,
} from './types.js';
import { runZ3Engine } from './z3-engine.js';
import type { LogicPool } from '../../engines/logic/index.js';

export const VERIFICATION_MODES = ['single', 'high', 'maximum'] as const;

/** The contract's aggregate deadline for all engines of one consensus. */
import { CONSENSUS_DEADLINE_MS, requiredPercent, type VerificationMode } from '../../contract/consensus.js';

export { CONSENSUS_DEADLINE_MS, requiredPercent, type VerificationMode };
/** Python evaluation budget per run (the slot wait comes on top, within the aggregate deadline). */
export const CONSENSUS_PYTHON_TIMEOUT_MS = 10_000;

export type ChainEntry = {
  engine: ConsensusEngine | 'natural_language';
  method: string;
  result: string;
  confidence: number;
  latency_ms: number;
  success: boolean;
  status: ChainStatus;
  /** Python and statistics: never VERIFIED by rule. */
  advisory: boolean;
  detail?: Record<string, unknown>;
};

export interface TimedRun {
  run: EngineRun;
  latencyMs: number;
}

export interface ConsensusComputation {
  queryKind: 'natural_language' | 'arithmetic' | 'statistical';
  /** What the engines evaluated (for a statistic, its rewrite); null for natural language. */
  evaluatedExpression: string | null;
  runs: TimedRun[];
  chain: ChainEntry[];
  agreement: AgreementStatus;
  finalAnswer: string;
  confidence: number;
  /** Before attestation: VERIFIED only when every engine VERIFIED the same answer. */
  status: ChainStatus;
  sandboxFailure: 'unavailable' | 'capacity' | null;
  engineMs: number;
}

export interface EngineImplementations {
  math: (claim: ArithmeticClaim, opts: { timeoutMs: number; math: ConsensusMath }) => EngineRun | Promise<EngineRun>;
  python: (claim: ArithmeticClaim, opts: { timeoutMs: number }) => Promise<EngineRun>;
  z3: (
    claim: ArithmeticClaim,
    opts: { timeoutMs: number; orgId?: string | null; pool?: LogicPool },
  ) => Promise<EngineRun>;
  stats: (claim: ArithmeticClaim, opts: { timeoutMs: number }) => Promise<EngineRun>;
}

export const DEFAULT_ENGINES: EngineImplementations = {
  math: (claim, opts) => opts.math.math(claim.expression, opts.timeoutMs),
  python: (claim, opts) => runPythonEngine(claim, opts),
  z3: (claim, opts) => runZ3Engine(claim, opts),
  stats: (claim, opts) => runStatsEngine(claim.statistic as NonNullable<ArithmeticClaim['statistic']>, opts),
};

export interface ConsensusOptions {
  /** The math steps (translation, math engine, agreement): pooledConsensusMath in the worker. */
  math: ConsensusMath;
  deadlineMs?: number;
  z3TimeoutMs: number;
  /** The caller's organization: the Z3 pool is shared fairly across organizations (docs/isolation.md). */
  orgId?: string | null;
  /** The Z3 pool the worker's composition root created (createActivities' deps). */
  logicPool?: LogicPool;
  pythonTimeoutMs?: number;
  engines?: Partial<EngineImplementations>;
}

export function enginesFor(mode: VerificationMode, statistical: boolean): ConsensusEngine[] {
  if (mode === 'single') return ['math'];
  if (mode === 'high') return ['math', 'python'];
  return statistical ? ['math', 'python', 'z3', 'stats'] : ['math', 'python', 'z3'];
}

/** Statistical and code-execution engines: advisory by rule (contract), never VERIFIED. */
export const ADVISORY_ENGINES: ReadonlySet<ConsensusEngine> = new Set(['python', 'stats']);

function lateRun(engine: ConsensusEngine, deadlineMs: number): EngineRun {
  return {
    engine,
    method: 'deadline',
    status: 'BLOCKED',
    answer: null,
    message: `The engine did not answer within the ${Math.round(deadlineMs / 1000)} s consensus deadline.`,
    advisory: ADVISORY_ENGINES.has(engine),
  };
}

function failedRun(engine: ConsensusEngine, err: unknown): EngineRun {
  const what = err instanceof Error ? `${err.name}` : 'error';
  return {
    engine,
    method: 'internal',
    status: 'BLOCKED',
    answer: null,
    message: `The engine failed (${what}).`,
    advisory: ADVISORY_ENGINES.has(engine),
  };
}

export function toChainEntry(t: TimedRun): ChainEntry {
  const { run } = t;
  // Defence in depth: an advisory engine is never VERIFIED, whatever it returned.
  const advisory = run.advisory || ADVISORY_ENGINES.has(run.engine);
  const status: ChainStatus = advisory && run.status === 'VERIFIED' ? 'UNVERIFIABLE' : run.status;
  return {
    engine: run.engine,
    method: run.method,
    result: run.answer ? run.answer.text : run.message,
    confidence: engineConfidence(status, run.answer),
    latency_ms: t.latencyMs,
    success: run.answer !== null,
    status,
    advisory,
    ...(run.detail || run.answer ? { detail: { ...(run.answer ? { note: run.message } : {}), ...run.detail } } : {}),
  };
}

export async function runConsensus(
  query: string,
  mode: VerificationMode,
  opts: ConsensusOptions,
): Promise<ConsensusComputation> {
  const started = performance.now();
  let classified: ClassifiedQuery = classifyQuery(query);
  // Natural-language arithmetic: translated first by the deterministic local translator
  // (docs/natural-language.md). The translation is a chain entry of its own, never VERIFIED,
  // and it caps the consensus: the engines agree on the translated expression only.
  let translationEntry: ChainEntry | null = null;
  if (classified.kind === 'natural_language') {
    const t0 = performance.now();
    const t = translateArithmeticLocally(query);
    if (t.is_math_query && t.expression) {
      const expr =
        t.asserted && t.claimed_answer !== null ? `${t.expression} = ${formatNumber(t.claimed_answer)}` : t.expression;
      const re = classifyQuery(expr);
      if (re.kind === 'arithmetic') {
        classified = re;
        translationEntry = {
          engine: 'natural_language',
          method: 'local_translation',
          result: expr,
          confidence: 0,
          latency_ms: Math.round(performance.now() - t0),
          success: true,
          status: 'UNVERIFIABLE',
          advisory: true,
          detail: {
            source_query: query,
            translator: 'local',
            reasoning: t.reasoning,
            note: 'A translation is never verified: the consensus covers the translated expression only.',
          },
        };
      }
    } else {
      classified = {
        kind: 'natural_language',
        reason: `The local translator could not translate the query (${t.reasoning.replace(/^local translator: /, '')}). Send an arithmetic expression, an equation (e.g. "2^10 = 1024") or a statistic of a literal list (e.g. "mean(1, 2, 3) = 2").`,
      };
    }
  }
  if (classified.kind === 'natural_language') {
    return {
      queryKind: 'natural_language',
      evaluatedExpression: null,
      runs: [],
      chain: [
        {
          engine: 'natural_language',
          method: 'translation_failed',
          result: classified.reason,
          confidence: 0,
          latency_ms: 0,
          success: false,
          status: 'UNVERIFIABLE',
          advisory: false,
        },
      ],
      agreement: 'NONE',
      finalAnswer: '',
      confidence: 0,
      status: 'UNVERIFIABLE',
      sandboxFailure: null,
      engineMs: Math.round(performance.now() - started),
    };
  }
  const claim: ArithmeticClaim = {
    expression: classified.expression,
    translation: await opts.math.translate(classified.expression),
    statistic: classified.statistic,
  };
  const engines = { ...DEFAULT_ENGINES, ...opts.engines };
  const deadlineMs = opts.deadlineMs ?? CONSENSUS_DEADLINE_MS;
  const deadlineAt = Date.now() + deadlineMs;
  let expire!: () => void;
  const expired = new Promise<'late'>((resolve) => (expire = () => resolve('late')));
  const timer = setTimeout(expire, deadlineMs);
  const remaining = () => Math.max(1, deadlineAt - Date.now());

  const start = (engine: ConsensusEngine): Promise<TimedRun> => {
    const t0 = performance.now();
    const work = (async (): Promise<EngineRun> => {
      switch (engine) {
        case 'math':
          return engines.math(claim, { timeoutMs: remaining(), math: opts.math });
        case 'python':
          return engines.python(claim, {
            timeoutMs: Math.min(opts.pythonTimeoutMs ?? CONSENSUS_PYTHON_TIMEOUT_MS, remaining()),
          });
        case 'z3':
          return engines.z3(claim, {
            timeoutMs: Math.min(opts.z3TimeoutMs, remaining()),
            orgId: opts.orgId ?? null,
            pool: opts.logicPool,
          });
        case 'stats':
          return engines.stats(claim, {
            timeoutMs: Math.min(opts.pythonTimeoutMs ?? CONSENSUS_PYTHON_TIMEOUT_MS, remaining()),
          });
      }
    })().catch((err: unknown) =>
      // The engine pool cut the run at the deadline: the same entry as a run the deadline overtook.
      err instanceof ApplicationFailure && err.type === ENGINE_TIMEOUT_FAILURE
        ? lateRun(engine, deadlineMs)
        : failedRun(engine, err),
    );
    return Promise.race([work, expired]).then((r) => ({
      run: r === 'late' ? lateRun(engine, deadlineMs) : r,
      latencyMs: Math.round(performance.now() - t0),
    }));
  };

  // The sandbox and Z3 engines start first; the math engine runs in an engine thread
  // (opts.math) while they are under way.
  const order = enginesFor(mode, claim.statistic !== null);
  const pending = new Map<ConsensusEngine, Promise<TimedRun>>();
  for (const engine of order.filter((e) => e !== 'math')) pending.set(engine, start(engine));
  pending.set('math', start('math'));
  let runs: TimedRun[];
  try {
    runs = await Promise.all(order.map((e) => pending.get(e) as Promise<TimedRun>));
  } finally {
    clearTimeout(timer);
  }

  const chain = runs.map(toChainEntry);
  const agreement = await opts.math.agree(
    chain.map((c, i) => ({ answer: c.success ? (runs[i] as TimedRun).run.answer : null, confidence: c.confidence })),
  );
  const allVerified = chain.length > 0 && chain.every((c) => c.status === 'VERIFIED');
  const status: ChainStatus =
    allVerified && agreement.status === 'UNANIMOUS'
      ? 'VERIFIED'
      : chain.every((c) => c.status === 'BLOCKED')
        ? 'BLOCKED'
        : 'UNVERIFIABLE';
  const failure = runs.map((r) => r.run.sandboxFailure).find((f) => f !== undefined);
  return {
    queryKind: translationEntry ? 'natural_language' : claim.statistic ? 'statistical' : 'arithmetic',
    evaluatedExpression: claim.expression,
    runs,
    // The translation entry first; the activity aligns runs with the last chain entries.
    chain: translationEntry ? [translationEntry, ...chain] : chain,
    agreement: agreement.status,
    finalAnswer: agreement.finalAnswer,
    confidence: agreement.confidence,
    // A translated query is never VERIFIED as a whole: its interpretation is not proven.
    status: translationEntry && status === 'VERIFIED' ? 'UNVERIFIABLE' : status,
    // 'unavailable' wins over 'capacity': a missing sandbox is not fixed by retrying.
    sandboxFailure: runs.some((r) => r.run.sandboxFailure === 'unavailable') ? 'unavailable' : (failure ?? null),
    engineMs: Math.round(performance.now() - started),
  };
}
