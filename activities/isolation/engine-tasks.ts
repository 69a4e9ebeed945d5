// What an engine worker thread runs (activities/isolation/engine-pool.ts): the pure engines
// that see user input, as one table keyed by engine. `runIsolated('math', input)` names a key
// of this table and is typed by its function (input and result); go-to-definition on the key
// leads here, and from here to the engine. Inputs and results cross the thread boundary by
// structured clone, so they are plain data; the results are exactly what the engines return
// when called in-process.
import type { MathRequest } from '../../engines/math.js';
import type { VerifySqlEngines } from '../../engines/sql/index.js';
import type { EngineOutcome } from '../../core/diagnostic.js';
import type { GuardReport, GuardTask } from '../../engines/agent-guards/index.js';
import type { Scored } from '../consensus/agreement.js';
import { parentPort, threadId, workerData } from 'node:worker_threads';

// Each engine module is imported on first use and kept (the module cache): a thread loads only
// the engines its process runs. The pool preloads its list at thread start (engine-worker.mjs),
// so no task pays for an import inside its deadline (docs/performance.md, memory).
export const ENGINE_MODULES = {
  math: () => import('../../engines/math.js'),
  process: () => import('../../engines/process.js'),
  rag: () => import('../../engines/rag.js'),
  code: () => import('../../engines/code/index.js'),
  sql: () => import('../../engines/sql/index.js'),
  stats: () => import('../../engines/stats/query.js'),
  guards: () => import('../../engines/agent-guards/index.js'),
  // The math steps of /verify/consensus and /verify/natural_language (mathjs): here, not on the
  // worker's main thread (docs/performance.md, memory). Small on top of math, which they use.
  consensus: () => import('../consensus/pure-math.js'),
  nl: () => import('../../engines/nl/evaluate-translation.js'),
};
export type EngineModuleName = keyof typeof ENGINE_MODULES;
export const ALL_ENGINE_MODULES = Object.keys(ENGINE_MODULES) as EngineModuleName[];

/** Loads the named engine modules (all by default). */
export async function preloadEngines(names: readonly EngineModuleName[] = ALL_ENGINE_MODULES): Promise<void> {
  await Promise.all(names.map((n) => ENGINE_MODULES[n]()));
}

/** The message a thread posts to the pool once it has loaded its engines (engine-pool.ts). */
export const ENGINES_LOADED_MESSAGE = 'svcEngineThreadLoaded';

/**
 * Loads the engines the pool names for its threads (workerData.preload; all when absent) and tells
 * the pool this thread has them, so it gives tasks to loaded threads first (engine-pool.ts).
 */
export async function loadEngines(): Promise<number> {
  loaded ??= preloadEngines((workerData as { preload?: EngineModuleName[] } | null)?.preload ?? undefined).then(
    () => void parentPort?.postMessage({ [ENGINES_LOADED_MESSAGE]: threadId }),
  );
  await loaded;
  enginesLoaded = true;
  return threadId;
}
let loaded: Promise<void> | undefined;
let enginesLoaded = false;

/** A thread's answer to the warm-up task. */
export interface WarmAnswer {
  id: number;
  loaded: boolean;
}

type ValidationFailure = { error: 'validation_error'; detail: string };
type ProcessResult = ReturnType<Awaited<ReturnType<typeof ENGINE_MODULES.process>>['verifyProcess']>;
type RagResult = ReturnType<Awaited<ReturnType<typeof ENGINE_MODULES.rag>>['verifyRag']>;

export const ENGINE_TASKS = {
  math: async (input: MathRequest) => (await ENGINE_MODULES.math()).verifyMath(input),
  math_batch: async (input: { expression: string; params: Record<string, unknown> }) =>
    (await ENGINE_MODULES.math()).mathBatchOutcome(input.expression, input.params),
  /**
   * A batch unit's math items in one task (issue 22: one thread hop per unit, not per item), one
   * after another, each with its own engine time in ms. The caller bounds the whole task; a unit
   * that runs past it is run again item by item (activities/verify-batch.ts).
   */
  math_batch_group: async (input: { items: Array<{ expression: string; params: Record<string, unknown> }> }) => {
    const { mathBatchOutcome } = await ENGINE_MODULES.math();
    return input.items.map((it) => {
      const t0 = performance.now();
      const outcome = mathBatchOutcome(it.expression, it.params);
      return { outcome, ms: performance.now() - t0 };
    });
  },
  process: async (input: Record<string, unknown>): Promise<ProcessResult | ValidationFailure> => {
    const { validateProcessRequest, verifyProcess } = await ENGINE_MODULES.process();
    const parsed = validateProcessRequest(input);
    if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
    return verifyProcess(parsed.value);
  },
  rag: async (input: Record<string, unknown>): Promise<RagResult | ValidationFailure> => {
    const { validateRagRequest, verifyRag } = await ENGINE_MODULES.rag();
    const parsed = validateRagRequest(input);
    if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
    return verifyRag(parsed.value);
  },
  sql: async (input: {
    request: Record<string, unknown>;
    postgres?: VerifySqlEngines['postgres'];
  }): Promise<{ invalid: string } | { outcome: EngineOutcome; query: string }> => {
    const { validateSqlRequest, verifySql } = await ENGINE_MODULES.sql();
    const parsed = validateSqlRequest(input.request);
    if (!parsed.ok) return { invalid: parsed.detail };
    return {
      outcome: verifySql(parsed.value, input.postgres ? { postgres: input.postgres } : {}),
      query: parsed.value.query,
    };
  },
  code: async (input: { code: string; language: string; timeoutMs: number }) =>
    (await ENGINE_MODULES.code()).scanCode(input.code, input.language, { timeoutMs: input.timeoutMs }),
  stats_query: async (input: { query: string }) => (await ENGINE_MODULES.stats()).parseStatsQuery(input.query),
  /** The agent guards of one request (exfiltration, tool poisoning): activities/agent-guard-scan.ts. */
  guard: async (input: GuardTask): Promise<GuardReport> => (await ENGINE_MODULES.guards()).runGuardTask(input),
  /** /verify/consensus: the query's arithmetic as plain data (activities/consensus/arith-translate.ts). */
  consensus_translate: async (input: { expression: string }) =>
    (await ENGINE_MODULES.consensus()).translateArithmetic(input.expression),
  /** /verify/consensus: the math engine's run (activities/consensus/math-engine.ts). */
  consensus_math: async (input: { expression: string }) =>
    (await ENGINE_MODULES.consensus()).runMathEngine(input.expression),
  /** /verify/consensus: the engines' agreement, in 80-digit decimals (activities/consensus/agreement.ts). */
  consensus_agree: async (input: { entries: Scored[] }) => (await ENGINE_MODULES.consensus()).combine(input.entries),
  /** /verify/natural_language: the translated expression through the math engine (engines/nl/evaluate-translation.ts). */
  nl_evaluate: async (input: { expression: string; claimedAnswer: number | null }) =>
    (await ENGINE_MODULES.nl()).evaluateTranslation(input.expression, input.claimedAnswer),
  /**
   * The pool's own task (session 19): a thread that started without its engines (the spare) loads
   * them now, because a loaded thread was lost and this one serves in its place. Names the thread.
   */
  load: (_input?: undefined) => loadEngines(),
  /**
   * Warm-up: holds its thread 50 ms (so concurrent warm-ups spread over threads), names it and
   * says whether it has loaded its engines (a spare has not: engine-worker.mjs). Loads nothing.
   */
  warm: (_input?: undefined): WarmAnswer => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    return { id: threadId, loaded: enginesLoaded };
  },
  /** Tests only: spins until terminated (proves the hard kill). */
  spin: (_input?: undefined): never => {
    for (;;) {
      // busy loop: only a terminated thread ends it
    }
  },
};

export type EngineTaskName = keyof typeof ENGINE_TASKS;
export type EngineTaskInput<K extends EngineTaskName> = Parameters<(typeof ENGINE_TASKS)[K]>[0];
export type EngineTaskResult<K extends EngineTaskName> = Awaited<ReturnType<(typeof ENGINE_TASKS)[K]>>;
/** The message a thread receives: a key of the table and its input. */
export type EngineTask = {
  [K in EngineTaskName]: undefined extends EngineTaskInput<K>
    ? { engine: K; input?: EngineTaskInput<K> }
    : { engine: K; input: EngineTaskInput<K> };
}[EngineTaskName];

export async function runEngineTask(task: EngineTask): Promise<unknown> {
  const run = ENGINE_TASKS[task.engine] as (input: unknown) => unknown;
  return run(task.input);
}

export default runEngineTask;
