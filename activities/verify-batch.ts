// Activities of the batch workflow: one per item type (each timed inside the activity, so
// latency_ms is the engine's own time, not queueing), and the final write of the job.
// Logic, code and SQL items reuse the engine activities of the single-item routes; math
// items answer with a DiagnosticResult (contract, "Batch math item" rows).
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { EngineOutcome } from '../core/diagnostic.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { MATH_TIMEOUT_DETAIL } from './verify-math.js';
import {
  attestationIdFor,
  finalizeOutcome,
  finalizeOutcomes,
  proofRidesInEntry,
  recordIssuedAttestation,
  type ProofContext,
} from './proofs.js';
import type { DiagnosticActivityResult } from './verify-code.js';
import type { LogicActivityResult, LogicRequest } from './verify-logic.js';
import type { AppendAuditInput, AppendAuditOutput } from './audit.js';
import type { VerifyActivityInput } from './types.js';
import { BatchJobStore, resultId, type BatchResultDoc, type StoredBatchItem } from '../persistence/batch.js';
import {
  ITEM_TIMEOUT_FAILURE,
  MATH_CHUNK_MAX,
  MATH_CHUNK_PARALLELISM,
  itemTimeoutText,
  itemViews,
  type BatchItemActivityInput,
  type BatchItemActivityResult,
  type BatchItemOutcome,
  type BatchItemSummary,
  type BatchItemType,
  type BatchMathChunkInput,
  type BatchMathJobInput,
  type BatchMathJobResult,
  type BatchMathUnitInput,
  type FinishBatchJobInput,
  type FinishBatchJobResult,
} from '../core/batch.js';
import { auditLogId } from './audit.js';
import { attestationEntryId } from '../persistence/proofs.js';
import type { AttestationInEntry } from '../core/audit-log.js';
import type { IssuedAttestation } from '../core/attestation.js';
import type { AuditContext } from '../core/engines.js';
import { logger } from '../core/logger.js';
import { announceCompletion, jobEnded } from '../core/completion-notices.js';

/** A VERIFIED item's attestation and the proof it attests, both to ride in the item's audit entry (session 24). */
type IssuedInEntry = IssuedAttestation & { artifact?: Record<string, unknown> };

const log = logger('batch');

export const AUDIT_WITHHELD = 'Audit record could not be written: result withheld (fail closed)';

/** The single-item activities the batch items reuse. */
export interface BatchEngineActivities {
  verifyLogicActivity: (req: VerifyActivityInput<LogicRequest>) => Promise<LogicActivityResult>;
  verifyCodeActivity: (
    req: VerifyActivityInput<{ code: string; language?: string }>,
  ) => Promise<DiagnosticActivityResult>;
  verifySqlActivity: (req: VerifyActivityInput<Record<string, unknown>>) => Promise<DiagnosticActivityResult>;
  appendAuditActivity: (req: AppendAuditInput) => Promise<AppendAuditOutput>;
}

const optionalString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** How often a running item tells the server its worker is alive (the workflow's heartbeatTimeout is 15 s). */
const HEARTBEAT_EVERY_MS = 2000;

/** What a batch activity keeps after its audit entries for its own last writes (its result document). */
export const AUDIT_RESERVE_MS = 2_000;

/**
 * The audit appends' deadline inside the running batch activity (issue 22, session 15): its
 * attempt's scheduled time plus its start-to-close time-out (never later than the server's
 * deadline, which runs from the start), less AUDIT_RESERVE_MS. Its appends keep trying until
 * then, counted from their first attempt, instead of 8 s from queueing: under load they waited
 * those 8 s in the process's own group-commit queue behind other jobs' commits and failed after
 * 1 attempt, and the unit was retried whole. Undefined outside an activity (the default budget).
 */
export function batchAuditNotAfter(): number | undefined {
  let info;
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  const stc = info.startToCloseTimeoutMs;
  if (!(stc > 0) || !(info.currentAttemptScheduledTimestampMs > 0)) return undefined;
  return info.currentAttemptScheduledTimestampMs + stc - AUDIT_RESERVE_MS;
}

/** Heartbeats while `p` runs (a normal activity's long audit wait must not look like a lost worker). */
async function beating<T>(p: Promise<T>): Promise<T> {
  let ctx: Context | null = null;
  try {
    ctx = Context.current();
  } catch {
    return p;
  }
  if (ctx.info.isLocal) return p;
  const beat = setInterval(() => ctx?.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await p;
  } finally {
    clearInterval(beat);
  }
}

/**
 * Runs one item: heartbeats while it runs (so an attempt lost with a crashed worker is retried
 * within the heartbeat time-out, not after the whole item budget), and enforces the item
 * time-out from the moment the item starts. Time spent waiting for a worker does not count.
 * A late item fails for good (non-retryable `BatchItemTimeout`, elapsed ms in the details);
 * its engine work is abandoned, not interrupted (a Z3 solve ends at its own deadline).
 */
export async function runBatchItem(
  req: Pick<BatchItemActivityInput, 'timeout_ms'>,
  run: () => Promise<unknown>,
): Promise<BatchItemActivityResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  let ctx: Context | null = null;
  try {
    ctx = Context.current();
  } catch {
    ctx = null; // called outside an activity (unit tests)
  }
  // Local activities cannot heartbeat (their worker re-runs them after a crash).
  if (ctx?.info.isLocal) ctx = null;
  ctx?.heartbeat();
  const beat = setInterval(() => ctx?.heartbeat(), HEARTBEAT_EVERY_MS);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // A timer may fire a fraction of a millisecond early by the high-resolution clock: the item
    // ran its whole time-out, so it reports at least that.
    timer = setTimeout(
      () =>
        reject(
          ApplicationFailure.create({
            message: itemTimeoutText(req.timeout_ms),
            type: ITEM_TIMEOUT_FAILURE,
            nonRetryable: true,
            details: [Math.max(elapsed(), req.timeout_ms)],
          }),
        ),
      req.timeout_ms,
    );
  });
  try {
    const result = await Promise.race([run(), late]);
    return { result, latency_ms: elapsed() };
  } finally {
    clearInterval(beat);
    clearTimeout(timer);
  }
}

export interface CompleteBatchJobInput {
  job_id: string;
  org_id: string;
  workflow_id: string;
  total_items: number;
  outcomes: BatchItemOutcome[];
  audit: AuditContext | null;
  /** The submitted items (query, type): each completed item gets its own audit entry. Absent in jobs started before per-item entries. */
  items?: Array<{ query: string; type: BatchItemType }>;
}

/** The audit entry id of item `index` of a batch workflow: stable across retries of the completion. */
export function batchItemAuditLogId(orgId: string, workflowId: string, index: number, idTimeMs?: number): string {
  return auditLogId(orgId, `${workflowId}#item-${index}`, idTimeMs);
}

/**
 * The audit entry id of item `index` of a batch run whose math units store the attestation
 * records in the items' entries (session 17, `attestation_in_entry`): derived from the item's
 * attestation id (attestationEntryId), so GET /attestation/{id} finds the entry by `_id`. The
 * same for every attempt, whatever the item's verdict. Without the flag: batchItemAuditLogId.
 * `idTimeMs`: the workflow's start time when its run asked for time-ordered ids (session 23).
 */
export function batchItemEntryId(
  orgId: string,
  workflowId: string,
  index: number,
  attestationInEntry: boolean,
  idTimeMs?: number,
): string {
  return attestationInEntry
    ? (attestationEntryId(attestationIdFor(orgId, `${workflowId}#item-${index}`, idTimeMs)) as string)
    : batchItemAuditLogId(orgId, workflowId, index, idTimeMs);
}

/** An item that produced no result for good: the same words the workflow gives a failed item activity. */
function itemFailure(index: number, err: unknown): BatchItemOutcome | null {
  if (!(err instanceof ApplicationFailure) || !err.nonRetryable) return null;
  if (err.type === ITEM_TIMEOUT_FAILURE) {
    const ran = err.details?.[0];
    return { index, status: 'failed', error: err.message, latency_ms: typeof ran === 'number' ? ran : 0 };
  }
  return { index, status: 'failed', error: `Item failed: ${err.message.slice(0, 300)}`, latency_ms: 0 };
}

export interface CompleteBatchJobResult {
  stored: boolean;
  audited: boolean;
  completed_at: string;
}

/** A chunk's requests by position in the job (itemViews looks a query up by item index). */
function itemRequests(req: BatchMathChunkInput): Array<{ query: string; type: BatchItemType }> {
  const out: Array<{ query: string; type: BatchItemType }> = [];
  for (const it of req.items) out[it.index] = { query: it.query, type: 'math' };
  return out;
}

/** Outcomes as stored: index order, each with its view exactly as the API answers it. */
function storedItems(
  jobId: string,
  requests: Array<{ query: string; type: BatchItemType }>,
  outcomes: BatchItemOutcome[],
): StoredBatchItem[] {
  const sorted = [...outcomes].sort((a, b) => a.index - b.index);
  const views = itemViews(jobId, requests, sorted);
  return sorted.map((o, i) => ({ index: o.index, view: views[i]! }));
}

function fromHeld(items: FinishBatchJobInput['held'][number]['items']): Array<{ query: string; type: BatchItemType }> {
  const out: Array<{ query: string; type: BatchItemType }> = [];
  for (const it of items) out[it.outcome.index] = { query: it.query, type: it.type };
  return out;
}

/** What the batch activities need: the proof context, the engine pool, the math budget. */
export type BatchActivityContext = ProofContext & {
  mathTimeoutMs?: number;
  enginePool: EnginePool;
  /**
   * Keep the audited result documents this process stores in the process's cache (the API
   * process's in-process worker, session 14): the POST waiting on a one-step job it ran answers
   * from it instead of reading the document back (persistence/batch.ts unitCaches).
   */
  unitCache?: boolean;
};

/** Every activity of the batch workflow (a standalone worker registers them all). */
export function makeBatchActivities(ctx: BatchActivityContext, engines: BatchEngineActivities) {
  return { ...makeMathBatchActivities(ctx, engines), ...makeItemBatchActivities(engines) };
}

/** The batch activities of the other item types: each runs the single endpoint's activity. */
function makeItemBatchActivities(engines: BatchEngineActivities) {
  const single = <T>(req: BatchItemActivityInput, input: T): VerifyActivityInput<T> => ({
    input,
    org_id: req.org_id,
    workflow_id: req.workflow_id,
  });
  return {
    async verifyLogicBatchItemActivity(req: BatchItemActivityInput): Promise<BatchItemActivityResult> {
      return runBatchItem(req, async () => {
        // input_refused only matters to the single-item route.
        const { input_refused: _ignored, ...result } = await engines.verifyLogicActivity(
          single(req, { query: req.query, provider: optionalString(req.params.provider) }),
        );
        return result;
      });
    },

    async verifyCodeBatchItemActivity(req: BatchItemActivityInput): Promise<BatchItemActivityResult> {
      return runBatchItem(req, () =>
        engines.verifyCodeActivity(single(req, { code: req.query, language: optionalString(req.params.language) })),
      );
    },

    async verifySqlBatchItemActivity(req: BatchItemActivityInput): Promise<BatchItemActivityResult> {
      // The SQL activity validates these fields itself (invalid ones give a BLOCKED result).
      return runBatchItem(req, () =>
        engines.verifySqlActivity(
          single(req, { query: req.query, schema_ddl: req.params.schema_ddl, dialect: req.params.dialect }),
        ),
      );
    },
  };
}

/**
 * The math and job activities of the batch workflow: math units and items, the one-step job,
 * the finish step (and the legacy completion). They need only the audit append of the engine
 * activities, so the API process's in-process worker registers them too (workers/api-process.ts):
 * a one-step job started eagerly runs there (session 14).
 */
export function makeMathBatchActivities(
  ctx: BatchActivityContext,
  engines: Pick<BatchEngineActivities, 'appendAuditActivity'>,
) {
  const jobs = new BatchJobStore(ctx.store, ctx.unitCache === true ? { unitCache: true } : {});

  const verifyMathItem = (req: BatchItemActivityInput) =>
    runBatchItem(req, async () => {
      const outcome = await runIsolated<EngineOutcome>(
        { engine: 'math_batch', expression: req.query, params: req.params },
        {
          orgId: req.org_id,
          timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? 5_000),
          timeoutDetail: MATH_TIMEOUT_DETAIL,
          pool: ctx.enginePool,
        },
      );
      const evaluated =
        outcome.kind === 'proven' && typeof outcome.proof.expression === 'string'
          ? outcome.proof.expression
          : req.query;
      const f = await finalizeOutcome(ctx, outcome, {
        engine: 'math',
        orgId: req.org_id,
        evaluatedExpression: evaluated,
      });
      const result: DiagnosticActivityResult = f.attestation
        ? {
            ...f.diagnostic,
            attestation: { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status },
          }
        : f.diagnostic;
      return result;
    });

  /** The engine's outcome of one math item (no store work), in the engine pool under the engine budget. */
  const mathOutcome = (req: { org_id: string; query: string; params: Record<string, unknown> }) =>
    runIsolated<EngineOutcome>(
      { engine: 'math_batch', expression: req.query, params: req.params },
      {
        orgId: req.org_id,
        timeoutMs: engineBudgetMs(ctx.mathTimeoutMs ?? 5_000),
        timeoutDetail: MATH_TIMEOUT_DETAIL,
        pool: ctx.enginePool,
      },
    );

  /**
   * A unit's math items with their store writes grouped (issue 22): the items' engine runs (one
   * engine task for the unit; item by item, each under its own time-out, if that task cannot
   * finish within one item's budget), then one finalisation for the unit (every
   * proof retained in one insertMany, then the attestations signed, then recorded in one
   * insertMany: finalizeOutcomes). The attestation ids derive from the workflow and the item
   * index, so a retried unit answers the tokens its first attempt recorded (and its audit
   * entries name). An item's final failure is its outcome; anything retryable fails the unit.
   * With `attestation_in_entry` (session 17) the attestations are signed but not recorded: each
   * goes back in `issued` (by item index) for the item's audit entry to carry, and since session 24
   * with the proof it attests (not retained by finalizeOutcomes: the entry's insert retains it).
   */
  const runMathUnitGrouped = async (
    req: BatchMathUnitInput,
  ): Promise<{ outcomes: BatchItemOutcome[]; issued: Map<number, IssuedInEntry> }> => {
    const ran = new Array<{ outcome: EngineOutcome; latency_ms: number } | BatchItemOutcome>(req.items.length);
    // The unit's items in engine tasks of MATH_CHUNK_MAX first (one thread hop per task, not one
    // per item), each bounded by one item's engine budget (and its item time-out). A task that
    // runs past it, or that an engine fails on, has its items run again item by item below, each
    // under its own time-out: a slow or failing item fails alone, as before.
    const groups: number[][] = [];
    for (let i = 0; i < req.items.length; i += MATH_CHUNK_MAX)
      groups.push(Array.from({ length: Math.min(MATH_CHUNK_MAX, req.items.length - i) }, (_, k) => i + k));
    const retry: number[] = [];
    await Promise.all(
      groups.map(async (g) => {
        const group = await runIsolated(
          'math_batch_group',
          { items: g.map((i) => ({ expression: req.items[i]!.query, params: req.items[i]!.params })) },
          {
            orgId: req.org_id,
            timeoutMs: Math.min(engineBudgetMs(ctx.mathTimeoutMs ?? 5_000), req.timeout_ms),
            timeoutDetail: MATH_TIMEOUT_DETAIL,
            pool: ctx.enginePool,
          },
        ).catch((err: unknown) => {
          if (err instanceof ApplicationFailure && err.nonRetryable) return null;
          throw err;
        });
        if (group) group.forEach((r, k) => (ran[g[k]!] = { outcome: r.outcome, latency_ms: r.ms }));
        else retry.push(...g);
      }),
    );
    retry.sort((a, b) => a - b);
    let next = 0;
    const lane = async () => {
      while (next < retry.length) {
        const i = retry[next++]!;
        const item = req.items[i]!;
        try {
          const r = await runBatchItem(req, () => mathOutcome({ org_id: req.org_id, ...item }));
          ran[i] = { outcome: r.result as EngineOutcome, latency_ms: r.latency_ms };
        } catch (err) {
          const failed = itemFailure(item.index, err);
          if (!failed) throw err;
          ran[i] = failed;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MATH_CHUNK_PARALLELISM, retry.length) }, lane));
    const evaluatedOf = (o: EngineOutcome, query: string) =>
      o.kind === 'proven' && typeof o.proof.expression === 'string' ? o.proof.expression : query;
    // Items whose engine ran (the others already hold their failure): finalised together.
    const ranEngine = ran.flatMap((r, i) => ('outcome' in r ? [{ i, r }] : []));
    const sealStarted = performance.now();
    const finalized = await finalizeOutcomes(
      ctx,
      ranEngine.map(({ i, r }) => ({
        outcome: r.outcome,
        opts: {
          engine: 'math',
          orgId: req.org_id,
          evaluatedExpression: evaluatedOf(r.outcome, req.items[i]!.query),
          attestationId: attestationIdFor(req.org_id, `${req.workflow_id}#item-${req.items[i]!.index}`, req.id_time_ms),
        },
      })),
      { recordInAuditEntry: req.attestation_in_entry === true },
    );
    const sealMs = performance.now() - sealStarted;
    const out = ran.map((r) => ('outcome' in r ? null : r));
    const issued = new Map<number, IssuedInEntry>();
    ranEngine.forEach(({ i, r }, k) => {
      const f = finalized[k]!;
      if (f.attestation && req.attestation_in_entry === true && r.outcome.kind === 'proven')
        issued.set(req.items[i]!.index, {
          ...f.attestation,
          // Unless SVC_PROOF_IN_AUDIT_ENTRY is off or the artifact is large: then finalizeOutcomes retained it in `proofs`.
          ...(proofRidesInEntry(ctx, true, r.outcome.proof) ? { artifact: r.outcome.proof } : {}),
        });
      const result: DiagnosticActivityResult = f.attestation
        ? {
            ...f.diagnostic,
            attestation: { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status },
          }
        : f.diagnostic;
      // The item's own time: its engine run, and the unit's finalisation for a proven one.
      const latency = r.outcome.kind === 'proven' ? r.latency_ms + sealMs : r.latency_ms;
      out[i] = {
        index: req.items[i]!.index,
        status: 'completed',
        result,
        latency_ms: Math.round(latency * 100) / 100,
      };
    });
    return { outcomes: out as BatchItemOutcome[], issued };
  };

  /** Runs a chunk's items, a few at a time; an item's final failure is its outcome, anything retryable fails the chunk. */
  const runMathChunk = async (req: BatchMathChunkInput): Promise<BatchItemOutcome[]> => {
    const out = new Array<BatchItemOutcome>(req.items.length);
    let next = 0;
    const lane = async () => {
      while (next < req.items.length) {
        const i = next++;
        const item = req.items[i]!;
        try {
          const r = await verifyMathItem({
            job_id: req.job_id,
            index: item.index,
            query: item.query,
            params: item.params,
            org_id: req.org_id,
            workflow_id: req.workflow_id,
            timeout_ms: req.timeout_ms,
          });
          out[i] = { index: item.index, status: 'completed', result: r.result, latency_ms: r.latency_ms };
        } catch (err) {
          const failed = itemFailure(item.index, err);
          if (!failed) throw err;
          out[i] = failed;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MATH_CHUNK_PARALLELISM, req.items.length) }, lane));
    return out;
  };

  /**
   * Appends one audit entry per completed item (ids from the workflow and the index: a retry
   * finds them; `log_id` overrides, `attestation` is the item's record carried in its entry).
   * Returns the appends' outputs, or null when an entry cannot be written for a reason retrying
   * cannot fix (the caller then withholds the results); a store outage throws (retried).
   */
  const auditItems = async (
    req: {
      org_id: string;
      workflow_id: string;
      job_id: string;
      audit: FinishBatchJobInput['audit'];
      id_time_ms?: number;
    },
    items: Array<{
      index: number;
      type: string;
      query: string;
      result: unknown;
      log_id?: string;
      attestation?: AttestationInEntry;
    }>,
  ): Promise<AppendAuditOutput[] | null> => {
    const notAfter = batchAuditNotAfter();
    try {
      return await beating(
        Promise.all(
          items.map((it) =>
            engines.appendAuditActivity({
              org_id: req.org_id,
              workflow_id: req.workflow_id,
              engine: it.type,
              input: { query: it.query },
              result: it.result,
              audit: req.audit,
              log_id: it.log_id ?? batchItemAuditLogId(req.org_id, req.workflow_id, it.index, req.id_time_ms),
              ...(it.attestation ? { attestation: it.attestation } : {}),
              ...(notAfter !== undefined ? { not_after_ms: notAfter } : {}),
            }),
          ),
        ),
      );
    } catch (err) {
      if (!(err instanceof ApplicationFailure && err.nonRetryable)) throw err; // store down: retried
      log.error('batch audit entry not written: results withheld', { job_id: req.job_id, error: err.message });
      return null;
    }
  };

  /**
   * Session 17: the items whose entry an earlier attempt of the unit already wrote (a re-run
   * after a crash before the result document) answer the attestation that entry carries, never
   * a second token; an entry written without one (that attempt's verdict was not VERIFIED) gets
   * the record in `attestations`, as a run without the flag does (insert-once by the same jti),
   * and the proof in `proofs` before it (session 24).
   */
  const settleEarlierEntries = async (
    req: BatchMathUnitInput,
    items: StoredBatchItem[],
    appended: Map<number, AppendAuditOutput>,
    issued: Map<number, IssuedInEntry>,
  ): Promise<StoredBatchItem[]> =>
    Promise.all(
      items.map(async (s) => {
        const iss = issued.get(s.index);
        const out = appended.get(s.index);
        if (!iss || !out?.existing) return s;
        const result = s.view.result as DiagnosticActivityResult;
        const inEntry = out.attestation;
        if (inEntry && inEntry.claims?.svc?.proof_hash !== result.proof_ref)
          throw new Error(`attestation ${iss.jti} is stored for another proof`);
        const answer: IssuedAttestation =
          inEntry && inEntry.claims?.jti === iss.jti
            ? { ...inEntry, jti: iss.jti }
            : await recordIssuedAttestation(ctx, iss, {
                orgId: req.org_id,
                engine: 'math',
                proofRef: result.proof_ref as string,
                derived: true,
                ...(iss.artifact ? { artifact: iss.artifact } : {}), // to `proofs` first: the entry does not carry it
              });
        return {
          index: s.index,
          view: {
            ...s.view,
            result: { ...result, attestation: { id: answer.jti, token: answer.token, status: answer.status } },
          },
        };
      }),
    );

  /**
   * The job's own audit entry (`batch <job>: <n> items`, id derived from the workflow id, so a
   * retry finds it): true once written, false when it cannot be written for good; a store outage throws.
   */
  const appendJobEntry = (
    req: { org_id: string; workflow_id: string; job_id: string; audit: AuditContext | null; id_time_ms?: number },
    totalItems: number,
  ) => {
    const notAfter = batchAuditNotAfter();
    return engines
      .appendAuditActivity({
        org_id: req.org_id,
        workflow_id: req.workflow_id,
        engine: 'batch',
        input: { query: `batch ${req.job_id}: ${totalItems} items` },
        result: { status: 'completed' },
        audit: req.audit,
        ...(req.id_time_ms !== undefined ? { id_time_ms: req.id_time_ms } : {}),
        ...(notAfter !== undefined ? { not_after_ms: notAfter } : {}),
      })
      .then(
        () => true,
        (err: unknown) => {
          if (!(err instanceof ApplicationFailure && err.nonRetryable)) throw err;
          log.error('batch audit entry not written', { job_id: req.job_id, error: err.message });
          return false;
        },
      );
  };

  const withheld = (s: StoredBatchItem): StoredBatchItem =>
    s.view.status === 'completed'
      ? {
          index: s.index,
          view: {
            id: s.view.id,
            query: s.view.query,
            type: s.view.type,
            status: 'failed',
            error: AUDIT_WITHHELD,
            latency_ms: s.view.latency_ms,
          },
        }
      : s;
  const summary = (s: StoredBatchItem): BatchItemSummary => ({ index: s.index, status: s.view.status });

  /** The body of mathBatchUnitActivity (below), shared with mathBatchJobActivity. */
  const mathUnit = async (req: BatchMathUnitInput): Promise<BatchItemSummary[]> => {
    let ctx: Context | null = null;
    try {
      ctx = Context.current();
    } catch {
      ctx = null;
    }
    // How long the unit waited between its scheduling and its start (the profile's figure; bench/batch.ts --profile).
    const enteredAt = Date.now();
    const queuedMs = ctx ? enteredAt - ctx.info.currentAttemptScheduledTimestampMs : 0;
    const earlier = (ctx?.info.attempt ?? 1) > 1 ? await jobs.unitResult(req.job_id, req.unit) : null;
    if (earlier?.audited === true) return earlier.items.map(summary);
    if (earlier) {
      // Stored, not yet audited: a document of the order before session 11 (stored, then audited).
      const jobAudited = req.job_entry ? await appendJobEntry(req, req.job_entry.total_items) : true;
      const itemsAudited = await auditItems(
        req,
        earlier.items
          .filter((s) => s.view.status === 'completed')
          .map((s) => ({ index: s.index, type: 'math', query: s.view.query, result: s.view.result })),
      );
      const items = itemsAudited !== null && jobAudited ? earlier.items : earlier.items.map(withheld);
      await jobs.replaceUnitItems(req.job_id, req.unit, items);
      return items.map(summary);
    }
    // Verdicts (proofs retained, attestations recorded), then their audit entries, then the
    // result document, written once and final (audited): no update of it afterwards. A retry
    // finds the same proofs, attestation records (derived ids) and audit entries (derived ids).
    const t0 = performance.now();
    const { outcomes, issued } = await runMathUnitGrouped(req);
    const t1 = performance.now();
    let items = storedItems(req.job_id, itemRequests(req), outcomes);
    // Session 17 (`attestation_in_entry`): each VERIFIED item's attestation record rides in its
    // entry (id derived from the attestation id): no `attestations` insert for the unit; since
    // session 24 with the proof it attests: no `proofs` insert either (docs/store-access.md §18).
    const inEntry = req.attestation_in_entry === true;
    const completed = items
      .filter((s) => s.view.status === 'completed')
      .map((s) => {
        const iss = issued.get(s.index);
        return {
          index: s.index,
          type: 'math',
          query: s.view.query,
          result: s.view.result,
          ...(inEntry ? { log_id: batchItemEntryId(req.org_id, req.workflow_id, s.index, true, req.id_time_ms) } : {}),
          ...(iss
            ? {
                attestation: {
                  token: iss.token,
                  claims: iss.claims,
                  status: iss.status,
                  ...(iss.artifact ? { artifact: iss.artifact } : {}),
                },
              }
            : {}),
        };
      });
    // The items' entries and, for a job that is this one unit, the job's own entry after them: one group commit.
    const itemEntries = auditItems(req, completed);
    const jobEntry = req.job_entry ? appendJobEntry(req, req.job_entry.total_items) : Promise.resolve(true);
    void jobEntry.catch(() => undefined); // awaited below; handled if the items' entries fail first
    const [appended, jobAudited] = await Promise.all([itemEntries, jobEntry]);
    const audited = appended !== null && jobAudited;
    if (!audited) items = items.map(withheld);
    else if (issued.size > 0)
      items = await settleEarlierEntries(
        req,
        items,
        new Map(appended.map((out, k) => [completed[k]!.index, out] as const)),
        issued,
      );
    const t2 = performance.now();
    const doc = await jobs.storeUnit({
      _id: resultId(req.job_id, req.unit),
      job_id: req.job_id,
      org_id: req.org_id,
      unit: req.unit,
      items,
      audited: true,
    });
    const t3 = performance.now();
    log.debug('batch unit timed', {
      job_id: req.job_id,
      unit: req.unit,
      pid: process.pid,
      queued_ms: queuedMs,
      entered_at: enteredAt,
      run_ms: Math.round(t1 - t0),
      audit_ms: Math.round(t2 - t1),
      store_ms: Math.round(t3 - t2),
    });
    return doc.items.map(summary);
  };

  /** The body of mathBatchJobActivity (below): the unit, then the job completed and its slot finished. */
  const mathJob = async (req: BatchMathJobInput): Promise<BatchMathJobResult> => {
    const jobDoc = jobs.find(req.job_id);
    void jobDoc.catch(() => undefined); // awaited by complete(); handled if the unit fails first
    const summaries = await mathUnit(req);
    const completed = summaries.filter((s) => s.status === 'completed').length;
    const counters = { completed_items: completed, failed_items: summaries.length - completed };
    const completedAt = new Date();
    const c0 = performance.now();
    try {
      const final = await jobs.complete(req.job_id, counters, req.units, completedAt, jobDoc);
      if (!final) log.warn('batch job document missing at completion', { job_id: req.job_id });
      log.debug('batch job completed by its unit', {
        job_id: req.job_id,
        pid: process.pid,
        complete_ms: Math.round(performance.now() - c0),
      });
      const finished = {
        stored: final !== null,
        audited: true,
        completed_at: (final?.completed_at ?? completedAt).toISOString(),
        completed_items: final?.completed_items ?? counters.completed_items,
        failed_items: final?.failed_items ?? counters.failed_items,
      };
      // Stored completed (result document, entries, job, slot): a POST of this process waiting on
      // the job answers now (core/completion-notices.ts; only the API process's worker has one).
      if (final) announceCompletion(req.job_id, finished);
      return { summaries, finished };
    } catch (err) {
      log.warn('batch job completion deferred to the finish step', {
        job_id: req.job_id,
        error: err instanceof Error ? err.message : String(err),
      });
      return { summaries, finished: null };
    }
  };

  return {
    /**
     * A math chunk that stores its own results (issue 22): each item's engine run under its own
     * time-out, then the unit's store writes grouped (runMathUnitGrouped: one insertMany of
     * proofs, then the attestations signed and recorded in one insertMany, or, with
     * `attestation_in_entry` (session 17), carried by the items' entries), then one audit entry
     * per completed item (one group commit), then the unit's result document `<job>#<unit>`,
     * written once and final (session 11: no later update of a document that carries 25 results).
     * A retry that finds the document uses it: one set of verdicts per item, whatever the
     * attempts; one that does not finds the same proofs, attestation records and audit entries
     * (derived ids). Only a summary (index, status) goes back to the workflow: no result crosses
     * the workflow history, and the API reads the document only once it exists, i.e. after the
     * audit entries: no verdict is released without its entry. An entry that cannot be written
     * for good withholds the unit's results (each completed item stored as failed).
     */
    async mathBatchUnitActivity(req: BatchMathUnitInput): Promise<BatchItemSummary[]> {
      return mathUnit(req);
    },

    /**
     * Session 13 (a job's fixed cost): a job that is one math unit (`one_step_job`), run and
     * completed by this one local activity. The unit exactly as mathBatchUnitActivity (verdicts,
     * their audit entries and the job's, then the result document), then the job completed and
     * its slot finished as the finish step would (the job document read beside the engine run).
     * The workflow then has no finish step: one local activity and one activation fewer. If the
     * completion fails (the store went away after the result document), the unit's result stands
     * and `finished` is null: the workflow runs the finish step, which retries until the store is
     * back. A re-run (a crash before the marker) finds the result document and the completed job.
     */
    async mathBatchJobActivity(req: BatchMathJobInput): Promise<BatchMathJobResult> {
      try {
        return await mathJob(req);
      } finally {
        jobEnded(req.job_id); // an eagerly started job no longer counts against this process (core/completion-notices.ts)
      }
    },

    /**
     * The workflow's last step (issue 22): the job's own audit entry; the items the workflow
     * held (other types than math, math chunks that failed for good) get their audit entries
     * and their result documents (written once); then the job document takes its final status
     * and counters (a small update by `_id`) and its slot is marked finished. If an entry cannot
     * be written for good, the held items' results are withheld (stored as failed).
     */
    async finishBatchJobActivity(req: FinishBatchJobInput): Promise<FinishBatchJobResult> {
      const f0 = performance.now();
      let queuedMs = 0;
      try {
        queuedMs = Date.now() - Context.current().info.currentAttemptScheduledTimestampMs;
      } catch {
        // outside an activity (unit tests)
      }
      let completedItems = req.completed_items;
      let failedItems = req.failed_items;
      const held = req.held.flatMap((u) =>
        u.items
          .filter((it) => it.outcome.status === 'completed')
          .map((it) => ({ index: it.outcome.index, type: it.type, query: it.query, result: it.outcome.result })),
      );
      // The job document is read beside the entries (a point read; only this step changes it).
      const jobDoc = jobs.find(req.job_id);
      void jobDoc.catch(() => undefined); // awaited by complete(); handled if an entry fails first
      // The job's entry (unless its math unit wrote it: job_audited) and the held items' entries
      // side by side (one group commit of the audit log).
      const jobEntry = req.job_audited === true ? Promise.resolve(true) : appendJobEntry(req, req.total_items);
      const [jobAudited, itemsAudited] = await Promise.all([
        jobEntry,
        held.length > 0 ? auditItems(req, held).then((out) => out !== null) : Promise.resolve(true),
      ]);
      const audited = jobAudited && itemsAudited;
      const docs: BatchResultDoc[] = req.held.map((u) => {
        let items = storedItems(
          req.job_id,
          fromHeld(u.items),
          u.items.map((it) => it.outcome),
        );
        if (!audited) items = items.map(withheld);
        return {
          _id: resultId(req.job_id, u.unit),
          job_id: req.job_id,
          org_id: req.org_id,
          unit: u.unit,
          items,
          audited: true,
        };
      });
      if (!audited) {
        completedItems -= held.length;
        failedItems += held.length;
      }
      const f1 = performance.now();
      await jobs.storeUnits(docs);
      const completedAt = new Date();
      const final = await jobs.complete(
        req.job_id,
        { completed_items: completedItems, failed_items: failedItems },
        req.units,
        completedAt,
        jobDoc,
      );
      if (!final) log.warn('batch job document missing at completion', { job_id: req.job_id });
      log.debug('batch finish timed', {
        job_id: req.job_id,
        pid: process.pid,
        queued_ms: queuedMs,
        audit_ms: Math.round(f1 - f0),
        complete_ms: Math.round(performance.now() - f1),
      });
      // As stored (a retried finish keeps the first completion's time and counters).
      return {
        stored: final !== null,
        audited,
        completed_at: (final?.completed_at ?? completedAt).toISOString(),
        completed_items: final?.completed_items ?? completedItems,
        failed_items: final?.failed_items ?? failedItems,
      };
    },

    /**
     * A chunk of math items in one activity (one Temporal round trip instead of one per item):
     * each item runs exactly as verifyMathBatchItemActivity (own time-out from its start, proof
     * retained and attestation signed before VERIFIED), a few at a time. An item's final
     * failure (time-out, engine rejection) is its outcome; anything retryable (store down, a
     * crash) fails the chunk, which Temporal retries as a whole (proofs are idempotent).
     */
    async verifyMathBatchChunkActivity(req: BatchMathChunkInput): Promise<BatchItemOutcome[]> {
      return runMathChunk(req);
    },

    /**
     * Math item: proven identity + retained proof + signed attestation → VERIFIED with proof_ref;
     * sides differ → UNVERIFIABLE (developer_fields.diff); bare expression → UNVERIFIABLE
     * (developer_fields.simplified); signing fails → UNVERIFIABLE (api.attestation.signing_error).
     */
    async verifyMathBatchItemActivity(req: BatchItemActivityInput): Promise<BatchItemActivityResult> {
      return verifyMathItem(req);
    },

    /**
     * The workflow's last step: one audit entry for the job, then the completed job with every
     * item into `batch_jobs`, and its slot marked finished (evictable). If the audit entry
     * cannot be written for a reason retrying cannot fix, no result is released: every
     * completed item becomes failed (fail closed), and the job still completes.
     */
    async completeBatchJobActivity(req: CompleteBatchJobInput): Promise<CompleteBatchJobResult> {
      let audited = true;
      let outcomes = req.outcomes;
      try {
        await engines.appendAuditActivity({
          org_id: req.org_id,
          workflow_id: req.workflow_id,
          engine: 'batch',
          input: { query: `batch ${req.job_id}: ${req.total_items} items` },
          result: { status: 'completed' },
          audit: req.audit,
        });
        // One entry per completed item as well (its verdict, proof_ref and attestation id), all
        // group-committed by the audit log into a few store writes. Ids derive from the workflow
        // and the index, so a retried completion finds its entries instead of adding more.
        const items = req.items;
        if (items) {
          await Promise.all(
            outcomes
              .filter((o) => o.status === 'completed')
              .map((o) =>
                engines.appendAuditActivity({
                  org_id: req.org_id,
                  workflow_id: req.workflow_id,
                  engine: items[o.index]?.type ?? 'batch',
                  input: { query: items[o.index]?.query ?? '' },
                  result: o.result,
                  audit: req.audit,
                  log_id: batchItemAuditLogId(req.org_id, req.workflow_id, o.index),
                }),
              ),
          );
        }
      } catch (err) {
        if (!(err instanceof ApplicationFailure && err.nonRetryable)) throw err; // store down: retried
        audited = false;
        log.error('batch audit entry not written: results withheld', { job_id: req.job_id, error: err.message });
        outcomes = outcomes.map((o) =>
          o.status === 'completed'
            ? { index: o.index, status: 'failed', error: AUDIT_WITHHELD, latency_ms: o.latency_ms }
            : o,
        );
      }
      const completedAt = new Date();
      const stored = await jobs.completeLegacy(
        req.job_id,
        itemViews(req.job_id, req.items ?? [], outcomes),
        outcomes,
        completedAt,
      );
      if (!stored) log.warn('batch job document missing at completion', { job_id: req.job_id });
      return { stored, audited, completed_at: completedAt.toISOString() };
    },
  };
}
