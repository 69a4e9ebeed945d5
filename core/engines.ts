// The engine registry: one row per verification engine, the single place that says whether it
// runs as a local activity, whether an API process's in-process worker may run it (eager start),
// whether a language model translates its query first, its whole-run deadline and the 503 detail
// when that deadline is missed. Read by the workflows, the Temporal gateway and the routes. The
// request schemas are in contract/.
//
// No workflow or activity is named here by a string: what runs an engine is named by reference
// where the functions are in reach, so go-to-definition follows it: the workflow a route starts
// in api/workflows.ts (`verificationWorkflows`), the activity of one verification and of one
// batch item in workflows/engine-activities.ts (`engineActivities`, `batchItemActivities`), each
// typed by `EngineIO` (core/verification-io.ts).
//
// Pure data and pure functions only: workflows import this file, so it must stay deterministic
// and must not pull zod or any I/O into the workflow bundle (contract/deadlines.ts is plain).
import {
  CODE_TIMEOUT_DETAIL,
  CONSENSUS_DEADLINE_MS,
  CONSENSUS_TIMEOUT_DETAIL,
  FACT_TIMEOUT_DETAIL,
  IMAGE_TIMEOUT_DETAIL,
  LOGIC_TIMEOUT_DETAIL,
  MATH_TIMEOUT_DETAIL,
  NL_TIMEOUT_DETAIL,
  PROCESS_TIMEOUT_DETAIL,
  RAG_TIMEOUT_DETAIL,
  SQL_TIMEOUT_DETAIL,
  STATS_TIMEOUT_DETAIL,
} from '../contract/deadlines.js';
import type { EngineInput } from './verification-io.js';

/** The configuration an engine deadline depends on (seconds, as in core/config.ts). */
export interface EngineDeadlineConfig {
  SVC_MATH_TIMEOUT: number;
  SVC_Z3_TIMEOUT: number;
  SVC_CODE_VERIFY_TIMEOUT: number;
  SVC_PROVIDER_TIMEOUT: number;
  SVC_SANDBOX_ACQUIRE_TIMEOUT: number;
}

export interface EngineSpec {
  /**
   * Local activity in SVC_ACTIVITY_MODE=auto: pure, guard-bounded, millisecond-scale engines,
   * where skipping the activity-task round trip saves ~30 % of the latency. CPU-heavy, WASM and
   * sandbox engines stay normal activities (their tasks go to any worker and show as their own
   * events in the UI). Either way the workflow execution time-out bounds the request.
   */
  readonly localInAuto: boolean;
  /**
   * Run by an API process's in-process worker with eager start (docs/performance.md): local in
   * auto mode, and the activity module loads no engine code in the calling process (the engine
   * runs in the engine pool's threads). SQL is local but loads its parser and PGlite.
   */
  readonly eager: boolean;
  /**
   * A language model translates every query first (its provider step, then the engine):
   * providerVerifyWorkflow runs it, not verifyWorkflow (api/workflows.ts `verificationWorkflows`).
   */
  readonly providerFirst?: true;
  /** Whole-run budget in ms (engine, retries, audit); the execution time-out adds SVC_WORKFLOW_GRACE. */
  readonly deadlineMs: (cfg: EngineDeadlineConfig, input: unknown) => number;
  /** The 503 detail when the deadline is missed. */
  readonly timeoutDetail: string;
}

/** Reading the upload back, decoding (up to the pixel limit) and measuring an image. */
export const IMAGE_MEASURE_BUDGET_MS = 20_000;
/** The sandbox run of a stats query (pandas import + a 10 MB CSV), beyond the slot wait. */
export const STATS_RUN_BUDGET_MS = 25_000;
/** Fact: the deterministic analysis of up to 1,000,000 characters, beyond the provider time-out. */
export const FACT_ANALYSIS_BUDGET_MS = 5_000;
/** Consensus: retaining proofs and signing after the engines' deadline. */
export const CONSENSUS_FINALIZE_BUDGET_MS = 5_000;
/** Logic: compiling and re-checking around the solver's own time-out. */
export const LOGIC_OVERHEAD_MS = 3_000;

const usesProvider = (input: unknown): boolean => {
  const p = (input as { provider?: unknown } | null)?.provider;
  return typeof p === 'string' && p !== 'local';
};

export const ENGINES = {
  math: {
    localInAuto: true,
    eager: true,
    deadlineMs: (c) => c.SVC_MATH_TIMEOUT * 1000,
    timeoutDetail: MATH_TIMEOUT_DETAIL,
  },
  logic: {
    localInAuto: false,
    eager: false,
    // A natural-language query is translated first: its route adds SVC_PROVIDER_TIMEOUT and
    // starts providerVerifyWorkflow (logicNaturalLanguageDeadlineMs).
    deadlineMs: (c) => c.SVC_Z3_TIMEOUT * 1000 + LOGIC_OVERHEAD_MS,
    timeoutDetail: LOGIC_TIMEOUT_DETAIL,
  },
  code: {
    localInAuto: false,
    eager: false,
    deadlineMs: (c) => c.SVC_CODE_VERIFY_TIMEOUT * 1000,
    timeoutDetail: CODE_TIMEOUT_DETAIL,
  },
  sql: {
    localInAuto: true,
    eager: false,
    deadlineMs: () => 10_000,
    timeoutDetail: SQL_TIMEOUT_DETAIL,
  },
  process: {
    localInAuto: true,
    eager: true,
    deadlineMs: () => 5_000,
    timeoutDetail: PROCESS_TIMEOUT_DETAIL,
  },
  rag: {
    localInAuto: true,
    eager: true,
    deadlineMs: () => 5_000,
    timeoutDetail: RAG_TIMEOUT_DETAIL,
  },
  consensus: {
    localInAuto: false,
    eager: false,
    deadlineMs: () => CONSENSUS_DEADLINE_MS + CONSENSUS_FINALIZE_BUDGET_MS,
    timeoutDetail: CONSENSUS_TIMEOUT_DETAIL,
  },
  stats: {
    localInAuto: false,
    eager: false,
    deadlineMs: (c) => c.SVC_SANDBOX_ACQUIRE_TIMEOUT * 1000 + STATS_RUN_BUDGET_MS,
    timeoutDetail: STATS_TIMEOUT_DETAIL,
  },
  fact: {
    localInAuto: false,
    eager: false,
    deadlineMs: (c) => c.SVC_PROVIDER_TIMEOUT * 1000 + FACT_ANALYSIS_BUDGET_MS,
    timeoutDetail: FACT_TIMEOUT_DETAIL,
  },
  image: {
    localInAuto: false,
    eager: false,
    // A vision model is asked only when one is configured and named.
    deadlineMs: (c, input) => IMAGE_MEASURE_BUDGET_MS + (usesProvider(input) ? c.SVC_PROVIDER_TIMEOUT * 1000 : 0),
    timeoutDetail: IMAGE_TIMEOUT_DETAIL,
  },
  // Its evaluation step is math-engine work (local in auto); its provider step is a normal
  // activity for remote providers (workflows/provider-verify.ts).
  natural_language: {
    localInAuto: true,
    eager: false,
    providerFirst: true,
    deadlineMs: (c) => c.SVC_PROVIDER_TIMEOUT * 1000 + c.SVC_MATH_TIMEOUT * 1000,
    timeoutDetail: NL_TIMEOUT_DETAIL,
  },
} as const satisfies Record<string, EngineSpec>;

export type EngineName = keyof typeof ENGINES;
/** Engines whose route starts verifyWorkflow (one engine activity, then the audit append): all but the provider-first. */
export type VerifyWorkflowEngine = {
  [E in EngineName]: (typeof ENGINES)[E] extends { providerFirst: true } ? never : E;
}[EngineName];

/** Logic from natural language: the provider's translation, then the solver. */
export function logicNaturalLanguageDeadlineMs(c: EngineDeadlineConfig): number {
  return c.SVC_PROVIDER_TIMEOUT * 1000 + ENGINES.logic.deadlineMs(c);
}
export const ENGINE_NAMES = Object.keys(ENGINES) as EngineName[];

/** Engines an API process's in-process worker may run (eager workflow start). */
export const EAGER_ENGINES: ReadonlySet<EngineName> = new Set(ENGINE_NAMES.filter((e) => ENGINES[e].eager));

export function activityModeFor(engine: EngineName, configured: 'auto' | 'normal' | 'local'): 'normal' | 'local' {
  if (configured !== 'auto') return configured;
  return ENGINES[engine].localInAuto ? 'local' : 'normal';
}

export interface VerifyWorkflowInput<E extends EngineName = EngineName> {
  engine: E;
  input: EngineInput<E>;
  org_id: string | null;
  /** Activity start-to-close and schedule-to-close budget in milliseconds. */
  timeout_ms: number;

  /** 'normal' activities have server-enforced deadlines; 'local' ones skip a server round trip. */
  activity_mode: 'normal' | 'local';
  /** Who asked, for the audit entry appended after the engine (every run with an org_id is audited). */
  audit?: AuditContext | null;
  /**
   * Set by the API: an engine whose activity can append the audit entry itself (math) is asked
   * to (workflows/verify.ts). In the input, not a patch marker: one history event fewer, and runs
   * started without it (an older API, a replayed history) keep the separate append.
   */
  audit_in_engine_activity?: boolean;
  /**
   * Set by the API with audit_in_engine_activity: that activity stores the attestation record in
   * the audit entry it writes, under an entry id derived from the attestation id (one insert fewer
   * per verification; persistence/proofs.ts). In the input: runs started without it (an older API,
   * a replayed history) keep their entry id and the separate record.
   */
  attestation_in_audit_entry?: boolean;
  /**
   * Set by the API: a run whose activities are all local has its input checked by those
   * activities (the workers' activity interceptor) instead of by a separate local activity
   * first (workflows/input-auth.ts): one local activity and one activation fewer. The same
   * check, the same refusal; runs started without it keep the separate check.
   */
  input_auth_in_engine_activity?: boolean;
  /**
   * Set by the API (session 19): the run's input check needs no patch marker (workflows/input-auth.ts):
   * every run this API starts is checked, so `patched('svc-input-auth')` and its TemporalChangeVersion
   * upsert (two history events and a visibility update per run) are skipped. Runs started without
   * it (an older API, a replayed history) keep the marker.
   */
  input_auth_no_patch_marker?: boolean;
  /**
   * Set by the API (session 23): the run's audit entry and attestation ids start with the
   * workflow's start time (workflowInfo().startTime, from its history, so every attempt and replay
   * derives the same ids), so new entries sort after the stored ones (core/time-ordered-id.ts,
   * docs/store-access.md §17). In the input: runs started without it keep the hash-only ids.
   */
  time_ordered_ids?: boolean;
}

export interface AuditContext {
  user_id: string | null;
  key_id: string | null;
  /** `sha256:<hex>` of the validated request as JSON (JSON.stringify). */
  request_digest: string;
}
