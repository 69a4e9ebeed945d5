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

/** A store whose collections keep documents by `_id` and count the reads of each collection. */
function countingStore() {
  const reads: Record<string, number> = {};
  const colls = new Map<string, Map<string, Record<string, unknown>>>();
  const coll = (name: string) => {
    if (!colls.has(name)) colls.set(name, new Map());
    const docs = colls.get(name)!;
    return {
      async insertOne(doc: Record<string, unknown>) {
        docs.set(String(doc._id), structuredClone(doc));
        return { acknowledged: true };
      },
      async findOne(filter: { _id: unknown }) {
        reads[name] = (reads[name] ?? 0) + 1;
        const d = docs.get(String(filter._id));
        return d ? structuredClone(d) : null;
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
