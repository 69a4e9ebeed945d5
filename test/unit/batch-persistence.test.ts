// persistence/batch.ts (issue 22) against an in-memory store that records every filter: the
// job store's behaviour (admission within the bound, eviction of the oldest finished job with
// its result documents and request, write-once result documents, idempotent completion and
// failure, the views) and its contract: on every growing collection (batch_jobs,
// batch_results, batch_requests, batch_slot_claims except the background sweep) each read,
// update and delete is exactly `{_id: <scalar>}`; only the bounded `batch_slots` is read whole.
// The same contract is checked on the running service by test/http/batch-store-commands.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  BatchCapacityError,
  BatchJobStore,
  CLAIM_RETENTION_MS,
  newBatchJob,
  resultId,
  type BatchJobDoc,
  type BatchResultDoc,
  type NewBatchJob,
} from '../../persistence/batch.js';
import { batchUnits, itemViews, type BatchItemOutcome } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';
import type { Store } from '../../core/store.js';

const ITEMS = [
  { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const },
  { query: '2 + 2', type: 'math' as const },
  { query: '(AND (GT x 5))', type: 'logic' as const },
];

function newJob(id: string, created = new Date('2026-01-01T00:00:00Z')): NewBatchJob {
  return newBatchJob({
    jobId: id,
    orgId: 'org_a',
    workflowId: `batch-org_a-${id}`,
    totalItems: ITEMS.length,
    units: batchUnits(ITEMS, 8).length,
    createdAt: created,
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });
}

/** Unit 0: the two math items; unit 1: the logic item. */
function resultDocs(jobId: string): BatchResultDoc[] {
  const outcomes: BatchItemOutcome[] = ITEMS.map((_, index) => ({
    index,
    status: 'completed',
    result: { status: index === 0 ? 'VERIFIED' : 'UNVERIFIABLE' },
    latency_ms: 1,
  }));
  const views = itemViews(jobId, ITEMS, outcomes);
  return [
    {
      _id: resultId(jobId, 0),
      job_id: jobId,
      org_id: 'org_a',
      unit: 0,
      items: [0, 1].map((i) => ({ index: i, view: views[i]! })),
    },
    { _id: resultId(jobId, 1), job_id: jobId, org_id: 'org_a', unit: 1, items: [{ index: 2, view: views[2]! }] },
  ];
}

async function runToCompletion(jobs: BatchJobStore, jobId: string, at: Date) {
  for (const d of resultDocs(jobId)) await jobs.storeUnit(d);
  expect(await jobs.complete(jobId, { completed_items: 3, failed_items: 0 }, 2, at)).toEqual({
    completed_items: 3,
    failed_items: 0,
    progress_percent: 100,
    completed_at: at,
  });
}

describe('persistence/batch.ts: the job store', () => {
  let m: ReturnType<typeof memStore>;
  let jobs: BatchJobStore;
  beforeEach(() => {
    m = memStore();
    jobs = new BatchJobStore(m.store);
  });

  it('units: math items in as few units as the chunk bound allows, other items one unit each', () => {
    expect(batchUnits(ITEMS, 8)).toEqual([
      { kind: 'math', indices: [0, 1] },
      { kind: 'item', index: 2 },
    ]);
    const hundred = Array.from({ length: 100 }, () => ({ type: 'math' as const }));
    expect(batchUnits(hundred, 8).map((u) => (u.kind === 'math' ? u.indices.length : 0))).toEqual([25, 25, 25, 25]);
    expect(batchUnits(hundred.slice(0, 30), 8).map((u) => (u.kind === 'math' ? u.indices.length : 0))).toEqual([
      15, 15,
    ]);
  });

  it('admits within the bound, then evicts the job that finished first with its result documents and request, all by id', async () => {
    const a = await jobs.admit(newJob('bj_a'), ITEMS, 2);
    const b = await jobs.admit(newJob('bj_b'), ITEMS, 2);
    expect([a.slot, b.slot].sort()).toEqual([0, 1]);
    // Both active: a third is refused (no reclaim given).
    await expect(jobs.admit(newJob('bj_c'), ITEMS, 2)).rejects.toBeInstanceOf(BatchCapacityError);
    // Its request went out beside the admission (session 12) and is deleted with the refusal.
    expect(await jobs.request('bj_c')).toBeNull();
    expect(m.coll('batch_requests').docs.size).toBe(2);
    await runToCompletion(jobs, 'bj_b', new Date('2026-01-01T00:01:00Z'));
    await runToCompletion(jobs, 'bj_a', new Date('2026-01-01T00:02:00Z'));
    expect(m.coll('batch_results').docs.size).toBe(4);

    const c = await jobs.admit(newJob('bj_c'), ITEMS, 2);
    expect(c).toEqual({ slot: b.slot, evicted: 'bj_b', drop: ['bj_b'] });
    // Evicted at the slot write (it reads as 404 from here); its documents go after the admission answered.
    expect(await jobs.holdsSlot((await jobs.find('bj_b'))!)).toBe(false);
    expect(await jobs.holdsSlot((await jobs.find('bj_a'))!)).toBe(true);
    expect(await jobs.dropEvicted(c.drop)).toBe(1);
    expect(await jobs.dropEvicted(c.drop)).toBe(0); // idempotent
    expect(await jobs.find('bj_b')).toBeNull();
    expect(await jobs.request('bj_b')).toBeNull();
    expect(await jobs.unitResults('bj_b', [0, 1])).toEqual([null, null]);
    // bj_a is untouched, with its results.
    expect((await jobs.unitResults('bj_a', [0, 1])).every(Boolean)).toBe(true);
    expect(m.coll('batch_jobs').docs.size).toBe(2);
  });

  it("session 15: an evicted job's deletion reads no job document (its finished slot carries its result-document count): 3 deletes by id, not a read and 3 deletes; a slot without the count still reads the job", async () => {
    await jobs.admit(newJob('bj_d1'), ITEMS, 2);
    await jobs.admit(newJob('bj_d2'), ITEMS, 2);
    await runToCompletion(jobs, 'bj_d1', new Date('2026-01-01T00:01:00Z'));
    await runToCompletion(jobs, 'bj_d2', new Date('2026-01-01T00:02:00Z'));
    // The completion wrote the job's result-document count onto its slot.
    const slotOf = (job: string) => [...m.coll('batch_slots').docs.values()].find((d: any) => d.job_id === job) as any;
    expect(slotOf('bj_d1')).toMatchObject({ state: 'finished', units: 2 });
    const e1 = await jobs.admit(newJob('bj_e1'), ITEMS, 2);
    expect(e1.drop).toEqual(['bj_d1']);
    // The admission that took the slot cleared the count (it belongs to the evicted job).
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(e1.slot)))).toMatchObject({
      job_id: 'bj_e1',
      units: null,
    });
    const from = m.log.length;
    expect(await jobs.dropEvicted(e1.drop)).toBe(1);
    const sent = m.log.slice(from).map((r) => `${r.coll}.${r.op} ${JSON.stringify(r.filter)}`);
    // The results and the request side by side, then the job (it names the rest: deleted last).
    expect(sent.slice(0, 3).sort()).toEqual([
      'batch_requests.deleteOne {"_id":"bj_d1"}',
      'batch_results.deleteOne {"_id":"bj_d1#0"}',
      'batch_results.deleteOne {"_id":"bj_d1#1"}',
    ]);
    expect(sent.slice(3)).toEqual(['batch_jobs.deleteOne {"_id":"bj_d1"}']);
    expect(await jobs.find('bj_d1')).toBeNull();
    expect(await jobs.request('bj_d1')).toBeNull();
    expect(m.coll('batch_results').docs.has(JSON.stringify(resultId('bj_d1', 0)))).toBe(false);
    expect([...m.coll('batch_results').docs.keys()].filter((k) => k.includes('bj_d1'))).toEqual([]);
    // A slot finished before the count existed (no `units`): the deletion reads the job first, as before.
    const legacy = slotOf('bj_d2');
    delete legacy.units;
    const other = new BatchJobStore(m.store); // a process that reads the slot as it is now
    const e2 = await other.admit(newJob('bj_e2'), ITEMS, 2);
    expect(e2.drop).toEqual(['bj_d2']);
    const from2 = m.log.length;
    expect(await other.dropEvicted(e2.drop)).toBe(1);
    const ops = m.log.slice(from2).map((r) => `${r.coll}.${r.op}`);
    expect(ops[0]).toBe('batch_jobs.findOne');
    expect(ops.filter((o) => o.endsWith('deleteOne'))).toHaveLength(4);
    expect([...m.coll('batch_results').docs.keys()].filter((k) => k.includes('bj_d2'))).toEqual([]);
    // A process that did not see the count (a fresh store object, the sweep's path) deletes what is left the old way: gone is false.
    expect(await new BatchJobStore(m.store).dropEvicted(['bj_d1'])).toBe(0);
  });

  it('ten admissions submitted together take ten different slots without re-reading the slot table round after round', async () => {
    const admitted = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_c${i}`), ITEMS, 50)));
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(10);
    const scans = m.log.filter((r) => r.coll === 'batch_slots' && r.op === 'find').length;
    // One read each, plus a few after losing every candidate (the old lowest-number race re-read once per winner: ~55).
    expect(scans).toBeLessThan(20);
    expect(m.coll('batch_jobs').docs.size).toBe(10);
  });

  // The slot directory (docs/batch.md, "The slot directory"): after the first admission of a store, admission reads batch_slots by _id only.
  const wholeSlotReads = () => m.log.filter((r) => r.coll === 'batch_slots' && r.op === 'find').length;
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('slot directory: after the first admission, ten admissions submitted together take ten new slots by key, no whole read of the slots', async () => {
    await jobs.admit(newJob('bj_first'), ITEMS, 50);
    await tick();
    const before = wholeSlotReads();
    const admitted = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_k${i}`), ITEMS, 50)));
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(10);
    // Racers spread over a window, so a number may stay open for a moment; `next` never passes
    // it, so the following admissions fill it: after them the 16 lowest numbers are all taken.
    const all = [(await jobs.find('bj_first'))!.slot, ...admitted.map((a) => a.slot)];
    expect(Math.max(...all)).toBeLessThan(24);
    for (let i = 0; i < 5; i++) await jobs.admit(newJob(`bj_fill${i}`), ITEMS, 50);
    const held = new Set([...m.coll('batch_slots').docs.values()].map((d) => Number(d._id)));
    for (let n = 0; n < 16; n++) expect(held.has(n), `slot ${n}`).toBe(true);
    expect(wholeSlotReads()).toBe(before);
    for (const r of m.log.filter((x) => ['batch_slots', 'batch_slot_queue', 'batch_slot_cursors'].includes(x.coll)))
      expect(r.op === 'find' || r.op.startsWith('insert') ? [] : Object.keys(r.filter)).toEqual(
        r.op === 'find' || r.op.startsWith('insert') ? [] : ['_id'],
      );
  });

  it('slot directory: at the limit, finished jobs are evicted oldest first from the release queue by key; every slot active is a 503', async () => {
    for (const id of ['bj_p', 'bj_q', 'bj_r']) await jobs.admit(newJob(id), ITEMS, 3);
    await tick();
    const before = wholeSlotReads();
    await runToCompletion(jobs, 'bj_q', new Date('2026-01-01T00:01:00Z'));
    await runToCompletion(jobs, 'bj_r', new Date('2026-01-01T00:02:00Z'));
    await runToCompletion(jobs, 'bj_p', new Date('2026-01-01T00:03:00Z'));
    const evicted = [];
    for (const id of ['bj_s', 'bj_t', 'bj_u']) {
      const a = await jobs.admit(newJob(id), ITEMS, 3);
      evicted.push(a.evicted);
      await jobs.dropEvicted(a.drop);
    }
    expect(evicted).toEqual(['bj_q', 'bj_r', 'bj_p']);
    expect(wholeSlotReads()).toBe(before);
    expect(m.coll('batch_jobs').docs.size).toBe(3);
    // Every slot active: the fallback reads the slots once and refuses.
    await expect(jobs.admit(newJob('bj_v'), ITEMS, 3)).rejects.toBeInstanceOf(BatchCapacityError);
    expect(await jobs.request('bj_v')).toBeNull();
    // Racing admissions for two released slots: two win distinct slots, the third is refused.
    await runToCompletion(jobs, 'bj_s', new Date('2026-01-01T00:04:00Z'));
    await runToCompletion(jobs, 'bj_t', new Date('2026-01-01T00:05:00Z'));
    const raced = await Promise.allSettled(['bj_w', 'bj_x', 'bj_y'].map((id) => jobs.admit(newJob(id), ITEMS, 3)));
    const won = raced.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<any>).value);
    expect(won.map((a) => a.evicted).sort()).toEqual(['bj_s', 'bj_t']);
    for (const a of won) await jobs.dropEvicted(a.drop);
    expect(new Set(won.map((a) => a.slot)).size).toBe(2);
    expect(raced.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(m.coll('batch_jobs').docs.size).toBe(3);
  });

  // Session 12: once every slot number is used, each admission evicts; a burst to one process
  // took the same oldest queue entry, lost nine claims (three round trips each) and POST p95
  // reached 800-1,200 ms on the 100,000-verification store (docs/performance.md, session 12).
  it('slot directory: at the limit, ten admissions submitted together to one process evict ten different jobs with one claim each', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `bj_full${i}`);
    for (const id of ids) await jobs.admit(newJob(id), ITEMS, 10);
    for (let i = 0; i < ids.length; i++)
      await runToCompletion(jobs, ids[i] as string, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await tick();
    const from = m.log.length;
    const admitted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_new${i}`), ITEMS, 10)),
    );
    expect(admitted.map((a) => a.evicted).sort()).toEqual([...ids].sort());
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(10);
    const claims = m.log.slice(from).filter((r) => r.coll === 'batch_slot_claims' && r.op.startsWith('insert'));
    expect(claims).toHaveLength(10);
    // Nothing of the evicted jobs was deleted on the admissions' path (session 13); afterwards, all of it.
    expect(m.coll('batch_jobs').docs.size).toBe(20);
    for (const a of admitted) await jobs.dropEvicted(a.drop);
    expect(m.coll('batch_jobs').docs.size).toBe(10);
    expect(m.coll('batch_results').docs.size).toBe(0);
    expect(m.coll('batch_requests').docs.size).toBe(10);
  });

  // Session 14: on the seeded store each of ten admissions submitted together read both hints,
  // the same 8 positions of the release queue and up to 8 slots (104-168 point reads per burst,
  // each queued behind the others), and moved the `head` hint with a write of its own. Now reads
  // in flight are shared within a process, a slot it just claimed is not offered again, and the
  // hint moves are coalesced. On a store whose every command takes a while (as every command
  // does behind the running jobs' commits), so that the admissions overlap as they do there.
  it('slot directory: ten admissions submitted together at the limit share their hint and queue reads and coalesce their hint writes, one claim each', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `bj_hint${i}`);
    for (const id of ids) await jobs.admit(newJob(id), ITEMS, 10);
    for (let i = 0; i < ids.length; i++)
      await runToCompletion(jobs, ids[i] as string, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await new Promise((r) => setTimeout(r, 50));
    for (const name of ['batch_slot_cursors', 'batch_slot_queue', 'batch_slots', 'batch_slot_claims']) {
      const c = m.coll(name);
      for (const op of ['findOne', 'insertOne', 'updateOne'] as const) {
        const orig = (c[op] as (...a: unknown[]) => Promise<unknown>).bind(c);
        (c as any)[op] = async (...args: unknown[]) => {
          await new Promise((r) => setTimeout(r, 10));
          return orig(...args);
        };
      }
    }
    const from = m.log.length;
    const admitted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_next${i}`), ITEMS, 10)),
    );
    expect(admitted.map((a) => a.evicted).sort()).toEqual([...ids].sort());
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(10);
    await new Promise((r) => setTimeout(r, 200));
    const burst = m.log.slice(from);
    const count = (coll: string, op: string, id?: unknown) =>
      burst.filter((r) => r.coll === coll && r.op === op && (id === undefined || r.filter._id === id)).length;
    expect(count('batch_slot_claims', 'insertOne')).toBe(10); // no lost claim
    // Reads: 2 hints + 10 queue positions + 10 slots once, where each admission read them itself
    // (before: 20 hint reads and ~160 queue and slot reads; the limits leave room for a second window).
    expect(count('batch_slot_cursors', 'findOne')).toBeLessThanOrEqual(4);
    expect(count('batch_slot_queue', 'findOne')).toBeLessThanOrEqual(24);
    expect(count('batch_slots', 'findOne')).toBeLessThanOrEqual(20);
    // At most two per wave of claims (session 15: the slot writes no longer hold the first wave's
    // admissions, so the second window's two admissions move `head` after the first wave's move is done).
    expect(count('batch_slot_cursors', 'updateOne', 'head')).toBeLessThanOrEqual(4);
    // The hint ends past every entry the burst took (the ten releases of the completions).
    expect(await jobs.cursor('head')).toBe(10);
  });

  it('slot directory: a store older than the directory falls back to one whole read, re-queues its finished slots, then evicts by key', async () => {
    const slots = m.coll('batch_slots');
    for (const [n, min] of [
      [0, 3],
      [1, 1],
      [2, 2],
    ] as const) {
      await m.coll('batch_jobs').insertOne({ ...newJob(`bj_old${n}`), slot: n, status: 'completed' });
      slots.docs.set(JSON.stringify(n), {
        _id: n,
        gen: 1,
        state: 'finished',
        job_id: `bj_old${n}`,
        claimed_at: new Date(),
        finished_at: new Date(`2026-01-01T00:0${min}:00Z`),
      });
    }
    // As before the directory existed: slots, no cursor, no queue.
    const first = await jobs.admit(newJob('bj_n1'), ITEMS, 3);
    expect(first.evicted).toBe('bj_old1');
    await tick();
    const before = wholeSlotReads();
    expect((await jobs.admit(newJob('bj_n2'), ITEMS, 3)).evicted).toBe('bj_old2');
    expect((await jobs.admit(newJob('bj_n3'), ITEMS, 3)).evicted).toBe('bj_old0');
    expect(wholeSlotReads()).toBe(before);
  });

  it('slot directory: dead queue entries far below the head are swept by id in the background', async () => {
    for (let i = 0; i < 1030; i++) await jobs.release(0, i, 'finished', new Date());
    await jobs.moveCursor('head', 1030);
    expect(await jobs.sweepQueue()).toBe(30);
    expect(m.coll('batch_slot_queue').docs.size).toBe(1000);
    expect(await jobs.cursor('swept')).toBe(30);
    expect(await jobs.sweepQueue()).toBe(0);
  });

  // Session 10 (docs/performance.md, "Session 10: the batch regression"): the window read cost
  // every admission nine commands; a burst to one API process now takes next, next+1, … directly.
  it('slot directory: ten admissions submitted together to one process take ten new numbers with one insert each, no slot read', async () => {
    await jobs.moveCursor('next', 0); // the directory exists (the first admission of a new store scans once)
    expect((await jobs.admit(newJob('bj_lone'), ITEMS, 50)).slot).toBe(0);
    await tick();
    const from = m.log.length;
    const admitted = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.admit(newJob(`bj_b${i}`), ITEMS, 50)));
    expect(admitted.map((a) => a.slot).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const slotOps = m.log.slice(from).filter((r) => r.coll === 'batch_slots');
    expect(slotOps.filter((r) => r.op === 'findOne' || r.op === 'find')).toEqual([]);
    expect(slotOps.filter((r) => r.op.startsWith('insert'))).toHaveLength(10);
    // Another process (a second store object) that took a number first: the first one's lost insert goes to the window.
    const other = new BatchJobStore(m.store);
    await tick();
    const theirs = await other.admit(newJob('bj_other'), ITEMS, 50);
    const mine = await jobs.admit(newJob('bj_after'), ITEMS, 50);
    expect(theirs.slot).toBe(11);
    expect(mine.slot).toBe(12);
  });

  it("an API store object (unitCache) reads an audited unit document from the store once; unaudited ones every time; an evicted job's are dropped", async () => {
    const api = new BatchJobStore(m.store, { unitCache: true });
    await api.admit(newJob('bj_cache'), ITEMS, 1);
    const [u0, u1] = resultDocs('bj_cache');
    await jobs.storeUnit({ ...u0!, audited: false });
    await jobs.storeUnit({ ...u1!, audited: true });
    const reads = () => m.log.filter((r) => r.coll === 'batch_results' && r.op === 'findOne').map((r) => r.filter._id);
    const from = reads().length;
    for (let i = 0; i < 3; i++) await api.unitResults('bj_cache', [0, 1]);
    expect(reads().slice(from)).toEqual([
      resultId('bj_cache', 0),
      resultId('bj_cache', 1),
      resultId('bj_cache', 0),
      resultId('bj_cache', 0),
    ]);
    await jobs.markUnitAudited('bj_cache', 0);
    expect((await api.unitResults('bj_cache', [0]))[0]?.audited).toBe(true);
    await api.unitResults('bj_cache', [0, 1]);
    expect(reads().slice(from)).toHaveLength(5);
    // Evicted (its slot taken by the next job): its documents are gone, and not answered from the cache.
    await api.complete('bj_cache', { completed_items: 3, failed_items: 0 }, 2, new Date('2026-01-01T00:03:00Z'));
    await tick();
    const evictor = await api.admit(newJob('bj_evictor'), ITEMS, 1);
    expect(evictor.evicted).toBe('bj_cache');
    await api.dropEvicted(evictor.drop);
    expect(await api.unitResults('bj_cache', [0, 1])).toEqual([null, null]);
  });

  it('a unit is written once: a second write (a retried attempt) gets the stored document back', async () => {
    await jobs.admit(newJob('bj_once'), ITEMS, 4);
    const [first] = resultDocs('bj_once');
    expect(await jobs.storeUnit(first!)).toEqual(first);
    const retry = { ...first!, items: first!.items.map((s) => ({ ...s, view: { ...s.view, latency_ms: 99 } })) };
    expect(await jobs.storeUnit(retry)).toEqual(first);
    await jobs.storeUnits(resultDocs('bj_once')); // duplicates are "already stored"
    expect(m.coll('batch_results').docs.size).toBe(2);
  });

  it('a completed job reads its items from its result documents, in index order; completion is idempotent and frees the slot for eviction', async () => {
    const { slot } = await jobs.admit(newJob('bj_done'), ITEMS, 4);
    const at = new Date('2026-01-01T00:05:00Z');
    await runToCompletion(jobs, 'bj_done', at);
    // A retry changes nothing and answers the first completion.
    expect(await jobs.complete('bj_done', { completed_items: 1, failed_items: 2 }, 2, new Date())).toEqual({
      completed_items: 3,
      failed_items: 0,
      progress_percent: 100,
      completed_at: at,
    });
    const doc = (await jobs.find('bj_done')) as BatchJobDoc;
    expect(doc).toMatchObject({
      status: 'completed',
      completed_items: 3,
      failed_items: 0,
      progress_percent: 100,
      units: 2,
      completed_at: at,
    });
    expect(doc.items).toBeUndefined();
    const view = await jobs.view(doc);
    expect(view.items.map((i) => i.id)).toEqual(['bj_done-0', 'bj_done-1', 'bj_done-2']);
    expect(view.items.map((i) => i.query)).toEqual(ITEMS.map((i) => i.query));
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(slot)))).toMatchObject({
      state: 'finished',
      job_id: 'bj_done',
    });
    expect(await jobs.complete('bj_missing', { completed_items: 0, failed_items: 0 }, 0, new Date())).toBeNull();
  });

  it('failUnfinished: every item failed from the request (no result released), idempotent, a completed job left as it is', async () => {
    await jobs.admit(newJob('bj_term'), ITEMS, 4);
    await jobs.storeUnit(resultDocs('bj_term')[0]!); // a unit stored before the workflow was terminated: never read
    const failed = await jobs.failUnfinished(
      'bj_term',
      'Job failed: its workflow was terminated.',
      new Date('2026-01-01T00:03:00Z'),
    );
    expect(failed).toMatchObject({ status: 'failed', completed_items: 0, failed_items: 3, progress_percent: 100 });
    const view = await jobs.view(failed!);
    expect(view.items).toEqual(
      ITEMS.map((it, i) => ({
        id: `bj_term-${i}`,
        query: it.query,
        type: it.type,
        status: 'failed',
        error: 'Job failed: its workflow was terminated.',
        latency_ms: 0,
      })),
    );
    expect((await jobs.failUnfinished('bj_term', 'other', new Date()))!.failure).toBe(
      'Job failed: its workflow was terminated.',
    );
    await jobs.admit(newJob('bj_ok'), ITEMS, 4);
    await runToCompletion(jobs, 'bj_ok', new Date());
    expect((await jobs.failUnfinished('bj_ok', 'x', new Date()))!.status).toBe('completed');
  });

  it('abandon deletes a job that never started and frees its slot; the slot is reused', async () => {
    const { slot } = await jobs.admit(newJob('bj_gone'), ITEMS, 1);
    await jobs.abandon('bj_gone', slot);
    expect(await jobs.find('bj_gone')).toBeNull();
    expect(await jobs.request('bj_gone')).toBeNull();
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(slot)))).toMatchObject({ state: 'free', job_id: null });
    expect(await jobs.admit(newJob('bj_next'), ITEMS, 1)).toEqual({ slot, evicted: null, drop: [] });
  });

  it('claims older than their retention are swept (the background sweep), newer ones kept', async () => {
    await jobs.admit(newJob('bj_s'), ITEMS, 1);
    await runToCompletion(jobs, 'bj_s', new Date());
    await jobs.admit(newJob('bj_t'), ITEMS, 1); // evicts bj_s: a claim
    expect(m.coll('batch_slot_claims').docs.size).toBe(1);
    expect(await jobs.sweepClaims(Date.now())).toBe(0);
    expect(await jobs.sweepClaims(Date.now() + CLAIM_RETENTION_MS + 1000)).toBe(1);
  });

  // Session 13: at the job limit every admission evicts; the evicted job's deletion (a read and
  // four writes, queued behind the running jobs' commits) made POST /verify/batch p95 812-996 ms
  // on a seeded store (docs/batch.md, "Session 13, eviction").
  it('eviction on the admission path is the claim and the slot write only; the evicted job reads as gone from the slot write, whole until then', async () => {
    const { slot } = await jobs.admit(newJob('bj_old'), ITEMS, 1);
    await runToCompletion(jobs, 'bj_old', new Date('2026-01-01T00:01:00Z'));
    await tick();
    const oldDoc = (await jobs.find('bj_old'))!;
    expect(await jobs.holdsSlot(oldDoc)).toBe(true);
    const from = m.log.length;
    const a = await jobs.admit(newJob('bj_young'), ITEMS, 1);
    expect(a).toEqual({ slot, evicted: 'bj_old', drop: ['bj_old'] });
    const path = m.log.slice(from);
    // No delete, and no write of the evicted job's documents, before the admission answers.
    expect(path.filter((r) => r.op.startsWith('delete') || r.op === 'bulkWrite')).toEqual([]);
    expect(
      path.filter((r) => ['batch_jobs', 'batch_results', 'batch_requests'].includes(r.coll) && r.op === 'updateOne'),
    ).toEqual([]);
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(slot)))).toMatchObject({
      job_id: 'bj_young',
      state: 'active',
      evicting: ['bj_old'],
    });
    // Its documents are still whole, but its slot names another job: the API answers 404.
    expect(await jobs.find('bj_old')).not.toBeNull();
    expect((await jobs.unitResults('bj_old', [0, 1])).every(Boolean)).toBe(true);
    expect(await jobs.holdsSlot(oldDoc)).toBe(false);
    expect(await jobs.holdsSlot((await jobs.find('bj_young'))!)).toBe(true);
    expect(await jobs.dropEvicted(a.drop)).toBe(1);
    expect(await jobs.find('bj_old')).toBeNull();
    expect(await jobs.request('bj_old')).toBeNull();
    expect(await jobs.unitResults('bj_old', [0, 1])).toEqual([null, null]);
    // A job whose slot document is absent (never deleted; a hand-repaired store) keeps answering.
    expect(await jobs.holdsSlot({ _id: 'bj_young', slot: 99 })).toBe(true);
  });

  it("session 18: a sweep passes over the names this process's own deletion is waiting with; several evicted jobs are deleted in one pass", async () => {
    await jobs.admit(newJob('bj_q1'), ITEMS, 2);
    await jobs.admit(newJob('bj_q2'), ITEMS, 2);
    await runToCompletion(jobs, 'bj_q1', new Date('2026-01-01T00:01:00Z'));
    await runToCompletion(jobs, 'bj_q2', new Date('2026-01-01T00:02:00Z'));
    await tick();
    const e1 = await jobs.admit(newJob('bj_q3'), ITEMS, 2);
    const e2 = await jobs.admit(newJob('bj_q4'), ITEMS, 2);
    expect([...e1.drop, ...e2.drop].sort()).toEqual(['bj_q1', 'bj_q2']);
    // Both names are queued in this process (api/batch-jobs.ts pendingDrops): its sweep leaves them.
    expect(await jobs.sweepEvicted(new Set(['bj_q1', 'bj_q2']))).toBe(0);
    expect(await jobs.find('bj_q1')).not.toBeNull();
    expect(await jobs.find('bj_q2')).not.toBeNull();
    // The queued deletion takes both at once; each document by id.
    const from = m.log.length;
    expect(await jobs.dropEvicted([...e1.drop, ...e2.drop])).toBe(2);
    const sent = m.log.slice(from);
    expect(sent.filter((r) => r.op === 'find')).toEqual([]); // both counts known from their slots
    expect(sent.filter((r) => r.coll === 'batch_jobs').map((r) => r.filter)).toEqual([
      { _id: 'bj_q1' },
      { _id: 'bj_q2' },
    ]);
    for (const id of ['bj_q1', 'bj_q2']) {
      expect(await jobs.find(id)).toBeNull();
      expect(await jobs.request(id)).toBeNull();
      expect(await jobs.unitResults(id, [0, 1])).toEqual([null, null]);
    }
    expect(await jobs.sweepEvicted()).toBe(0); // nothing left to sweep
  });

  it('a process that dies between the slot write and the deletion: the name stays on the slot, the next admission of it carries it, a sweep finishes it', async () => {
    await jobs.admit(newJob('bj_a1'), ITEMS, 1);
    await runToCompletion(jobs, 'bj_a1', new Date('2026-01-01T00:01:00Z'));
    await tick();
    // This process evicts bj_a1 and "dies" before dropEvicted.
    expect((await jobs.admit(newJob('bj_a2'), ITEMS, 1)).drop).toEqual(['bj_a1']);
    await runToCompletion(jobs, 'bj_a2', new Date('2026-01-01T00:02:00Z'));
    await tick();
    // Another process evicts bj_a2: its slot still names bj_a1, carried forward (not seen deleted by that process).
    const other = new BatchJobStore(m.store);
    const a3 = await other.admit(newJob('bj_a3'), ITEMS, 1);
    expect(a3).toMatchObject({ evicted: 'bj_a2', drop: ['bj_a2', 'bj_a1'] });
    // It dies too; a third process's sweep (at its start) finds both names on the slot and deletes them by id.
    const third = new BatchJobStore(m.store);
    const from = m.log.length;
    expect(await third.sweepEvicted()).toBe(2);
    for (const id of ['bj_a1', 'bj_a2']) {
      expect(await third.find(id)).toBeNull();
      expect(await third.request(id)).toBeNull();
      expect(await third.unitResults(id, [0, 1])).toEqual([null, null]);
    }
    expect(m.coll('batch_jobs').docs.size).toBe(1);
    expect(m.coll('batch_results').docs.size).toBe(0);
    expect(m.coll('batch_requests').docs.size).toBe(1);
    // The sweep read the bounded slots once, everything else by id.
    const sweep = m.log.slice(from);
    expect(sweep.filter((r) => r.op === 'find').map((r) => r.coll)).toEqual(['batch_slots']);
    for (const r of sweep.filter((x) => x.op !== 'find')) expect(Object.keys(r.filter)).toEqual(['_id']);
    // A second sweep of that process reads nothing but the slots (names it deleted are remembered).
    const again = m.log.length;
    expect(await third.sweepEvicted()).toBe(0);
    expect(m.log.slice(again).map((r) => `${r.coll} ${r.op}`)).toEqual(['batch_slots find']);
    // The next admission of the slot by the sweeping process carries nothing it knows deleted.
    await runToCompletion(jobs, 'bj_a3', new Date('2026-01-01T00:03:00Z'));
    await tick();
    expect((await third.admit(newJob('bj_a4'), ITEMS, 1)).drop).toEqual(['bj_a3']);
  });

  it('a process whose new numbers other processes took meanwhile stops trying them: at the limit its admissions make no slot insert after the first lost one', async () => {
    await jobs.moveCursor('next', 0);
    for (const id of ['bj_h0', 'bj_h1', 'bj_h2']) await jobs.admit(newJob(id), ITEMS, 6);
    const other = new BatchJobStore(m.store);
    await tick();
    for (const id of ['bj_o0', 'bj_o1', 'bj_o2']) await other.admit(newJob(id), ITEMS, 6);
    const all = ['bj_h0', 'bj_h1', 'bj_h2', 'bj_o0', 'bj_o1', 'bj_o2'];
    for (let i = 0; i < all.length; i++)
      await runToCompletion(jobs, all[i] as string, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await tick();
    const from = m.log.length;
    const evicted = [];
    for (const id of ['bj_n0', 'bj_n1', 'bj_n2']) evicted.push((await jobs.admit(newJob(id), ITEMS, 6)).evicted);
    expect(evicted).toEqual(['bj_h0', 'bj_h1', 'bj_h2']);
    // One lost insert (number 3, taken by the other process), then the cursors decide: without the reset, three.
    expect(m.log.slice(from).filter((r) => r.coll === 'batch_slots' && r.op === 'insertOne')).toHaveLength(1);
  });

  // Session 15: at the limit an admission went cursors → queue window → its slots → claim → slot
  // write → job insert, six round trips one after the other, where one below the limit is the slot
  // insert → job insert. Now the window and the hints a process read are held (HELD_MS) and read
  // ahead, and the slot write goes beside the job's insert. Every command takes 10 ms here; a
  // command's depth is 1 + the deepest command acknowledged before it was sent.
  it('session 15: at the limit with the queue window in hand, an evicting admission is the claim, then the slot write beside the job insert: no read on its path, as many round trips as a new number', async () => {
    const timeline: Array<{ coll: string; op: string; start: number; end: number }> = [];
    let seq = 0;
    let slow = false;
    for (const name of [
      'batch_slot_cursors',
      'batch_slot_queue',
      'batch_slots',
      'batch_slot_claims',
      'batch_jobs',
      'batch_requests',
    ]) {
      const c = m.coll(name);
      for (const op of ['findOne', 'insertOne', 'updateOne'] as const) {
        const orig = (c[op] as (...a: unknown[]) => Promise<unknown>).bind(c);
        (c as any)[op] = async (...args: unknown[]) => {
          if (!slow) return orig(...args);
          const e = { coll: name, op, start: ++seq, end: Infinity };
          timeline.push(e);
          await new Promise((r) => setTimeout(r, 10));
          try {
            return await orig(...args);
          } finally {
            e.end = ++seq;
          }
        };
      }
    }
    /** Sequential round trips of one admission: the deepest command acknowledged before it answered. */
    const roundTrips = async (id: string, max: number) => {
      timeline.length = 0;
      slow = true;
      const a = await jobs.admit(newJob(id), ITEMS, max);
      const answered = ++seq;
      slow = false;
      const depth = new Map<object, number>();
      for (const e of [...timeline].sort((x, y) => x.start - y.start))
        depth.set(e, 1 + Math.max(0, ...timeline.filter((d) => d.end < e.start).map((d) => depth.get(d) ?? 0)));
      const path = timeline.filter((e) => e.end < answered);
      // What the answer waited for: the job's insert and the slot's write (the read-ahead goes beside them, off the path).
      const awaited = path.filter((e) => e.coll === 'batch_jobs' || (e.coll === 'batch_slots' && e.op !== 'findOne'));
      return { a, path, depth: Math.max(...awaited.map((e) => depth.get(e) ?? 0)) };
    };
    // Below the limit: a new number (the process hands out numbers past the ones it took).
    await jobs.moveCursor('next', 0); // a directory from the start (no fallback's random first number)
    for (const id of ['bj_w0', 'bj_w1']) await jobs.admit(newJob(id), ITEMS, 10);
    const fresh = await roundTrips('bj_w2', 10);
    expect(fresh.a).toMatchObject({ evicted: null });
    expect(fresh.depth).toBe(2); // the slot insert, then the job's
    for (let i = 3; i < 10; i++) await jobs.admit(newJob(`bj_w${i}`), ITEMS, 10);
    const ids = Array.from({ length: 10 }, (_, i) => `bj_w${i}`);
    for (let i = 0; i < ids.length; i++)
      await runToCompletion(jobs, ids[i] as string, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await tick();
    // The first admission at the limit reads the hints and the window (nothing in hand yet) …
    const first = await roundTrips('bj_e0', 10);
    expect(first.a.evicted).toBe('bj_w0');
    expect(first.depth).toBeGreaterThanOrEqual(4);
    await tick();
    // … the next ones evict from the window in hand: the claim, then the slot write and the job's insert side by side.
    for (let i = 1; i < 6; i++) {
      const r = await roundTrips(`bj_e${i}`, 10);
      expect(r.a.evicted).toBe(`bj_w${i}`);
      expect(r.depth).toBe(fresh.depth);
      const claim = r.path.find((e) => e.coll === 'batch_slot_claims')!;
      expect(r.path.filter((e) => e.op === 'findOne' && e.start < claim.end)).toEqual([]); // no read before the claim
      const slotWrite = r.path.find((e) => e.coll === 'batch_slots' && e.op === 'updateOne')!;
      const jobWrite = r.path.find((e) => e.coll === 'batch_jobs' && e.op === 'insertOne')!;
      expect(slotWrite.start).toBeGreaterThan(claim.end);
      expect(jobWrite.start).toBeGreaterThan(claim.end);
      expect(jobWrite.start).toBeLessThan(slotWrite.end); // side by side
      expect(m.coll('batch_slots').docs.get(JSON.stringify(String(r.a.slot)))).toMatchObject({
        job_id: `bj_e${i}`,
        state: 'active',
      });
      expect(await jobs.holdsSlot((await jobs.find(`bj_w${i}`))!)).toBe(false); // 404 from the answer on
      await tick();
    }
  });

  it('session 15: a process that dies between the claim and the slot write leaves no job behind: the admission that supersedes the stale claim carries it for deletion, else the claim sweep deletes it', async () => {
    const claimsOf = () => [...m.coll('batch_slot_claims').docs.values()];
    for (const [variant, old] of [
      ['supersede', 'bj_d0'],
      ['sweep', 'bj_s0'],
    ] as const) {
      m = memStore();
      jobs = new BatchJobStore(m.store);
      // The next slot write after `dying` is set never arrives (the admitting process died with it in flight).
      let dying = false;
      const slotsNow = m.coll('batch_slots');
      const orig = slotsNow.updateOne.bind(slotsNow);
      (slotsNow as any).updateOne = (...args: Parameters<typeof orig>) => {
        if (!dying) return orig(...args);
        dying = false;
        return new Promise(() => undefined);
      };
      await jobs.admit(newJob(old), ITEMS, 1);
      await runToCompletion(jobs, old, new Date('2026-01-01T00:01:00Z'));
      await tick();
      const dead = new BatchJobStore(m.store);
      dying = true;
      void dead.admit(newJob(`${old}_orphan`), ITEMS, 1); // never answers
      await new Promise((r) => setTimeout(r, 30));
      // Its job and request are stored; its slot still names the finished job, which still answers.
      expect(await jobs.find(`${old}_orphan`)).not.toBeNull();
      expect(await jobs.holdsSlot((await jobs.find(old))!)).toBe(true);
      const claim = claimsOf().find((c) => c.job_id === `${old}_orphan`)!;
      expect(claim).toBeDefined();
      if (variant === 'supersede') {
        claim.created_at = new Date(Date.now() - 61_000); // stale (CLAIM_STALE_MS)
        const next = new BatchJobStore(m.store);
        const a = await next.admit(newJob('bj_d1'), ITEMS, 1);
        expect(a.evicted).toBe(old);
        expect([...a.drop].sort()).toEqual([old, `${old}_orphan`].sort());
        expect(m.coll('batch_slots').docs.get(JSON.stringify(String(a.slot)))).toMatchObject({ job_id: 'bj_d1' });
        expect(await next.dropEvicted(a.drop)).toBe(2);
      } else {
        expect(await jobs.sweepClaims(Date.now() + CLAIM_RETENTION_MS + 1000)).toBe(1); // the dead admission's claim
        expect(await jobs.find(old)).not.toBeNull(); // still its slot's job
      }
      expect(await jobs.find(`${old}_orphan`)).toBeNull();
      expect(await jobs.request(`${old}_orphan`)).toBeNull();
    }
  });

  it('the contract: every read, update and delete of a growing collection is exactly {_id: scalar} (admission, units, completion, views, eviction, failure)', async () => {
    await jobs.admit(newJob('bj_1'), ITEMS, 2);
    await jobs.admit(newJob('bj_2'), ITEMS, 2);
    await runToCompletion(jobs, 'bj_1', new Date('2026-01-01T00:01:00Z'));
    await jobs.view((await jobs.find('bj_1'))!);
    await jobs.failUnfinished('bj_2', 'failed', new Date());
    await jobs.view((await jobs.find('bj_2'))!);
    const third = await jobs.admit(newJob('bj_3'), ITEMS, 2); // evicts
    await jobs.holdsSlot((await jobs.find('bj_1'))!);
    await jobs.dropEvicted(third.drop);
    await new BatchJobStore(m.store).sweepEvicted(); // another process's sweep: the names by id
    // The crash repair's reads (api/batch-jobs.ts activeSlots): the slots whole, then its known active ones by `_id`.
    await jobs.allSlots();
    await jobs.slotsById([0, 1]);
    const growing = ['batch_jobs', 'batch_results', 'batch_requests', 'batch_slot_claims'];
    const ops = m.log.filter((r) => growing.includes(r.coll) && !r.op.startsWith('insert'));
    expect(ops.length).toBeGreaterThan(10);
    for (const r of ops) {
      expect(Object.keys(r.filter), `${r.coll} ${r.op} ${JSON.stringify(r.filter)}`).toEqual(['_id']);
      expect(typeof r.filter._id === 'object' && r.filter._id !== null, `${r.coll} ${r.op}`).toBe(false);
    }
    // The bounded slots: whole reads (≤ SVC_BATCH_MAX_JOBS documents) and point writes.
    const slotOps = m.log.filter((r) => r.coll === 'batch_slots' && !r.op.startsWith('insert'));
    for (const r of slotOps)
      expect(r.op === 'find' ? Object.keys(r.filter) : ['_id']).toEqual(r.op === 'find' ? [] : Object.keys(r.filter));
  });
});

// Session 17: FerretDB 1.24/SQLite answers `{_id: <number>}` by reading the whole table, so slot
// numbers and queue positions are stored under their decimal strings (persistence/number-keyed.ts);
// a store written before is rewritten once, before the slot directory's first operation.
describe('persistence/batch.ts: slot numbers and queue positions stored as strings (session 17)', () => {
  /** Moves every slot and queue document back under its number, as session 16 stored them, and forgets the rewrite. */
  function asSession16(m: ReturnType<typeof memStore>) {
    for (const name of ['batch_slots', 'batch_slot_queue']) {
      const c = m.coll(name);
      for (const [k, d] of [...c.docs]) {
        c.docs.delete(k);
        c.docs.set(JSON.stringify(Number(d._id)), { ...d, _id: Number(d._id) });
      }
    }
    m.coll('migrations').docs.clear();
  }
  const reopened = (m: ReturnType<typeof memStore>) =>
    ({ collection: (n: string) => m.coll(n), db: (m.store as unknown as { db: unknown }).db }) as unknown as Store;
  const keysOf = (m: ReturnType<typeof memStore>, name: string) => [...m.coll(name).docs.values()].map((d) => d._id);

  it('sends only string keys: every slot and queue operation by `_id` names a string', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const a = await jobs.admit(newJob('bj_a'), ITEMS, 2);
    await jobs.admit(newJob('bj_b'), ITEMS, 2);
    await jobs.complete('bj_a', { completed_items: 3, failed_items: 0 }, 1, new Date('2026-01-01T00:01:00Z'));
    const c = await jobs.admit(newJob('bj_c'), ITEMS, 2); // evicts bj_a through the release queue
    expect(c).toMatchObject({ slot: a.slot, evicted: 'bj_a' });
    await jobs.sweepQueue();
    const byId = m.log.filter((r) => ['batch_slots', 'batch_slot_queue'].includes(r.coll) && '_id' in r.filter);
    expect(byId.length).toBeGreaterThan(4);
    expect(byId.filter((r) => typeof r.filter._id !== 'string')).toEqual([]);
    expect(keysOf(m, 'batch_slots').sort()).toEqual(['0', '1']);
    expect(keysOf(m, 'batch_slot_queue')).toEqual(['0']);
  });

  it('a store written before is rewritten once, before the first slot operation: its jobs keep their slots, its queue still evicts', async () => {
    const m = memStore();
    const old = new BatchJobStore(m.store);
    const a = await old.admit(newJob('bj_a'), ITEMS, 2);
    const b = await old.admit(newJob('bj_b'), ITEMS, 2);
    await old.complete('bj_a', { completed_items: 3, failed_items: 0 }, 1, new Date('2026-01-01T00:01:00Z'));
    asSession16(m);
    expect(keysOf(m, 'batch_slots').sort()).toEqual([0, 1]);
    expect(keysOf(m, 'batch_slot_queue')).toEqual([0]);

    // A new process: its own store handle over the same data (the rewrite is once per process and store).
    const jobs = new BatchJobStore(reopened(m));
    // The first read of a slot waits for the rewrite, then finds the running job's slot by its string.
    expect(await jobs.holdsSlot({ _id: 'bj_b', slot: b.slot })).toBe(true);
    expect(keysOf(m, 'batch_slots').sort()).toEqual(['0', '1']);
    expect(keysOf(m, 'batch_slot_queue')).toEqual(['0']);
    expect(m.coll('migrations').docs.get(JSON.stringify('number-keys-v1'))).toMatchObject({
      counts: { batch_slots: 2, batch_slot_queue: 1 },
    });
    // The queue entry written before still evicts the job that finished, from the same slot.
    const c = await jobs.admit(newJob('bj_c'), ITEMS, 2);
    expect(c).toMatchObject({ slot: a.slot, evicted: 'bj_a' });
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(a.slot)))).toMatchObject({
      job_id: 'bj_c',
      state: 'active',
    });
    expect(m.coll('batch_slots').docs.size).toBe(2);
    // Another process (another instance on the same store) reads the marker and scans nothing.
    const from = m.log.length;
    expect(await new BatchJobStore(reopened(m)).holdsSlot({ _id: 'bj_b', slot: b.slot })).toBe(true);
    expect(m.log.slice(from).filter((r) => r.op === 'find')).toEqual([]);
  });

  it('a copy already under the string is newer: kept, and the number deleted', async () => {
    const m = memStore();
    m.coll('batch_slots').docs.set(JSON.stringify(0), { _id: 0, gen: 1, state: 'active', job_id: 'bj_old' });
    m.coll('batch_slots').docs.set(JSON.stringify('0'), { _id: '0', gen: 2, state: 'finished', job_id: 'bj_new' });
    const jobs = new BatchJobStore(m.store);
    expect(await jobs.holdsSlot({ _id: 'bj_new', slot: 0 })).toBe(true);
    expect([...m.coll('batch_slots').docs.values()]).toEqual([
      { _id: '0', gen: 2, state: 'finished', job_id: 'bj_new' },
    ]);
  });

  it('a store that fails during the rewrite fails the operation (closed), and the next operation tries again', async () => {
    const m = memStore();
    m.coll('batch_slots').docs.set(JSON.stringify(0), { _id: 0, gen: 1, state: 'active', job_id: 'bj_a' });
    const marks = m.coll('migrations');
    const findOne = marks.findOne.bind(marks);
    let down = true;
    marks.findOne = async (f: Record<string, unknown>) => {
      if (down) throw new Error('store unavailable');
      return findOne(f);
    };
    const jobs = new BatchJobStore(m.store);
    await expect(jobs.holdsSlot({ _id: 'bj_a', slot: 0 })).rejects.toThrow('store unavailable');
    down = false;
    expect(await jobs.holdsSlot({ _id: 'bj_a', slot: 0 })).toBe(true);
    expect(keysOf(m, 'batch_slots')).toEqual(['0']);
  });
});

// Session 17: releaseMany's ordered insert goes out 100 positions at a time (FerretDB 1.24/SQLite
// does not stop an ordered insert of more than 100 documents at its first duplicate).
describe('persistence/batch.ts: releaseMany in ordered chunks of 100 (session 17)', () => {
  const slot = (n: number) => ({ _id: n, gen: 1, state: 'finished' as const, finished_at: new Date(1_000 + n) });
  it('250 releases: three inserts of at most 100, positions in order, the tail past them', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    await jobs.releaseMany(Array.from({ length: 250 }, (_, n) => slot(n)));
    expect(m.log.filter((r) => r.coll === 'batch_slot_queue' && r.op === 'insertMany')).toHaveLength(3);
    const q = m.coll('batch_slot_queue');
    expect(q.docs.size).toBe(250);
    for (const p of [0, 99, 100, 249]) expect(q.docs.get(JSON.stringify(String(p)))).toMatchObject({ slot: p });
    expect(await jobs.cursor('tail')).toBe(250);
  });
  it('a position taken in the second chunk: the first stays, the rest go one by one past it, none lost', async () => {
    const m = memStore();
    const q = m.coll('batch_slot_queue');
    q.docs.set(JSON.stringify('150'), { _id: '150', slot: 999, gen: 1, state: 'free' });
    const jobs = new BatchJobStore(m.store);
    await jobs.releaseMany(Array.from({ length: 250 }, (_, n) => slot(n)));
    const slots = [...q.docs.values()].filter((d) => d.slot !== 999).map((d) => d.slot as number);
    // Every release is queued at least once (a second entry of a slot is dead once it is taken).
    expect(new Set(slots).size).toBe(250);
    expect(q.docs.get(JSON.stringify('150'))).toMatchObject({ slot: 999 });
  });
});
