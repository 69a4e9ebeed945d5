// /verification-context/*: from-diagnostic, validate and resolve (docs/verification-context.md).
// Bodies are re-parsed from the raw text with the strict parser: a document is a hashed
// artifact, so integers beyond 2^53, lone surrogates and duplicate keys are rejected (400)
// rather than silently rounded, replaced or resolved "last key wins".
import type { Context } from 'koa';
import { parseStrictJson, StrictJsonError } from '../../core/strict-json.js';
import { fromDiagnostic, resolveDocument, validateDocument } from '../../core/verification-context.js';
import { SERVICE_VERSION } from '../../core/version.js';
import { withoutNullAbsent } from '../../contract/common.js';
import { fromDiagnosticRequestSchema } from '../../contract/verification-context.js';
import { HttpError } from '../errors.js';
import { keyLimit } from '../middleware/rate-limit.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { attestationKeyRing } from '../attestations.js';
import { principalOf } from '../middleware/auth.js';
import { recordIssuance, wasIssuedHere, type IssuedHereReason } from '../../core/verification-context-issuance.js';

/** Per-key limit shared by the three endpoints (the contract leaves the number open). */
export const VC_LIMIT_PER_MINUTE = 600;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request body parsed strictly; 400 with the offending code, JSON path and position. */
export function strictJsonBody(ctx: Context): unknown {
  const raw = ctx.state.rawBody as string | undefined;
  if (raw === undefined || raw.trim() === '') throw new HttpError(400, 'Request body is required (a JSON object).');
  try {
    return parseStrictJson(raw);
  } catch (err) {
    if (!(err instanceof StrictJsonError)) throw err;
    const detail = `Invalid JSON body (${err.code}) at ${err.path}: ${err.detail}`;
    throw new HttpError(400, detail, {}, { detail, code: err.code, path: err.path, position: err.position });
  }
}

/** validate/resolve accept the document itself or `{ "document": { ... } }` (a document never has a lone `document` key). */
function documentOf(body: unknown): unknown {
  if (isPlainObject(body) && Object.keys(body).length === 1 && isPlainObject(body.document)) return body.document;
  return body;
}

export function verificationContextHandlers(deps: AppDeps) {
  const guard = [
    ...apiKeyGuard(deps, 'verify:read'),
    keyLimit(deps.counter, 'verification-context', VC_LIMIT_PER_MINUTE, 60),
  ];

  const vcFromDiagnostic = endpoint('vcFromDiagnostic', [...guard], async (ctx) => {
    // Null means absent for the optional fields (contract/common.ts), as for every other route.
    const body = withoutNullAbsent(fromDiagnosticRequestSchema, strictJsonBody(ctx));
    const ring = await attestationKeyRing(deps.cfg);
    const out = await fromDiagnostic(body, {
      publicJwks: ring.publicJwks,
      issuer: deps.cfg.SVC_DEPLOYMENT_ID,
      serviceVersion: SERVICE_VERSION,
    });
    if (!out.ok) {
      const first = out.errors[0];
      const detail = first ? `Invalid field '${first.path}': ${first.message}` : 'Invalid request body';
      throw new HttpError(400, detail, {}, { detail, error: out.error, errors: out.errors });
    }
    // The contract's response is the document itself; the gate code and whether this service
    // vouches for the document (docs/verification-context-http.md, "Issued here") travel in headers.
    const doc = out.document;
    let issued: { issued: boolean; reason: IssuedHereReason } = { issued: false, reason: 'not_resolved' };
    if (doc.verdict === 'VERIFIED' && out.attestation_id !== null && doc.context.evidence.proof_ref !== null) {
      const diagnosticProofRef = (doc.context.evidence.evidence as { proof_ref?: unknown }).proof_ref;
      issued = await recordIssuance(deps.store, {
        orgId: principalOf(ctx).orgId,
        commitment: doc.context.evidence.proof_ref,
        attestationId: out.attestation_id,
        proofRef: String(diagnosticProofRef),
        admission: doc.context.decision.admission,
        verifier: doc.context.proof.verifier,
      });
    }
    ctx.set('X-Trust-Gate', out.trust_gate ?? 'none');
    ctx.set('X-Issued-Here', String(issued.issued));
    ctx.set('X-Issued-Here-Reason', issued.reason);
    ctx.body = doc;
  });

  const vcValidate = endpoint('vcValidate', [...guard], async (ctx) => {
    ctx.body = validateDocument(documentOf(strictJsonBody(ctx)));
  });

  const vcResolve = endpoint('vcResolve', [...guard], async (ctx) => {
    const r = resolveDocument(documentOf(strictJsonBody(ctx)));
    // `resolved` is the contract's (a self-consistent commitment, which anyone can compute);
    // `issued_here` says whether this service issued this exact document. Gate on issued_here.
    const issued = r.resolved && r.stored_proof_ref ? await wasIssuedHere(deps.store, r.stored_proof_ref) : false;
    const body: Record<string, unknown> = {
      resolved: r.resolved,
      issued_here: issued,
      issued_here_reason: (issued
        ? 'issued_by_this_service'
        : r.resolved
          ? 'not_issued_here'
          : 'not_resolved') satisfies IssuedHereReason,
    };
    if (r.reason) body.reason = r.reason;
    if (r.expected_proof_ref) body.expected_proof_ref = r.expected_proof_ref;
    if (r.errors) body.errors = r.errors;
    ctx.body = body;
  });
  return { vcFromDiagnostic, vcValidate, vcResolve };
}
