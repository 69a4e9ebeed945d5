// Process-local notices of batch jobs completed by this process (session 14, issue 22: a batch
// job's fixed cost). A one-step job started eagerly runs in the API process's own worker
// (workers/api-process.ts): its activity stores the job completed (result document, audit
// entries, job, slot) and then tells the POST waiting in the same process, which answers from
// the store's state at once instead of waiting for the workflow task to be recorded and the
// result long poll to return. The stored job is final: a re-run of the activity (the process
// died before the task was recorded) keeps the first completion (docs/batch.md).
//
// Only a waiter registered before the job starts hears of it; a notice nobody waits for (a
// standalone worker, or a POST that gave up) is dropped. Nothing is kept per job otherwise.

/** A job's completion as stored (the workflow's result says the same). */
export interface CompletionNotice {
  completed_at: string;
  completed_items: number;
  failed_items: number;
}

const waiting = new Map<string, (notice: CompletionNotice) => void>();

/**
 * One-step jobs this process started eagerly and whose activity has not ended yet, with their
 * start time. The API process's main thread runs its worker's activities too, so a burst of jobs
 * all started here would leave the standalone workers idle and make this one thread the
 * bottleneck (10 jobs at once: 189 → 161 items/s): only this many run here at a time, the rest
 * start on the normal queue. An entry whose activity never ended here (the start was not eager
 * after all, the unit failed for good) stops counting after STALE_MS.
 */
const eagerJobs = new Map<string, number>();
export const EAGER_JOBS_MAX = 1;
const STALE_MS = 30_000;

/** Whether a one-step job may start eagerly in this process now (fewer than EAGER_JOBS_MAX running here). */
export function eagerJobFree(now = Date.now()): boolean {
  for (const [id, at] of eagerJobs) if (now - at > STALE_MS) eagerJobs.delete(id);
  return eagerJobs.size < EAGER_JOBS_MAX;
}

/** Counts a job started eagerly in this process until its activity here ends (jobEnded). */
export function eagerJobStarted(jobId: string, now = Date.now()): void {
  eagerJobs.set(jobId, now);
}

/** The job's activity ended in this process (completed or not): it no longer counts. */
export function jobEnded(jobId: string): void {
  eagerJobs.delete(jobId);
}

/** Waits for `jobId`'s completion by this process; `cancel` when no longer waiting (always: it frees the entry). */
export function awaitCompletion(jobId: string): { done: Promise<CompletionNotice>; cancel(): void } {
  let resolve!: (notice: CompletionNotice) => void;
  const done = new Promise<CompletionNotice>((r) => (resolve = r));
  waiting.set(jobId, resolve);
  return {
    done,
    cancel: () => {
      if (waiting.get(jobId) === resolve) waiting.delete(jobId);
    },
  };
}

/** Tells a waiter of this process (if any) that `jobId` is stored completed. */
export function announceCompletion(jobId: string, notice: CompletionNotice): void {
  const resolve = waiting.get(jobId);
  if (!resolve) return;
  waiting.delete(jobId);
  resolve(notice);
}

/** Waiters registered now, and jobs counted as running here (tests: none left behind). */
export function waitingCount(): number {
  return waiting.size;
}
export function eagerJobCount(): number {
  return eagerJobs.size;
}
