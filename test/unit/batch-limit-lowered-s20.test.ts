// Session 20 (issue 22): the job limit lowered while the release queue holds slots at or above it
// (docs/performance.md "Session 20: the POST's slow rounds"; black box:
// test/http/batch-limit-lowered-s20.test.ts). Before the change such an entry counted as live, so
// `head` stayed on it for good and every admission walked the eight windows after it, then read all
// of batch_slots. Against the in-memory store that records every filter.
import { describe, expect, it } from 'vitest';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const }];
const OLD_MAX = 72;

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
  await jobs.complete(jobId, { completed_items: 1, failed_items: 0 }, 1, at);
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('persistence/batch.ts: a lowered job limit (session 20)', () => {
  it("admissions under a lowered limit pass the queue's slots above it once, then take slots below it by key", async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    // 72 jobs under a limit of 72, finished so that slots 2..71 are queued first, slots 0 and 1 last.
    for (let n = 0; n < OLD_MAX; n++) await jobs.admit(newJob(`bj_old${n}`), ITEMS, OLD_MAX);
    const slotOf = new Map<number, string>();
    for (const d of m.coll('batch_jobs').docs.values()) {
      const job = d as unknown as { _id: string; slot: number };
      slotOf.set(job.slot, job._id);
    }
    const order = [...Array.from({ length: OLD_MAX - 2 }, (_, i) => i + 2), 0, 1];
    for (const [k, slot] of order.entries())
      await finish(jobs, slotOf.get(slot)!, new Date(Date.UTC(2026, 0, 1, 1, 0, k)));
    await tick();

    // The limit is now 2 (a new process: nothing held from the old one).
    const lowered = new BatchJobStore(m.store);
    const wholeSlotReads = () => m.log.filter((r) => r.coll === 'batch_slots' && r.op === 'find').length;
    const first = await lowered.admit(newJob('bj_new0'), ITEMS, 2);
    expect([0, 1]).toContain(first.slot);
    await tick();
    const head = async () =>
      ((await m.store.collection('batch_slot_cursors').findOne({ _id: 'head' as never })) as { n?: number } | null)
        ?.n ?? 0;
    // `head` passed the 70 entries of slots 2..71, or most of them (8 windows of 8): 0 before the change.
    expect(await head()).toBeGreaterThanOrEqual(64);

    const reads = wholeSlotReads();
    const queueReadsBefore = m.log.filter((r) => r.coll === 'batch_slot_queue').length;
    let previous = first;
    let previousId = 'bj_new0';
    for (let i = 1; i <= 4; i++) {
      await finish(lowered, previousId, new Date(Date.UTC(2026, 0, 1, 2, 0, i)));
      await tick();
      const id = `bj_new${i}`;
      const a = await lowered.admit(newJob(id), ITEMS, 2);
      expect([0, 1]).toContain(a.slot);
      expect(a.evicted).not.toBeNull();
      await lowered.dropEvicted(a.drop);
      previous = a;
      previousId = id;
    }
    expect(previous.slot).not.toBeUndefined();
    // No read of all of batch_slots after the first admission (before the change: one per admission).
    expect(wholeSlotReads()).toBe(reads);
    expect(await head()).toBeGreaterThanOrEqual(OLD_MAX - 2);
    // The queue by key only, a window or so per admission: not eight windows (64 positions) each.
    const queueOps = m.log.filter((r) => r.coll === 'batch_slot_queue').slice(queueReadsBefore);
    for (const op of queueOps) expect(Object.keys(op.filter)).toEqual(op.op === 'insertOne' ? [] : ['_id']);
    expect(queueOps.filter((r) => r.op === 'findOne').length).toBeLessThanOrEqual(4 * 24);
  });
});
