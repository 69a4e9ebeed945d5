// How activities run an engine in the engine pool: under the engine's deadline (never past the
// activity's own start-to-close time-out), for the calling organization, with time-outs and
// thread failures turned into non-retryable failures (docs/isolation.md).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { DETERMINISTIC_ENGINE_FAILURE, ENGINE_TIMEOUT_FAILURE } from '../../core/failure-types.js';
import type { EnginePool, EngineRunOutcome } from './engine-pool.js';
import type { EngineTask, EngineTaskInput, EngineTaskName, EngineTaskResult } from './engine-tasks.js';

/** Time kept between the engine deadline and the activity's own time-out (the answer must get out). */
const ACTIVITY_MARGIN_MS = 300;
const MIN_BUDGET_MS = 50;

/** `engineMs`, shortened to end before the current activity's start-to-close time-out. */
export function engineBudgetMs(engineMs: number): number {
  let activityMs: number | undefined;
  try {
    activityMs = Context.current().info.startToCloseTimeoutMs;
  } catch {
    activityMs = undefined; // outside an activity (unit tests)
  }
  const cap = activityMs && activityMs > 0 ? activityMs - ACTIVITY_MARGIN_MS : engineMs;
  return Math.max(MIN_BUDGET_MS, Math.min(engineMs, cap));
}

export function engineTimeoutFailure(detail: string): ApplicationFailure {
  return ApplicationFailure.create({ message: detail, type: ENGINE_TIMEOUT_FAILURE, nonRetryable: true });
}

export interface IsolatedRunOptions {
  orgId: string | null;
  timeoutMs: number;
  timeoutDetail: string;
  /** The engine pool the composition root passed to the activity (createActivities' deps). */
  pool: EnginePool;
}

/**
 * Runs `engine` of the engine-thread task table (engine-tasks.ts ENGINE_TASKS) on `input` in the
 * pool; resolves with the engine's value, typed by the table, or throws a non-retryable failure.
 */
export async function runIsolated<K extends EngineTaskName>(
  engine: K,
  input: EngineTaskInput<K>,
  opts: IsolatedRunOptions,
): Promise<EngineTaskResult<K>>;
/** @deprecated The message form (`{ engine: 'math_batch', expression, params }`), kept until activities/verify-batch.ts moves to the keyed form. */
export async function runIsolated<T>(
  task: { engine: 'math_batch'; expression: string; params: Record<string, unknown> },
  opts: IsolatedRunOptions,
): Promise<T>;
export async function runIsolated(
  engineOrTask: EngineTaskName | { engine: 'math_batch'; expression: string; params: Record<string, unknown> },
  inputOrOpts: unknown,
  maybeOpts?: IsolatedRunOptions,
): Promise<unknown> {
  const [task, opts] =
    typeof engineOrTask === 'string'
      ? [{ engine: engineOrTask, input: inputOrOpts } as EngineTask, maybeOpts as IsolatedRunOptions]
      : [
          {
            engine: 'math_batch',
            input: { expression: engineOrTask.expression, params: engineOrTask.params },
          } satisfies EngineTask,
          inputOrOpts as IsolatedRunOptions,
        ];
  const r: EngineRunOutcome<unknown> = await opts.pool.run(task, {
    orgId: opts.orgId,
    timeoutMs: opts.timeoutMs,
  });
  if (r.kind === 'ok') return r.value;
  if (r.kind === 'timeout') throw engineTimeoutFailure(opts.timeoutDetail);
  throw ApplicationFailure.create({
    message: `Engine failed on this input: ${r.detail}`,
    type: DETERMINISTIC_ENGINE_FAILURE,
    nonRetryable: true,
  });
}
