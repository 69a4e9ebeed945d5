// Session 24, review s24 finding B1 (docs/batch.md "Session 24: the background sweeps"): the slot
// claims' sweep deleted by `_id` alone the claims its ledger (or its whole read) named as expired.
// A claim `<slot>:<gen>` is inserted afresh when the expired one was an orphan (its slot write
// never landed: the slot stays at gen-1) and another process's sweep deleted it first; the first
// process's ledger sweep then deleted the fresh claim, which must be kept an hour (HELD_MS's
// snapshots and a racing admission rely on it: without it a second admission wins `<slot>:<gen>`
// too and the slot is given twice). Now a claim its slot never reached is deleted with its age in
// the filter; one its slot reached (never claimed again) by `_id` alone.
// (Helper E's demonstrating row, branch s24-e test/unit/review-s24-claim-sweep-fresh.test.ts.)
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchJobStore, CLAIM_RETENTION_MS, newBatchJob, type NewBatchJob } from '../../persistence/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '1 + 1', type: 'math' as const }];
const T0 = new Date('2026-11-28T10:00:00Z').getTime();
const MIN = 60_000;

function newJob(id: string): NewBatchJob {
  return newBatchJob({
    jobId: id,
    orgId: 'org_s24',
    workflowId: `batch-org_s24-${id}`,
    totalItems: 1,
    units: 1,
    createdAt: new Date(),
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });
}

describe("batch: a claim taken again under an expired claim's `_id` is not deleted by the older ledger entry (session 24, B1)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('process P won 0:2 but never wrote the slot; Q swept it and took 0:2 again; P’s sweep keeps Q’s fresh claim', async () => {
    const m = memStore();
    const p = new BatchJobStore(m.store);
    const q = new BatchJobStore(m.store);
    const at = (ms: number) => vi.setSystemTime(T0 + ms);
    await p.sweepClaims(Date.now()); // P's first sweep (its one whole read) done
    at(MIN);
    const { slot } = await p.admit(newJob('bj_a'), ITEMS, 1); // slot 0, generation 1 (no claim)
    await p.complete('bj_a', { completed_items: 1, failed_items: 0 }, 1, new Date());
    // P wins generation 2 for a job whose admission then failed before the slot write (P lives on).
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_half'), slot });
    expect(await p.claim(slot, 2, 'bj_half')).toBe(2);
    // An hour later Q's first sweep finds it expired and orphaned: deletes its job and the claim.
    at(2 * MIN + CLAIM_RETENTION_MS);
    await q.sweepClaims(Date.now());
    expect(m.coll('batch_slot_claims').docs.size).toBe(0);
    // Q admits at the limit: the slot is still at generation 1, so Q claims 0:2 afresh.
    const admitted = await q.admit(newJob('bj_b'), ITEMS, 1);
    expect(admitted.slot).toBe(slot);
    const fresh = [...m.coll('batch_slot_claims').docs.values()];
    expect(fresh.map((c) => [c._id, c.job_id])).toEqual([['0:2', 'bj_b']]);
    // Seconds later P's own sweep: its ledger still names 0:2 (created an hour ago).
    at(2 * MIN + CLAIM_RETENTION_MS + 10_000);
    await p.sweepClaims(Date.now());
    // Q's claim is 10 s old: kept for its hour (base ee02593 keeps it; s24-b before the fix deleted it).
    expect([...m.coll('batch_slot_claims').docs.values()].map((c) => [c._id, c.job_id])).toEqual([['0:2', 'bj_b']]);
  });
  it('a claim whose generation its slot reached is deleted by `_id` alone; an orphan with its age in the filter', async () => {
    const m = memStore();
    const p = new BatchJobStore(m.store);
    const at = (ms: number) => vi.setSystemTime(T0 + ms);
    await p.sweepClaims(Date.now());
    at(MIN);
    const { slot } = await p.admit(newJob('bj_a'), ITEMS, 1); // slot 0, generation 1
    await p.complete('bj_a', { completed_items: 1, failed_items: 0 }, 1, new Date());
    await p.admit(newJob('bj_b'), ITEMS, 1); // claim 0:2, slot written: reached
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_half'), slot });
    await p.complete('bj_b', { completed_items: 1, failed_items: 0 }, 1, new Date());
    expect(await p.claim(slot, 3, 'bj_half')).toBe(3); // claim 0:3, never written: an orphan
    at(2 * MIN + CLAIM_RETENTION_MS);
    const from = m.log.length;
    expect(await p.sweepClaims(Date.now())).toBe(2);
    const deletes = m.log.slice(from).filter((r) => r.coll === 'batch_slot_claims' && r.op === 'deleteOne');
    expect(deletes.map((r) => r.filter)).toEqual([
      { _id: '0:2' },
      { _id: '0:3', created_at: { $lt: new Date(2 * MIN + CLAIM_RETENTION_MS + T0 - CLAIM_RETENTION_MS) } },
    ]);
    expect(m.coll('batch_slot_claims').docs.size).toBe(0);
    expect(await p.find('bj_half')).toBeNull(); // the orphan's job, deleted with its claim
  });
  it('a claim deleted and taken again between the sweep’s read of it and its delete is kept', async () => {
    const m = memStore();
    const p = new BatchJobStore(m.store);
    const q = new BatchJobStore(m.store);
    const at = (ms: number) => vi.setSystemTime(T0 + ms);
    await p.sweepClaims(Date.now());
    at(MIN);
    const { slot } = await p.admit(newJob('bj_a'), ITEMS, 1);
    await p.complete('bj_a', { completed_items: 1, failed_items: 0 }, 1, new Date());
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_half'), slot });
    expect(await p.claim(slot, 2, 'bj_half')).toBe(2); // P's orphan 0:2
    at(2 * MIN + CLAIM_RETENTION_MS);
    // P's sweep reads 0:2 (an hour old); right after that read, Q's first sweep deletes it and Q
    // admits at the limit: 0:2 again (fresh), its slot written at generation 2.
    const claims = m.coll('batch_slot_claims') as unknown as { findOne: (f: unknown) => Promise<unknown> };
    const real = claims.findOne.bind(claims);
    claims.findOne = async (f: unknown) => {
      const d = await real(f);
      claims.findOne = real;
      await q.sweepClaims(Date.now());
      expect((await q.admit(newJob('bj_b'), ITEMS, 1)).slot).toBe(slot);
      return d;
    };
    await p.sweepClaims(Date.now());
    expect([...m.coll('batch_slot_claims').docs.values()].map((c) => [c._id, c.job_id])).toEqual([['0:2', 'bj_b']]);
  });
});
