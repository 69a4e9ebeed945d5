// Verification Context document v1.0 (reference notes, "Verification Context document").
//
// Three pure operations back the /verification-context/* routes:
//   - validateDocument: the contract's zod schema (shape, unknown keys, verdict/proof_ref/
//     admission invariants) plus the canonical-encoding domain checks;
//   - resolveDocument: recomputes the commitment and compares it with the stored proof_ref;
//   - fromDiagnostic: maps a DiagnosticResult to a document, then applies the trust gate of
//     the contract's States table (fail closed: anything not provably attested is BLOCKED).
import {
  VC_INVARIANT,
  VC_UNKNOWN_KEY,
  verificationContextDocumentSchema,
  type VerificationContextDocument,
} from '../contract/verification-context.js';
import type { JWK } from 'jose';
import { assertCanonicalDomain, CanonicalDomainError, sha256Ref } from './canonical-json.js';
import { queryHash, verifyAttestationToken, type AttestationClaims } from './attestation.js';
import { admissionOf, PROOF_REF_PATTERN, type VerdictStatus } from './diagnostic.js';

export const VC_SPEC_VERSION = '1.0';

export type VcVerdict = 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
export type VcAdmission = 'ADMIT' | 'DENY';

/** The document type is the contract schema's (one source of truth for its shape). */
export type { VerificationContextDocument };

export interface ValidationIssue {
  /** JSONPath-like location, e.g. `$.context.evidence.proof_ref`. */
  path: string;
  message: string;
}

export type ValidateResult = { valid: true } | { valid: false; error: 'validation_failed'; errors: ValidationIssue[] };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function appendPath(path: string, key: string | number): string {
  if (typeof key === 'number' || /^(0|[1-9][0-9]*)$/.test(key)) return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

const toPath = (segments: readonly PropertyKey[]): string =>
  segments.reduce<string>((p, k) => appendPath(p, typeof k === 'symbol' ? String(k) : k), '$');

/** The zod issues of the contract's document schema as `{path, message}`: invariants first, one issue per unknown key. */
function schemaIssues(doc: unknown): ValidationIssue[] {
  const parsed = verificationContextDocumentSchema.safeParse(doc);
  if (parsed.success) return [];
  const invariants: ValidationIssue[] = [];
  const fields: ValidationIssue[] = [];
  for (const iss of parsed.error.issues) {
    const path = toPath(iss.path);
    if (iss.code === 'unrecognized_keys') {
      for (const key of iss.keys) fields.push({ path: appendPath(path, key), message: VC_UNKNOWN_KEY });
    } else if (iss.code === 'custom' && (iss.params as Record<string, unknown> | undefined)?.[VC_INVARIANT]) {
      invariants.push({ path, message: iss.message });
    } else {
      fields.push({ path, message: iss.message });
    }
  }
  return [...invariants, ...fields];
}

/** Schema (contract/verification-context.ts, invariants included) and canonical-domain validation of a v1.0 document. */
export function validateDocument(doc: unknown): ValidateResult {
  const errors: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const issue of schemaIssues(doc)) {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push(issue);
  }
  try {
    assertCanonicalDomain(doc);
  } catch (err) {
    if (!(err instanceof CanonicalDomainError)) throw err;
    errors.push({ path: err.path, message: err.message.replace(/ at \S+$/, '') });
  }
  if (errors.length === 0) return { valid: true };
  return { valid: false, error: 'validation_failed', errors };
}

/**
 * sha256:<hex> of the RFC 8785 encoding of { formal_statement, context } with
 * context.evidence.proof_ref removed. Does not mutate `doc`. Throws CanonicalDomainError
 * when the bound payload is outside the canonical domain.
 */
export function computeCommitment(doc: Pick<VerificationContextDocument, 'object' | 'context'>): string {
  const { proof_ref: _removed, ...evidence } = doc.context.evidence;
  return sha256Ref({
    formal_statement: doc.object.formal_statement,
    context: { ...doc.context, evidence },
  });
}

export type ResolveReason = 'validation_failed' | 'verdict_not_verified' | 'commitment_mismatch';

export interface ResolveResult {
  resolved: boolean;
  reason?: ResolveReason;
  expected_proof_ref?: string;
  stored_proof_ref?: string | null;
  errors?: ValidationIssue[];
}

/** True only when schema-valid, verdict VERIFIED and the recomputed commitment equals proof_ref. */
export function resolveDocument(doc: unknown): ResolveResult {
  const validation = validateDocument(doc);
  if (!validation.valid) return { resolved: false, reason: 'validation_failed', errors: validation.errors };
  const d = doc as VerificationContextDocument;
  const stored = d.context.evidence.proof_ref;
  if (d.verdict !== 'VERIFIED') return { resolved: false, reason: 'verdict_not_verified', stored_proof_ref: stored };
  const expected = computeCommitment(d);
  if (expected !== stored) {
    return { resolved: false, reason: 'commitment_mismatch', expected_proof_ref: expected, stored_proof_ref: stored };
  }
  return { resolved: true, expected_proof_ref: expected, stored_proof_ref: stored };
}

// ---------------------------------------------------------------------------------------
// From-diagnostic mapping and trust gate
// ---------------------------------------------------------------------------------------

export type TrustGateCode =
  | 'trust_gate.malformed_diagnostic'
  | 'trust_gate.mandatory_attestation_missing'
  | 'trust_gate.invalid_attestation_token'
  | 'trust_gate.claims_missing'
  | 'trust_gate.claims_status_mismatch'
  | 'trust_gate.claims_query_mismatch'
  | 'trust_gate.claims_proof_mismatch';

export interface FromDiagnosticOptions {
  /** Public keys (with kid) the attestation may be signed with. */
  publicJwks: JWK[];
  /** Expected `iss` claim (the deployment identifier). */
  issuer: string;
  /** Default for proof.verifier_version. */
  serviceVersion: string;
}

export type FromDiagnosticResult =
  | {
      ok: true;
      document: VerificationContextDocument;
      /** Null when the trust gate kept the diagnostic's verdict; otherwise the BLOCKED reason. */
      trust_gate: TrustGateCode | null;
      trust_gate_reason: string | null;
      /** jti of the attestation the trust gate accepted (a kept VERIFIED verdict); otherwise null. */
      attestation_id: string | null;
    }
  | { ok: false; error: 'invalid_request'; errors: ValidationIssue[] };

/** developer_fields key holding the expression actually evaluated (bound by svc.query_hash). */
export const EVALUATED_EXPRESSION_FIELD = 'evaluated_expression';

export const OUTCOME_TREATMENT =
  'VERIFIED only with a retained proof and a matching attestation; unknown, timeout and error resolve to UNVERIFIABLE or BLOCKED';

const VERIFIER_THEORIES = new Map<string, string>([
  ['math', 'symbolic algebra over the reals'],
  ['sympy', 'symbolic algebra over the reals'],
  ['mathjs', 'symbolic algebra over the reals'],
  ['logic', 'satisfiability modulo theories'],
  ['z3', 'satisfiability modulo theories'],
  ['sql', 'relational algebra (SQL)'],
  ['code', 'static program analysis'],
  ['stats', 'statistical computation'],
  ['fact', 'textual entailment'],
  ['reasoning', 'reasoning-trace structure'],
  ['process', 'reasoning-trace structure'],
  ['rag', 'retrieval provenance'],
  ['consensus', 'multi-engine agreement'],
]);

/** interpretation.theory for a verifier name; unknown verifiers name their own domain. */
export function theoryForVerifier(verifier: string): string {
  return VERIFIER_THEORIES.get(verifier.trim().toLowerCase()) ?? verifier;
}

const DIAGNOSTIC_KEYS = new Set([
  'status',
  'agent_message',
  'developer_fields',
  'proof_ref',
  'is_authoritative',
  'admission',
]);

interface WellFormedDiagnostic {
  status: VcVerdict;
  agent_message: string;
  developer_fields: Record<string, unknown>;
  proof_ref: string | null;
  is_authoritative?: boolean;
  admission?: 'ADMIT' | 'BLOCKED';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Returns the reason a diagnostic is malformed, or null when it is a well-formed DiagnosticResult. */
function diagnosticProblem(d: unknown): string | null {
  if (!isPlainObject(d)) return 'diagnostic must be an object';
  for (const key of Object.keys(d))
    if (!DIAGNOSTIC_KEYS.has(key)) return `unknown diagnostic key ${JSON.stringify(key)}`;
  if (d.status !== 'VERIFIED' && d.status !== 'UNVERIFIABLE' && d.status !== 'BLOCKED') {
    return 'status must be VERIFIED, UNVERIFIABLE or BLOCKED';
  }
  if (typeof d.agent_message !== 'string') return 'agent_message must be a string';
  if (!isPlainObject(d.developer_fields)) return 'developer_fields must be an object';
  if (!('proof_ref' in d)) return 'proof_ref is required';
  if (d.status === 'VERIFIED') {
    if (typeof d.proof_ref !== 'string' || !PROOF_REF_PATTERN.test(d.proof_ref)) {
      return 'a VERIFIED diagnostic needs proof_ref sha256:<64 lowercase hex>';
    }
  } else if (d.proof_ref !== null) {
    return 'proof_ref must be null unless status is VERIFIED';
  }
  if ('is_authoritative' in d && d.is_authoritative !== (d.proof_ref !== null)) {
    return 'is_authoritative must be true iff proof_ref is set';
  }
  if ('admission' in d) {
    if (d.admission !== 'ADMIT' && d.admission !== 'BLOCKED') return 'admission must be ADMIT or BLOCKED';
    if (d.admission === 'ADMIT' && d.status !== 'VERIFIED') return 'admission ADMIT requires status VERIFIED';
  }
  if ('is_valid' in d.developer_fields && typeof d.developer_fields.is_valid !== 'boolean') {
    return 'developer_fields.is_valid must be a boolean';
  }
  const expr = d.developer_fields[EVALUATED_EXPRESSION_FIELD];
  if (expr !== undefined && (typeof expr !== 'string' || expr.length === 0)) {
    return `developer_fields.${EVALUATED_EXPRESSION_FIELD} must be a non-empty string`;
  }
  try {
    assertCanonicalDomain(d, '$.diagnostic');
  } catch (err) {
    if (err instanceof CanonicalDomainError) return err.message;
    throw err;
  }
  return null;
}

function requestProblems(input: unknown): ValidationIssue[] {
  if (!isPlainObject(input)) return [{ path: '$', message: 'request must be an object' }];
  const issues: ValidationIssue[] = [];
  const requireString = (key: string, optional: boolean) => {
    const v = input[key];
    if (v === undefined && optional) return;
    if (typeof v !== 'string' || v.length === 0) {
      issues.push({
        path: `$.${key}`,
        message: optional ? 'must be a non-empty string when present' : 'is required (non-empty string)',
      });
      return;
    }
    try {
      assertCanonicalDomain(v, `$.${key}`);
    } catch (err) {
      if (!(err instanceof CanonicalDomainError)) throw err;
      issues.push({ path: `$.${key}`, message: 'must not contain lone surrogates' });
    }
  };
  requireString('query', false);
  requireString('verifier', false);
  requireString('verifier_version', true);
  if (
    input.attestation_token !== undefined &&
    input.attestation_token !== null &&
    typeof input.attestation_token !== 'string'
  ) {
    issues.push({ path: '$.attestation_token', message: 'must be a string when present' });
  }
  if (!('diagnostic' in input)) issues.push({ path: '$.diagnostic', message: 'is required' });
  return issues;
}

type GateOutcome = { pass: true; jti: string } | { pass: false; code: TrustGateCode; reason: string };

async function applyTrustGate(
  diagnostic: WellFormedDiagnostic,
  formalStatement: string,
  token: string | undefined,
  opts: FromDiagnosticOptions,
): Promise<GateOutcome> {
  if (token === undefined || token.length === 0) {
    return {
      pass: false,
      code: 'trust_gate.mandatory_attestation_missing',
      reason: 'a VERIFIED diagnostic needs an attestation_token',
    };
  }
  const verified = await verifyAttestationToken(token, opts.publicJwks, opts.issuer);
  if (!verified.valid) {
    if (verified.reason === 'claims missing') {
      return { pass: false, code: 'trust_gate.claims_missing', reason: 'attestation lacks required svc claims' };
    }
    return {
      pass: false,
      code: 'trust_gate.invalid_attestation_token',
      reason: `attestation rejected: ${verified.reason}`,
    };
  }
  const svc = verified.claims.svc as Partial<AttestationClaims['svc']>;
  const result = svc.result as Partial<AttestationClaims['svc']['result']>;
  if (!('proof_hash' in svc) || typeof result.verified !== 'boolean') {
    return { pass: false, code: 'trust_gate.claims_missing', reason: 'attestation lacks required svc claims' };
  }
  if (result.status !== diagnostic.status || result.verified !== true) {
    return {
      pass: false,
      code: 'trust_gate.claims_status_mismatch',
      reason: 'attested status differs from the diagnostic',
    };
  }
  // A token that signs an admission binds it: a diagnostic of blocked content cannot drop or flip
  // its admission and keep the attestation (the admission is signed beside the status). A client
  // that sends no admission is held to the one its own fields imply (admissionOf), so an honest
  // diagnostic passes and one that flips `is_valid` does not.
  const claimedAdmission =
    diagnostic.admission ?? admissionOf(diagnostic.status as VerdictStatus, diagnostic.developer_fields);
  if (result.admission !== undefined && result.admission !== claimedAdmission) {
    return {
      pass: false,
      code: 'trust_gate.claims_status_mismatch',
      reason: 'attested admission differs from the diagnostic',
    };
  }
  const expectedQuery = queryHash(formalStatement);
  if (svc.query_hash !== expectedQuery || verified.claims.sub !== expectedQuery) {
    return {
      pass: false,
      code: 'trust_gate.claims_query_mismatch',
      reason: 'attested query hash differs from the evaluated statement',
    };
  }
  if (svc.proof_hash !== diagnostic.proof_ref) {
    return {
      pass: false,
      code: 'trust_gate.claims_proof_mismatch',
      reason: "attested proof hash differs from the diagnostic's proof_ref",
    };
  }
  return { pass: true, jti: verified.claims.jti };
}

function diagnosticContent(d: WellFormedDiagnostic): Record<string, unknown> {
  const content: Record<string, unknown> = {
    status: d.status,
    agent_message: d.agent_message,
    developer_fields: d.developer_fields,
    proof_ref: d.proof_ref,
  };
  if (d.is_authoritative !== undefined) content.is_authoritative = d.is_authoritative;
  if (d.admission !== undefined) content.admission = d.admission;
  return content;
}

/** ADMIT only when the diagnostic is VERIFIED and neither its admission nor is_valid says otherwise. */
function admissionFor(d: WellFormedDiagnostic): VcAdmission {
  if (d.status !== 'VERIFIED') return 'DENY';
  if (d.admission !== undefined && d.admission !== 'ADMIT') return 'DENY';
  if ('is_valid' in d.developer_fields && d.developer_fields.is_valid !== true) return 'DENY';
  return 'ADMIT';
}

/**
 * Maps a from-diagnostic request to a Verification Context document and applies the trust
 * gate. Request-envelope errors (missing query/verifier, wrong types) give ok:false; every
 * problem with the diagnostic or its attestation gives a schema-valid BLOCKED document whose
 * evidence records `{ trust_gate, trust_gate_reason, diagnostic? }`.
 */
export async function fromDiagnostic(input: unknown, opts: FromDiagnosticOptions): Promise<FromDiagnosticResult> {
  const issues = requestProblems(input);
  if (issues.length > 0) return { ok: false, error: 'invalid_request', errors: issues };
  const req = input as Record<string, unknown>;
  const query = req.query as string;
  const verifier = req.verifier as string;
  const verifierVersion = (req.verifier_version as string | undefined) ?? opts.serviceVersion;
  const token = typeof req.attestation_token === 'string' ? req.attestation_token : undefined;

  const problem = diagnosticProblem(req.diagnostic);
  const diagnostic = problem === null ? (req.diagnostic as unknown as WellFormedDiagnostic) : null;
  const evaluated = diagnostic?.developer_fields[EVALUATED_EXPRESSION_FIELD];
  const formalStatement = typeof evaluated === 'string' ? evaluated : query;

  const build = (
    verdict: VcVerdict,
    evidence: Record<string, unknown>,
    admission: VcAdmission,
  ): VerificationContextDocument => ({
    spec_version: '1.0',
    object: { formal_statement: formalStatement, formalization: { source_query: query, verified: false } },
    context: {
      interpretation: { theory: theoryForVerifier(verifier) },
      proof: { verifier, verifier_version: verifierVersion, outcome_treatment: OUTCOME_TREATMENT },
      evidence: { evidence, proof_ref: null },
      decision: { admission },
    },
    verdict,
  });

  const finish = (
    doc: VerificationContextDocument,
    gate: TrustGateCode | null,
    reason: string | null,
    attestationId: string | null = null,
  ): FromDiagnosticResult => {
    const check = validateDocument(doc);
    if (!check.valid) {
      // Unreachable once the request and diagnostic passed their checks; never emit an invalid document.
      throw new Error(`from-diagnostic built an invalid document: ${JSON.stringify(check.errors)}`);
    }
    return { ok: true, document: doc, trust_gate: gate, trust_gate_reason: reason, attestation_id: attestationId };
  };

  const blocked = (code: TrustGateCode, reason: string): FromDiagnosticResult => {
    const evidence: Record<string, unknown> = { trust_gate: code, trust_gate_reason: reason };
    if (diagnostic) evidence.diagnostic = diagnosticContent(diagnostic);
    return finish(build('BLOCKED', evidence, 'DENY'), code, reason);
  };

  if (!diagnostic) return blocked('trust_gate.malformed_diagnostic', problem ?? 'malformed diagnostic');

  if (diagnostic.status !== 'VERIFIED') {
    // Nothing to keep: the document is already fail-closed, so no attestation is consulted.
    return finish(build(diagnostic.status, diagnosticContent(diagnostic), 'DENY'), null, null);
  }

  const gate = await applyTrustGate(diagnostic, formalStatement, token, opts);
  if (!gate.pass) return blocked(gate.code, gate.reason);

  const doc = build('VERIFIED', diagnosticContent(diagnostic), admissionFor(diagnostic));
  doc.context.evidence.proof_ref = computeCommitment(doc);
  return finish(doc, null, null, gate.jti);
}
