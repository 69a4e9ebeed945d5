// The batch job store: `batch_jobs` (one document per job) bounded by SVC_BATCH_MAX_JOBS
// through `batch_slots`, without multi-document transactions.
//
// Slot n (0 <= n < max) holds at most one job: active (running) or finished (evictable), or is
// free. Ownership changes only through a unique insert, the one write that is atomic on every
// MongoDB-wire store we run on: FerretDB 1.x applies updates as read-modify-write, so two
// concurrent conditional updates (or findOneAndUpdate) of the same document can both
// "succeed", and $inc loses increments (measured; see docs/batch.md). So:
//   - taking a free or finished slot at generation g = inserting the claim `<n>:<g+1>` into
//     `batch_slot_claims` (unique _id): exactly one admission wins; the others look elsewhere;
//   - adding slot n = inserting the slot document with _id n (unique): exactly one wins;
//   - only the claim's winner then writes the slot document (gen g+1, active, its job).
// Preference: a free slot, then a new slot while fewer than `max` exist, then the finished
// slot that finished first (its job is evicted), else 503. The store therefore never holds more
// than `max` jobs, even with several API processes, and the slot's previous job is deleted
// before the new one is inserted.
//
// A job's documents change in a fixed order so that a crash at any point leaves a state the
// next writer repairs: claim the slot, delete the slot's previous job(s), insert the job; the
// workflow's last activity writes the completed job, then marks its slot finished (both
// idempotent, retried until they succeed). A slot claimed by an API process that died before
// starting the workflow is found by `staleActiveSlots` (see api/batch-jobs.ts); a claim whose
// winner died before writing the slot document is superseded after CLAIM_STALE_MS.
import { MongoServerError, type Collection } from 'mongodb';
import { Store } from './store.js';
import { batchCounters, itemViews, type BatchItemOutcome, type BatchItemType, type BatchItemView, type BatchJobStatus, type BatchJobView } from './batch.js';

export interface BatchJobDoc {
  _id: string;
  org_id: string;
  slot: number;
  status: BatchJobStatus;
  workflow_id: string;
  total_items: number;
  completed_items: number;
  failed_items: number;
  progress_percent: number;
  items: BatchItemView[];
  /** The submitted queries and types, so the final write need not carry the query texts again. */
  request_items: Array<{ query: string; type: BatchItemType }>;
  created_at: Date;
  completed_at: Date | null;
  /** Set once the workflow start was acknowledged. */
  started: boolean;
  submitted_by: { user_id: string | null; key_id: string | null };
}

export type SlotState = 'free' | 'active' | 'finished';

export interface BatchSlotDoc {
  _id: number;
  /** Generation: the number of the last claim written into this document. */
  gen: number;
  state: SlotState;
  job_id: string | null;
  claimed_at: Date | null;
  finished_at: Date | null;
}

export interface BatchSlotClaimDoc {
  _id: string; // `<slot>:<gen>`
  slot: number;
  gen: number;
  job_id: string | null;
  created_at: Date;
}

/** A claim not followed by its slot write within this time belongs to a dead process. */
export const CLAIM_STALE_MS = 60_000;
/** Claims are kept this long (a racing admission reads a slot and claims within milliseconds). */
const CLAIM_RETENTION_MS = 3_600_000;

export class BatchCapacityError extends Error {
  constructor() {
    super('batch job store full of active jobs');
    this.name = 'BatchCapacityError';
  }
}

Store.registerIndexes(async (store) => {
  await store.collection('batch_jobs').createIndex({ slot: 1 });
  await store.collection('batch_jobs').createIndex({ org_id: 1, created_at: -1 });
  await store.collection('batch_slots').createIndex({ state: 1, finished_at: 1 });
  await store.collection('batch_slots').createIndex({ job_id: 1 });
  await store.collection('batch_slot_claims').createIndex({ created_at: 1 });
});

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt * 3) * (0.5 + Math.random())));

export type NewBatchJob = Omit<BatchJobDoc, 'slot'>;

export interface Admission {
  slot: number;
  /** The finished job evicted to make room, if any. */
  evicted: string | null;
}

export function jobView(doc: BatchJobDoc): BatchJobView {
  return {
    job_id: doc._id,
    status: doc.status,
    progress_percent: doc.progress_percent,
    total_items: doc.total_items,
    completed_items: doc.completed_items,
    failed_items: doc.failed_items,
    items: doc.items,
    workflow_id: doc.workflow_id,
    created_at: doc.created_at.toISOString(),
    completed_at: doc.completed_at ? doc.completed_at.toISOString() : null,
  };
}

export class BatchJobStore {
  constructor(private readonly store: Store) {}

  get jobs(): Collection<BatchJobDoc> {
    return this.store.collection<BatchJobDoc>('batch_jobs');
  }

  get slots(): Collection<BatchSlotDoc> {
    return this.store.collection<BatchSlotDoc>('batch_slots');
  }

  get claims(): Collection<BatchSlotClaimDoc> {
    return this.store.collection<BatchSlotClaimDoc>('batch_slot_claims');
  }

  /**
   * Takes generation `gen` of slot `slot` for `jobId` (unique insert). A claim whose winner never
   * wrote the slot document (it died) is superseded by the next generation once stale.
   * Returns the generation won, or null.
   */
  async claim(slot: number, gen: number, jobId: string | null): Promise<number | null> {
    for (let g = gen; g < gen + 2; g++) {
      try {
        await this.claims.insertOne({ _id: `${slot}:${g}`, slot, gen: g, job_id: jobId, created_at: new Date() });
        return g;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await this.claims.findOne({ _id: `${slot}:${g}` });
        const current = await this.slots.findOne({ _id: slot }, { projection: { gen: 1 } });
        const orphaned = existing && current && current.gen < g && Date.now() - existing.created_at.getTime() > CLAIM_STALE_MS;
        if (!orphaned) return null;
      }
    }
    return null;
  }

  /**
   * Stores a new running job within `max` slots, evicting the oldest finished job if needed.
   * `reclaim` is asked once, when every slot is active, to free slots left by crashed
   * submissions; it returns how many it freed. Throws BatchCapacityError when none is usable.
   */
  async admit(job: NewBatchJob, max: number, reclaim?: () => Promise<number>): Promise<Admission> {
    let reclaimed = false;
    void this.claims.deleteMany({ created_at: { $lt: new Date(Date.now() - CLAIM_RETENTION_MS) } }).catch(() => undefined);
    for (let attempt = 0; attempt < 30; attempt++) {
      let admission: Admission | null = null;
      // 1. a free slot
      const free = await this.slots.find({ _id: { $lt: max }, state: 'free' }).sort({ _id: 1 }).limit(4).toArray();
      admission = await this.takeOne(free, job._id);
      // 2. a new slot
      if (!admission) {
        const count = await this.slots.countDocuments({ _id: { $lt: max } });
        if (count < max) {
          try {
            await this.slots.insertOne({ _id: count, gen: 1, state: 'active', job_id: job._id, claimed_at: new Date(), finished_at: null });
            admission = { slot: count, evicted: null };
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
            continue; // another admission took that number: look again
          }
        }
      }
      // 3. the slot whose job finished first (eviction)
      if (!admission) {
        const finished = await this.slots.find({ _id: { $lt: max }, state: 'finished' }).sort({ finished_at: 1, _id: 1 }).limit(4).toArray();
        admission = await this.takeOne(finished, job._id);
        if (!admission && finished.length > 0) {
          await backoff(attempt); // lost every race: look again once the winners wrote their slots
          continue;
        }
      }
      if (!admission) {
        if (free.length > 0) {
          await backoff(attempt);
          continue;
        }
        if (!reclaimed && reclaim) {
          reclaimed = true;
          if ((await reclaim()) > 0) continue;
        }
        throw new BatchCapacityError();
      }
      // Whatever job the slot held before (an evicted one, or one left by a crash) goes first,
      // so the store never holds more than `max` jobs, not even for a moment.
      await this.jobs.deleteMany({ slot: admission.slot, _id: { $ne: job._id } });
      await this.jobs.insertOne({ ...job, slot: admission.slot });
      return admission;
    }
    throw new BatchCapacityError();
  }

  /** Claims the first of `candidates` this admission can win, and writes it as active for `jobId`. */
  private async takeOne(candidates: BatchSlotDoc[], jobId: string): Promise<Admission | null> {
    for (const cand of candidates) {
      const gen = await this.claim(cand._id, (cand.gen ?? 0) + 1, jobId);
      if (gen === null) continue;
      await this.slots.updateOne({ _id: cand._id }, { $set: { gen, state: 'active', job_id: jobId, claimed_at: new Date(), finished_at: null } });
      return { slot: cand._id, evicted: cand.state === 'finished' ? cand.job_id : null };
    }
    return null;
  }

  async markStarted(jobId: string): Promise<void> {
    await this.jobs.updateOne({ _id: jobId }, { $set: { started: true } });
  }

  /** Undoes an admission whose workflow could not be started (by the admitting process: it owns the slot). */
  async abandon(jobId: string, slot: number): Promise<void> {
    await this.jobs.deleteOne({ _id: jobId, status: 'running' });
    await this.slots.updateOne({ _id: slot, job_id: jobId, state: 'active' }, { $set: { state: 'free', job_id: null, claimed_at: null, finished_at: null } });
  }

  /**
   * Repair of a slot another process left active (api/batch-jobs.ts reclaimOrphans): claims the
   * slot's next generation first, so a concurrent repair or admission cannot interleave.
   * `to` = free (the job never started: deleted) or finished (evictable).
   */
  async repairSlot(slot: BatchSlotDoc, to: 'free' | 'finished'): Promise<boolean> {
    const gen = await this.claim(slot._id, (slot.gen ?? 0) + 1, slot.job_id);
    if (gen === null) return false;
    if (to === 'free') {
      if (slot.job_id) await this.jobs.deleteOne({ _id: slot.job_id, status: 'running' });
      await this.slots.updateOne({ _id: slot._id }, { $set: { gen, state: 'free', job_id: null, claimed_at: null, finished_at: null } });
    } else {
      await this.slots.updateOne({ _id: slot._id }, { $set: { gen, state: 'finished', finished_at: new Date() } });
    }
    return true;
  }

  find(jobId: string): Promise<BatchJobDoc | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  /** Active slots claimed before `before`, oldest first. */
  staleActiveSlots(before: Date, limit: number): Promise<BatchSlotDoc[]> {
    return this.slots.find({ state: 'active', claimed_at: { $lt: before } }).sort({ claimed_at: 1 }).limit(limit).toArray();
  }

  /**
   * Marks a running job whose workflow closed without storing it (terminated, timed out,
   * cancelled, failed, or gone) as failed: every item failed with `error`, no result released
   * (its audit entries were never written). Frees its slot for eviction. Idempotent; a completed
   * job is left as it is. Returns the job as stored afterwards (null when it no longer exists).
   */
  async failUnfinished(jobId: string, error: string, at: Date): Promise<BatchJobDoc | null> {
    const doc = await this.jobs.findOne({ _id: jobId }, { projection: { request_items: 1, total_items: 1, slot: 1, status: 1 } });
    if (!doc) return null;
    if (doc.status === 'running') {
      const outcomes: BatchItemOutcome[] = doc.request_items.map((_, index) => ({ index, status: 'failed', error, latency_ms: 0 }));
      await this.jobs.updateOne(
        { _id: jobId, status: 'running' },
        { $set: { status: 'failed', items: itemViews(jobId, doc.request_items, outcomes), ...batchCounters(doc.total_items, outcomes), completed_at: at } },
      );
    }
    await this.slots.updateOne({ _id: doc.slot, job_id: jobId, state: 'active' }, { $set: { state: 'finished', finished_at: at } });
    return this.jobs.findOne({ _id: jobId });
  }

  /**
   * Writes the finished job (all items) and marks its slot finished. Idempotent: an activity
   * retry rewrites the same job and finds the slot already finished. Returns false when the
   * job document no longer exists.
   */
  async complete(jobId: string, outcomes: readonly BatchItemOutcome[], completedAt: Date): Promise<boolean> {
    const doc = await this.jobs.findOne({ _id: jobId }, { projection: { request_items: 1, total_items: 1, slot: 1, status: 1 } });
    if (!doc) return false;
    if (doc.status !== 'completed') {
      const items = itemViews(jobId, doc.request_items, outcomes);
      await this.jobs.updateOne(
        { _id: jobId, status: 'running' },
        { $set: { status: 'completed', items, ...batchCounters(doc.total_items, outcomes), completed_at: completedAt } },
      );
    }
    await this.slots.updateOne({ _id: doc.slot, job_id: jobId, state: 'active' }, { $set: { state: 'finished', finished_at: completedAt } });
    return true;
  }
}
