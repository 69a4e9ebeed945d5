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
} as const;

export type EngineName = keyof typeof ENGINE_ACTIVITIES;

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
