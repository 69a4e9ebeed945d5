// A background task's timer (session 24; docs/batch.md "Session 24: the background sweeps").
// An API process ran its claim, queue and eviction sweeps in one 5-minute tick and its rate-window
// sweep on another timer of the same period started at the same moment, so all four landed in
// the same second every 5 minutes, and every process started together with it did the same.
// Each task now gets its own phase in the period (`firstMs`), and each run is moved by a random
// share of the period (`jitter`), so tasks of one process stay apart and processes drift apart.

export interface BackgroundTimerOptions {
  /** The first run, this long after the timer starts (its phase in the period). */
  firstMs: number;
  /** Each later run comes `everyMs × (1 ± jitter)` after the one before (default 0.1). */
  jitter?: number;
  /** A number in [0, 1) (default Math.random; tests pass their own). */
  random?: () => number;
}

/** The delay before the run after one: `everyMs` moved by up to ±jitter of it. */
export function nextDelay(everyMs: number, jitter: number, random: () => number): number {
  return Math.max(1, Math.round(everyMs * (1 + jitter * (2 * random() - 1))));
}

/**
 * Runs `run` first after `firstMs`, then every `everyMs` (± jitter) until stopped. Never keeps the
 * process alive (unref). A run that throws is the task's own business: `run` catches and logs.
 * Returns the stop function.
 */
export function backgroundTimer(run: () => void, everyMs: number, opts: BackgroundTimerOptions): () => void {
  const jitter = opts.jitter ?? 0.1;
  const random = opts.random ?? Math.random;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const arm = (ms: number) => {
    timer = setTimeout(() => {
      if (stopped) return;
      arm(nextDelay(everyMs, jitter, random));
      run();
    }, ms);
    timer.unref?.();
  };
  arm(Math.max(0, opts.firstMs));
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
