// Batch jobs on the API side: admission into the bounded job store, one workflow per job,
// a bounded wait for the result, and live snapshots (the workflow's `progress` query) while
// the job runs. docs/batch.md describes the protocol.
import { randomBytes } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ServiceConfig } from '../core/config.js';
import type { Store } from '../core/store.js';
import {
  BATCH_CAPACITY_DETAIL,
  BATCH_CONCURRENCY,
  MATH_UNIT_MAX,
  SA_BATCH_STATUS,
  SA_ENGINE,
  SA_ITEM_COUNT,
  SA_ORG_ID,
  batchUnits,
  type BatchItemRequest,
  type BatchItemView,
  type BatchJobView,
  type BatchProgress,
  type BatchWorkflowInput,
} from '../core/batch.js';
import {
  BatchCapacityError,
  BatchJobStore,
  EVICTOR_BEAT_MS,
  EVICTOR_STALE_MS,
  itemsOf,
  newBatchJob,
  type BatchJobDoc,
  type BatchResultDoc,
  type BatchSlotDoc,
} from '../core/batch-store.js';
import type { AuditContext } from '../core/engines.js';
import { QuietQueue } from '../core/batch-quiet-queue.js';
import { backgroundTimer } from '../core/background-timer.js';
import { logger } from '../core/logger.js';
import { awaitCompletion, eagerJobFree, eagerJobStarted, jobEnded } from '../core/completion-notices.js';
import { HttpError } from './errors.js';
import { BACKEND_UNAVAILABLE, requestDigest, type TemporalGateway } from './temporal.js';
import { BatchPostTrace, type PostSpans } from './batch-post-trace.js';
import { workflows } from './workflows.js';

const log = logger('batch');

/**
 * A job whose slot was claimed SVC_BATCH_ORPHAN_SECONDS ago (default 60) is checked against
 * Temporal: by the background sweep (session 16, every half of it) and, when the store is full,
 * by the admission that found no slot. A submission that has not started its workflow by half of
 * it gives up (submit), so a workflow never starts after the sweep may have deleted its job.
 */
const orphanAfterMs = (cfg: Pick<ServiceConfig, 'SVC_BATCH_ORPHAN_SECONDS'>) =>
  (cfg.SVC_BATCH_ORPHAN_SECONDS ?? 60) * 1000;
/** How long the background sweep trusts that a job it saw running was started (it re-checks after this: terminated meanwhile). */
const SEEN_RUNNING_MS = 600_000;
/** Jobs the sweep remembers as running (bounded). */
const SEEN_RUNNING_MAX = 4096;
/** Stale slots checked against Temporal per sweep or reclaim (each a describe). */
const RECLAIM_BATCH = 20;
/**
 * Session 23: the background sweep reads the slots whole at most every other run (a read at least
 * this share of the deadline after the last one); between, it reads by `_id` only the slots the
 * last whole read saw active, up to KNOWN_ACTIVE_MAX of them (more: a whole read).
 */
const WHOLE_READ_SHARE = 0.75;
const KNOWN_ACTIVE_MAX = 64;
const QUERY_DEADLINE_MS = 3000;
/**
 * A GET's progress query: math units run as local activities inside one workflow task, and a
 * query waits for that task, so the GET does not wait long for it: past this, the units the
 * workflow already stored and audited answer, read from the store by id (docs/batch.md).
 */
const PROGRESS_QUERY_DEADLINE_MS = 250;
/**
 * The POST's own snapshot query, when its wait ran out: math units run as local activities inside
 * one workflow task, and a query waits for that task, so the POST does not wait long for it (the
 * stored job answers instead, as when no worker can answer). With SVC_BATCH_WAIT_SECONDS=0 the
 * POST answers the stored job without asking (the job has only just started).
 */
const SUBMIT_QUERY_DEADLINE_MS = 300;
/** How often an API process deletes claims older than their retention, and sweeps the release queue and left evictions (background). */
const CLAIM_SWEEP_MS = 300_000;
/**
 * Session 24 (core/background-timer.ts): each 5-minute task has its own phase in the period (they
 * all ran in one tick, beside the rate windows' sweep of the same period), and every run is moved
 * by up to ±10 % of it. The claims' first sweep (its one whole read: sweepClaims) comes early,
 * while a starting process has no traffic yet. The evictions' sweep runs on this process's beat
 * (EVICTOR_BEAT_MS, below), not on this period.
 */
const CLAIM_SWEEP_FIRST_MS = 20_000;
const QUEUE_SWEEP_FIRST_MS = 95_000;
/**
 * The first sweep of evictions left unfinished (a process that died between an admission and
 * its deletion) runs this long after the process starts, off its start-up (persistence/batch.ts sweepEvicted).
 */
const EVICTION_SWEEP_FIRST_MS = 3_000;
/**
 * Review C2 (session 24): the eviction sweep also reads the slots whole this often, whether or
 * not a `batch_evictors` document went stale: the backstop for processes that never write one
 * (session 23's, stopped after the new ones started in a rolling deploy), whose leftovers
 * would otherwise wait for their slots' next admission. One bounded read of `batch_slots` per
 * process every 6 h (base: every 5 min), as the claims' whole read (CLAIM_SCAN_MS).
 */
export const EVICTION_WHOLE_SWEEP_MS = 6 * 3_600_000;
/**
 * An evicted job's deletion waits until this process has admitted nothing for this long, and at
 * most the second figure (session 14, core/batch-quiet-queue.ts): run at once, its store commands
 * queued on SQLite's one writer beside the rest of a burst's admissions. Session 18: it also
 * waits for the jobs this process started to finish (RUN_HOLD_*), so at most 15 s (was 5).
 */
const DROP_QUIET_MS = 300;
const DROP_DEFER_MAX_MS = 15_000;
/**
 * How long a job this process started holds the deletions back when the process does not see it
 * finish (no GET, no wait in its POST): a guess from its size, which only moves the deletions
 * (session 18: 10 100-item jobs ran 0.9 s on a quiet machine, 3-4 s on a loaded one).
 */
const RUN_HOLD_BASE_MS = 2_000;
const RUN_HOLD_PER_ITEM_MS = 25;

/** The index of an item view (`<job_id>-<index>`). */
const viewIndex = (v: BatchItemView) => Number(v.id.slice(v.id.lastIndexOf('-') + 1));

/** The error every item of a job gets when its workflow closed without completing it. */
export function unfinishedDetail(workflowStatus: string): string {
  const how: Record<string, string> = {
    TERMINATED: 'was terminated',
    TIMED_OUT: 'timed out',
    CANCELLED: 'was cancelled',
    CANCELED: 'was cancelled',
    FAILED: 'failed',
    NOT_FOUND: 'no longer exists',
  };
  return `Job failed: its workflow ${how[workflowStatus] ?? `closed (${workflowStatus.toLowerCase()})`} before the job completed; no result was released.`;
}

export const batchWorkflowId = (orgId: string, jobId: string) => `batch-${orgId}-${jobId}`;
export const newJobId = () => `bj_${randomBytes(12).toString('hex')}`;

export interface SubmitOptions {
  orgId: string;
  principal: { userId: string | null; keyId: string | null };
  items: BatchItemRequest[];
}

export class BatchJobs {
  readonly store: BatchJobStore;
  /**
   * Jobs this process started and has not seen finish, with the time after which they no longer
   * hold the deletions back (session 18, RUN_HOLD_*): the jobs whose writes the deletions would queue beside.
   */
  private readonly running = new Map<string, number>();
  /** The admissions of this process, and the deletions of evicted jobs it queued behind them and behind its running jobs (dropEvicted). */
  private readonly admissions = new QuietQueue(DROP_QUIET_MS, DROP_DEFER_MAX_MS, Date.now, () => this.anyRunning());
  /** Evicted jobs waiting for the next deletion (dropEvicted): deleted together, in one batch. */
  private readonly pendingDrops = new Set<string>();
  /** A deletion of the pending names is queued and has not started yet. */
  private dropQueued = false;
  /**
   * Session 24: names whose deletion failed (a store error): this process deletes them again at its
   * next beat. The periodic sweep no longer reads every slot, so they are not left to it.
   */
  private readonly failedDrops = new Set<string>();
  /** Session 24: this process in `batch_evictors` (persistence/batch.ts BatchEvictorDoc), and its last `seen` acknowledged. */
  readonly evictorId = `api_${randomBytes(8).toString('hex')}`;
  private beatAt = Number.NEGATIVE_INFINITY;
  private beating: Promise<void> | null = null;
  /** Session 24: the sweep of evictions in flight (one at a time: a paced sweep may outlast the beat's interval). */
  private evictSweep: Promise<void> | null = null;
  /** Session 24 (review C2): when this process's eviction sweep last read the slots whole (EVICTION_WHOLE_SWEEP_MS). */
  private wholeSweepAt = Date.now();
  /** Submissions of this process between admission and the workflow's start (submit). */
  private submitting = 0;
  /** Jobs whose workflow the background sweep saw running, and when (SEEN_RUNNING_MS): not described again meanwhile. */
  private readonly seenRunning = new Map<string, number>();
  private readonly orphanMs: number;
  /** The background sweep in flight (sweepNeverStarted). */
  private sweeping: Promise<number> | null = null;
  /**
   * Session 23: when this process last read the slots whole for the crash repair (reclaimOrphans),
   * and the slots that read (or a later read by `_id`) saw active: the only ones that can have been
   * claimed before the deadline without a whole read since having seen them (see reclaimOrphans).
   */
  private wholeReadAt = Number.NEGATIVE_INFINITY;
  private knownActive = new Set<number>();
  /** Per-POST spans (debug, off by default: SVC_BATCH_POST_TRACE; session 18). */
  private readonly trace: BatchPostTrace;

  constructor(
    private readonly cfg: ServiceConfig,
    store: Store,
    private readonly temporal: TemporalGateway,
  ) {
    // Audited result documents are cached: a polled running job reads each unit once (persistence/batch.ts).
    // Session 23: the release queue's read-ahead waits for the submissions' starts too (persistence/batch.ts readAhead).
    this.store = new BatchJobStore(store, { unitCache: true, busy: () => this.submitting > 0 });
    this.orphanMs = orphanAfterMs(cfg);
    this.trace = new BatchPostTrace(cfg.SVC_BATCH_POST_TRACE === 'on');
    // Background sweeps of old slot claims and of the slot directory's dead queue entries
    // (persistence/batch.ts sweepClaims, sweepQueue), off the submit path; session 24: each in its own phase.
    backgroundTimer(
      () =>
        void this.store
          .sweepClaims()
          .catch((err: Error) => log.warn('batch claim sweep failed', { error: err.message })),
      CLAIM_SWEEP_MS,
      { firstMs: CLAIM_SWEEP_FIRST_MS },
    );
    backgroundTimer(
      () =>
        void this.store
          .sweepQueue()
          .catch((err: Error) => log.warn('batch queue sweep failed', { error: err.message })),
      CLAIM_SWEEP_MS,
      { firstMs: QUEUE_SWEEP_FIRST_MS },
    );
    // Session 24: this process's beat, and the sweep of a dead process's evictions (a read of the
    // slots only when one is dead; the first sweep reads them anyway: processes from before).
    void this.beat().catch(() => undefined); // the first admission waits for it (evictorFresh)
    setInterval(() => {
      void this.beat().catch((err: Error) => log.warn('batch evictor beat failed', { error: err.message }));
      this.sweepEvicted(false);
    }, EVICTOR_BEAT_MS).unref();
    setTimeout(() => this.sweepEvicted(true), EVICTION_SWEEP_FIRST_MS).unref();
    // Session 16: jobs never started (their API process died between admission and start) are
    // deleted and their slots freed, whether or not the store ever fills (reclaimOrphans).
    setInterval(() => void this.sweepNeverStarted(), this.orphanMs / 2).unref();
  }

  /** The background sweep of slots held by jobs that never started (or closed without storing their job). */
  sweepNeverStarted(): Promise<number> {
    // One at a time per process: a sweep slowed by Temporal is not overtaken by the next one.
    this.sweeping ??= this.reclaimOrphans({ background: true })
      .catch((err: Error) => {
        log.warn('batch orphan sweep failed', { error: err.message });
        return 0;
      })
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /**
   * Session 24: writes this process's `seen` (persistence/batch.ts beat); one write in flight at a
   * time. Resolves once acknowledged.
   */
  private beat(): Promise<void> {
    this.beating ??= (async () => {
      const at = Date.now();
      await this.store.beat(this.evictorId, new Date(at));
      this.beatAt = Math.max(this.beatAt, at);
    })().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  /**
   * Session 24: an admission (which may evict, naming the evicted jobs on their slot) waits until
   * this process's `seen` is younger than half of EVICTOR_STALE_MS. So a slot write of this process
   * lands well before any other process takes it for dead (EVICTOR_STALE_MS after that `seen`) and
   * reads the slots for its leftovers. Nothing to wait for but at the first admission (the beat
   * at start) or when the beats fell behind (a store error, a stalled process).
   */
  private async evictorFresh(): Promise<void> {
    if (Date.now() - this.beatAt < EVICTOR_STALE_MS / 2) return;
    await this.beat();
  }

  /**
   * Finishes evictions another (dead) process left named on their slots, and this process's own
   * failed ones. Background. Session 24: the slots are read only when a process is dead (its
   * `batch_evictors` document stale), or `whole` (the first sweep, and every EVICTION_WHOLE_SWEEP_MS:
   * processes from before session 24 have no document), not every 5 minutes in every process; its
   * deletion is paced.
   */
  private sweepEvicted(whole: boolean): void {
    if (this.failedDrops.size > 0) {
      const again = [...this.failedDrops];
      this.failedDrops.clear();
      this.dropEvicted(again);
    }
    if (this.evictSweep) return;
    // The slow backstop (review C2): a process that never writes `batch_evictors` is never stale.
    whole ||= Date.now() - this.wholeSweepAt >= EVICTION_WHOLE_SWEEP_MS;
    if (whole) this.wholeSweepAt = Date.now();
    this.evictSweep = this.store
      .sweepDeadEvictors(this.evictorId, this.pendingDrops, { whole, paced: true })
      .then((n) => {
        if (n > 0) log.warn('batch evictions finished by the sweep', { jobs: n });
      })
      .catch((err: Error) => log.warn('batch eviction sweep failed', { error: err.message }))
      .finally(() => {
        this.evictSweep = null;
      });
  }

  /**
   * Deletes the jobs an admission evicted, after it answered (their slot already names the new
   * job: they read as 404). One deletion at a time per process, and only once its admissions
   * are quiet (session 14) and the jobs it started are done (session 18): a burst of admissions
   * at the limit queues its deletions behind the burst and behind the jobs it started, instead
   * of adding their writes to the ones those jobs and admissions wait on. The names queued
   * meanwhile go out together (persistence/batch.ts dropEvicted: three commands per batch).
   */
  private dropEvicted(names: string[]): void {
    if (names.length === 0) return;
    for (const n of names) this.pendingDrops.add(n);
    if (this.dropQueued) return;
    this.dropQueued = true;
    // Not awaited: the POST does not wait on the deletion; a failure leaves the names on the slot for the sweep.
    void this.admissions.defer(
      () => {
        this.dropQueued = false;
        const batch = [...this.pendingDrops];
        this.pendingDrops.clear();
        // Session 24: paced (persistence/batch.ts dropEvicted): a GET beside it waits behind one small command at most.
        return this.store.dropEvicted(batch, { paced: true }).catch((err: Error) => {
          for (const n of batch) this.failedDrops.add(n); // deleted again at the next beat (those deleted are remembered)
          throw err;
        });
      },
      (err) => log.warn('batch eviction deletion failed; retried at the next beat', { error: err.message }),
    );
  }

  /** Whether a job this process started may still be running (its hold not expired). */
  private anyRunning(now = Date.now()): boolean {
    for (const [id, until] of this.running) if (until <= now) this.running.delete(id);
    return this.running.size > 0;
  }

  /** The process saw the job final (a GET, the POST's wait): it no longer holds the deletions back. */
  private seenFinal(view: BatchJobView): BatchJobView {
    if (view.status !== 'running') this.running.delete(view.job_id);
    return view;
  }

  async submit(opts: SubmitOptions): Promise<BatchJobView> {
    const jobId = newJobId();
    const trace = this.trace.begin(jobId);
    try {
      return await trace.run(() => this.submitJob(opts, jobId, trace));
    } catch (err) {
      trace.done({ failed: (err as Error).message });
      throw err;
    }
  }

  private async submitJob(opts: SubmitOptions, jobId: string, trace: PostSpans): Promise<BatchJobView> {
    const submittingAtEntry = this.submitting;
    const workflowId = batchWorkflowId(opts.orgId, jobId);
    const createdAt = new Date();
    // Everything that can fail on the request itself runs before a slot is taken.
    const digest = requestDigest({ items: opts.items });
    const units = batchUnits(opts.items, BATCH_CONCURRENCY, MATH_UNIT_MAX).length;
    const job = newBatchJob({
      jobId,
      orgId: opts.orgId,
      workflowId,
      totalItems: opts.items.length,
      units,
      createdAt,
      submittedBy: { user_id: opts.principal.userId, key_id: opts.principal.keyId },
    });
    // Counted until its start is done: the eager choice below reads it (a burst is never eager).
    this.submitting++;
    let submitted = false;
    const startDone = () => {
      if (!submitted) this.submitting--;
      submitted = true;
    };
    let admission;
    try {
      await this.evictorFresh(); // session 24: a no-op but at the first admission (see there)
      admission = await this.admissions.busy(() =>
        this.store.admit(
          job,
          opts.items.map((i) => ({ query: i.query, type: i.type })),
          this.cfg.SVC_BATCH_MAX_JOBS,
          () => this.reclaimOrphans(),
        ),
      );
    } catch (err) {
      startDone();
      if (err instanceof BatchCapacityError) throw new HttpError(503, BATCH_CAPACITY_DETAIL);
      throw err;
    }
    if (admission.evicted) log.info('batch job evicted', { job_id: admission.evicted, slot: admission.slot });
    const admittedAt = Date.now();
    trace.mark('admitted_ms');

    const input: BatchWorkflowInput = {
      job_id: jobId,
      org_id: opts.orgId,
      created_at: createdAt.toISOString(),
      items: opts.items,
      item_timeout_ms: this.cfg.SVC_BATCH_ITEM_TIMEOUT * 1000,
      provider_timeout_ms: this.cfg.SVC_PROVIDER_TIMEOUT * 1000,
      concurrency: BATCH_CONCURRENCY,
      // One math unit for up to 100 items (core/batch.ts MATH_UNIT_MAX); the count above is the same plan's.
      math_unit_max: MATH_UNIT_MAX,
      // Batch items are normal activities unless local is forced: each item is its own event in the UI.
      activity_mode: this.cfg.SVC_ACTIVITY_MODE === 'local' ? 'local' : 'normal',
      // Math units and the finish step run as local activities unless normal is forced (docs/batch.md, "Latency").
      unit_mode: this.cfg.SVC_ACTIVITY_MODE === 'normal' ? 'normal' : 'local',
      // A job that is one local math unit runs as that one activity (session 13, docs/batch.md).
      one_step_job: true,
      // Math units store the attestation records in the items' audit entries (session 17, docs/attestations.md).
      attestation_in_audit_entry: true,
      // Audit entry and attestation ids start with the run's start time (session 23, core/time-ordered-id.ts);
      // SVC_AUDIT_TIME_ORDERED_IDS=0 leaves them out during a rolling deploy (docs/store-access.md §17).
      ...(this.cfg.SVC_AUDIT_TIME_ORDERED_IDS ? { time_ordered_ids: true } : {}),
      audit: {
        user_id: opts.principal.userId,
        key_id: opts.principal.keyId,
        request_digest: digest,
      } satisfies AuditContext,
    };
    // A one-step job (one local math unit, workflows/batch.ts) starts eagerly in this process's
    // worker when it runs (workers/api-process.ts): no matching round trip, and the unit it stores
    // lands in this process's result cache, so the answer below reads nothing back (session 14).
    // Only a job submitted alone (no other submission of this process between admission and
    // start) and at most EAGER_JOBS_MAX at a time: the API's one main thread would otherwise run a
    // burst's jobs that the standalone workers run side by side (core/completion-notices.ts).
    const eager =
      units === 1 &&
      input.unit_mode === 'local' &&
      opts.items.every((i) => i.type === 'math') &&
      this.submitting === 1 &&
      eagerJobFree()
        ? this.temporal.eagerRoute()
        : null;
    if (eager) eagerJobStarted(jobId);
    // Such a job, run by this process's worker, tells this process once it is stored completed
    // (core/completion-notices.ts): registered before the start, so the notice cannot come first.
    const notice = eager && this.cfg.SVC_BATCH_WAIT_SECONDS > 0 ? awaitCompletion(jobId) : null;
    let handle;
    try {
      // Session 16: a submission this late (a stalled process) does not start its workflow: the
      // sweep may already have found the job without one and deleted it (reclaimOrphans). The
      // start's own deadline (3 s) keeps a start from landing later than this plus 3 s.
      if (Date.now() - createdAt.getTime() > this.orphanMs / 2) throw new HttpError(503, BACKEND_UNAVAILABLE);
      // Any failure from here until the workflow runs releases the slot (the workflow would).
      handle = await this.temporal.startWorkflow(
        workflows.batchWorkflow,
        {
          ...(eager ? { taskQueue: eager.taskQueue, requestEagerStart: true } : {}),
          workflowId,
          args: [input],
          // No execution time-out: a job waits out a worker outage and then completes.
          typedSearchAttributes: [
            { key: SA_ORG_ID, value: opts.orgId },
            { key: SA_ENGINE, value: 'batch' },
            { key: SA_ITEM_COUNT, value: opts.items.length },
            { key: SA_BATCH_STATUS, value: 'running' },
          ],
        },
        { detail: BACKEND_UNAVAILABLE, ...(eager ? { via: eager } : {}) },
      );
    } catch (err) {
      startDone();
      notice?.cancel();
      jobEnded(jobId);
      this.dropEvicted(admission.drop);
      await this.store.abandon(jobId, admission.slot).catch(() => undefined);
      throw err;
    }
    startDone();
    trace.mark('started_ms');
    this.anyRunning(); // drops the expired holds (bounded without evictions too)
    this.running.set(
      jobId,
      Date.now() + Math.min(DROP_DEFER_MAX_MS, RUN_HOLD_BASE_MS + RUN_HOLD_PER_ITEM_MS * opts.items.length),
    );
    // After the start (its store writes, if any, go first): the evicted job's documents.
    this.dropEvicted(admission.drop);
    // Nothing writes the job document from here on but its workflow (and a repair once that closed):
    // FerretDB/SQLite runs an update as read-modify-write, so a second writer racing the workflow's
    // completion can put `running` back for good (session 13: `markStarted` did; docs/store-access.md).
    log.info('batch job started', {
      job_id: jobId,
      workflow_id: workflowId,
      items: opts.items.length,
      slot: admission.slot,
    });

    const waitMs = this.cfg.SVC_BATCH_WAIT_SECONDS * 1000;
    const t0 = Date.now();
    let done: { completed_at?: string; completed_items: number; failed_items: number } | null = null;
    if (waitMs > 0) {
      try {
        // The handle's calls go through the connection it was started on (the eager one, or the gateway's).
        const connection = eager?.connection ?? this.temporal.connection;
        done = await connection.withDeadline(Date.now() + waitMs, () => {
          const result = handle.result();
          if (!notice) return result;
          // The stored completion answers as soon as it is known; the result's long poll ends on its own.
          void result.catch(() => undefined);
          return Promise.race([result, notice.done]);
        });
      } catch {
        // Not finished in time (or Temporal unreachable): the job runs on; the caller polls.
      } finally {
        notice?.cancel();
      }
    }
    const t1 = Date.now();
    let view: BatchJobView;
    if (done?.completed_at) {
      // Completed: the workflow's result is the job document's final fields as stored (the
      // finish step wrote them), so only the result documents are read (by id, side by side).
      const stored = await this.store.unitResults(
        jobId,
        Array.from({ length: units }, (_, u) => u),
      );
      view = {
        job_id: jobId,
        status: 'completed',
        progress_percent:
          opts.items.length === 0
            ? 100
            : Math.floor(((done.completed_items + done.failed_items) * 100) / opts.items.length),
        total_items: opts.items.length,
        completed_items: done.completed_items,
        failed_items: done.failed_items,
        items: itemsOf(stored),
        workflow_id: workflowId,
        created_at: createdAt.toISOString(),
        completed_at: done.completed_at,
      };
    } else {
      // Still running as far as this process knows: the job as it was just written (no read
      // back; session 13). With a wait, liveView asks the workflow and reads the store again
      // only when it closed meanwhile (the finish step stores the job before the workflow completes).
      const doc: BatchJobDoc = { ...job, slot: admission.slot, started: true };
      view = waitMs > 0 ? await this.liveView(doc, SUBMIT_QUERY_DEADLINE_MS) : await this.store.view(doc);
    }
    log.debug('batch job answered', {
      job_id: jobId,
      admit_ms: admittedAt - createdAt.getTime(),
      started_ms: t0 - admittedAt,
      waited_ms: t1 - t0,
      read_ms: Date.now() - t1,
    });
    trace.done({ eager: !!eager, evicted: !!admission.evicted, slot: admission.slot, submitting: submittingAtEntry });
    return this.seenFinal(view);
  }

  /** The stored job once final (completed or failed); while it runs, the workflow's live snapshot. */
  async view(doc: BatchJobDoc): Promise<BatchJobView> {
    if (doc.status !== 'running') return this.seenFinal(await this.store.view(doc));
    return this.seenFinal(await this.liveView(doc));
  }

  /**
   * A GET's answer: the job's view, or null when it was evicted (its slot names another job; its
   * documents may still be being deleted). The slot is read after the items, so an answer is
   * never a half-deleted job (persistence/batch.ts holdsSlot). A running job is never evicted.
   */
  async visibleView(doc: BatchJobDoc): Promise<BatchJobView | null> {
    const view = await this.view(doc);
    if (view.status !== 'running' && !(await this.store.holdsSlot(doc))) return null;
    return view;
  }

  /**
   * The workflow's snapshot as the API answers it: the items it holds, plus the items of the
   * units it reports stored, read from their result documents by id (≤ units point lookups).
   */
  private async fromProgress(snap: BatchProgress): Promise<BatchJobView> {
    const { stored_units: stored, ...view } = snap;
    if (!stored || stored.length === 0) return view;
    const items = [...view.items, ...itemsOf(await this.store.unitResults(snap.job_id, stored))];
    items.sort((a, b) => viewIndex(a) - viewIndex(b));
    return { ...view, items };
  }

  /**
   * A running job: its workflow is described first. Running: the live snapshot (progress query).
   * Closed without storing the job (terminated, timed out, cancelled, failed; or gone once
   * started): the job is marked failed in the store now, so it never reads `running` forever
   * (a query would replay the closed workflow and answer `running`). Temporal unreachable or
   * slow: the stored job, unchanged (never failed on a guess).
   */
  private async liveView(doc: BatchJobDoc, queryDeadlineMs = PROGRESS_QUERY_DEADLINE_MS): Promise<BatchJobView> {
    const handle = this.temporal.client.workflow.getHandle(doc.workflow_id);
    let closed: string | null = null;
    try {
      const desc = await this.temporal.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.describe());
      if (desc.status.name === 'RUNNING') {
        // The query first; only when the workflow's busy task cannot answer it in time, the
        // stored units (read then, not beside the query: a unit document carries its items'
        // results and attestation tokens, and a job polled every 100 ms read all of them on
        // every poll; session 10, docs/performance.md).
        // A one-unit job: the store says all a query could (session 15, below), so no query.
        const snap = !progressQueryUseful(doc)
          ? null
          : await this.temporal.connection
              .withDeadline(Date.now() + queryDeadlineMs, () => handle.query<BatchProgress>('progress'))
              .catch(() => null);
        if (snap?.status === 'running') return await this.fromProgress(snap);
        if (!snap) {
          const stored = await this.store
            .unitResults(
              doc._id,
              Array.from({ length: doc.units ?? 0 }, (_, u) => u),
            )
            .catch(() => null);
          if (stored) return storedProgress(doc, stored);
        }
      } else if (desc.status.name !== 'COMPLETED') {
        closed = desc.status.name;
      }
    } catch (err) {
      // Gone after it was started (history past retention): it can never complete. A job older
      // than a start can take was started (its POST answered after the start; one that died before
      // is deleted by the orphan repair). `started`: documents written before session 13.
      if (err instanceof WorkflowNotFoundError && (doc.started || startedByAge(doc, this.orphanMs)))
        closed = 'NOT_FOUND';
      // Otherwise no worker to answer the query, or Temporal down: the stored job.
    }
    if (closed) {
      const failed = await this.store.failUnfinished(doc._id, unfinishedDetail(closed), new Date());
      log.warn('batch job marked failed: its workflow closed without completing it', {
        job_id: doc._id,
        workflow_id: doc.workflow_id,
        workflow_status: closed,
      });
      if (failed) return this.store.view(failed);
    }
    // Completed meanwhile (the store is written first), or no live answer: the stored job.
    const fresh = await this.store.find(doc._id);
    return this.store.view(fresh ?? doc);
  }

  /**
   * The active slots the crash repair looks at (session 23). A whole read of `batch_slots` (the
   * bounded scan: ≤ SVC_BATCH_MAX_JOBS documents, ~60 ms of FerretDB's CPU for 1,150 slots of a
   * filled store, every 30 s per API process before) for the at-capacity repair, for the sweep's
   * first run, and for a sweep at least WHOLE_READ_SHARE of the deadline after the last whole read
   * (so every other run: the sweep runs every half of it). Between, only the slots that whole
   * read saw active, by `_id`. The bound is kept: whole reads are at most 1.25 deadlines apart
   * (¾ of it, then the next run), so a slot claimed at C after a whole read is active at the next
   * one, less than 1.25 deadlines after C, unless it was released; that read repairs it if the
   * deadline has passed since C, and otherwise a run every half deadline reads it by `_id` from
   * then on: repaired, as before, within 1.5 deadlines of its claim.
   */
  private async activeSlots(now: number, background: boolean): Promise<BatchSlotDoc[]> {
    const whole =
      !background ||
      now - this.wholeReadAt >= this.orphanMs * WHOLE_READ_SHARE ||
      this.knownActive.size > KNOWN_ACTIVE_MAX;
    const slots = whole ? await this.store.allSlots() : await this.store.slotsById([...this.knownActive]);
    const active = slots.filter((s) => s.state === 'active');
    if (whole) {
      this.wholeReadAt = now;
      this.knownActive = new Set(active.map((s) => s._id));
    } else for (const s of slots) if (s.state !== 'active') this.knownActive.delete(s._id);
    return active;
  }

  /**
   * Frees slots held by submissions that died between claiming a slot and starting their
   * workflow (no job document, or no workflow), and makes slots of workflows that closed
   * without storing their job (terminated by an operator) evictable. Returns how many slots
   * became usable. Run by an admission that found the store full, and (`background`, session
   * 16) by the sweep every half of SVC_BATCH_ORPHAN_SECONDS, which skips the jobs it saw
   * running within SEEN_RUNNING_MS (their workflow exists: started), so a store of long-running
   * jobs costs one bounded read of the slots per sweep, not a describe per job.
   *
   * A job without a workflow past the deadline is deleted, not marked failed: its POST never
   * answered (it answers only after the start), so no client was given its id; the contract's
   * GET then answers 404 as for any job that does not exist (docs/batch.md, "Session 16").
   */
  async reclaimOrphans(opts: { background?: boolean } = {}): Promise<number> {
    const now = Date.now();
    for (const [id, at] of this.seenRunning) if (now - at > SEEN_RUNNING_MS) this.seenRunning.delete(id);
    const stale = (await this.activeSlots(now, !!opts.background))
      .filter((s) => s.claimed_at !== null && s.claimed_at.getTime() < now - this.orphanMs)
      .sort((a, b) => (a.claimed_at?.getTime() ?? 0) - (b.claimed_at?.getTime() ?? 0))
      .filter((s) => !opts.background || !s.job_id || !this.seenRunning.has(s.job_id))
      .slice(0, RECLAIM_BATCH);
    let freed = 0;
    let neverStarted = 0;
    for (const slot of stale) {
      const jobId = slot.job_id;
      if (!jobId) continue;
      const doc = await this.store.find(jobId);
      // No job document: the admission died before inserting it (so before starting a workflow).
      if (!doc) {
        if (await this.store.repairSlot(slot, 'free')) freed++;
        continue;
      }
      // Completed, slot not marked: the final write stopped between its two steps.
      if (doc.status === 'completed') {
        if (await this.store.repairSlot(slot, 'finished')) freed++;
        continue;
      }
      try {
        const desc = await this.temporal.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
          this.temporal.client.workflow.getHandle(doc.workflow_id).describe(),
        );
        if (desc.status.name !== 'RUNNING') {
          // Closed without storing its job (terminated, timed out): the job is failed, not left running.
          if (desc.status.name !== 'COMPLETED')
            await this.store.failUnfinished(doc._id, unfinishedDetail(desc.status.name), new Date());
          if (await this.store.repairSlot(slot, 'finished')) freed++;
        } else {
          this.seenRunning.set(jobId, Date.now());
          if (this.seenRunning.size > SEEN_RUNNING_MAX)
            this.seenRunning.delete(this.seenRunning.keys().next().value as string);
        }
      } catch (err) {
        // Never started: free the slot (the job is deleted). Temporal unreachable: cannot tell, keep it.
        if (err instanceof WorkflowNotFoundError && (await this.store.repairSlot(slot, 'free'))) {
          freed++;
          neverStarted++;
          log.warn('batch job never started: deleted, its slot freed', { job_id: jobId, slot: slot._id });
        }
      }
    }
    if (freed > 0) log.warn('batch slots reclaimed', { freed, never_started: neverStarted });
    return freed;
  }
}

/**
 * Whether a running job's GET asks its workflow (the `progress` query) or reads its stored unit.
 * A job of one unit (`units === 1`: every job of at most 100 math items, or of one other item)
 * holds nothing a query could show that the store does not: its only unit's items appear when
 * its result document is stored and audited, and its job is stored completed right after. A
 * query there only waits: a math unit is a local activity that holds the workflow task, so the
 * query waited its whole 250 ms deadline on every poll of a running job (session 15: 10 jobs
 * polled at once, each GET ~300 ms, and the queries queued behind the units on the worker).
 * A job of several units keeps the query (the items of its other types the workflow holds).
 */
export function progressQueryUseful(doc: Pick<BatchJobDoc, 'units'>): boolean {
  return doc.units !== 1;
}

/** A job older than the orphan repair's bound: its admission either started its workflow or was repaired. */
function startedByAge(doc: BatchJobDoc, orphanMs: number): boolean {
  return Date.now() - new Date(doc.created_at).getTime() > orphanMs;
}

/**
 * A running job's progress from its stored units (the workflow busy with local units cannot
 * answer a query): the items of the units whose audit entries are written (`audited`), counted;
 * items the workflow still holds are not shown yet, so the figures never run ahead of the job.
 */
export function storedProgress(doc: BatchJobDoc, units: ReadonlyArray<BatchResultDoc | null>): BatchJobView {
  const items = itemsOf(units.filter((u) => u?.audited === true));
  const completed = items.filter((i) => i.status === 'completed').length;
  const failed = items.length - completed;
  return {
    job_id: doc._id,
    status: 'running',
    progress_percent: doc.total_items === 0 ? 0 : Math.floor((items.length * 100) / doc.total_items),
    total_items: doc.total_items,
    completed_items: completed,
    failed_items: failed,
    items,
    workflow_id: doc.workflow_id,
    created_at: doc.created_at.toISOString(),
    completed_at: null,
  };
}
