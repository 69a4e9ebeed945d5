// Session 23 (issue 22, the evicting admission; docs/batch.md "Session 23", "The read-ahead after
// the burst"): at SVC_BATCH_MAX_JOBS a process proposes slots from the release-queue windows it holds,
// and read the windows ahead beside the burst's admissions (data-scale's capture: 2.5 queue and 2.4
// slot point reads per POST at the limit, none below it). While the next window is in hand, the
// windows ahead are now refilled once the admissions pause: a burst at the limit that finds its
// windows in hand sends no window read while it is admitted, and the refill follows it.
import { describe, expect, it, vi } from 'vitest';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const }];
const MAX = 48;
const newJob = (id: string): NewBatchJob =>
  newBatchJob({
    jobId: id,
    orgId: 'org_a',
    workflowId: `batch-org_a-${id}`,
    totalItems: 1,
    units: batchUnits(ITEMS, 8).length,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });

async function finish(jobs: BatchJobStore, jobId: string, at: Date) {
  const views = itemViews(jobId, ITEMS, [
    { index: 0, status: 'completed', result: { status: 'VERIFIED' }, latency_ms: 1 },
  ]);
  await jobs.storeUnit({
    _id: resultId(jobId, 0),
    job_id: jobId,
    org_id: 'org_a',
    unit: 0,
    items: [{ index: 0, view: views[0]! }],
  });
  return jobs.complete(jobId, { completed_items: 1, failed_items: 0 }, 1, at);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store's deferred refill, as far as a test needs to see it: pending (timer armed) or reading. */
interface RefillState {
  aheadTimer: unknown;
  windowReads: Map<number, unknown>;
}

/**
 * Polls (every 20 ms, at most 5 s) until the deferred refill has fired (after AHEAD_QUIET_MS, in
 * timer steps) and its window reads are done (no timer armed, no window read in flight), then
 * returns `count()`. A poll, not a fixed sleep: a slow or loaded machine waits as long as it needs.
 */
async function afterRefill(jobs: BatchJobStore, count: () => number): Promise<number> {
  const state = jobs as unknown as RefillState;
  const deadline = performance.now() + 5_000; // not Date.now(): the first row moves it
  while (performance.now() < deadline && (count() === 0 || state.aheadTimer !== null || state.windowReads.size > 0))
    await sleep(20);
  return count();
}

describe('the read-ahead after the burst (session 23, in-memory store)', () => {
  it('a burst at the limit whose windows are in hand sends no window read while it is admitted; the windows ahead are read once it paused', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    const windowReads = (from: number) =>
      m.log.slice(from).filter((r) => r.op === 'findOne' && ['batch_slot_queue', 'batch_slots'].includes(r.coll))
        .length;
    const burst = (names: string[]) => Promise.all(names.map((id) => jobs.admit(newJob(id), ITEMS, MAX)));
    try {
      await jobs.moveCursor('next', 0);
      const old = Array.from({ length: MAX }, (_, i) => `bj_q${String(i).padStart(2, '0')}`);
      for (const id of old) await jobs.admit(newJob(id), ITEMS, MAX);
      for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
      await sleep(5);
      // The first burst at the limit reads the hint and its windows (none in hand yet).
      const first = await burst(Array.from({ length: 10 }, (_, i) => `bj_r${i}`));
      expect(first.map((a) => a.evicted).sort()).toEqual(old.slice(0, 10));
      const from0 = m.log.length;
      // The admissions paused: the windows ahead are read now (polled until those reads are done).
      expect(await afterRefill(jobs, () => windowReads(from0))).toBeGreaterThan(0);
      skew = 10_000; // the next burst 10 s later (within HELD_MS; past AHEAD_FRESH_MS, so 48254a7 read its windows again beside it)
      const from = m.log.length;
      // 15 admissions, queue positions 10-24: into a third window (with two windows read after the pause, the one after it was read beside them).
      const second = await burst(Array.from({ length: 15 }, (_, i) => `bj_s${String(i).padStart(2, '0')}`));
      expect(second.map((a) => a.evicted).sort()).toEqual(old.slice(10, 25));
      // 48254a7: the windows ahead read beside the burst's admissions (8 queue positions and their slots per window).
      expect(windowReads(from)).toBe(0);
      const after = m.log.length;
      expect(await afterRefill(jobs, () => windowReads(after))).toBeGreaterThan(0); // refilled once the burst paused
      // The next burst again finds its windows in hand.
      skew = 20_000;
      const from3 = m.log.length;
      const third = await burst(Array.from({ length: 10 }, (_, i) => `bj_t${i}`));
      expect(third.map((a) => a.evicted).sort()).toEqual(old.slice(25, 35));
      expect(windowReads(from3)).toBe(0);
      let fromPause = m.log.length;
      // Bursts that stay inside one window, 50 s apart: the window in use is refreshed after each
      // pause too, so the next burst, more than HELD_MS after that window was first read, still
      // reads nothing beside its admissions (the first version read it again on the path).
      for (const [k, names] of [
        ['u', 2],
        ['v', 2],
        ['w', 2],
      ] as const) {
        expect(await afterRefill(jobs, () => windowReads(fromPause)), `refill before burst ${k}`).toBeGreaterThan(0);
        skew += 50_000;
        const fromK = m.log.length;
        await burst(Array.from({ length: names }, (_, i) => `bj_${k}${i}`));
        expect(windowReads(fromK), `burst ${k}`).toBe(0);
        fromPause = m.log.length;
      }
    } finally {
      clock.mockRestore();
    }
  });

  it('the refill also waits while the process says it is busy (the API: submissions whose workflow start is not done)', async () => {
    const m = memStore();
    let busy = true;
    const jobs = new BatchJobStore(m.store, { busy: () => busy });
    const queueReads = (from: number) =>
      m.log.slice(from).filter((r) => r.op === 'findOne' && r.coll === 'batch_slot_queue').length;
    await jobs.moveCursor('next', 0);
    const old = Array.from({ length: MAX }, (_, i) => `bj_q${String(i).padStart(2, '0')}`);
    for (const id of old) await jobs.admit(newJob(id), ITEMS, MAX);
    for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
    // A burst that runs into its second window: the refill after it is deferred.
    await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_r${i}`), ITEMS, MAX)));
    const from = m.log.length;
    await sleep(800);
    expect(queueReads(from)).toBe(0); // busy: held
    busy = false;
    expect(await afterRefill(jobs, () => queueReads(from))).toBeGreaterThan(0);
  });
});
