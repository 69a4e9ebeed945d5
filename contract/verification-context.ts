// /verification-context/* (contract, "Verification Context endpoints"): the v1.0 document
// schema (validated by core/verification-context.ts, which adds the canonical-encoding checks)
// and the requests and responses around it. Imports nothing but zod.
import { z } from 'zod';
import { diagnosticResultSchema, nullMeansAbsent } from './common.js';

export const VC_VERDICTS = ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'] as const;

// ---- The v1.0 document (reference notes, "Verification Context document") ----
// One strict zod schema: shape, unknown keys refused at every level, and the verdict /
// proof_ref / admission invariants. core/verification-context.ts turns its issues into the
// `{path, message}` list of /validate (JSONPath-like paths, the messages below) and adds the
// canonical-encoding checks. The messages are part of the API (tests assert them).

export const VC_UNKNOWN_KEY = 'unknown key is not allowed';
export const VC_REQUIRED = 'is required';
export const VC_PROOF_REF_FORM = 'must be sha256:<64 lowercase hex> or null';
export const VC_CONFIDENCE_FORM = 'must be a number in [0, 1] or null';
export const VC_INTERPRETATION_KEYS = [
  'theory',
  'logic',
  'dialect',
  'parser_version',
  'language',
  'policy_version',
  'algebra_domain',
] as const;
export const VC_INTERPRETATION_EMPTY = `must contain at least one of ${VC_INTERPRETATION_KEYS.join(', ')}`;
export const VC_VERIFIED_NEEDS_PROOF = 'verdict VERIFIED requires a non-null proof_ref sha256:<64 lowercase hex>';
export const VC_UNPROVEN_NEEDS_NULL_PROOF = 'verdict UNVERIFIABLE or BLOCKED requires proof_ref null';
export const VC_UNPROVEN_NEEDS_DENY = 'verdict UNVERIFIABLE or BLOCKED requires admission DENY';
/** Marks the invariant issues (they are reported before the field issues). */
export const VC_INVARIANT = 'vc_invariant';

const VC_PROOF_REF = /^sha256:[0-9a-f]{64}$/;

type Iss = { code?: string; input?: unknown };
/** Missing key: "is required"; otherwise the given message. */
const req = (message: string) => (iss: Iss) => (iss.input === undefined ? VC_REQUIRED : message);
/** A strict object: unknown keys refused, missing "is required", anything else "must be object". */
const strictObject = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (iss: Iss) => (iss.code === 'unrecognized_keys' ? VC_UNKNOWN_KEY : req('must be object')(iss)),
  });
const anyObject = () => z.record(z.string(), z.unknown(), { error: req('must be object') });
const str = () => z.string({ error: req('must be string') });
const nonEmpty = () => str().min(1, { error: 'must NOT have fewer than 1 characters' });
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: req(`must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`) });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The invariants (the old JSON Schema's allOf of if/then): VERIFIED ⇒ a well-formed proof_ref;
 * UNVERIFIABLE / BLOCKED ⇒ proof_ref null and admission DENY. Checked on whatever objects are
 * there, even when other fields are wrong, so every problem is reported at once.
 */
function vcInvariants(doc: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  if (!isObject(doc) || !isObject(doc.context)) return;
  const { evidence, decision } = doc.context;
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message, params: { [VC_INVARIANT]: true } });
  if (doc.verdict === 'VERIFIED' && isObject(evidence)) {
    if (!('proof_ref' in evidence)) issue(['context', 'evidence'], VC_VERIFIED_NEEDS_PROOF);
    else if (typeof evidence.proof_ref !== 'string' || !VC_PROOF_REF.test(evidence.proof_ref))
      issue(['context', 'evidence', 'proof_ref'], VC_VERIFIED_NEEDS_PROOF);
  }
  if (doc.verdict === 'UNVERIFIABLE' || doc.verdict === 'BLOCKED') {
    if (isObject(evidence)) {
      if (!('proof_ref' in evidence)) issue(['context', 'evidence'], VC_UNPROVEN_NEEDS_NULL_PROOF);
      else if (evidence.proof_ref !== null) issue(['context', 'evidence', 'proof_ref'], VC_UNPROVEN_NEEDS_NULL_PROOF);
    }
    if (isObject(decision)) {
      if (!('admission' in decision)) issue(['context', 'decision'], VC_UNPROVEN_NEEDS_DENY);
      else if (decision.admission !== 'DENY') issue(['context', 'decision', 'admission'], VC_UNPROVEN_NEEDS_DENY);
    }
  }
}

export const verificationContextDocumentSchema = strictObject({
  spec_version: z.literal('1.0', { error: req('must be "1.0"') }),
  object: strictObject({
    formal_statement: nonEmpty(),
    formalization: strictObject({
      verified: z.literal(false, { error: req('must be false') }),
      source_query: str().optional(),
      translator: str().optional(),
      translation_confidence: z
        .number({ error: () => VC_CONFIDENCE_FORM })
        .min(0, { error: VC_CONFIDENCE_FORM })
        .max(1, { error: VC_CONFIDENCE_FORM })
        .nullable()
        .optional(),
    }).optional(),
  }),
  context: strictObject({
    interpretation: strictObject(
      Object.fromEntries(VC_INTERPRETATION_KEYS.map((k) => [k, nonEmpty().optional()])) as Record<
        (typeof VC_INTERPRETATION_KEYS)[number],
        z.ZodOptional<z.ZodString>
      >,
    )
      // Unknown keys are refused, so "one property" means "one of the listed keys".
      .refine((o) => Object.keys(o).length > 0, { error: VC_INTERPRETATION_EMPTY }),
    proof: strictObject({
      verifier: nonEmpty(),
      verifier_version: nonEmpty(),
      configuration: anyObject().optional(),
      theory_scope: str().optional(),
      trusted_dependencies: z.array(str(), { error: req('must be array') }).optional(),
      outcome_treatment: str().optional(),
    }),
    evidence: strictObject({
      evidence: anyObject(),
      proof_ref: z
        .string({ error: req(VC_PROOF_REF_FORM) })
        .regex(VC_PROOF_REF, { error: VC_PROOF_REF_FORM })
        .nullable(),
    }),
    decision: strictObject({ admission: oneOf(['ADMIT', 'DENY']) }),
  }),
  verdict: oneOf(VC_VERDICTS),
})
  .superRefine(vcInvariants, { when: () => true })
  .meta({
    id: 'VerificationContextDocument',
    description:
      'Verification Context document v1.0. Invariants: VERIFIED requires proof_ref sha256:<64 lowercase hex>; UNVERIFIABLE and BLOCKED require proof_ref null and admission DENY.',
  });
export type VerificationContextDocument = z.infer<typeof verificationContextDocumentSchema>;

export const fromDiagnosticRequestSchema = nullMeansAbsent(
  z.object({
    query: z.string(),
    verifier: z.string(),
    diagnostic: nullMeansAbsent(diagnosticResultSchema.partial({ is_authoritative: true })),
    verifier_version: z.string().optional(),
    attestation_token: z.string().optional(),
  }),
).meta({
  example: {
    query: 'SELECT 1',
    verifier: 'sql',
    diagnostic: {
      status: 'UNVERIFIABLE',
      agent_message: 'not proven',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
      proof_ref: null,
    },
  },
});
export type FromDiagnosticRequest = z.infer<typeof fromDiagnosticRequestSchema>;

/** validate and resolve take the document, or `{ "document": <document> }`. */
export const documentRequestSchema = z.union([
  verificationContextDocumentSchema,
  z.object({ document: verificationContextDocumentSchema }),
]);

export const validationIssueSchema = z.object({ path: z.string(), message: z.string() });

/** 400 from from-diagnostic: `{detail, error, errors}`; 400 for malformed strict JSON: `{detail, code, path, position}`. */
export const verificationContextErrorSchema = z
  .looseObject({
    detail: z.string(),
    error: z.string().optional(),
    errors: z.array(validationIssueSchema).optional(),
    code: z.string().optional(),
    path: z.string().optional(),
    position: z.number().optional(),
  })
  .meta({ id: 'VerificationContextError' });

export const validateResponseSchema = z
  .object({
    valid: z.boolean(),
    error: z.literal('validation_failed').optional(),
    errors: z.array(validationIssueSchema).optional(),
  })
  .meta({
    id: 'ValidateResponse',
    example: {
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.verdict', message: 'must be equal to one of the allowed values' }],
    },
  });
export type ValidateResponse = z.infer<typeof validateResponseSchema>;

/** Why this service does or does not vouch for a document (docs/verification-context-http.md, "Issued here"). */
export const ISSUED_HERE_REASONS = ['issued_by_this_service', 'not_resolved', 'not_issued_here'] as const;

export const resolveResponseSchema = z
  .object({
    /** The commitment is self-consistent (contract). Anyone can compute one: gate on issued_here. */
    resolved: z.boolean(),
    /** This service issued this exact document (from-diagnostic, backed by its own attestation and retained proof). */
    issued_here: z.boolean(),
    issued_here_reason: z.enum(ISSUED_HERE_REASONS),
    reason: z.string().optional(),
    expected_proof_ref: z.string().optional(),
    errors: z.array(validationIssueSchema).optional(),
  })
  .meta({
    id: 'ResolveResponse',
    example: {
      resolved: false,
      issued_here: false,
      issued_here_reason: 'not_resolved',
      reason: 'verdict_not_verified',
    },
  });
export type ResolveResponse = z.infer<typeof resolveResponseSchema>;
