// Session 24 (issue 22; docs/batch.md "Session 24: the background sweeps"): an API process ran its
// slot-claim, release-queue and eviction sweeps in one 5-minute tick (and the rate windows' sweep
// on a timer of the same period started with it), so they all landed in the same second. Each
// now has its own phase in the period (core/background-timer.ts), every run moved by up to ±10 %.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TemporalGateway } from '../../api/temporal.js';
import { BatchJobs } from '../../api/batch-jobs.js';
import { backgroundTimer, nextDelay } from '../../core/background-timer.js';
import { batchJobsCfg, memStore } from './batch-mem-store.js';

describe('core/background-timer.ts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the delay after a run is the period moved by up to ±jitter of it', () => {
    expect(nextDelay(300_000, 0.1, () => 0)).toBe(270_000);
    expect(nextDelay(300_000, 0.1, () => 0.5)).toBe(300_000);
    expect(nextDelay(300_000, 0.1, () => 0.999999)).toBe(330_000);
    expect(nextDelay(10, 0, () => 0.3)).toBe(10);
    expect(nextDelay(0, 0.1, () => 0)).toBe(1); // never a zero-delay loop
  });

  it('runs first at its phase, then once per (jittered) period, until stopped', async () => {
    const runs: number[] = [];
    const t0 = Date.now();
    const randoms = [0, 1 - 1e-9, 0.5];
    const stop = backgroundTimer(() => runs.push(Date.now() - t0), 1000, {
      firstMs: 250,
      jitter: 0.2,
      random: () => randoms.shift() ?? 0.5,
    });
    await vi.advanceTimersByTimeAsync(4000);
    // 250, then +800 (random 0), +1200 (random ~1), +1000, +1000.
    expect(runs).toEqual([250, 1050, 2250, 3250]);
    stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toHaveLength(4);
  });
});

describe('api/batch-jobs.ts: the 5-minute sweeps each have their own phase (session 24)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("the claim and queue sweeps run at 20 and 95 s of each period, the evictions' sweep on the 60 s beat: never in one tick", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter: the phases themselves
    const cfg = batchJobsCfg(20);
    const m = memStore();
    const t0 = Date.now();
    const calls: Array<[string, number]> = [];
    const jobs = new BatchJobs(cfg, m.store, {} as TemporalGateway);
    const spy = (name: 'sweepClaims' | 'sweepQueue' | 'sweepDeadEvictors') =>
      vi.spyOn(jobs.store, name).mockImplementation(async () => {
        calls.push([name, Math.round((Date.now() - t0) / 1000)]);
        return 0;
      });
    spy('sweepClaims');
    spy('sweepQueue');
    spy('sweepDeadEvictors');
    vi.spyOn(jobs, 'sweepNeverStarted').mockResolvedValue(0); // the crash repair's own 30 s timer (unchanged)
    await vi.advanceTimersByTimeAsync(610_000);
    // Base ee02593: all three at 300 and 600 s (with the eviction sweep's first run at 3 s).
    // Merged with helper C's beat (session 24): the evictions' sweep runs at 3 s (its first, whole
    // read) and then every EVICTOR_BEAT_MS (60 s), reading the slots only when a process is dead.
    const at = (name: string) => calls.filter(([n]) => n === name).map(([, s]) => s);
    expect(at('sweepClaims')).toEqual([20, 320]);
    expect(at('sweepQueue')).toEqual([95, 395]);
    expect(at('sweepDeadEvictors')).toEqual([3, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600]);
    const ticks = calls.map(([, s]) => s);
    expect(new Set(ticks).size).toBe(ticks.length); // no two sweeps in one tick
  });
});
