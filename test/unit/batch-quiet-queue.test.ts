// core/batch-quiet-queue.ts (issue 22, session 14): the evicted jobs' deletions wait for a quiet
// moment of the process's admissions, at most a bound, one after another. Real timers, short
// figures; each row fails if the queue ran a task at once (the session 13 behaviour).
import { describe, expect, it } from 'vitest';
import { QuietQueue } from '../../core/batch-quiet-queue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('QuietQueue: background work after the admissions', () => {
  it('a task queued while an admission runs waits for it and for the quiet time after it', async () => {
    const q = new QuietQueue(60, 5_000);
    const events: string[] = [];
    let release!: () => void;
    const admission = q.busy(async () => {
      events.push('admit start');
      await new Promise<void>((r) => (release = r));
      events.push('admit end');
    });
    const t0 = Date.now();
    let ranAt = 0;
    const done = q.defer(async () => {
      ranAt = Date.now();
      events.push('delete');
    });
    await sleep(100);
    expect(events).toEqual(['admit start']); // not while the admission runs
    release();
    await admission;
    const endedAt = Date.now();
    await done;
    expect(events).toEqual(['admit start', 'admit end', 'delete']);
    expect(ranAt - endedAt).toBeGreaterThanOrEqual(55);
    expect(ranAt - t0).toBeGreaterThanOrEqual(150);
  });

  it('admissions one after another keep holding it; it runs once they stop', async () => {
    const q = new QuietQueue(50, 5_000);
    let ran = 0;
    await q.busy(async () => undefined);
    const done = q.defer(async () => {
      ran = Date.now();
    });
    const until = Date.now() + 200;
    while (Date.now() < until) await q.busy(() => sleep(20));
    const last = Date.now();
    expect(ran).toBe(0);
    await done;
    expect(ran - last).toBeGreaterThanOrEqual(45);
  });

  it('never later than the bound under a steady stream of admissions', async () => {
    const q = new QuietQueue(50, 150);
    let ran = 0;
    let stop = false;
    const stream = (async () => {
      while (!stop) await q.busy(() => sleep(10));
    })();
    const t0 = Date.now();
    await q.defer(async () => {
      ran = Date.now();
    });
    stop = true;
    await stream;
    expect(ran - t0).toBeGreaterThanOrEqual(140);
    expect(ran - t0).toBeLessThan(1_000);
  });

  it('with no admission at all, a task runs at once; tasks run one at a time in order; a failure does not stop the next', async () => {
    const q = new QuietQueue(50, 5_000);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(5);
        running--;
        order.push(name);
        if (fail) throw new Error(`${name} failed`);
      };
    const errors: string[] = [];
    const t0 = Date.now();
    await Promise.all([
      q.defer(task('a')),
      q.defer(task('b', true), (e) => errors.push(e.message)),
      q.defer(task('c')),
    ]);
    expect(Date.now() - t0).toBeLessThan(45 + 3 * 50); // no quiet wait: nothing was ever busy
    expect(order).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    expect(errors).toEqual(['b failed']);
  });

  it('a failed admission counts as ended (the task is not held back for good)', async () => {
    const q = new QuietQueue(30, 5_000);
    await expect(q.busy(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    const t0 = Date.now();
    await q.defer(async () => undefined);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('session 18: a task also waits while `held` says the jobs just admitted still run, and runs once they are done (no admission meanwhile), or at the bound', async () => {
    let jobsRunning = true;
    const q = new QuietQueue(40, 5_000, Date.now, () => jobsRunning);
    let ran = 0;
    const t0 = Date.now();
    const done = q.defer(async () => {
      ran = Date.now();
    });
    await sleep(300);
    expect(ran).toBe(0); // no admission at all, but the jobs run
    const releasedAt = Date.now();
    jobsRunning = false;
    await done;
    expect(ran).toBeGreaterThanOrEqual(releasedAt);
    expect(ran - t0).toBeGreaterThanOrEqual(300);
    // Held for good: the bound still runs it.
    const bounded = new QuietQueue(40, 200, Date.now, () => true);
    const t1 = Date.now();
    let ran2 = 0;
    await bounded.defer(async () => {
      ran2 = Date.now();
    });
    expect(ran2 - t1).toBeGreaterThanOrEqual(190);
    expect(ran2 - t1).toBeLessThan(2_000);
  });
});
