// What an engine worker thread runs (activities/isolation/engine-pool.ts): the pure engines
// that see user input, as one table keyed by engine. `runIsolated('math', input)` names a key
// of this table and is typed by its function (input and result); go-to-definition on the key
// leads here, and from here to the engine. Inputs and results cross the thread boundary by
// structured clone, so they are plain data; the results are exactly what the engines return
// when called in-process.
import { verifyMath, mathBatchOutcome, type MathRequest } from '../../engines/math.js';
import { validateProcessRequest, verifyProcess } from '../../engines/process.js';
import { validateRagRequest, verifyRag } from '../../engines/rag.js';
import { scanCode } from '../../engines/code/index.js';
import { validateSqlRequest, verifySql, type VerifySqlEngines } from '../../engines/sql/index.js';
import { parseStatsQuery } from '../../engines/stats/query.js';
import { threadId } from 'node:worker_threads';
import type { EngineOutcome } from '../../core/diagnostic.js';

type ValidationFailure = { error: 'validation_error'; detail: string };

export const ENGINE_TASKS = {
  math: (input: MathRequest) => verifyMath(input),
  math_batch: (input: { expression: string; params: Record<string, unknown> }) => mathBatchOutcome(input.expression, input.params),
  process: (input: Record<string, unknown>): ReturnType<typeof verifyProcess> | ValidationFailure => {
    const parsed = validateProcessRequest(input);
    if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
    return verifyProcess(parsed.value);
  },
  rag: (input: Record<string, unknown>): ReturnType<typeof verifyRag> | ValidationFailure => {
    const parsed = validateRagRequest(input);
    if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
    return verifyRag(parsed.value);
  },
  sql: (input: { request: Record<string, unknown>; postgres?: VerifySqlEngines['postgres'] }): { invalid: string } | { outcome: EngineOutcome; query: string } => {
    const parsed = validateSqlRequest(input.request);
    if (!parsed.ok) return { invalid: parsed.detail };
    return { outcome: verifySql(parsed.value, input.postgres ? { postgres: input.postgres } : {}), query: parsed.value.query };
  },
  code: (input: { code: string; language: string; timeoutMs: number }) => scanCode(input.code, input.language, { timeoutMs: input.timeoutMs }),
  stats_query: (input: { query: string }) => parseStatsQuery(input.query),
  /** Warm-up: holds its thread 50 ms (so concurrent warm-ups spread over threads) and names it. */
  warm: (_input?: undefined) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    return threadId;
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
export type EngineTask = { [K in EngineTaskName]: undefined extends EngineTaskInput<K> ? { engine: K; input?: EngineTaskInput<K> } : { engine: K; input: EngineTaskInput<K> } }[EngineTaskName];

export async function runEngineTask(task: EngineTask): Promise<unknown> {
  const run = ENGINE_TASKS[task.engine] as (input: unknown) => unknown;
  return run(task.input);
}

export default runEngineTask;
