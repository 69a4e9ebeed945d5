// The batch job store: `batch_jobs` (one document per job) bounded by SVC_BATCH_MAX_JOBS
// through `batch_slots`, without multi-document transactions.
//
// Admission is race-safe because every decision is one atomic single-document update on a
// slot: slot n (0 <= n < max) holds at most one job, in state active (running) or finished.
// A new job takes, in order: a free slot (findOneAndUpdate state free -> active), a new slot
// (insertOne with _id = the number of slots below max; the unique _id makes two admissions
// racing for the same number fail one of them, which retries), or the oldest finished slot
// (findOneAndUpdate sorted by finished_at: evicts that job). Two admissions can never take
// the same slot, so the store never holds more than `max` jobs, even with several API
// processes. If every slot is active, the caller gets 503 capacity.
//
// A job's documents change in a fixed order so that a crash at any point leaves a state the
// next writer repairs: claim the slot, delete the slot's previous job(s), insert the job; the
// workflow's last activity writes the completed job, then marks its slot finished (both
// idempotent, retried until they succeed). A slot claimed by an API process that died before
// starting the workflow is found by `staleActiveSlots` (see api/batch-jobs.ts).
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
  state: SlotState;
  job_id: string | null;
  claimed_at: Date | null;
  finished_at: Date | null;
}

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
});

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

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

  /**
   * Stores a new running job within `max` slots, evicting the oldest finished job if needed.
   * `reclaim` is asked once, when every slot is active, to free slots left by crashed
   * submissions; it returns how many it freed. Throws BatchCapacityError when none is free.
   */
  async admit(job: NewBatchJob, max: number, reclaim?: () => Promise<number>): Promise<Admission> {
    const claim = { state: 'active' as const, job_id: job._id, claimed_at: new Date(), finished_at: null };
    let reclaimed = false;
    for (let attempt = 0; attempt < 20; attempt++) {
      let admission: Admission | null = null;
      const free = await this.slots.findOneAndUpdate({ _id: { $lt: max }, state: 'free' }, { $set: claim }, { sort: { _id: 1 }, returnDocument: 'after' });
      if (free) admission = { slot: free._id, evicted: null };
      if (!admission) {
        const count = await this.slots.countDocuments({ _id: { $lt: max } });
        if (count < max) {
          try {
            await this.slots.insertOne({ _id: count, ...claim });
            admission = { slot: count, evicted: null };
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
            continue; // another admission took that number: look again
          }
        }
      }
      if (!admission) {
        const old = await this.slots.findOneAndUpdate(
          { _id: { $lt: max }, state: 'finished' },
          { $set: claim },
          { sort: { finished_at: 1, _id: 1 }, returnDocument: 'before' },
        );
        if (old) admission = { slot: old._id, evicted: old.job_id };
      }
      if (!admission) {
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

  async markStarted(jobId: string): Promise<void> {
    await this.jobs.updateOne({ _id: jobId }, { $set: { started: true } });
  }

  /** Undoes an admission whose workflow could not be started. */
  async abandon(jobId: string, slot: number): Promise<void> {
    await this.jobs.deleteOne({ _id: jobId, status: 'running' });
    await this.releaseSlot(slot, jobId);
  }

  async releaseSlot(slot: number, jobId: string): Promise<void> {
    await this.slots.updateOne({ _id: slot, job_id: jobId, state: 'active' }, { $set: { state: 'free', job_id: null, claimed_at: null, finished_at: null } });
  }

  /** Makes an active slot evictable without completing its job (its workflow closed abnormally). */
  async finishSlot(slot: number, jobId: string): Promise<void> {
    await this.slots.updateOne({ _id: slot, job_id: jobId, state: 'active' }, { $set: { state: 'finished', finished_at: new Date() } });
  }

  find(jobId: string): Promise<BatchJobDoc | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  /** Active slots claimed before `before`, oldest first. */
  staleActiveSlots(before: Date, limit: number): Promise<BatchSlotDoc[]> {
    return this.slots.find({ state: 'active', claimed_at: { $lt: before } }).sort({ claimed_at: 1 }).limit(limit).toArray();
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
