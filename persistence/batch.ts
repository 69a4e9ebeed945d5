// Persistence of batch jobs (issue 22): every query the batch path sends, in one module, each
// with the key or the bound that serves it. Collections:
//   batch_jobs         {_id: job_id}            growing (≤ SVC_BATCH_MAX_JOBS kept): one small document per job
//                                                (status, counters, slot, timestamps); never holds item results
//   batch_results      {_id: `<job>#<unit>`}    growing (≤ 100 per kept job): the items of one unit of a job (a
//                                                chunk of math items, or one item of another type), written once,
//                                                its items compressed into one Binary (batch-result-doc.ts, v2)
//   batch_requests     {_id: job_id}            growing (≤ SVC_BATCH_MAX_JOBS): the submitted queries and types,
//                                                written once at admission, read only to answer a failed job;
//                                                since session 23 packed into one Binary (batch-request-doc.ts)
//   batch_slots        {_id: "<n>", n < max}    BOUNDED by SVC_BATCH_MAX_JOBS: read by `_id` on admission; read whole
//                                                only by the fallback (below) and the repair when every slot is active
//   batch_slot_claims  {_id: `<slot>:<gen>`}    growing (one per job start), swept in the background after an hour
//                                                (session 24: by `_id`, each process its own; read whole rarely: sweepClaims;
//                                                a dead process's claims: an hour after it is found dead, else up to ~7 h)
//   batch_slot_queue   {_id: "<position>"}     growing (one per slot release), swept below the head in the background:
//                                                the slot directory's release queue (finished or freed slots, in order)
//   batch_slot_cursors {_id: next|head|tail|swept} BOUNDED (4 documents): hints for the directory, moved with $max
//
// The slot directory (docs/batch.md, "The slot directory"): admission never scans `batch_slots`.
//   - `next` is the lowest slot number that may never have been used: a new slot is a unique insert
//     of `batch_slots` n from there (walking forward past numbers taken meanwhile);
//   - once every number below max exists, a slot comes from the release queue: whoever finishes or
//     frees a slot appends {slot, gen} at the first free position from `tail` (a unique insert), and
//     an admission reads a window of positions from `head` (point lookups), keeps the entries whose
//     slot still has that generation and is not active, and claims them oldest first (the claim
//     below decides a race; an entry whose slot moved on is dead and only moves `head` past it).
//   Cursors are hints (a lagging one costs a lookup, never a slot). When the directory finds
//   nothing (a store older than it, a slot released by a process that died before appending it,
//   or every slot active) the admission falls back to one bounded read of `batch_slots`, as
//   before, and re-queues the usable slots it saw; that read, the repair of orphans and a 503
//   happen only when the store is full of active jobs.
//
// On FerretDB 1.x/SQLite only a filter that is exactly `{_id: <string or ObjectId>}` is answered
// by key (docs/store-access.md §1; a number reads the whole table, so slot numbers and queue
// positions are stored as their decimal strings: persistence/number-keyed.ts, session 17): every
// read, update and delete of a growing collection here is exactly that. Conditions ("only if running", "only if this job still holds the slot") are read
// by `_id` and checked in code; the races they guarded are ordered by the unique-insert claims
// (below) or cannot happen (only a job's own workflow completes it; a repair acts only on a
// workflow Temporal reports closed).
//
// Slot n (0 <= n < max) holds at most one job: active (running) or finished (evictable), or is
// free. Ownership changes only through a unique insert, the one write that is atomic on every
// MongoDB-wire store we run on (FerretDB 1.x applies updates as read-modify-write; docs/batch.md):
//   - taking a free or finished slot at generation g = inserting the claim `<n>:<g+1>` (unique
//     _id): exactly one admission wins; the others look elsewhere;
//   - adding slot n = inserting the slot document with _id n (unique): exactly one wins;
//   - only the claim's winner then writes the slot: the new job, and the evicted job's name in
//     `evicting` (session 13). The evicted job's documents are deleted after the POST answered
//     (dropEvicted, by id, idempotent); from the slot write on, a read of the evicted job answers
//     404 (holdsSlot: its slot names another job), so it is never seen half-deleted. A process
//     that dies before the deletion leaves the name on the slot: the next admission of that slot
//     carries it forward and the background sweep (sweepEvicted, at start and every few minutes)
//     finishes it.
// So the store never holds more than `max` live jobs, even with several API processes; the
// evicted ones still being deleted are named by their slots.
import { MongoServerError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { Store } from '../core/store.js';
import { migrateNumberKeys } from './migrations.js';
import { NumberKeyed, type StoredNumberKeyed } from './number-keyed.js';
import { insertCoalescerFor, insertCommand, InsertCoalescer } from './insert-coalescer.js';
import { UpdateCoalescer, updateCommand } from './update-coalescer.js';
import {
  packItems,
  packResultDoc,
  resultOfDoc,
  RESULT_DOC_VERSION,
  type BatchResultDoc,
  type StoredBatchItem,
  type StoredResultDoc,
} from './batch-result-doc.js';
import { packRequestDoc, requestOfDoc, type BatchRequestDoc, type StoredRequestDoc } from './batch-request-doc.js';
import {
  batchCounters,
  itemViews,
  type BatchItemOutcome,
  type BatchItemType,
  type BatchItemView,
  type BatchJobStatus,
  type BatchJobView,
} from '../core/batch.js';

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
  /** The job's result documents are `<job>#0 … <job>#<units-1>` (core/batch.ts batchUnits). */
  units: number;
  created_at: Date;
  completed_at: Date | null;
  /**
   * False when written. Documents written before session 13 say true once their workflow start was
   * acknowledged; nothing sets it any more: that second writer of the job raced the workflow's
   * completion and, FerretDB's update being read-modify-write, could put `running` back for good.
   */
  started: boolean;
  submitted_by: { user_id: string | null; key_id: string | null };
  /** Set when the job failed (its workflow closed without completing it): every item's error. */
  failure?: string;
  /** Jobs stored before result documents existed kept their items and request here (read only; removable once none is left). */
  items?: BatchItemView[];
  request_items?: Array<{ query: string; type: BatchItemType }>;
}

// The result documents' stored form (version 2 since session 19: the items compressed) and its readers.
export * from './batch-result-doc.js';

// The requests' stored form (version 1 since session 23: the pairs compressed) and its readers.
export * from './batch-request-doc.js';

export type SlotState = 'free' | 'active' | 'finished';

export interface BatchSlotDoc {
  _id: number;
  /** Generation: the number of the last claim written into this document. */
  gen: number;
  state: SlotState;
  job_id: string | null;
  claimed_at: Date | null;
  finished_at: Date | null;
  /**
   * Jobs evicted from this slot whose deletion may not have finished (session 13): written with
   * the admission that evicted them, never cleared by another writer (only the next admission of
   * the slot rewrites it, carrying forward the names its process has not seen deleted). Absent
   * on slots written before.
   */
  evicting?: string[];
  /**
   * How many result documents `job_id` has, written when the slot is marked finished (session
   * 15): the eviction then deletes the job without reading its document first (3 commands, not
   * 4). Cleared by the admission that takes the slot; absent on slots written before (the
   * deletion reads the job, as it did).
   */
  units?: number | null;
}

export interface BatchSlotClaimDoc {
  _id: string; // `<slot>:<gen>`
  slot: number;
  gen: number;
  job_id: string | null;
  created_at: Date;
}

/**
 * Session 24 (docs/batch.md "Session 24: the deletion of evicted jobs"): an API process that
 * admits jobs, in `batch_evictors` (BOUNDED: one document per API process alive, plus the dead
 * ones until a sweep finished their evictions). Written when the process starts and every
 * EVICTOR_BEAT_MS; a document older than EVICTOR_STALE_MS is a dead process's, whose evictions
 * another process's sweep then finishes (one read of the slots), instead of every process reading
 * all of `batch_slots` every 5 minutes whether or not any process died.
 */
export interface BatchEvictorDoc {
  _id: string;
  /** When the process last wrote it (its own clock). */
  seen: Date;
}
export const EVICTOR_BEAT_MS = 60_000;
export const EVICTOR_STALE_MS = 180_000;

/** A claim not followed by its slot write within this time belongs to a dead process. */
export const CLAIM_STALE_MS = 60_000;
/** Claims are kept this long (a racing admission reads a slot and claims within milliseconds). */
export const CLAIM_RETENTION_MS = 3_600_000;
/**
 * Session 24 (docs/batch.md "Session 24: the background sweeps"): a process deletes the claims it
 * won itself by `_id` once they are CLAIM_RETENTION_MS old (its ledger, sweepClaims), and reads the
 * claims whole (the filter on `created_at`) only on its first sweep and then this rarely: that read
 * finds the claims of processes that died before their retention ran out, and of older code.
 */
export const CLAIM_SCAN_MS = 6 * 3_600_000;
/** Own claims a process remembers for its sweep (more: its next sweep reads the claims whole). */
const CLAIM_LEDGER_MAX = 50_000;
/** Expiring claims' slots read by `_id` for the orphan check; more distinct slots: one bounded read of them all. */
const CLAIM_SLOT_READS_MAX = 64;
/** Claims per delete command of the sweep (each statement a delete by `_id`). */
const CLAIM_DELETE_BATCH = 1000;

export const resultId = (jobId: string, unit: number) => `${jobId}#${unit}`;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Runs a paced deletion's command, then pauses as long as it took, at most `pauseMaxMs` (0: none; session 24). */
async function timed(command: () => Promise<unknown>, pauseMaxMs: number): Promise<void> {
  const t0 = performance.now();
  await command();
  if (pauseMaxMs > 0) await pause(Math.min(pauseMaxMs, Math.ceil(performance.now() - t0)));
}

/** A completed job's final fields, as stored. */
export interface CompletedJob {
  completed_items: number;
  failed_items: number;
  progress_percent: number;
  completed_at: Date;
}

/** A position of the release queue: slot `slot` became usable at generation `gen`. */
export interface SlotQueueEntryDoc {
  _id: number;
  slot: number;
  gen: number;
  state: 'free' | 'finished';
  finished_at: Date | null;
  created_at: Date;
}

export type SlotCursor = 'next' | 'head' | 'tail' | 'swept';

export interface SlotCursorDoc {
  _id: SlotCursor;
  n: number;
}

/** Queue positions read at once by an admission (point lookups in parallel), and windows walked before the fallback. */
const QUEUE_WINDOW = 8;
const QUEUE_WINDOWS = 8;
/** Windows of new slot numbers read by one admission before the fallback (racing admissions fill one window each). */
const NEW_SLOT_WINDOWS = 4;
/** Dead queue entries kept below `head` (a reader whose hint lags reads them as dead, not as the queue's end). */
const QUEUE_SWEEP_MARGIN = 1000;
/**
 * How long a process answers admissions at the limit from the release-queue windows and the
 * `head` hint it read (session 15), without reading them again. A snapshot only proposes a slot:
 * the claim's unique insert decides, so a slot another process took meanwhile costs a lost
 * claim (then the window is read again), never a second job; and the claims a snapshot could
 * miss are kept CLAIM_RETENTION_MS (an hour), far longer than this. A slot at generation g in a
 * snapshot changes only through the claim of g+1, so a claim won from a snapshot of any age
 * saw the slot as it is. Session 21: 60 s (was 10 s): bursts more than 10 s apart (data-scale's
 * interleaved pairs, sporadic POSTs at the limit) read the `head` hint, then the window's queue
 * positions, then their slots, three round trips on every admission's path before its claim.
 */
const HELD_MS = 60_000;
/** A window read ahead this recently is not read again (session 15: HELD_MS / 2 when that was 10 s). */
const AHEAD_FRESH_MS = 5_000;
/** Windows kept in hand (the one in use and those read ahead: three after a pause since session 23, with room for a second process's pace). */
const HELD_WINDOWS = 5;
/** Windows read ahead of the one in use: 16 positions, more than a burst of 10 admissions to one process takes. */
const READ_AHEAD = 2;
/**
 * Session 23: while the next window is in hand, the windows ahead are refilled only once this
 * process's admissions have paused this long (off the burst), not beside the burst's admissions.
 */
const AHEAD_QUIET_MS = 300;
/**
 * Windows the deferred refill reads ahead of the last one used: one more than READ_AHEAD, so that
 * a burst of up to ~17 admissions that starts late in its first window still has the window after
 * the one it ends in (data-scale, session 23: with two, the bursts that reached a third window
 * read two more beside their admissions, ~12 queue reads per burst).
 */
const QUIET_READ_AHEAD = READ_AHEAD + 1;

type QueueWindow = { present: SlotQueueEntryDoc[]; slotDocs: Map<number, BatchSlotDoc> };
/** A slot taken from the release queue: the claim is won; its slot write is in flight beside the job's insert (admit). */
type Taken = Admission & { written?: Promise<unknown> };

export class BatchCapacityError extends Error {
  constructor() {
    super('batch job store full of active jobs');
    this.name = 'BatchCapacityError';
  }
}

Store.registerIndexes(async (store) => {
  // For operators on MongoDB (docs/operations.md); no request path filters on it.
  await store.collection('batch_jobs').createIndex({ org_id: 1, created_at: -1 });
  // The background claim sweep (an index range on MongoDB).
  await store.collection('batch_slot_claims').createIndex({ created_at: 1 });
});

export const isDuplicateKey = (err: unknown) =>
  err instanceof MongoServerError &&
  (err.code === 11000 ||
    (err as { writeErrors?: Array<{ code?: number }> }).writeErrors?.every?.((e) => e.code === 11000) === true);
const backoff = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt * 3) * (0.5 + Math.random())));

export type NewBatchJob = Omit<BatchJobDoc, 'slot'>;

/** A job's document as admission stores it: running, nothing done, not yet started by its workflow. */
export function newBatchJob(o: {
  jobId: string;
  orgId: string;
  workflowId: string;
  totalItems: number;
  /** The workflow's unit count (core/batch.ts batchUnits): their result documents are found by id. */
  units: number;
  createdAt: Date;
  submittedBy: { user_id: string | null; key_id: string | null };
  started?: boolean;
}): NewBatchJob {
  return {
    _id: o.jobId,
    org_id: o.orgId,
    status: 'running',
    workflow_id: o.workflowId,
    total_items: o.totalItems,
    completed_items: 0,
    failed_items: 0,
    progress_percent: 0,
    units: o.units,
    created_at: o.createdAt,
    completed_at: null,
    started: o.started ?? false,
    submitted_by: o.submittedBy,
  };
}

export interface Admission {
  slot: number;
  /** The finished job evicted to make room, if any. */
  evicted: string | null;
  /**
   * Evicted jobs whose documents are still to be deleted (dropEvicted), after the admission has
   * answered: the evicted job and any earlier name its slot still carried.
   */
  drop: string[];
}

/** Names carried on a slot's `evicting` (a bound: each is one point read for the next sweep). */
const EVICTING_MAX = 8;
/** Names of evicted jobs a process remembers as deleted, so that neither a carry nor a sweep reads them again. */
const GONE_MEMO = 4096;
/**
 * Evicted jobs deleted together (dropEvicted, session 18): each of the three `delete` commands then
 * carries up to this many jobs' statements (a burst of 10 admissions at the limit: 3 commands, not 30).
 */
const DROP_BATCH_MAX = 32;
/**
 * Session 24 (docs/batch.md "Session 24: the deletion of evicted jobs"): the paced deletion sends
 * a batch's result documents DROP_STEP_UNITS to a `delete` command (a 100-item job has 4), then
 * its requests, then its jobs (one command each, as before), one command at a time: a read or a
 * verification arriving meanwhile waits behind one small command at most, not behind DROP_BATCH_MAX
 * jobs' result documents. Measured (bench/evict-cost.ts): the same store CPU per job as the three
 * commands of session 18; a pause after each command (as long as it took) cost ~40 % more store
 * CPU per job, so none by default (`pauseMaxMs`, for the bench).
 */
export const DROP_STEP_UNITS = 8;
/** Claims a process remembers winning (a shared window read before them must not offer their slots again). */
const WON_MEMO = 4096;
const claimId = (slot: number, gen: number) => `${slot}:${gen}`;
/** Documents per ordered insert: FerretDB 1.x stops an ordered insert at its first duplicate only within 100 (persistence/audit.ts). */
const ORDERED_INSERT_MAX = 100;
/** The numeric-key rewrite, once per process and store (keysReady). */
const keyMigrations = new WeakMap<Store, Promise<void>>();

/** The items of result documents, in index order, as the API answers them. */
export function itemsOf(results: ReadonlyArray<BatchResultDoc | null>): BatchItemView[] {
  return results
    .flatMap((r) => r?.items ?? [])
    .sort((a, b) => a.index - b.index)
    .map((s) => s.view);
}

/** The answer for a stored job: a final job's items come from its result documents (or, failed, from its request). */
export function jobView(doc: BatchJobDoc, items: BatchItemView[]): BatchJobView {
  return {
    job_id: doc._id,
    status: doc.status,
    progress_percent: doc.progress_percent,
    total_items: doc.total_items,
    completed_items: doc.completed_items,
    failed_items: doc.failed_items,
    items,
    workflow_id: doc.workflow_id,
    created_at: doc.created_at.toISOString(),
    completed_at: doc.completed_at ? doc.completed_at.toISOString() : null,
  };
}

/**
 * Result documents kept by an API process (BatchJobStore's `unitCache`): a unit document marked
 * `audited` never changes again (its verdicts and audit entries are written), so a running job
 * polled every 100 ms reads each of its units from the store once, not on every poll; session 9
 * read them all on every GET, which doubled the store's commands per item (docs/performance.md,
 * "Session 10: the batch regression"). Bounded: 10 concurrent 100-item jobs hold 40 units.
 */
const UNIT_CACHE_DEFAULT = 64;

/**
 * The cache is one per store connection, shared by every BatchJobStore of the process that keeps
 * one: an API process's in-process worker (workers/api-process.ts) puts the unit a one-step job
 * stores into it (storeUnit), so the POST waiting on that job answers without reading the
 * document back (session 14, docs/batch.md "Session 14, fixed cost").
 */
const unitCaches = new WeakMap<Store, Map<string, BatchResultDoc>>();

export class BatchJobStore {
  /** Audited result documents by `_id`, least recently used first (empty unless `unitCache` > 0). */
  private readonly finalUnits: Map<string, BatchResultDoc>;
  private readonly unitCache: number;
  /**
   * The lowest new slot number this process has not handed to an admission yet (admitByKey): a
   * hint like `next`. A number handed out whose insert failed on a store error stays unused
   * until the fallback read (every slot active) finds it: capacity is never lost, only that
   * number's turn.
   */
  private handedOut = 0;
  /** Slots an admission of this process is claiming (takeOne), so that another one here tries a different slot. */
  private readonly claiming = new Set<number>();
  /** Evicted jobs this process deleted (or found deleted), oldest first; bounded by GONE_MEMO. */
  private readonly gone = new Set<string>();
  /** sweepDeadEvictors: each `batch_evictors` document's `seen` as last read, and since when (this process's clock). */
  private evictorsObserved = new Map<string, { seen: number; at: number }>();
  /** Reads in flight shared by this process's admissions (shared): the hints, and the release queue's windows by first position. */
  private readonly cursorReads = new Map<SlotCursor, Promise<number | null>>();
  private readonly windowReads = new Map<number, Promise<QueueWindow>>();
  /**
   * Windows of the release queue read lately, by first position, and when (session 15): at the
   * limit an admission proposes a slot from them without a read (HELD_MS). Kept: HELD_WINDOWS.
   */
  private readonly windowsHeld = new Map<number, { at: number; win: QueueWindow }>();
  /**
   * The highest `next` hint this process read (session 15). Slot documents are never deleted, so
   * once it is ≥ max every number below max exists for good: at the limit it is not read again.
   */
  private nextSeen = 0;
  /** The `head` hint as this process last read or moved it, and when (session 15; a lagging head costs lookups, never a slot). */
  private headSeen: { n: number; at: number } | null = null;
  /** Claims this process won lately (`<slot>:<gen>`, bounded by WON_MEMO): a shared window's snapshot of those slots is stale. */
  private readonly won = new Set<string>();
  /**
   * Session 24: the claims this process inserted, oldest first (their `created_at` only grows), for
   * its sweep to delete by `_id` once they expire (sweepClaims); bounded by CLAIM_LEDGER_MAX.
   */
  private readonly claimLedger: Array<Pick<BatchSlotClaimDoc, 'slot' | 'gen' | 'job_id' | 'created_at'>> = [];
  /** When this process last read the claims whole (sweepClaims), and whether its ledger dropped claims since. */
  private claimScanAt = Number.NEGATIVE_INFINITY;
  private claimLedgerLost = false;
  /** Review s24 B4: when the claims are next read whole because a process was found dead (its claims then all expired). */
  private claimScanDueAt = Number.POSITIVE_INFINITY;
  /** Cursor moves in flight (nudge): the highest value asked for meanwhile, written when the current move is done. */
  private readonly nudges = new Map<SlotCursor, { next: number | null }>();
  /** Result-document counts of the jobs this process evicted, read from their slots (`units`): their deletion skips the job read. */
  private readonly evictedUnits = new Map<string, number>();
  /**
   * This process's claims and claim winners' slot writes, each grouped while one is in flight
   * (session 20: a burst at the job limit sent ten claim inserts and ten slot updates, each a
   * commit of its own; docs/batch.md "Session 20: the admission at the limit").
   */
  private readonly claimInserts = new InsertCoalescer<BatchSlotClaimDoc>(
    insertCommand<BatchSlotClaimDoc>(() => this.store.db, 'batch_slot_claims'),
  );
  private readonly slotWrites = new UpdateCoalescer(updateCommand(() => this.store.db, 'batch_slots'));
  /** Admissions of this process in flight, and when the last one ended (session 23: the deferred read-ahead waits for a pause). */
  private admitting = 0;
  private lastAdmitAt = Number.NEGATIVE_INFINITY;
  /** The window after which the deferred read-ahead reads (readAhead), and its timer. */
  private aheadFrom: number | null = null;
  private aheadTimer: ReturnType<typeof setTimeout> | null = null;

  /** Session 23: also holds the deferred read-ahead while true (the API: submissions whose workflow start is not done). */
  private readonly busy: () => boolean;

  constructor(
    private readonly store: Store,
    opts: { unitCache?: number | true; busy?: () => boolean } = {},
  ) {
    this.busy = opts.busy ?? (() => false);
    this.unitCache = opts.unitCache === true ? UNIT_CACHE_DEFAULT : (opts.unitCache ?? 0);
    let shared = this.unitCache > 0 ? unitCaches.get(store) : undefined;
    if (this.unitCache > 0 && !shared) unitCaches.set(store, (shared = new Map()));
    this.finalUnits = shared ?? new Map();
  }

  get jobs(): Collection<BatchJobDoc> {
    return this.store.collection<BatchJobDoc>('batch_jobs');
  }

  /** The stored form: write through packResultDoc, read through resultOfDoc. */
  get results(): Collection<StoredResultDoc> {
    return this.store.collection<StoredResultDoc>('batch_results');
  }

  /** The stored form: write through packRequestDoc, read through requestOfDoc (session 23). */
  get requests(): Collection<StoredRequestDoc> {
    return this.store.collection<StoredRequestDoc>('batch_requests');
  }

  /** Stored under the slot number's decimal string (persistence/number-keyed.ts: a numeric `_id` is a whole-table read on FerretDB/SQLite). */
  get slots(): NumberKeyed<BatchSlotDoc> {
    return new NumberKeyed(this.store.collection<StoredNumberKeyed<BatchSlotDoc>>('batch_slots'), this.keysReady);
  }

  get claims(): Collection<BatchSlotClaimDoc> {
    return this.store.collection<BatchSlotClaimDoc>('batch_slot_claims');
  }

  /** Stored under the position's decimal string (as `slots`). */
  get queue(): NumberKeyed<SlotQueueEntryDoc> {
    return new NumberKeyed(
      this.store.collection<StoredNumberKeyed<SlotQueueEntryDoc>>('batch_slot_queue'),
      this.keysReady,
    );
  }

  /**
   * The start-up rewrite of numeric keys (persistence/migrations.ts migrateNumberKeys), once per
   * process and store, before the slot directory's first operation; tried again after a failure
   * (the operation that asked fails with it: a store that is down fails closed as before).
   */
  private readonly keysReady = (): Promise<void> => {
    let p = keyMigrations.get(this.store);
    if (!p) {
      p = migrateNumberKeys(this.store).then(() => undefined);
      keyMigrations.set(this.store, p);
      p.catch(() => keyMigrations.delete(this.store));
    }
    return p;
  };

  /** Session 24: the API processes that admit jobs (BOUNDED, see BatchEvictorDoc). */
  get evictors(): Collection<BatchEvictorDoc> {
    return this.store.collection<BatchEvictorDoc>('batch_evictors');
  }

  get cursors(): Collection<SlotCursorDoc> {
    return this.store.collection<SlotCursorDoc>('batch_slot_cursors');
  }

  // ----- reads ---------------------------------------------------------------------------------

  /** The job. Key: `batch_jobs._id`. */
  find(jobId: string): Promise<BatchJobDoc | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  /** Result documents of the given units, in parallel. Key: `batch_results._id` = `<job>#<unit>` (≤ 100 point lookups). */
  unitResults(jobId: string, units: Iterable<number>): Promise<Array<BatchResultDoc | null>> {
    return Promise.all([...units].map((u) => this.cachedUnit(resultId(jobId, u))));
  }

  /** A result document by `_id`: from the process's cache once seen audited (final), else from the store. */
  private async cachedUnit(id: string): Promise<BatchResultDoc | null> {
    const hit = this.finalUnits.get(id);
    if (hit) {
      this.finalUnits.delete(id); // most recently used last
      this.finalUnits.set(id, hit);
      return hit;
    }
    const stored = await this.results.findOne({ _id: id });
    const doc = stored && resultOfDoc(stored);
    if (doc) this.keepFinal(doc);
    return doc;
  }

  /** Keeps an audited (final) result document in the process's cache, when this store keeps one. */
  private keepFinal(doc: BatchResultDoc): void {
    if (doc.audited !== true || this.unitCache <= 0) return;
    this.finalUnits.set(doc._id, doc);
    if (this.finalUnits.size > this.unitCache) this.finalUnits.delete(this.finalUnits.keys().next().value as string);
  }

  /** One result document. Key: `batch_results._id`. */
  async unitResult(jobId: string, unit: number): Promise<BatchResultDoc | null> {
    const stored = await this.results.findOne({ _id: resultId(jobId, unit) });
    return stored && resultOfDoc(stored);
  }

  /** The submitted queries and types (either stored form; throws when unreadable). Key: `batch_requests._id`. */
  async request(jobId: string): Promise<BatchRequestDoc | null> {
    const stored = await this.requests.findOne({ _id: jobId });
    return stored && requestOfDoc(stored);
  }

  /** A final job's items: its result documents (completed), its request (failed: every item failed), or the legacy items. */
  async finalItems(doc: BatchJobDoc): Promise<BatchItemView[]> {
    if (doc.status === 'failed') return this.failedItems(doc);
    if (doc.units === undefined) return doc.items ?? []; // stored before result documents
    return itemsOf(
      await this.unitResults(
        doc._id,
        Array.from({ length: doc.units ?? 0 }, (_, u) => u),
      ),
    );
  }

  /** The stored job as the API answers it (final: with its items; running: no item yet). */
  async view(doc: BatchJobDoc): Promise<BatchJobView> {
    return jobView(doc, doc.status === 'running' ? [] : await this.finalItems(doc));
  }

  // ----- result documents ----------------------------------------------------------------------

  /**
   * Writes a unit's result document once. Key: unique `batch_results._id` (an insert). A
   * duplicate key means an earlier attempt stored it: that document is the unit's result
   * (returned), so a retried chunk never releases a second set of verdicts.
   */
  async storeUnit(doc: BatchResultDoc): Promise<BatchResultDoc> {
    try {
      const packed = packResultDoc(doc);
      await this.results.insertOne(packed);
      // Cached as a read of it would give it back (the packed form, unpacked).
      if (this.unitCache > 0) this.keepFinal(resultOfDoc(packed));
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const stored = await this.unitResult(doc.job_id, doc.unit);
      if (!stored) throw err;
      return stored;
    }
  }

  /** Replaces a unit's items (results withheld when their audit entries cannot be written), final from then on. Key: `batch_results._id`. */
  async replaceUnitItems(jobId: string, unit: number, items: StoredBatchItem[]): Promise<void> {
    await this.results.updateOne(
      { _id: resultId(jobId, unit) },
      { $set: { v: RESULT_DOC_VERSION, zpacked: packItems(items), audited: true }, $unset: { packed: '', items: '' } },
    );
  }

  /** Marks a unit's items as audited: a running job's progress may show them. Key: `batch_results._id`. */
  async markUnitAudited(jobId: string, unit: number): Promise<void> {
    await this.results.updateOne({ _id: resultId(jobId, unit) }, { $set: { audited: true } });
  }

  /** Writes several units' documents once (the completion's units). Unique `_id` inserts; duplicates = already stored. */
  async storeUnits(docs: BatchResultDoc[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.results.insertMany(docs.map(packResultDoc), { ordered: false });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  // ----- admission -----------------------------------------------------------------------------

  /**
   * Takes generation `gen` of slot `slot` for `jobId`. Key: unique `batch_slot_claims._id` (an
   * insert); on a duplicate, the claim and the slot by `_id`. A claim whose winner never wrote the
   * slot document (it died) is superseded by the next generation once stale. Returns the
   * generation won, or null. `orphans` gets the job a superseded claim named when that job is
   * not its slot's (session 15: its admission died between the claim and the slot write, after
   * or beside the job's insert): the winner carries it onto the slot for deletion.
   */
  async claim(slot: number, gen: number, jobId: string | null, orphans?: string[]): Promise<number | null> {
    for (let g = gen; g < gen + 2; g++) {
      // Grouped (session 20): the claims of this process that arrive while one is in flight go out
      // as one unordered `insert` command; each is still its own unique insert, and a duplicate
      // (another admission holds `<slot>:<g>`) comes back as false for this claim alone.
      const created_at = new Date();
      const won = await this.claimInserts.insert({ _id: claimId(slot, g), slot, gen: g, job_id: jobId, created_at });
      if (won) {
        this.rememberClaim({ slot, gen: g, job_id: jobId, created_at });
        return g;
      }
      const [existing, current] = await Promise.all([
        this.claims.findOne({ _id: claimId(slot, g) }),
        this.slots.get(slot),
      ]);
      const orphaned =
        existing && current && current.gen < g && Date.now() - existing.created_at.getTime() > CLAIM_STALE_MS;
      if (!orphaned) return null;
      if (existing.job_id && existing.job_id !== current.job_id) orphans?.push(existing.job_id);
    }
    return null;
  }

  /** The given slots that exist. Key: `batch_slots._id` (point lookups in parallel; session 23: the crash repair's known active slots). */
  async slotsById(ids: readonly number[]): Promise<BatchSlotDoc[]> {
    return (await Promise.all(ids.map((id) => this.slots.get(id)))).filter((s): s is BatchSlotDoc => s !== null);
  }

  /** Every slot. BOUNDED scan: `batch_slots` holds ≤ SVC_BATCH_MAX_JOBS small documents (slots above a lowered max included). */
  allSlots(): Promise<BatchSlotDoc[]> {
    return this.slots.all();
  }

  // ----- the slot directory (cursors and release queue) ------------------------------------------

  /** A directory cursor, or null when never written. Key: `batch_slot_cursors._id` (bounded: 4 documents). */
  async cursor(name: SlotCursor): Promise<number | null> {
    // Single flight per process (session 14): a burst of admissions shares one read of a hint.
    const n = await this.shared(
      this.cursorReads,
      name,
      async () => (await this.cursors.findOne({ _id: name }))?.n ?? null,
    );
    if (n !== null && name === 'next') this.nextSeen = Math.max(this.nextSeen, n);
    if (n !== null && name === 'head') this.seeHead(n);
    return n;
  }

  /** Notes a `head` value read or moved by this process (session 15). */
  private seeHead(n: number): void {
    if (!this.headSeen || n >= this.headSeen.n) this.headSeen = { n, at: Date.now() };
  }

  /**
   * One read in flight per key: callers that ask while it runs get its answer (session 14). Only
   * for hints and for the release queue's windows, whose readers re-check what they act on
   * (the claim's unique insert decides every slot): a snapshot a few milliseconds older costs a
   * lost claim at worst, never a slot.
   */
  private shared<K, T>(inFlight: Map<K, Promise<T>>, key: K, read: () => Promise<T>): Promise<T> {
    const running = inFlight.get(key);
    if (running) return running;
    const p = read().finally(() => inFlight.delete(key));
    inFlight.set(key, p);
    return p;
  }

  /**
   * Positions `h` … `h + QUEUE_WINDOW - 1` of the release queue up to the first absent one, and
   * the slots they name. Keys: `batch_slot_queue._id`, `batch_slots._id` (point lookups in
   * parallel). Shared by the admissions of this process that ask for the same window while it is
   * read (session 14: ten admissions of a burst read the same 8 positions and up to 8 slots each,
   * 104–168 point reads per burst on the seeded store, each queued behind the others).
   */
  private queueWindow(h: number): Promise<QueueWindow> {
    return this.shared(this.windowReads, h, async () => {
      const window = await Promise.all(Array.from({ length: QUEUE_WINDOW }, (_, i) => this.queue.get(h + i)));
      const end = window.indexOf(null);
      const present = (end === -1 ? window : window.slice(0, end)) as SlotQueueEntryDoc[];
      const slotDocs = new Map<number, BatchSlotDoc>();
      for (const s of await Promise.all([...new Set(present.map((e) => e.slot))].map((id) => this.slots.get(id))))
        if (s) slotDocs.set(s._id, s);
      const win = { present, slotDocs };
      this.windowsHeld.set(h, { at: Date.now(), win });
      for (const k of [...this.windowsHeld.keys()].sort((a, b) => a - b).slice(0, -HELD_WINDOWS))
        this.windowsHeld.delete(k);
      return win;
    });
  }

  /**
   * After an admission took a slot from the full window `h` (session 23): when the next window is
   * in hand (read within HELD_MS), the windows ahead are refilled once this process's admissions
   * pause (AHEAD_QUIET_MS), so a burst at the limit sends no window read beside its admissions'
   * claims, slot writes and inserts (data-scale's capture, session 23: 2.5 queue and 2.4 slot point
   * reads per POST of a burst at the limit, against none below it); when it is not (the first burst,
   * a burst longer than the windows in hand), at once, as before.
   */
  private readAhead(h: number): void {
    const next = this.windowsHeld.get(h + QUEUE_WINDOW);
    if (!next || Date.now() - next.at >= HELD_MS) {
      this.holdAhead(h);
      return;
    }
    this.aheadFrom = Math.max(this.aheadFrom ?? h, h);
    this.aheadWhenQuiet(AHEAD_QUIET_MS);
  }

  /**
   * The deferred refill (readAhead): waits until no admission of this process ran for
   * AHEAD_QUIET_MS and nothing holds it (`busy`: the API's submissions still starting their
   * workflows, whose POSTs have not answered yet).
   */
  private aheadWhenQuiet(ms: number): void {
    if (this.aheadTimer) return;
    this.aheadTimer = setTimeout(() => {
      this.aheadTimer = null;
      const quietFor = this.admitting > 0 || this.busy() ? 0 : Date.now() - this.lastAdmitAt;
      if (quietFor < AHEAD_QUIET_MS) {
        this.aheadWhenQuiet(Math.max(1, AHEAD_QUIET_MS - quietFor));
        return;
      }
      const h = this.aheadFrom;
      this.aheadFrom = null;
      // From the window in use itself (i = 0): a burst that stays inside one window schedules no
      // refill of it, and after HELD_MS its first admission read it again on its path.
      if (h !== null) this.holdAhead(h, QUIET_READ_AHEAD, 0);
    }, ms);
    this.aheadTimer.unref?.();
  }

  /** Reads the READ_AHEAD windows after `h` that this process does not hold fresh (nor is reading), off any admission's path. */
  private holdAhead(h: number, windows = READ_AHEAD, from = 1): void {
    for (let i = from; i <= windows; i++) {
      const x = h + i * QUEUE_WINDOW;
      const kept = this.windowsHeld.get(x);
      if (kept && Date.now() - kept.at < AHEAD_FRESH_MS) continue;
      if (this.windowReads.has(x)) continue;
      void this.queueWindow(x).catch(() => undefined); // a failed read-ahead is read again on the path
    }
  }

  /**
   * Window `h` as this process read it within HELD_MS (`held`: no read on the admission's path,
   * session 15), else read now (shared with the admissions and the read-ahead asking meanwhile).
   */
  private async heldWindow(h: number, fresh: boolean): Promise<{ h: number; win: QueueWindow; held: boolean }> {
    // The window that covers `h` (`head` moves one entry at a time; windows stay where they were read).
    const k = fresh ? undefined : [...this.windowsHeld.keys()].find((x) => x <= h && h < x + QUEUE_WINDOW);
    const kept = k === undefined ? undefined : this.windowsHeld.get(k);
    if (k !== undefined && kept && Date.now() - kept.at < HELD_MS) return { h: k, win: kept.win, held: true };
    for (const x of [...this.windowsHeld.keys()]) if (x <= h && h < x + QUEUE_WINDOW) this.windowsHeld.delete(x);
    return { h, win: await this.queueWindow(h), held: false };
  }

  /**
   * Moves a cursor forward (`$max`). Key: `batch_slot_cursors._id`. A hint: FerretDB applies it
   * as read-modify-write, so a racing writer can set it back a little; readers walk forward from
   * it, so a lagging cursor costs a lookup, never a slot. A racing first write may answer E11000.
   */
  async moveCursor(name: SlotCursor, n: number): Promise<void> {
    try {
      await this.cursors.updateOne({ _id: name }, { $max: { n } }, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.cursors.updateOne({ _id: name }, { $max: { n } });
    }
  }

  /**
   * A hint move off the caller's path: a failure only leaves the hint behind. Coalesced per
   * cursor (session 14): while one move of this process is in flight, later ones only raise the
   * value it writes next, so a burst of ten admissions sends one or two cursor writes, not ten
   * (each a commit the burst's own claims, slots and jobs queued behind on SQLite's one writer).
   */
  private nudge(name: SlotCursor, n: number): void {
    if (name === 'head') this.seeHead(n);
    // What this process writes into `next` it knows as well as a reader of it would (session 15).
    if (name === 'next') this.nextSeen = Math.max(this.nextSeen, n);
    const state = this.nudges.get(name);
    if (state) {
      state.next = Math.max(state.next ?? n, n);
      return;
    }
    const own: { next: number | null } = { next: null };
    this.nudges.set(name, own);
    const write = (value: number): void => {
      void this.moveCursor(name, value)
        .catch(() => undefined) // a lagging hint is harmless (see moveCursor)
        .then(() => {
          const more = own.next;
          own.next = null;
          if (more !== null && more > value) write(more);
          else this.nudges.delete(name);
        });
    };
    write(n);
  }

  /**
   * Appends "slot `slot` is usable at generation `gen`" to the release queue at the first free
   * position from the `tail` hint. Key: unique `batch_slot_queue._id` (an insert; a racing
   * appender's position is skipped). Called after the slot document was written.
   */
  async release(
    slot: number,
    gen: number,
    state: 'free' | 'finished',
    finishedAt: Date | null,
    tailHint?: number | null,
  ): Promise<void> {
    let p = (tailHint !== undefined ? tailHint : await this.cursor('tail')) ?? 0;
    for (let tries = 1; tries <= 1000; tries++, p++) {
      try {
        await this.queue.insert({ _id: p, slot, gen, state, finished_at: finishedAt, created_at: new Date() });
        this.nudge('tail', p + 1);
        return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (tries % 8 === 0) p = Math.max(p, ((await this.cursor('tail')) ?? 0) - 1);
      }
    }
    // Not queued: the slot stays usable through the fallback read of the slots (admit).
  }

  /** Appends several releases in order (the fallback's re-queue, a seeded store). Unique inserts from the tail; one by one on a race. */
  async releaseMany(slots: ReadonlyArray<Pick<BatchSlotDoc, '_id' | 'gen' | 'state' | 'finished_at'>>): Promise<void> {
    if (slots.length === 0) return;
    const tail = (await this.cursor('tail')) ?? 0;
    const now = new Date();
    // 100 positions per ordered insert (session 17): FerretDB 1.24/SQLite does not stop an ordered
    // insert of more than 100 documents at its first duplicate (persistence/audit.ts, session 16).
    for (let from = 0; from < slots.length; from += ORDERED_INSERT_MAX) {
      const chunk = slots.slice(from, from + ORDERED_INSERT_MAX);
      try {
        await this.queue.insertMany(
          chunk.map((s, i) => ({
            _id: tail + from + i,
            slot: s._id,
            gen: s.gen,
            state: s.state === 'free' ? ('free' as const) : ('finished' as const),
            finished_at: s.finished_at,
            created_at: now,
          })),
          true,
        );
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // A racing appender took a position: the rest one by one (a duplicate entry is dead once its slot is taken).
        for (const s of slots.slice(from))
          await this.release(s._id, s.gen, s.state === 'free' ? 'free' : 'finished', s.finished_at);
        return;
      }
    }
    await this.moveCursor('tail', tail + slots.length);
  }

  /**
   * Deletes queue entries more than QUEUE_SWEEP_MARGIN positions below `head` (all dead: `head`
   * only passes entries whose slot moved on, or, since session 20, of a slot at or above the
   * limit, which the fallback re-queues if the limit rises). Background only (api/batch-jobs.ts), by computed
   * ids (`swept` … head − margin, point deletes in bulks). Returns how many positions it covered.
   */
  async sweepQueue(): Promise<number> {
    const [head, swept] = await Promise.all([this.cursor('head'), this.cursor('swept')]);
    const from = swept ?? 0;
    const to = Math.min((head ?? 0) - QUEUE_SWEEP_MARGIN, from + 10_000);
    for (let p = from; p < to; p += 1000) {
      await this.queue.deleteMany(Array.from({ length: Math.min(1000, to - p) }, (_, i) => p + i));
    }
    if (to > from) await this.moveCursor('swept', to);
    return Math.max(0, to - from);
  }

  // ----- admission -----------------------------------------------------------------------------

  /**
   * Stores a new running job within `max` slots: a never-used slot number first, else the
   * oldest released slot from the directory's queue (evicting its finished job), all by `_id`.
   * When the directory has nothing, one bounded read of the slots decides (admitByScan; `reclaim`
   * is asked once, when every slot is active, to free slots left by crashed submissions: it
   * returns how many it freed). Throws BatchCapacityError when none is usable.
   */
  async admit(
    job: NewBatchJob,
    request: BatchRequestDoc['items'],
    max: number,
    reclaim?: () => Promise<number>,
  ): Promise<Admission> {
    this.admitting++;
    try {
      return await this.admitJob(job, request, max, reclaim);
    } finally {
      this.admitting--;
      this.lastAdmitAt = Date.now();
    }
  }

  private async admitJob(
    job: NewBatchJob,
    request: BatchRequestDoc['items'],
    max: number,
    reclaim?: () => Promise<number>,
  ): Promise<Admission> {
    // The request does not depend on the slot: it goes out beside the admission (session 12: one
    // write round trip fewer before POST /verify/batch answers; under a burst of submissions each
    // write waits behind the running jobs' commits). It is read only through its job, so it is
    // deleted again when no slot is won; a process dying in between leaves it unread.
    // Session 23: packed (one Binary, not a nested document per item: FerretDB decodes it here and again at the eviction's delete).
    const requestWritten = this.admissionInsert('batch_requests', packRequestDoc({ _id: job._id, items: request }));
    void requestWritten.catch(() => undefined); // awaited below; handled if it fails before that
    let taken: Taken;
    try {
      const direct = await this.admitByKey(job._id, max);
      taken = direct.admission ?? (await this.admitByScan(job._id, max, reclaim, direct.refill));
    } catch (err) {
      await requestWritten.then(
        () => this.requests.deleteOne({ _id: job._id }).catch(() => undefined),
        () => undefined,
      );
      throw err;
    }
    const { written, ...admission } = taken;
    // The job (unique `_id` insert) once its slot is known, beside the slot write of a slot taken
    // from the queue (session 15: one round trip where the two were one after the other) and the
    // request's acknowledgement. The claim already decided the slot; a process that dies between
    // the job's insert and the slot write leaves a job its slot does not name, never started: the
    // claim names it, and the admission that supersedes the claim, or the claim sweep, deletes it.
    const settled = await Promise.allSettled([
      requestWritten,
      written,
      this.admissionInsert('batch_jobs', { ...job, slot: admission.slot }),
    ]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      // Undone by the admitting process (it owns the claim): the job and request if written, the
      // slot freed if it names this job; an evicted name stays on the slot for the sweep.
      await this.abandon(job._id, admission.slot).catch(() => undefined);
      await this.requests.deleteOne({ _id: job._id }).catch(() => undefined);
      throw failed.reason;
    }
    return admission;
  }

  /**
   * An admission's request or job document: a unique `_id` insert, sent with the other admissions
   * of this process that arrive while one is in flight as one `insert` command (session 18,
   * persistence/insert-coalescer.ts; docs/performance.md "Session 18: the POST stall"). A burst of
   * ten POSTs sent ten of each, every one a commit racing the others and the running jobs' commits
   * for SQLite's one writer (a loser sleeps in SQLite's busy handler: 1, 2, 5, 10, … ms). A job id
   * is new (96 random bits), so an `_id` already stored is an error here, not a record that exists.
   */
  private async admissionInsert(name: 'batch_requests' | 'batch_jobs', doc: StoredRequestDoc | BatchJobDoc) {
    if (await insertCoalescerFor(this.store, name).insert(doc)) return;
    throw new MongoServerError({ message: `E11000 duplicate key error: ${name} ${doc._id}`, code: 11000 });
  }

  /**
   * The directory's admission: point lookups and unique inserts only. `refill` tells the fallback
   * whether to re-queue what it sees: the directory is new (no `next`), or its queue ran out
   * without any live entry.
   */
  private async admitByKey(jobId: string, max: number): Promise<{ admission: Taken | null; refill: boolean }> {
    // This process already took new numbers: the next one is tried before the cursors are read
    // (they only tell what other processes took; a lost insert reads them below).
    if (this.handedOut > 0 && this.handedOut < max) {
      const n = this.handedOut++;
      if (await this.insertNewSlot(n, jobId)) return { admission: { slot: n, evicted: null, drop: [] }, refill: false };
      // Lost: other processes took the numbers past ours (a store at the limit: all of them). The
      // cursors decide from now on; without this, every admission of this process paid one
      // failed insert (a write queued behind the running jobs' commits) until the count ran out
      // (session 13: bench/data-scale.ts's seeded phase).
      this.handedOut = 0;
    }
    // At the limit (every number below max exists: `next` ≥ max was read) with `head` in hand, no
    // hint is read (session 15): the admission goes to the window this process holds.
    const headHeld = this.headSeen && Date.now() - this.headSeen.at < HELD_MS ? this.headSeen.n : null;
    const full = this.nextSeen >= max;
    const [next, head] =
      full && headHeld !== null
        ? [this.nextSeen, headHeld]
        : await Promise.all([full ? this.nextSeen : this.cursor('next'), headHeld ?? this.cursor('head')]);
    if (next === null) return { admission: null, refill: true };
    // 1. a slot number never used: `next` (or past what this process handed out) first; after a lost race, the numbers of a window
    // from `next` are read by `_id` (in parallel); the lowest absent one is tried first, then, after a lost race, the others in a
    // random order (admissions submitted together spread over the window instead of walking
    // one number at a time behind each other). Unique `batch_slots._id`: one admission wins a number.
    if (next < max) {
      // A new number without a window read: `next`, or past the numbers this process handed to
      // admissions still in flight (a burst of POSTs to one API process takes next, next+1, …
      // instead of all racing for `next`; only another process can still win one, and then
      // the window decides below). One insert; `next` moves past it.
      const mine = Math.max(next, this.handedOut);
      if (mine < max) {
        this.handedOut = mine + 1;
        if (await this.insertNewSlot(mine, jobId))
          return { admission: { slot: mine, evicted: null, drop: [] }, refill: false };
      }
      let base = next;
      for (let w = 0; w < NEW_SLOT_WINDOWS && base < max; w++) {
        const numbers = Array.from({ length: Math.min(QUEUE_WINDOW, max - base) }, (_, i) => base + i);
        const docs = await Promise.all(numbers.map((n) => this.slots.get(n, { _id: 1 })));
        const absent = numbers.filter((_, i) => !docs[i]);
        const [lowest, ...others] = absent;
        const taken = new Set<number>();
        for (const n of lowest === undefined ? [] : [lowest, ...shuffled(others)]) {
          try {
            await this.slots.insert(newSlotDoc(n, jobId));
            taken.add(n);
            // `next` never passes a number this admission saw absent and did not see taken.
            const open = absent.filter((x) => !taken.has(x));
            this.nudge('next', open.length > 0 ? Math.min(...open) : base + numbers.length);
            return { admission: { slot: n, evicted: null, drop: [] }, refill: false };
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
            taken.add(n);
          }
        }
        base += numbers.length;
        this.nudge('next', base); // every number of the window is taken
      }
      if (base < max) return { admission: null, refill: false }; // numbers left, taken faster than read: the fallback looks
    }
    // 2. the release queue, a window of positions at a time from `head`
    let h = head ?? 0;
    // Where this admission starts is `head` as far as this process knows (none written yet, or not
    // moved because the oldest entry is still live): held like a read one, for HELD_MS from now.
    if (!this.headSeen) this.headSeen = { n: h, at: Date.now() };
    let sawLive = false;
    let fresh = false;
    for (let w = 0; w < QUEUE_WINDOWS; w++) {
      // A window this process holds (session 15: read by an earlier admission or ahead of this
      // one) proposes slots without a read; one that proposes nothing is read again, once.
      const got = await this.heldWindow(h, fresh);
      const {
        win: { present, slotDocs },
        held,
      } = got;
      h = got.h;
      fresh = false;
      if (present.length === 0) {
        if (held) {
          fresh = true;
          w--;
          continue;
        }
        break;
      }
      // A slot this process has claimed since (the window may be shared with admissions that took it) is no longer live.
      const isLive = (e: SlotQueueEntryDoc) => {
        const s = slotDocs.get(e.slot);
        return !!s && s.gen === e.gen && s.state !== 'active' && !this.won.has(claimId(e.slot, e.gen + 1));
      };
      // Session 20: an entry of a slot at or above `max` (the limit lowered since it was queued) is
      // never taken, so it is not live here: it held `head` for good, and every admission walked
      // the windows after it and then read all of batch_slots (docs/performance.md "Session 20: the
      // POST's slow rounds"). The slot itself stays; the fallback re-queues it if the limit rises.
      const usable = (e: SlotQueueEntryDoc) => e.slot < max && isLive(e);
      const live = present.filter(usable);
      if (live.length > 0) sawLive = true;
      // Oldest first (free before finished, then by finish time), one entry per slot.
      const seen = new Set<number>();
      const mine = live
        .sort(
          (a, b) =>
            (a.state === 'free' ? 0 : 1) - (b.state === 'free' ? 0 : 1) ||
            (a.finished_at?.getTime() ?? 0) - (b.finished_at?.getTime() ?? 0) ||
            a._id - b._id,
        )
        .filter((e) => !seen.has(e.slot) && seen.add(e.slot));
      // The oldest first; after a lost race, the others in a random order (admissions submitted
      // together then spread over the window instead of all racing for the next one).
      // From a held window only its first proposal (session 15): a lost claim there means another
      // process moved on since the window was read, so the window is read again rather than each
      // of its stale proposals costing a lost claim (an insert and two reads).
      const [first, ...rest] = mine
        .filter((e) => !this.claiming.has(e.slot))
        .map((e) => slotDocs.get(e.slot) as BatchSlotDoc);
      const admission = first ? await this.takeOne(held ? [first] : [first, ...shuffled(rest)], jobId) : null;
      // `head` passes the entries now dead (their slot moved on, or this admission took it).
      const stillLive = present.filter((e) => usable(e) && e.slot !== admission?.slot);
      const newHead = stillLive.length > 0 ? Math.min(...stillLive.map((e) => e._id)) : h + present.length;
      if (newHead > h) this.nudge('head', newHead);
      if (admission) {
        // Read ahead (session 15): the next READ_AHEAD windows, off this admission's path, so that
        // the rest of a burst (or the next burst) finds them in hand. One window ahead, read once
        // this one ran low, was not enough: a burst of 10 admissions to one process used up the 8
        // positions of a window, and its last 6 waited on the next window's read (data-scale's
        // seeded POSTs: 24-51 ms for the first 4, 108-143 ms for the rest).
        // Session 23: beside the burst only when the next window is not in hand (readAhead).
        if (present.length === QUEUE_WINDOW) this.readAhead(h);
        return { admission, refill: false };
      }
      // A held window whose proposal was lost (another process took it), or that ended short (new
      // releases may follow it), is read again now; one that only this process's admissions emptied is passed.
      if (held && (first || present.length < QUEUE_WINDOW)) {
        fresh = true;
        w--;
        continue;
      }
      if (present.length < QUEUE_WINDOW) break;
      h += QUEUE_WINDOW;
    }
    return { admission: null, refill: !sawLive };
  }

  /** A never-used slot number `n` for `jobId` (unique `batch_slots._id`): false when another admission took it; `next` moves past it. */
  private async insertNewSlot(n: number, jobId: string): Promise<boolean> {
    try {
      await this.slots.insert(newSlotDoc(n, jobId));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return false;
    }
    this.nudge('next', n + 1);
    return true;
  }

  /**
   * The fallback: one bounded read of the slots per attempt (a free slot, a new number, the
   * oldest finished), as admission was before the directory. With `refill`, the usable slots it
   * saw are re-queued in the background and `next` is written, so the next admissions go by key.
   */
  private async admitByScan(
    jobId: string,
    max: number,
    reclaim: (() => Promise<number>) | undefined,
    refill: boolean,
  ): Promise<Taken> {
    let reclaimed = false;
    for (let attempt = 0; attempt < 30; attempt++) {
      const slots = (await this.allSlots()).filter((s) => s._id < max);
      // 1. a free slot (any: admissions submitted together try them in different orders, so
      // they do not all race for the same one)
      const free = shuffled(slots.filter((s) => s.state === 'free')).slice(0, 4);
      let admission: Taken | null = await this.takeOne(free, jobId);
      // 2. a new slot: one of the lowest unused numbers, in a random order (same reason)
      if (!admission && slots.length < max) {
        for (const number of shuffled(unusedNumbers(slots, max, 8))) {
          try {
            // Unique `batch_slots._id`: one admission wins the number; a loser tries the next.
            await this.slots.insert({
              _id: number,
              gen: 1,
              state: 'active',
              job_id: jobId,
              claimed_at: new Date(),
              finished_at: null,
            });
            admission = { slot: number, evicted: null, drop: [] };
            break;
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
          }
        }
        if (!admission) continue; // every number taken meanwhile: look again
      }
      // 3. the slot whose job finished first (eviction)
      let finished: BatchSlotDoc[] = [];
      if (!admission) {
        finished = slots
          .filter((s) => s.state === 'finished')
          .sort((a, b) => (a.finished_at?.getTime() ?? 0) - (b.finished_at?.getTime() ?? 0) || a._id - b._id)
          .slice(0, 4);
        admission = await this.takeOne(finished, jobId);
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
      if (refill) this.refill(slots, admission.slot, max);
      return admission;
    }
    throw new BatchCapacityError();
  }

  /** The fallback's re-queue (background): `next` past the slots seen, and their usable ones, oldest first. */
  private refill(slots: BatchSlotDoc[], taken: number, max: number): void {
    const numbers = [...slots, { _id: taken } as BatchSlotDoc];
    const usable = slots
      .filter((s) => s._id !== taken && s.state !== 'active')
      .sort(
        (a, b) =>
          (a.state === 'free' ? 0 : 1) - (b.state === 'free' ? 0 : 1) ||
          (a.finished_at?.getTime() ?? 0) - (b.finished_at?.getTime() ?? 0) ||
          a._id - b._id,
      );
    void (async () => {
      await this.moveCursor('next', unusedNumbers(numbers, max, 1)[0] ?? max);
      await this.releaseMany(usable);
    })().catch(() => undefined); // not queued: the fallback reads the slots again next time
  }

  /**
   * Claims the first of `candidates` this admission can win and writes the slot as active for
   * `jobId`, naming the job it held in `evicting` (with the earlier names this process has not
   * seen deleted). Nothing is deleted here (session 13: at the job limit every admission evicts,
   * and the deletion's four writes queued behind the running jobs' commits before the POST could
   * answer): the caller runs dropEvicted afterwards; a crash before it leaves the names on the slot.
   */
  private async takeOne(candidates: BatchSlotDoc[], jobId: string): Promise<Taken | null> {
    for (const cand of candidates) {
      // A slot another admission of this process is claiming right now is left to it: a burst of
      // POSTs to one process then takes successive queue entries instead of racing for the oldest
      // (each lost claim costs three round trips; session 12, a store whose slots are all used).
      if (this.claiming.has(cand._id)) continue;
      this.claiming.add(cand._id);
      try {
        if (this.won.has(claimId(cand._id, (cand.gen ?? 0) + 1))) continue; // taken by this process since it was read
        const orphans: string[] = [];
        const gen = await this.claim(cand._id, (cand.gen ?? 0) + 1, jobId, orphans);
        if (gen === null) continue;
        this.won.add(claimId(cand._id, gen));
        if (this.won.size > WON_MEMO) this.won.delete(this.won.values().next().value as string);
        const drop = [
          ...new Set([
            ...(cand.job_id ? [cand.job_id] : []),
            ...[...orphans, ...(cand.evicting ?? [])].filter((n) => n !== cand.job_id && !this.gone.has(n)),
          ]),
        ].slice(0, EVICTING_MAX);
        // The evicted job's result-document count as its slot carries it (session 15): its deletion reads no job document.
        if (cand.state === 'finished' && cand.job_id && typeof cand.units === 'number') {
          this.evictedUnits.set(cand.job_id, cand.units);
          if (this.evictedUnits.size > GONE_MEMO)
            this.evictedUnits.delete(this.evictedUnits.keys().next().value as string);
        }
        // Key: `batch_slots._id`; only the claim's winner writes it. From here on the evicted job
        // reads as 404 (holdsSlot). Not awaited here (session 15): admit sends it beside the job's
        // insert and answers only once both are acknowledged.
        // Grouped (session 20): the slot writes of a burst's claim winners that arrive while one
        // is in flight go out as one `update` command, each its own statement by `_id` (ten
        // commits per burst at the limit were ~24 ms more per POST than a new slot number).
        const written = this.slots.updateGrouped(
          cand._id,
          {
            $set: {
              gen,
              state: 'active',
              job_id: jobId,
              claimed_at: new Date(),
              finished_at: null,
              evicting: drop,
              units: null,
            },
          },
          this.slotWrites,
        );
        void written.catch(() => undefined); // awaited by admit
        return { slot: cand._id, evicted: cand.state === 'finished' ? cand.job_id : null, drop, written };
      } finally {
        this.claiming.delete(cand._id);
      }
    }
    return null;
  }

  /**
   * Deletes evicted jobs (an admission's `drop`, or a sweep's leftovers) by id, off the POST's
   * path, DROP_BATCH_MAX jobs at a time in three commands (session 18): one `delete` of all their
   * result documents beside one of their requests, then one of their jobs (which name the rest:
   * deleted last). Session 17 sent three commands per job, one job after the other. Idempotent:
   * a job already gone costs one point read (or, its count known, its share of the deletes).
   * Returns how many job documents it deleted.
   */
  async dropEvicted(
    names: readonly string[],
    opts: { paced?: boolean; stepUnits?: number; pauseMaxMs?: number } = {},
  ): Promise<number> {
    const undeleted = [...new Set(names)].filter((n) => !this.gone.has(n));
    // Session 24: paced (the API's deferred deletion and the sweep): small commands, one at a time
    // (a pause after each only with `pauseMaxMs`, the bench's: pauses cost store CPU, DROP_STEP_UNITS).
    const pace = opts.paced
      ? { stepUnits: opts.stepUnits ?? DROP_STEP_UNITS, pauseMaxMs: opts.pauseMaxMs ?? 0 }
      : undefined;
    let deleted = 0;
    for (let i = 0; i < undeleted.length; i += DROP_BATCH_MAX) {
      const batch = undeleted.slice(i, i + DROP_BATCH_MAX);
      if (pace && i > 0 && pace.pauseMaxMs > 0) await pause(pace.pauseMaxMs);
      deleted += await this.deleteJobs(
        batch.map((name) => ({ name, units: this.evictedUnits.get(name) })),
        pace,
      );
      for (const name of batch) {
        this.evictedUnits.delete(name);
        this.gone.add(name);
        if (this.gone.size > GONE_MEMO) this.gone.delete(this.gone.values().next().value as string);
      }
    }
    return deleted;
  }

  /**
   * The sweep of evictions a process did not finish (it died between the slot write and the
   * deletion): every name the slots carry that this process has not seen deleted. Background
   * only (api/batch-jobs.ts: at start, and since session 24 when sweepDeadEvictors finds a dead
   * process, no longer every 5 minutes). BOUNDED: one read of `batch_slots`
   * (≤ SVC_BATCH_MAX_JOBS documents), then point reads and deletes by id. Returns how many job
   * documents it deleted.
   */
  async sweepEvicted(queued: ReadonlySet<string> = new Set(), opts: { paced?: boolean } = {}): Promise<number> {
    // `queued`: names this process's own deletion is waiting with (api/batch-jobs.ts, session 18): not a dead process's leftovers.
    const names = (await this.allSlots()).flatMap((s) => s.evicting ?? []).filter((n) => !queued.has(n));
    return this.dropEvicted(names, opts); // deduplicated there
  }

  /**
   * Session 24: this API process is alive (`seen` = `at`). Key: `batch_evictors._id` (an upsert:
   * a document a sweep deleted while the process was slow comes back).
   */
  async beat(id: string, at: Date): Promise<void> {
    try {
      await this.evictors.updateOne({ _id: id }, { $set: { seen: at } }, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.evictors.updateOne({ _id: id }, { $set: { seen: at } });
    }
  }

  /**
   * Session 24: the periodic sweep of evictions left unfinished. Reads `batch_evictors` (BOUNDED:
   * the API processes) and, only when one of them is dead (its `seen` unchanged for
   * EVICTOR_STALE_MS of this process's clock; or `whole`: the process's first sweep, and its slow
   * backstop, which also cover processes from before session 24), sweepEvicted (one read of the
   * slots), then deletes the dead ones' documents, each only if no beat came meanwhile (`seen`
   * unchanged). Returns how many job documents it deleted.
   */
  async sweepDeadEvictors(
    own: string,
    queued: ReadonlySet<string>,
    opts: { now?: number; whole?: boolean; paced?: boolean } = {},
  ): Promise<number> {
    const now = opts.now ?? Date.now();
    const docs = await this.evictors.find({}).toArray();
    // Review C3: `seen` is the beating process's clock; comparing it with this one's would move the
    // bound by their skew (or take a live process for dead). So each `seen` value is timed by this
    // process's clock from the sweep that first read it: dead once it has not changed for
    // EVICTOR_STALE_MS here (a beat read up to a sweep later than written: the bound grows by one
    // sweep interval, never shrinks).
    const observed = new Map<string, { seen: number; at: number }>();
    for (const d of docs) {
      const before = this.evictorsObserved.get(d._id);
      const seen = d.seen.getTime();
      observed.set(d._id, before && before.seen === seen ? before : { seen, at: now });
    }
    this.evictorsObserved = observed;
    const dead = docs.filter(
      (d) => d._id !== own && now - (observed.get(d._id) as { at: number }).at >= EVICTOR_STALE_MS,
    );
    if (dead.length === 0 && !opts.whole) return 0;
    // Review s24 B4: a dead process's slot claims are in no live ledger; they are all older than
    // now, so the claims' whole read an hour on finds them all (not the 6-hourly one: up to ~7 h).
    if (dead.length > 0) this.claimScanDueAt = Math.min(this.claimScanDueAt, now + CLAIM_RETENTION_MS);
    const deleted = await this.sweepEvicted(queued, { paced: opts.paced });
    // Bounded collection: the filter on `seen` beside `_id` reads at most its few documents.
    for (const d of dead) await this.evictors.deleteOne({ _id: d._id, seen: d.seen });
    return deleted;
  }

  /**
   * Whether `doc` is still its slot's job: false once an admission evicted it (its slot names
   * another job), even while its documents are still being deleted. Read AFTER the job's items
   * (api/batch-jobs.ts): the deletion starts only after the slot write, so items read before a
   * slot that still names the job are whole. A missing slot document (none is ever deleted)
   * answers true. Key: `batch_slots._id` (bounded).
   */
  async holdsSlot(doc: Pick<BatchJobDoc, '_id' | 'slot'>): Promise<boolean> {
    const slot = await this.slots.get(doc.slot, { job_id: 1 });
    return !slot || slot.job_id === doc._id;
  }

  /**
   * Deletes a job with its result documents and request, all by computed ids (`<job>#0…` point
   * deletes in one bulk write, then the request, then the job, which names the rest). Idempotent;
   * false when the job document was already gone (so were the rest: it is deleted last).
   * `known`: the job's result-document count as its finished slot carried it (session 15): no
   * read of the job first (3 commands instead of 4; a job already gone costs the three deletes).
   */
  async deleteJob(jobId: string, known?: number): Promise<boolean> {
    return (await this.deleteJobs([{ name: jobId, units: known }])) > 0;
  }

  /**
   * deleteJob for several jobs in the same three commands (session 18: dropEvicted's batches).
   * Jobs without a known count are read first (by id, side by side); a job found absent is
   * skipped. Returns how many job documents it deleted.
   */
  private async deleteJobs(
    jobs: ReadonlyArray<{ name: string; units: number | undefined }>,
    pace?: { stepUnits: number; pauseMaxMs: number },
  ): Promise<number> {
    const found = await Promise.all(
      jobs.map(async ({ name, units }) => {
        if (units !== undefined) return { name, units };
        const doc = await this.jobs.findOne({ _id: name }, { projection: { units: 1 } });
        return doc ? { name, units: doc.units ?? 0 } : null;
      }),
    );
    const present = found.filter((j): j is { name: string; units: number } => j !== null);
    if (present.length === 0) return 0;
    const ops: AnyBulkWriteOperation<StoredResultDoc>[] = [];
    for (const { name, units } of present)
      for (let u = 0; u < units; u++) {
        this.finalUnits.delete(resultId(name, u));
        ops.push({ deleteOne: { filter: { _id: resultId(name, u) } } });
      }
    const byId = <T extends { _id: string }>() =>
      present.map(({ name }) => ({ deleteOne: { filter: { _id: name } } }) as AnyBulkWriteOperation<T>);
    // The results and the requests side by side, then the jobs (which name them: a crash in between leaves them to repeat).
    if (!pace) {
      await Promise.all([
        ops.length > 0 ? this.results.bulkWrite(ops, { ordered: false }) : null,
        this.requests.bulkWrite(byId<StoredRequestDoc>(), { ordered: false }),
      ]);
    } else {
      // Session 24: paced, one command at a time (stepUnits result documents each); the jobs still last.
      for (let i = 0; i < ops.length; i += pace.stepUnits)
        await timed(
          () => this.results.bulkWrite(ops.slice(i, i + pace.stepUnits), { ordered: false }),
          pace.pauseMaxMs,
        );
      await timed(() => this.requests.bulkWrite(byId<StoredRequestDoc>(), { ordered: false }), pace.pauseMaxMs);
    }
    const { deletedCount } = await this.jobs.bulkWrite(byId<BatchJobDoc>(), { ordered: false });
    return deletedCount ?? present.length;
  }

  /** Undoes an admission whose workflow could not be started (by the admitting process: it owns the slot). */
  async abandon(jobId: string, slot: number): Promise<void> {
    const doc = await this.find(jobId);
    if (doc && doc.status === 'running') await this.deleteJob(jobId, doc.units); // its count in hand: no second read
    const written = await this.setSlotIf(slot, jobId, 'active', {
      state: 'free',
      job_id: null,
      claimed_at: null,
      finished_at: null,
    });
    if (written) await this.release(slot, written.gen, 'free', null);
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
      if (slot.job_id) {
        const doc = await this.find(slot.job_id);
        if (doc && doc.status === 'running') await this.deleteJob(slot.job_id, doc.units);
      }
      await this.slots.update(slot._id, {
        $set: { gen, state: 'free', job_id: null, claimed_at: null, finished_at: null },
      });
      await this.release(slot._id, gen, 'free', null);
    } else {
      const at = new Date();
      await this.slots.update(slot._id, { $set: { gen, state: 'finished', finished_at: at } });
      await this.release(slot._id, gen, 'finished', at);
    }
    return true;
  }

  /** Session 24: a claim this process won, for its own sweep (sweepClaims). */
  private rememberClaim(c: Pick<BatchSlotClaimDoc, 'slot' | 'gen' | 'job_id' | 'created_at'>): void {
    this.claimLedger.push(c);
    if (this.claimLedger.length > CLAIM_LEDGER_MAX) {
      this.claimLedger.splice(0, this.claimLedger.length - CLAIM_LEDGER_MAX);
      this.claimLedgerLost = true; // the next sweep reads the claims whole, as before session 24
    }
  }

  /**
   * Deletes claims older than CLAIM_RETENTION_MS. Background only (api/batch-jobs.ts, every few
   * minutes), never on a request. Session 24: the claims this process won are taken from its
   * ledger, read again and deleted by `_id` (review B1: an orphan's with its age in the filter),
   * so a sweep reads nothing whole (but for an orphan) and its cost follows the claims that
   * expire, not what the store holds. The claims are read whole (a filter on `created_at`: a
   * scan on FerretDB/SQLite of a collection the sweeps keep to about an hour of job starts) only on
   * a process's first sweep, every CLAIM_SCAN_MS after, when the ledger overflowed, and an hour
   * after it found a process dead (review B4): that finds the claims of processes that died and of
   * older code. Returns how many claims it deleted.
   */
  async sweepClaims(now = Date.now()): Promise<number> {
    try {
      return await this.sweepExpiredClaims(now);
    } catch (err) {
      this.claimLedgerLost = true; // claims taken from the ledger may be left: the next sweep reads them whole
      throw err;
    }
  }

  private async sweepExpiredClaims(now: number): Promise<number> {
    const cutoff = now - CLAIM_RETENTION_MS;
    let n = 0;
    while (n < this.claimLedger.length && (this.claimLedger[n] as BatchSlotClaimDoc).created_at.getTime() < cutoff) n++;
    let named: Array<Pick<BatchSlotClaimDoc, 'slot' | 'gen'>> = this.claimLedger.splice(0, n);
    if (this.claimLedgerLost || now - this.claimScanAt >= CLAIM_SCAN_MS || now >= this.claimScanDueAt) {
      this.claimScanAt = now;
      this.claimLedgerLost = false;
      this.claimScanDueAt = Number.POSITIVE_INFINITY;
      const old = { created_at: { $lt: new Date(cutoff) } };
      named = await this.claims.find(old, { projection: { slot: 1, gen: 1 } }).toArray();
    }
    if (named.length === 0) return 0;
    // Session 15: a claim whose slot never got its write (its admission died between the claim
    // and the slot write) names a job that was never started and that its slot does not name:
    // deleted by id before the claim goes. Session 24: its slots are read by `_id` (one bounded
    // read of them all only when more than CLAIM_SLOT_READS_MAX distinct slots are in question).
    const slotIds = [...new Set(named.map((c) => c.slot))];
    const read = slotIds.length <= CLAIM_SLOT_READS_MAX ? await this.slotsById(slotIds) : await this.allSlots();
    const slots = new Map(read.map((s) => [s._id, s]));
    // Review s24 B1: the ledger (or the whole read) names claims as they were. Another process's
    // sweep may have deleted one since (an orphan's) and an admission won its `_id` afresh: the
    // claims are read again by `_id`, after their slots, and only those still past the hour go.
    const expiring: BatchSlotClaimDoc[] = [];
    for (let i = 0; i < named.length; i += CLAIM_SLOT_READS_MAX) {
      const ids = named.slice(i, i + CLAIM_SLOT_READS_MAX).map((c) => claimId(c.slot, c.gen));
      for (const d of await Promise.all(ids.map((_id) => this.claims.findOne({ _id }))))
        if (d && d.created_at.getTime() < cutoff) expiring.push(d);
    }
    const orphans = expiring.filter((c) => {
      const s = slots.get(c.slot);
      return c.job_id !== null && !!s && s.gen < c.gen && s.job_id !== c.job_id;
    });
    if (orphans.length > 0) await this.dropEvicted(orphans.map((c) => c.job_id as string));
    // By `_id`, CLAIM_DELETE_BATCH per command. Review s24 B1: a claim whose generation its slot
    // had reached when read (before the claim was) is taken again only by an admission holding a
    // read of the slot older than that (HELD_MS; the claim is an hour old): deleted by `_id`. A
    // claim its slot had not reached (an orphan, or no slot) is taken afresh by the next admission
    // of its slot once deleted, which another process's sweep may do between this read and this
    // delete: its delete keeps the age in the filter, as base's `deleteMany` did, so a fresh claim
    // (kept an hour: HELD_MS's snapshots, racing admissions) is never the one deleted. That filter
    // is not a key on FerretDB 1.x (a read of this bounded collection per such claim): orphans
    // are rare (an admission that died between its claim and its slot write).
    const old = { $lt: new Date(cutoff) };
    let deleted = 0;
    for (let i = 0; i < expiring.length; i += CLAIM_DELETE_BATCH) {
      const ops = expiring.slice(i, i + CLAIM_DELETE_BATCH).map((c) => {
        const reached = (slots.get(c.slot)?.gen ?? -1) >= c.gen;
        return {
          deleteOne: { filter: reached ? { _id: c._id } : { _id: c._id, created_at: old } },
        } as AnyBulkWriteOperation<BatchSlotClaimDoc>;
      });
      deleted += (await this.claims.bulkWrite(ops, { ordered: false })).deletedCount ?? 0;
    }
    return deleted;
  }

  /**
   * Slot `slot` → `set`, only if it still holds `jobId` in state `state`: read by `_id`, checked
   * here, written by `_id`. Returns the slot as written (null when the condition did not hold).
   */
  private async setSlotIf(
    slot: number,
    jobId: string,
    state: SlotState,
    set: Partial<BatchSlotDoc>,
  ): Promise<BatchSlotDoc | null> {
    const cur = await this.slots.get(slot);
    if (!cur || cur.job_id !== jobId || cur.state !== state) return null;
    await this.slots.update(slot, { $set: set });
    return { ...cur, ...set };
  }

  /**
   * The slot of `jobId` → finished, then queued for eviction (the directory's release queue).
   * `pre`: the slot and the `tail` hint already read (by `_id`, beside the job's own write).
   */
  private async finishSlot(
    slot: number,
    jobId: string,
    at: Date,
    /** The job's result-document count, kept on the slot for its eviction (undefined: a job stored before result documents). */
    units: number | undefined,
    pre?: { cur: BatchSlotDoc | null; tail: number | null },
  ): Promise<void> {
    const cur = pre ? pre.cur : await this.slots.get(slot);
    if (!cur || cur.job_id !== jobId || cur.state !== 'active') return;
    await this.slots.update(slot, {
      $set: { state: 'finished', finished_at: at, units: typeof units === 'number' ? units : null },
    });
    await this.release(slot, cur.gen, 'finished', at, pre ? pre.tail : undefined);
  }

  // ----- completion ----------------------------------------------------------------------------

  /**
   * Marks a running job whose workflow closed without completing it (terminated, timed out,
   * cancelled, failed, or gone) as failed: every item failed with `error`, no result released
   * (its result documents, if any, are never read: a failed job answers from its request).
   * Frees its slot for eviction. Idempotent; a completed job is left as it is. Returns the job
   * as stored afterwards (null when it no longer exists).
   */
  async failUnfinished(jobId: string, error: string, at: Date): Promise<BatchJobDoc | null> {
    const doc = await this.find(jobId);
    if (!doc) return null;
    let out = doc;
    if (doc.status === 'running') {
      const counters = batchCounters(
        doc.total_items,
        Array.from({ length: doc.total_items }, (_, index): BatchItemOutcome => ({
          index,
          status: 'failed',
          error,
          latency_ms: 0,
        })),
      );
      const set = { status: 'failed' as const, failure: error, ...counters, completed_at: at };
      await this.jobs.updateOne({ _id: jobId }, { $set: set });
      out = { ...doc, ...set };
    }
    await this.finishSlot(doc.slot, jobId, at, doc.units);
    return out;
  }

  private async failedItems(doc: BatchJobDoc): Promise<BatchItemView[]> {
    const requested = doc.request_items ?? (await this.request(doc._id))?.items ?? [];
    const error = doc.failure ?? 'Job failed.';
    const outcomes: BatchItemOutcome[] = Array.from({ length: doc.total_items }, (_, index) => ({
      index,
      status: 'failed',
      error,
      latency_ms: 0,
    }));
    return itemViews(doc._id, requested, outcomes);
  }

  /**
   * Marks the job completed (small fields only: its items are in its result documents) and its
   * slot finished. Idempotent: a retry finds the job completed (and keeps its
   * first completion) and the slot finished. Returns the job's final fields as stored, or null
   * when the job document no longer exists.
   */
  async complete(
    jobId: string,
    counters: { completed_items: number; failed_items: number },
    units: number,
    completedAt: Date,
    /** The job document as read beside the finish step's audit entries (saves a round trip); read here if absent. */
    read?: Promise<BatchJobDoc | null>,
  ): Promise<CompletedJob | null> {
    const doc = await (read ?? this.find(jobId));
    if (!doc) return null;
    if (doc.status !== 'running') {
      await this.finishSlot(doc.slot, jobId, doc.completed_at ?? completedAt, doc.units ?? units);
      return {
        completed_at: doc.completed_at ?? completedAt,
        completed_items: doc.completed_items,
        failed_items: doc.failed_items,
        progress_percent: doc.progress_percent,
      };
    }
    const done = counters.completed_items + counters.failed_items;
    const final: CompletedJob = {
      ...counters,
      progress_percent: doc.total_items === 0 ? 100 : Math.floor((done * 100) / doc.total_items),
      completed_at: completedAt,
    };
    // The job first, then its slot: a slot marked finished always carries its job's completion
    // time (a retry after a lost job write would otherwise leave the slot with an earlier time,
    // and eviction, oldest first by the slot's time, would pick the wrong job). The slot and the
    // queue's tail are read beside the job's write (reads: the order that matters is of the writes).
    const [, cur, tail] = await Promise.all([
      this.jobs.updateOne({ _id: jobId }, { $set: { status: 'completed', units, ...final } }),
      this.slots.get(doc.slot),
      this.cursor('tail'),
    ]);
    await this.finishSlot(doc.slot, jobId, completedAt, units, { cur, tail });
    return final;
  }

  /**
   * Jobs started before result documents existed (their workflow replays the old path and
   * carries every result to the completion): the items go into the job document, as they did.
   * Key: `batch_jobs._id`. Removable once no such workflow runs.
   */
  async completeLegacy(
    jobId: string,
    items: BatchItemView[],
    outcomes: readonly BatchItemOutcome[],
    completedAt: Date,
  ): Promise<boolean> {
    const doc = await this.find(jobId);
    if (!doc) return false;
    if (doc.status === 'running') {
      await this.jobs.updateOne(
        { _id: jobId },
        {
          $set: { status: 'completed', items, ...batchCounters(doc.total_items, outcomes), completed_at: completedAt },
        },
      );
    }
    await this.finishSlot(doc.slot, jobId, completedAt, doc.units);
    return true;
  }
}

/** The `n` lowest slot numbers below `max` that no slot document has. */
function unusedNumbers(slots: BatchSlotDoc[], max: number, n: number): number[] {
  const taken = new Set(slots.map((s) => s._id));
  const out: number[] = [];
  for (let k = 0; k < max && out.length < n; k++) if (!taken.has(k)) out.push(k);
  return out;
}

function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A never-used slot number `n`, taken by `jobId` (first generation, active). */
function newSlotDoc(n: number, jobId: string): BatchSlotDoc {
  return { _id: n, gen: 1, state: 'active', job_id: jobId, claimed_at: new Date(), finished_at: null };
}
