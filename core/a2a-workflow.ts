// Data exchanged between the gateway route, the a2a workflow and its activities (types only).
import type { Sealed } from './sealed.js';

export type A2aPayloadType = 'financial_transaction' | 'code_execution' | 'logic_assertion' | 'general' | 'data_query';
export type A2aStatusValue = 'verified' | 'blocked' | 'unverifiable' | 'heuristic_pass' | 'error';

export const A2A_AUDIT_ORG = 'a2a_gateway';

export interface A2aWorkflowInput {
  audit_trace_id: string;
  /** The agent the presented key belongs to: the sender, whatever the body says. */
  agent_id: string;
  claimed_sender_agent_id: string | null;
  receiver_agent_id: string;
  payload_type: A2aPayloadType;
  /** The payload, encrypted (core/sealed.ts). */
  sealed: Sealed;
  payload_bytes: number;
  max_payload_bytes: number;
  engine_timeout_ms: number;
}

export interface A2aEvaluation {
  status: A2aStatusValue;
  engine_used: string;
  reason: string;
  attestation_jwt: string | null;
  proof_ref: string | null;
  request_digest: string;
  summary: string;
}

export interface A2aWorkflowResult {
  status: A2aStatusValue;
  audit_trace_id: string;
  engine_used: string;
  attestation_jwt: string | null;
  reason: string;
  admissible: boolean;
  sender_agent_id: string;
  receiver_agent_id: string;
  payload_type: A2aPayloadType;
  audit_log_id: string;
}

export interface A2aMessageRecord {
  audit_trace_id: string;
  workflow_id: string;
  audit_log_id: string;
  sender_agent_id: string;
  claimed_sender_agent_id: string | null;
  receiver_agent_id: string;
  payload_type: A2aPayloadType;
  status: A2aStatusValue;
  engine_used: string;
  reason: string;
}
