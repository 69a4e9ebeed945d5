// The DiagnosticResult shape of the contract, and the only way to build one.
//
// Engines never assemble a DiagnosticResult themselves: they return an EngineOutcome
// (pure data, no I/O). The activity layer retains the proof artifact of a "proven"
// outcome, obtains its proof_ref, and calls buildDiagnostic, which enforces the
// contract's invariants so that no code path can break them:
//   - proof_ref is set only on VERIFIED, and VERIFIED always has a well-formed proof_ref;
//   - is_authoritative is true iff proof_ref is set;
//   - admission (on engines that report it) is ADMIT only when status is VERIFIED and
//     developer_fields.is_valid === true; everything else is BLOCKED.

export type VerdictStatus = 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
export type Admission = 'ADMIT' | 'BLOCKED';

export interface DiagnosticResult {
  status: VerdictStatus;
  agent_message: string;
  developer_fields: Record<string, unknown>;
  proof_ref: string | null;
  is_authoritative: boolean;
  admission?: Admission;
}

/** What a pure engine returns. Only `proven` can become VERIFIED, and only once its proof is retained. */
export type EngineOutcome =
  | {
      kind: 'proven';
      agentMessage: string;
      developerFields: Record<string, unknown>;
      /** The deterministic proof artifact: JSON-only values, retained and hashed into proof_ref. */
      proof: Record<string, unknown>;
    }
  | { kind: 'unverifiable'; agentMessage: string; developerFields: Record<string, unknown> }
  | { kind: 'blocked'; agentMessage: string; developerFields: Record<string, unknown> };

export const PROOF_REF_PATTERN = /^sha256:[0-9a-f]{64}$/;

export class DiagnosticInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiagnosticInvariantError';
  }
}

export interface BuildDiagnosticInput {
  status: VerdictStatus;
  agentMessage: string;
  developerFields: Record<string, unknown>;
  /** Required for VERIFIED, ignored (forced null) otherwise. */
  proofRef?: string | null;
  /** Set for endpoints that report admission (/verify/code, /verify/sql). */
  withAdmission?: boolean;
}

export function buildDiagnostic(input: BuildDiagnosticInput): DiagnosticResult {
  const { status } = input;
  let proofRef: string | null = null;
  if (status === 'VERIFIED') {
    if (typeof input.proofRef !== 'string' || !PROOF_REF_PATTERN.test(input.proofRef)) {
      // Fail closed: a VERIFIED without a retained proof is a programming error, never a verdict.
      throw new DiagnosticInvariantError('VERIFIED requires a retained proof (proof_ref sha256:<64 hex>)');
    }
    proofRef = input.proofRef;
  }
  const result: DiagnosticResult = {
    status,
    agent_message: input.agentMessage,
    developer_fields: { ...input.developerFields },
    proof_ref: proofRef,
    is_authoritative: proofRef !== null,
  };
  if (input.withAdmission) result.admission = admissionOf(status, input.developerFields);
  return result;
}

/** The admission of a result on an engine that reports one (also signed into its attestation). */
export function admissionOf(status: VerdictStatus, developerFields: Record<string, unknown>): Admission {
  return status === 'VERIFIED' && developerFields.is_valid === true ? 'ADMIT' : 'BLOCKED';
}

/** A BLOCKED result for failures around an engine (internal error, time-out, signing failure). */
export function blockedDiagnostic(
  agentMessage: string,
  constraintId: string,
  extra: Record<string, unknown> = {},
  withAdmission = false,
): DiagnosticResult {
  return buildDiagnostic({
    status: 'BLOCKED',
    agentMessage,
    developerFields: { constraint_id: constraintId, is_valid: false, ...extra },
    withAdmission,
  });
}
