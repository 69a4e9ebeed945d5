// Background store work that waits for a quiet moment of the admissions (issue 22, session 14;
// docs/batch.md "Session 14, admission").
//
// At the job limit every admission evicts a finished job, and the evicted job's documents are
// deleted after the POST answered (session 13). Run at once, those deletions (a read and three
// writes per job) queue on SQLite's one writer beside the claims, slots, requests and jobs of the
// rest of the same burst of submissions, whose POSTs answer only once their own writes are done.
// So a deletion waits until this process has had no admission in flight for `quietMs`, but never
// longer than `maxDeferMs` after it was queued (a steady stream of submissions must not hold the
// deletions back for good; the slot already answers 404 for the evicted job either way). Tasks run
// one after another, in the order queued; a failed task does not stop the ones after it.
//
// Session 18: a quiet moment of the admissions is not a quiet store. The jobs just admitted run
// right after it, and their chunks and 101-entry audit commits queue on the same writer as the
// deletions. `held` (the process's own jobs still running) holds the tasks too, within the same bound.

export class QuietQueue {
  private active = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly quietMs: number,
    private readonly maxDeferMs: number,
    private readonly now: () => number = Date.now,
    /** Also holds the tasks while true (within maxDeferMs), polled every quietMs. */
    private readonly held: () => boolean = () => false,
  ) {}

  /** Runs `fn` as foreground work: queued tasks wait while it runs and for `quietMs` after. */
  async busy<T>(fn: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.lastEnd = this.now();
    }
  }

  /** Queues `task` (never rejects; `onError` gets its failure). Resolves when it has run. */
  defer(task: () => Promise<unknown>, onError: (err: Error) => void = () => undefined): Promise<void> {
    const latest = this.now() + this.maxDeferMs;
    this.chain = this.chain.then(async () => {
      await this.quiet(latest);
      try {
        await task();
      } catch (err) {
        onError(err as Error);
      }
    });
    return this.chain;
  }

  /** Resolves once nothing ran for `quietMs` and nothing holds the tasks, or at `latest`. */
  private async quiet(latest: number): Promise<void> {
    for (;;) {
      const now = this.now();
      if (now >= latest) return;
      const quietFor = this.active > 0 || this.held() ? 0 : now - this.lastEnd;
      if (quietFor >= this.quietMs) return;
      await new Promise((r) => setTimeout(r, Math.max(1, Math.min(this.quietMs - quietFor, latest - now))));
    }
  }
}
