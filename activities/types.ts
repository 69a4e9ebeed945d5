// The input every verification activity receives from its workflow.
import type { AuditContext } from '../core/engines.js';

export interface VerifyActivityInput<T> {
  input: T;
  org_id: string | null;
  workflow_id: string;
  /**
   * Set by verifyWorkflow for the engines whose activity appends the verification's audit entry
   * itself, after sealing the verdict (workflows/verify.ts AUDITED_IN_ENGINE_ACTIVITY: math): one
   * local activity and one activation fewer per verification (docs/performance.md). Absent: the
   * workflow appends the entry (appendAuditActivity), or there is no organization to audit.
   */
  audit_entry?: {
    audit: AuditContext | null;
    /**
     * The attestation record goes in the audit entry (session 16: one insert fewer); the entry's id
     * is then derived from the attestation id (attestationEntryId). Absent: `attestations` as before.
     */
    attestation_in_entry?: boolean;
    /**
     * The workflow's start time (epoch ms) when its run asked for time-ordered ids (session 23,
     * `time_ordered_ids`): the attestation and entry ids start with it (core/time-ordered-id.ts).
     */
    id_time_ms?: number;
  };
}
