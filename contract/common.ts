// Shapes every endpoint shares (contract, "Errors" and "Verification result"): the `{detail}`
// error body, the SVC-005 rate-limit body and the DiagnosticResult. Imports nothing but zod.
import { z } from 'zod';

/** Every error but the plan rate limit: `{detail}` (some carry extra fields, e.g. a position). */
export const errorBodySchema = z
  .looseObject({
    detail: z.string().meta({ description: 'What went wrong, for a person to read.' }),
    code: z.string().meta({
      description:
        'Stable machine-readable code (contract/error-codes.ts): one per status, or a more specific one such as `invalid_field`, `route_not_found`, `store_unavailable`, `SVC-AGENT-CTX-001`.',
    }),
    request_id: z.string().meta({
      description:
        'The request id, also in the `X-Request-Id` header and the access log; quote it when reporting a problem.',
    }),
  })
  .meta({
    id: 'ErrorBody',
    description: 'Every error but the plan rate limit.',
    example: {
      detail: "Invalid field 'expression': expression is required",
      code: 'invalid_field',
      request_id: '6f1c2b0e-8f5d-4a53-9a57-2f0e3c1d9b21',
    },
  });
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const RATE_LIMIT_CODE = 'SVC-005';
export const RATE_LIMIT_MESSAGE = 'Rate limit exceeded';

/** The plan rate-limit 429 body (contract, "Errors": the SVC-005 object). */
export const rateLimitErrorSchema = z
  .object({
    error: z.object({
      code: z.literal(RATE_LIMIT_CODE),
      message: z.string(),
      details: z.object({
        limit: z.number(),
        /** ISO 8601 time the window resets. */
        reset_at: z.string(),
        /** Seconds until a retry may succeed. */
        retry_after: z.number(),
      }),
    }),
    /** Added beside the contract's object (its fields unchanged); also the X-Request-Id header. */
    request_id: z.string(),
  })
  .meta({
    id: 'RateLimitError',
    example: {
      error: {
        code: 'SVC-005',
        message: 'Rate limit exceeded',
        details: { limit: 60, reset_at: '2026-01-01T00:01:00.000Z', retry_after: 42 },
      },
      request_id: '6f1c2b0e-8f5d-4a53-9a57-2f0e3c1d9b21',
    },
  });
export type RateLimitError = z.infer<typeof rateLimitErrorSchema>;

export const VERDICT_STATUSES = ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];
export const ADMISSIONS = ['ADMIT', 'BLOCKED'] as const;
export type Admission = (typeof ADMISSIONS)[number];

/** `sha256:<64 hex>`; set only on VERIFIED results. */
export const proofRefSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** The DiagnosticResult of /verify/code, /verify/sql, /verify/stats and batch math items. */
export const diagnosticResultSchema = z
  .looseObject({
    status: z.enum(VERDICT_STATUSES),
    agent_message: z.string(),
    developer_fields: z.record(z.string(), z.unknown()),
    proof_ref: proofRefSchema.nullable(),
    is_authoritative: z.boolean(),
    admission: z.enum(ADMISSIONS).optional(),
  })
  .meta({
    id: 'DiagnosticResult',
    example: {
      status: 'VERIFIED',
      agent_message: 'No critical issue found.',
      developer_fields: { constraint_id: 'code_verifier.code_safe', is_valid: true },
      proof_ref: 'sha256:' + '0'.repeat(64),
      is_authoritative: true,
      admission: 'ADMIT',
    },
  });
export type DiagnosticResult = z.infer<typeof diagnosticResultSchema>;

/** The attestation a VERIFIED result carries (its token is also served by GET /attestation/{id}). */
export const attestationRefSchema = z
  .object({ id: z.string(), token: z.string(), status: z.string() })
  .meta({ id: 'AttestationRef' });

/** /verify/code and /verify/sql: the DiagnosticResult with `admission`, plus the attestation of a VERIFIED result. */
export const admittedDiagnosticSchema = diagnosticResultSchema
  .extend({ attestation: attestationRefSchema.optional() })
  .meta({ id: 'AdmittedDiagnosticResult' });

/** Message for a required string: missing vs wrong type (null counts as missing). */
export const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined || iss.input === null ? `${field} is required` : `${field} must be a string`;

/** 503 details of the container sandbox (contract, "Errors"); never a VERIFIED. */
export const SANDBOX_UNAVAILABLE_MESSAGE = 'sandbox unavailable';
export const SANDBOX_CAPACITY_MESSAGE = 'Sandbox capacity reached — retry shortly.';

/** The JSON object every body-less JSON route accepts (nothing is read from it). */
export const emptyRequestSchema = z.object({});

// ---- Null means absent (issue 23) ----
// The reference (FastAPI/pydantic) and clients generated from an OpenAPI document send JSON
// null for an optional value they were not given. Every optional request field reads null as
// "not given": the request with `"field": null` gets the same answer as the request without
// the key (defaults apply). Required fields that are null keep their 400 naming the field. A
// field whose schema already accepts null (null has a meaning of its own) is left as it is.

const nullToUndefined = (value: unknown) => (value === null ? undefined : value);

/** Marks the rendered OpenAPI schema nullable (3.1: `null` joins the type, or an anyOf branch). */
function addNullToDocument({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  const type = jsonSchema.type;
  if (typeof type === 'string' && !('enum' in jsonSchema) && !('const' in jsonSchema)) {
    jsonSchema.type = [type, 'null'];
    return;
  }
  if (Array.isArray(type)) {
    if (!type.includes('null')) type.push('null');
    return;
  }
  const copy = { ...jsonSchema };
  for (const k of Object.keys(jsonSchema))
    if (k !== 'description' && k !== 'default' && k !== 'example' && k !== 'examples') delete jsonSchema[k];
  for (const k of ['description', 'default', 'example', 'examples']) delete copy[k];
  jsonSchema.anyOf = [copy, { type: 'null' }];
}

/** Whether a schema is an optional key (absent allowed) that does not accept null of its own. */
export function isNullableAbsentCandidate(field: z.ZodType): boolean {
  return field._zod.optin !== undefined && !field.safeParse(null).success;
}

/** The wrapped fields, so that validators outside zod can apply the same rule (withoutNullAbsent). */
const nullAbsentFields = new WeakSet<z.ZodType>();

/** One optional field whose null is read as absent (parse) and declared nullable (OpenAPI). */
export function nullAsAbsent<T extends z.ZodType>(field: T): T {
  // Typed as the field itself: the output is unchanged, and null is only ever an input.
  const wrapped = z.preprocess(nullToUndefined, field).meta({ override: addNullToDocument });
  nullAbsentFields.add(wrapped);
  return wrapped as unknown as T;
}

/** The object schema under optional/default/nullable wrappers and null-as-absent pipes, if any. */
function objectUnder(schema: z.ZodType): z.ZodObject | null {
  let s: z.ZodType = schema;
  for (let i = 0; i < 8; i++) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType };
    if (def.type === 'object') return s as z.ZodObject;
    if (def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in && def.out) s = def.in._zod.def.type === 'transform' ? def.out : def.in;
    else return null;
  }
  return null;
}

/**
 * The same rule for a handler that validates a body with its own code rather than the contract's
 * zod schema (e.g. the strict-JSON from-diagnostic reader): a copy of `value` without the keys
 * whose null means absent, nested request objects included.
 */
export function withoutNullAbsent(schema: z.ZodType, value: unknown): unknown {
  const object = objectUnder(schema);
  if (object === null || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, field] of Object.entries(object.shape as Record<string, z.ZodType>)) {
    if (!(key in out)) continue;
    if (out[key] === null && nullAbsentFields.has(field)) delete out[key];
    else out[key] = withoutNullAbsent(field, out[key]);
  }
  return out;
}

/**
 * A request object whose every optional key reads null as absent. Applied before `.meta()` and
 * refinements (it extends the object); nested request objects are wrapped on their own.
 */
export function nullMeansAbsent<T extends z.ZodObject>(object: T): T {
  const wrapped: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(object.shape as Record<string, z.ZodType>)) {
    if (isNullableAbsentCandidate(field)) wrapped[key] = nullAsAbsent(field);
  }
  return object.extend(wrapped) as unknown as T;
}
