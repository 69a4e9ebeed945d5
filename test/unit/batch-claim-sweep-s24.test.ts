// Session 24 (issue 22; docs/batch.md "Session 24: the background sweeps", docs/store-access.md §19):
// the slot claims' sweep (persistence/batch.ts sweepClaims, every 5 minutes in every API process)
// read `batch_slot_claims` whole twice (a filter on `created_at` to find the expired claims, and
// again to delete them) and, whenever one had expired, `batch_slots` whole for the orphan check:
// on a filled store (1,150 slots) a read of every slot every 5 minutes under any traffic. Now a
// process deletes the claims it won itself from its ledger, by `_id`, reading their slots by `_id`;
// the claims are read whole only on its first sweep and every CLAIM_SCAN_MS after (the claims of
// processes that died, and of older code), and the slots whole only when more than 64 distinct
// slots are in question.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BatchJobStore,
  CLAIM_RETENTION_MS,
  CLAIM_SCAN_MS,
  EVICTOR_STALE_MS,
  newBatchJob,
  type BatchSlotClaimDoc,
  type NewBatchJob,
} from '../../persistence/batch.js';
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

describe('batch: the slot claims are swept by `_id` (session 24)', () => {
  let m: ReturnType<typeof memStore>;
  let jobs: BatchJobStore;
  const at = (ms: number) => vi.setSystemTime(T0 + ms);
  const claims = () => m.coll('batch_slot_claims');

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(0);
    m = memStore();
    jobs = new BatchJobStore(m.store);
    await jobs.slotsById([0]); // the process's one-time numeric-key rewrite (its own whole read) done first
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** One sweep at `ms`: how many claims it deleted and what it sent to the claims and the slots. */
  const sweep = async (ms: number) => {
    at(ms);
    const from = m.log.length;
    const deleted = await jobs.sweepClaims(Date.now());
    const sent = m.log.slice(from);
    const whole = (coll: string) =>
      sent.filter((r) => r.coll === coll && !(Object.keys(r.filter).length === 1 && '_id' in r.filter)).length;
    return {
      deleted,
      claimsWhole: whole('batch_slot_claims'),
      slotsWhole: whole('batch_slots'),
      claimDeletesById: sent.filter((r) => r.coll === 'batch_slot_claims' && r.op === 'deleteOne').length,
    };
  };

  /** Ten jobs at a limit of 4: four new slots (no claim: a slot's first job is its unique insert), then six admissions that each evict (a claim each). */
  async function tenJobs() {
    for (let i = 0; i < 10; i++) {
      const id = `bj_${i}`;
      await jobs.admit(newJob(id), ITEMS, 4);
      await jobs.complete(id, { completed_items: 1, failed_items: 0 }, 1, new Date());
    }
    expect(claims().docs.size).toBe(6);
  }

  it("after the process's first sweep, its own expired claims go by `_id`: nothing read whole, newer claims kept", async () => {
    expect(await sweep(1_000)).toMatchObject({ deleted: 0, claimsWhole: 1 }); // the first sweep reads them whole
    at(2 * MIN);
    await tenJobs();
    // Within the retention: nothing expires, nothing is read.
    expect(await sweep(30 * MIN)).toEqual({ deleted: 0, claimsWhole: 0, slotsWhole: 0, claimDeletesById: 0 });
    at(50 * MIN);
    await jobs.admit(newJob('bj_late'), ITEMS, 4); // 50 min in: kept by the next sweep
    // Base ee02593: a find and a deleteMany on `created_at` (claimsWhole 2) and a whole read of the slots (slotsWhole 1).
    expect(await sweep(2 * MIN + CLAIM_RETENTION_MS + MIN)).toEqual({
      deleted: 6,
      claimsWhole: 0,
      slotsWhole: 0,
      claimDeletesById: 6,
    });
    expect([...claims().docs.values()].map((c) => (c as BatchSlotClaimDoc).job_id)).toEqual(['bj_late']);
    expect(await sweep(50 * MIN + CLAIM_RETENTION_MS + MIN)).toMatchObject({ deleted: 1, claimsWhole: 0 });
    expect(claims().docs.size).toBe(0);
  });

  it("a dead process's claims are found by the first sweep and by one every CLAIM_SCAN_MS; an orphaned claim's job is deleted, its slot read by `_id`", async () => {
    // A process that died: its claims are in no live process's ledger. One of them never got its
    // slot write (its admission died between the claim and the slot write): it names a job its slot does not.
    const dead = new BatchJobStore(m.store);
    await dead.admit(newJob('bj_dead_a'), ITEMS, 1); // slot 0, generation 1
    await dead.complete('bj_dead_a', { completed_items: 1, failed_items: 0 }, 1, new Date());
    await dead.admit(newJob('bj_dead_done'), ITEMS, 1); // evicts it: claim 0:2
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_orphan'), slot: 0 });
    await claims().insertOne({ _id: '0:3', slot: 0, gen: 3, job_id: 'bj_orphan', created_at: new Date() });
    const r = await sweep(CLAIM_RETENTION_MS + MIN); // this process's first sweep
    // Base ee02593: the slots read whole for the orphan check. Review s24 B1: the orphan's delete
    // keeps the age in its filter (not a key on FerretDB 1.x: the second whole read counted here).
    expect(r).toEqual({ deleted: 2, claimsWhole: 2, slotsWhole: 0, claimDeletesById: 2 });
    expect(claims().docs.size).toBe(0);
    expect(await jobs.find('bj_orphan')).toBeNull(); // never started, named by no slot: deleted with its claim
    expect(await jobs.find('bj_dead_done')).not.toBeNull(); // its slot's job: kept
    // Claims a process leaves after that first sweep are found by the next whole read, CLAIM_SCAN_MS later.
    await dead.complete('bj_dead_done', { completed_items: 1, failed_items: 0 }, 1, new Date());
    await dead.admit(newJob('bj_dead_2'), ITEMS, 1);
    expect(await sweep(2 * CLAIM_RETENTION_MS + 2 * MIN)).toMatchObject({ deleted: 0, claimsWhole: 0 });
    expect(claims().docs.size).toBe(1);
    expect(await sweep(CLAIM_RETENTION_MS + MIN + CLAIM_SCAN_MS)).toMatchObject({ deleted: 1, claimsWhole: 1 });
    expect(claims().docs.size).toBe(0);
  });

  it('a claim this process won whose slot write never landed is an orphan: at expiry its job is deleted, its slot read by `_id`', async () => {
    await sweep(1_000);
    at(MIN);
    const { slot } = await jobs.admit(newJob('bj_first'), ITEMS, 4); // slot 0 at generation 1
    // This process then wins generation 2 of that slot for a job whose admission failed before the slot write.
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_half'), slot });
    expect(await jobs.claim(slot, 2, 'bj_half')).toBe(2);
    const r = await sweep(MIN + CLAIM_RETENTION_MS + MIN);
    // Review s24 B1: read by `_id` first, then deleted with the age in the filter (an orphan's `_id`
    // is claimed afresh once gone), the one command counted as a whole read (FerretDB 1.x).
    expect(r).toEqual({ deleted: 1, claimsWhole: 1, slotsWhole: 0, claimDeletesById: 1 });
    expect(await jobs.find('bj_half')).toBeNull();
    expect(await jobs.find('bj_first')).not.toBeNull(); // its slot's job
  });

  it('a sweep that fails after taking claims from the ledger leaves them to the next sweep, which reads the claims whole', async () => {
    await sweep(1_000);
    at(2 * MIN);
    await tenJobs();
    const c = claims() as unknown as { bulkWrite: (...a: unknown[]) => Promise<unknown> };
    const real = c.bulkWrite.bind(c);
    c.bulkWrite = async () => {
      c.bulkWrite = real;
      throw new Error('store unavailable');
    };
    await expect(jobs.sweepClaims(T0 + 2 * MIN + CLAIM_RETENTION_MS + MIN)).rejects.toThrow('store unavailable');
    expect(claims().docs.size).toBe(6);
    expect(await sweep(2 * MIN + CLAIM_RETENTION_MS + 6 * MIN)).toMatchObject({ deleted: 6, claimsWhole: 1 });
    expect(claims().docs.size).toBe(0);
  });
  it('review s24 B4: a process found dead through batch_evictors has its claims read whole an hour on, not 6 h later', async () => {
    expect(await sweep(1_000)).toMatchObject({ claimsWhole: 1 });
    // A process that admitted jobs, then died (its beat stopped at 2 min): its claims are in no live ledger.
    const dead = new BatchJobStore(m.store);
    at(2 * MIN);
    for (let i = 0; i < 10; i++) {
      await dead.admit(newJob(`bj_d${i}`), ITEMS, 4);
      await dead.complete(`bj_d${i}`, { completed_items: 1, failed_items: 0 }, 1, new Date());
    }
    expect(claims().docs.size).toBe(6);
    await m.coll('batch_evictors').insertOne({ _id: 'api_dead', seen: new Date(T0 + 2 * MIN) });
    // This process's eviction sweeps find it dead (at 10 min, or one stale period later when the
    // staleness is timed by this process's own clock): the claims' whole read is due an hour on.
    const found = 10 * MIN + EVICTOR_STALE_MS;
    for (const ms of [10 * MIN, found]) {
      at(ms);
      await jobs.sweepDeadEvictors('api_live', new Set(), { now: Date.now() });
    }
    expect(m.coll('batch_evictors').docs.size).toBe(0);
    expect(await sweep(10 * MIN + CLAIM_RETENTION_MS - MIN)).toMatchObject({ deleted: 0, claimsWhole: 0 });
    // Base of this branch: nothing until the whole read CLAIM_SCAN_MS after the first (6 h).
    expect(await sweep(found + CLAIM_RETENTION_MS + MIN)).toMatchObject({ deleted: 6, claimsWhole: 1 });
    expect(claims().docs.size).toBe(0);
    expect(await sweep(found + CLAIM_RETENTION_MS + 6 * MIN)).toMatchObject({ deleted: 0, claimsWhole: 0 });
  });
});
