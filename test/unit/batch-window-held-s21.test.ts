// Session 21 (issue 22, the evicting admission; docs/batch.md "Session 21: the release-queue window
// held 60 s"): a process answers admissions at SVC_BATCH_MAX_JOBS from the release-queue windows and
// the `head` hint it read for 60 s (was 10 s), so a burst more than 10 s after the last one claims
// with no read before its claim; past the bound it reads them again.
import { describe, expect, it, vi } from 'vitest';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const }];
const MAX = 10;
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

async function storeUnit(jobs: BatchJobStore, jobId: string) {
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
}

async function finish(jobs: BatchJobStore, jobId: string, at: Date) {
  await storeUnit(jobs, jobId);
  return jobs.complete(jobId, { completed_items: 1, failed_items: 0 }, 1, at);
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('the release-queue window held 60 s (session 21, in-memory store)', () => {
  it('an admission 20 s after the last burst at the limit claims from the window in hand, with no read before its claim; 70 s after, it reads the hint and the window again', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    try {
      await jobs.moveCursor('next', 0);
      const old = Array.from({ length: MAX }, (_, i) => `bj_q${i}`);
      for (const id of old) await jobs.admit(newJob(id), ITEMS, MAX);
      for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
      await tick();
      // A burst at the limit: its first admission reads the hint and the window, and the next windows are read ahead.
      const first = await Promise.all(['bj_r0', 'bj_r1', 'bj_r2'].map((id) => jobs.admit(newJob(id), ITEMS, MAX)));
      expect(first.map((a) => a.evicted).sort()).toEqual(['bj_q0', 'bj_q1', 'bj_q2']);
      await tick();
      /** The reads an admission sent before its claim's insert. */
      const readsBeforeClaim = async (id: string) => {
        const from = m.log.length;
        const a = await jobs.admit(newJob(id), ITEMS, MAX);
        const log = m.log.slice(from);
        const claim = log.findIndex((r) => r.coll === 'batch_slot_claims' && r.op === 'insertOne');
        expect(claim).toBeGreaterThanOrEqual(0);
        return {
          a,
          reads: log
            .slice(0, claim)
            .filter((r) => r.op === 'findOne')
            .map((r) => r.coll),
        };
      };
      skew = 20_000; // 0a0720a held the window and the hint 10 s: this admission read both again before its claim
      const later = await readsBeforeClaim('bj_r3');
      expect(later.a.evicted).toBe('bj_q3');
      expect(later.reads).toEqual([]);
      skew = 20_000 + 70_000; // past the bound: the hint and the window are read again
      const stale = await readsBeforeClaim('bj_r4');
      expect(stale.a.evicted).toBe('bj_q4');
      expect(stale.reads).toContain('batch_slot_cursors');
      expect(stale.reads).toContain('batch_slot_queue');
    } finally {
      clock.mockRestore();
    }
  });
});
