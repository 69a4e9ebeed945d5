// Session 14 (issue 22, a batch job's fixed cost): the result documents an API process keeps
// (BatchJobStore's `unitCache`) are one cache per store connection, so the unit a one-step job
// stores in the API process's in-process worker (workers/api-process.ts, eager start) is
// answered to the POST waiting on it without reading it back. Only audited (final) documents
// are kept, exactly as a read of the stored form gives them; a store without the cache, or
// another store connection, reads from the store as before.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { itemViews } from '../../core/batch.js';
import { BatchJobStore, resultId, type BatchResultDoc } from '../../persistence/batch.js';
import { clone } from './batch-mem-store.js';
import {
  EAGER_JOBS_MAX,
  announceCompletion,
  awaitCompletion,
  eagerJobCount,
  eagerJobFree,
  eagerJobStarted,
  jobEnded,
  waitingCount,
} from '../../core/completion-notices.js';

/** A store whose collections keep documents by `_id` and count the reads of each collection. */
function countingStore() {
  const reads: Record<string, number> = {};
  const colls = new Map<string, Map<string, Record<string, unknown>>>();
  const coll = (name: string) => {
    if (!colls.has(name)) colls.set(name, new Map());
    const docs = colls.get(name)!;
    return {
      async insertOne(doc: Record<string, unknown>) {
        docs.set(String(doc._id), clone(doc));
        return { acknowledged: true };
      },
      async findOne(filter: { _id: unknown }) {
        reads[name] = (reads[name] ?? 0) + 1;
        const d = docs.get(String(filter._id));
        return d ? clone(d) : null;
      },
    };
  };
  return { store: { collection: coll } as unknown as Store, reads };
}

function unitDoc(jobId: string, audited: boolean): BatchResultDoc {
  const requests = [
    { query: '1 + 1', type: 'math' as const },
    { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const },
  ];
  const views = itemViews(jobId, requests, [
    { index: 0, status: 'completed', result: { status: 'UNVERIFIABLE', value: 2, note: undefined }, latency_ms: 1.5 },
    { index: 1, status: 'failed', error: 'Item exceeded the batch item time-out (60000 ms).', latency_ms: 60000 },
  ]);
  return {
    _id: resultId(jobId, 0),
    job_id: jobId,
    org_id: 'org_a',
    unit: 0,
    items: views.map((view, index) => ({ index, view })),
    audited,
  };
}

describe('persistence/batch.ts: the result cache of an API process is shared by its stores (session 14)', () => {
  it("a unit stored by the in-process worker's store is answered by the API's store without a read, as the store would give it", async () => {
    const { store, reads } = countingStore();
    const worker = new BatchJobStore(store, { unitCache: true });
    const api = new BatchJobStore(store, { unitCache: true });
    const doc = unitDoc('bj_eager', true);
    await worker.storeUnit(doc);
    const [cached] = await api.unitResults('bj_eager', [0]);
    expect(reads.batch_results ?? 0).toBe(0);
    // Exactly what the stored form reads back as (an undefined field dropped, as JSON drops it).
    const fresh = new BatchJobStore(countingStore().store);
    expect(cached).toEqual(await readBack(fresh, doc));
    expect(JSON.stringify(cached!.items)).toBe(JSON.stringify(doc.items));
  });

  it('a store without the cache (a standalone worker) keeps nothing; another store connection has its own cache', async () => {
    const a = countingStore();
    await new BatchJobStore(a.store).storeUnit(unitDoc('bj_plain', true));
    await new BatchJobStore(a.store, { unitCache: true }).unitResults('bj_plain', [0]);
    expect(a.reads.batch_results).toBe(1);
    const b = countingStore();
    await new BatchJobStore(a.store, { unitCache: true }).storeUnit(unitDoc('bj_other', true));
    expect(await new BatchJobStore(b.store, { unitCache: true }).unitResults('bj_other', [0])).toEqual([null]);
    expect(b.reads.batch_results).toBe(1);
  });

  it('a unit not yet audited is never kept: a later read sees the stored document', async () => {
    const { store, reads } = countingStore();
    await new BatchJobStore(store, { unitCache: true }).storeUnit(unitDoc('bj_unaudited', false));
    const [got] = await new BatchJobStore(store, { unitCache: true }).unitResults('bj_unaudited', [0]);
    expect(reads.batch_results).toBe(1);
    expect(got?.audited).toBe(false);
  });
});

/** The document as a store read gives it back: stored through a fresh store, then read. */
async function readBack(jobs: BatchJobStore, doc: BatchResultDoc): Promise<BatchResultDoc | null> {
  await jobs.storeUnit(doc);
  return (await jobs.unitResults(doc.job_id, [doc.unit]))[0] ?? null;
}

describe('core/completion-notices.ts: a POST hears of the job its own process completed (session 14)', () => {
  const notice = { completed_at: '2026-11-27T05:00:00.000Z', completed_items: 99, failed_items: 1 };

  it('a waiter registered before the job runs gets the stored completion; the entry is gone after', async () => {
    const w = awaitCompletion('bj_notice_1');
    announceCompletion('bj_notice_1', notice);
    await expect(w.done).resolves.toEqual(notice);
    w.cancel();
    expect(waitingCount()).toBe(0);
  });

  it('a notice nobody waits for (a standalone worker, or a POST that gave up) is dropped and keeps nothing', async () => {
    announceCompletion('bj_notice_2', notice);
    const late = awaitCompletion('bj_notice_2');
    const settled = await Promise.race([
      late.done.then(() => 'heard'),
      new Promise((r) => setTimeout(() => r('not'), 50)),
    ]);
    expect(settled).toBe('not');
    late.cancel();
    expect(waitingCount()).toBe(0);
  });

  it("each job's notice reaches its own waiter only", async () => {
    const a = awaitCompletion('bj_notice_a');
    const b = awaitCompletion('bj_notice_b');
    announceCompletion('bj_notice_b', { ...notice, completed_items: 7 });
    await expect(b.done).resolves.toMatchObject({ completed_items: 7 });
    expect(waitingCount()).toBe(1);
    a.cancel();
    expect(waitingCount()).toBe(0);
  });
});

describe('core/completion-notices.ts: at most EAGER_JOBS_MAX one-step jobs run in the API process at a time (session 14)', () => {
  it('a job started here counts until its activity ends here; one that never ends here stops counting after 30 s', () => {
    expect(eagerJobFree()).toBe(true);
    eagerJobStarted('bj_here_1', 1_000);
    expect(EAGER_JOBS_MAX).toBe(1);
    expect(eagerJobFree(1_500)).toBe(false); // a burst's next job starts on the normal queue
    jobEnded('bj_here_1');
    expect(eagerJobFree(1_600)).toBe(true);
    eagerJobStarted('bj_lost', 2_000); // e.g. the server did not start it eagerly: it ran elsewhere
    expect(eagerJobFree(31_000)).toBe(false);
    expect(eagerJobFree(32_001)).toBe(true);
    expect(eagerJobCount()).toBe(0);
  });
});
