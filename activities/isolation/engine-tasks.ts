// What an engine worker thread runs (activities/isolation/engine-pool.ts): the pure engines
// that see user input, behind one message-shaped entry point. Inputs and results cross the
// thread boundary by structured clone, so they are plain data; the results are exactly what
// the engines return when called in-process.
import { verifyMath, mathBatchOutcome, type MathRequest } from '../../engines/math.js';
import { validateProcessRequest, verifyProcess } from '../../engines/process.js';
import { validateRagRequest, verifyRag } from '../../engines/rag.js';
import { scanCode } from '../../engines/code/index.js';
import { validateSqlRequest, verifySql, type VerifySqlEngines } from '../../engines/sql/index.js';
import { parseStatsQuery } from '../../engines/stats/query.js';
import { threadId } from 'node:worker_threads';

export type EngineTask =
  | { engine: 'math'; input: MathRequest }
  | { engine: 'math_batch'; expression: string; params: Record<string, unknown> }
  | { engine: 'process'; input: Record<string, unknown> }
  | { engine: 'rag'; input: Record<string, unknown> }
  | { engine: 'sql'; input: Record<string, unknown>; postgres?: VerifySqlEngines['postgres'] }
  | { engine: 'code'; code: string; language: string; timeoutMs: number }
  | { engine: 'stats_query'; query: string }
  /** Warm-up: holds its thread 50 ms (so concurrent warm-ups spread over threads) and names it. */
  | { engine: 'warm' }
  /** Tests only: spins until terminated (proves the hard kill). */
  | { engine: 'spin' };

export type EngineTaskName = EngineTask['engine'];

export async function runEngineTask(task: EngineTask): Promise<unknown> {
  switch (task.engine) {
    case 'math':
      return verifyMath(task.input);
    case 'math_batch':
      return mathBatchOutcome(task.expression, task.params);
    case 'process': {
      const parsed = validateProcessRequest(task.input);
      if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
      return verifyProcess(parsed.value);
    }
    case 'rag': {
      const parsed = validateRagRequest(task.input);
      if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
      return verifyRag(parsed.value);
    }
    case 'sql': {
      const parsed = validateSqlRequest(task.input);
      if (!parsed.ok) return { invalid: parsed.detail };
      return { outcome: verifySql(parsed.value, task.postgres ? { postgres: task.postgres } : {}), query: parsed.value.query };
    }
    case 'code':
      return scanCode(task.code, task.language, { timeoutMs: task.timeoutMs });
    case 'stats_query':
      return parseStatsQuery(task.query);
    case 'warm':
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      return threadId;
    case 'spin':
      for (;;) {
        // busy loop: only a terminated thread ends it
      }
  }
}

export default runEngineTask;
