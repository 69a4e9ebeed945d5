// The verification engines and the activity that runs each one. Shared by the API (which
// starts workflows) and the workflow code (which must stay deterministic: pure data only).
export const ENGINE_ACTIVITIES = {
  math: 'verifyMathActivity',
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
}
