// The verification engines and the activity that runs each one. Shared by the API (which
// starts workflows) and the workflow code (which must stay deterministic: pure data only).
export const ENGINE_ACTIVITIES = {
  math: 'verifyMathActivity',
  logic: 'verifyLogicActivity',
  code: 'verifyCodeActivity',
  sql: 'verifySqlActivity',
  process: 'verifyProcessActivity',
  rag: 'verifyRagActivity',
  consensus: 'verifyConsensusActivity',
  stats: 'verifyStatsActivity',
  fact: 'verifyFactActivity',
  image: 'verifyImageActivity',
  natural_language: 'finalizeNaturalLanguageActivity',
} as const;

export type EngineName = keyof typeof ENGINE_ACTIVITIES;

/**
 * Engines that run as local activities in `auto` mode: pure, guard-bounded, millisecond-scale
 * engines, where skipping the activity-task round trip saves ~30% of the request latency
 * (bench/math.ts). CPU-heavy, WASM and sandbox engines stay normal activities: their tasks
 * can go to any worker and show up as their own events in the Temporal UI. Either way the
 * server-side workflow execution time-out bounds the request.
 */
const LOCAL_IN_AUTO: ReadonlySet<EngineName> = new Set<EngineName>(['math', 'process', 'rag', 'sql']);
// natural_language: its evaluation step is math-engine work (local in auto); its provider step
// is a normal activity for remote providers (workflows/provider-verify.ts).
(LOCAL_IN_AUTO as Set<EngineName>).add('natural_language');

/**
 * Engines an API process's in-process worker may run (eager workflow start, docs/performance.md):
 * local in `auto` mode, and their activity modules load no engine code in the calling process
 * (the engine runs in the engine pool's threads, under its deadline). SQL is local too, but its
 * activity module loads the parser and PGlite, so it stays with the standalone workers.
 */
export const EAGER_ENGINES: ReadonlySet<EngineName> = new Set<EngineName>(['math', 'process', 'rag']);

export function activityModeFor(engine: EngineName, configured: 'auto' | 'normal' | 'local'): 'normal' | 'local' {
  if (configured !== 'auto') return configured;
  return LOCAL_IN_AUTO.has(engine) ? 'local' : 'normal';
}

export interface VerifyWorkflowInput {
  engine: EngineName;
  input: unknown;
  org_id: string | null;
  /** Activity start-to-close and schedule-to-close budget in milliseconds. */
  timeout_ms: number;
  /** 'normal' activities have server-enforced deadlines; 'local' ones skip a server round trip. */
  activity_mode: 'normal' | 'local';
  /** Who asked, for the audit entry appended after the engine (every run with an org_id is audited). */
  audit?: AuditContext | null;
}

export interface AuditContext {
  user_id: string | null;
  key_id: string | null;
  /** `sha256:<hex>` of the validated request as JSON (JSON.stringify). */
  request_digest: string;
}
