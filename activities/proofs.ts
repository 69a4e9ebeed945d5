// Proof retention and verdict finalisation: the only place where an engine's "proven"
// outcome becomes VERIFIED. The artifact is stored under its own proof_ref (sha256 of its
// RFC 8785 form), and an ES256 attestation is signed; if either fails, the result is not
// VERIFIED (fail closed).
import { createHash } from 'node:crypto';
import { canonicalJson, sha256Ref } from '../core/canonical-json.js';
import { derivedIdHex } from '../core/time-ordered-id.js';
import { admissionOf, buildDiagnostic, type DiagnosticResult, type EngineOutcome } from '../core/diagnostic.js';
import { AttestationError, type AttestationSigner, type IssuedAttestation } from '../core/attestation.js';
import type { Store } from '../core/store.js';
import {
  findAttestation,
  insertProof,
  insertProofs,
  recordAttestation,
  recordAttestations,
} from '../persistence/proofs.js';

export const SIGNING_ERROR_CONSTRAINT = 'api.attestation.signing_error';

export interface ProofContext {
  store: Store;
  signer: AttestationSigner;
  /**
   * SVC_PROOF_IN_AUDIT_ENTRY (session 24; default true): where the attestation record rides in
   * the audit entry, the proof does too. False keeps the proof in `proofs` (a rolling deploy
   * while API processes of session 23, which read only `proofs`, still answer).
   */
  proofInAuditEntry?: boolean;
}

/**
 * Review A2 (session 24, docs/store-access.md §18 "What the audit reads pay"): an artifact whose
 * canonical JSON is larger than this stays in `proofs` (as before session 24) even where its
 * record rides in the entry. Every page of `/audit/logs`, every export and report reads whole
 * entries, so the artifact's bytes are paid at every read; this bounds what one entry grows by
 * (a math proof's artifact is ~0.4–0.6 KB for an identity of a few terms, several KB near the
 * 2,000-character expression limit).
 */
export const PROOF_IN_ENTRY_MAX_BYTES = 1024;

/**
 * Whether a proof whose attestation record rides in its audit entry rides there too
 * (ProofContext.proofInAuditEntry; and, given the artifact, only up to PROOF_IN_ENTRY_MAX_BYTES).
 */
export function proofRidesInEntry(
  ctx: Pick<ProofContext, 'proofInAuditEntry'>,
  recordInAuditEntry: boolean | undefined,
  artifact?: Record<string, unknown>,
) {
  if (recordInAuditEntry !== true || ctx.proofInAuditEntry === false) return false;
  return artifact === undefined || Buffer.byteLength(canonicalJson(artifact)) <= PROOF_IN_ENTRY_MAX_BYTES;
}

/** Stores the artifact (idempotently: same artifact, same id) and returns its proof_ref. */
export async function retainProof(
  store: Store,
  engine: string,
  orgId: string | null,
  artifact: Record<string, unknown>,
): Promise<string> {
  const proofRef = sha256Ref(artifact);
  // Insert-once, group-committed with the concurrent verifications of this process; a duplicate
  // key is the same artifact already retained (persistence/proofs.ts).
  await insertProof(store, proofRef, { artifact, engine, org_id: orgId, created_at: new Date() });
  return proofRef;
}

export interface FinalizeOptions {
  engine: string;
  orgId: string | null;
  /** The expression actually evaluated (bound into the attestation's query_hash). */
  evaluatedExpression: string;
  withAdmission?: boolean;
  confidence?: number;
}

export interface FinalizedDiagnostic {
  diagnostic: DiagnosticResult;
  attestation: IssuedAttestation | null;
  attestationError: string | null;
}

export async function finalizeOutcome(
  ctx: ProofContext,
  outcome: EngineOutcome,
  opts: FinalizeOptions,
): Promise<FinalizedDiagnostic> {
  if (outcome.kind !== 'proven') return finalizedOf(outcome, undefined, opts.withAdmission ?? false);
  const withAdmission = opts.withAdmission ?? false;
  // Signed beside the status: a proven-unsafe result is VERIFIED and BLOCKED, and says so in its token.
  const sealed = await sealProof(ctx, outcome.proof, {
    ...opts,
    ...(withAdmission ? { admission: admissionOf('VERIFIED', outcome.developerFields) } : {}),
  });
  return finalizedOf(outcome, sealed, withAdmission);
}

/**
 * The diagnostic of an outcome once its proof is sealed (or not proven: `sealed` undefined).
 * Proven but unattested is never VERIFIED (contract, batch row "attestation signing fails").
 */
function finalizedOf(
  outcome: EngineOutcome,
  sealed: SealedProof | undefined,
  withAdmission: boolean,
): FinalizedDiagnostic {
  const { agentMessage, developerFields } = outcome;
  if (outcome.kind !== 'proven' || !sealed) {
    const status = outcome.kind === 'blocked' ? 'BLOCKED' : 'UNVERIFIABLE';
    return {
      diagnostic: buildDiagnostic({ status, agentMessage, developerFields, withAdmission }),
      attestation: null,
      attestationError: null,
    };
  }
  if (sealed.ok)
    return {
      diagnostic: buildDiagnostic({
        status: 'VERIFIED',
        agentMessage,
        developerFields,
        proofRef: sealed.proofRef,
        withAdmission,
      }),
      attestation: sealed.attestation,
      attestationError: null,
    };
  return {
    diagnostic: buildDiagnostic({
      status: 'UNVERIFIABLE',
      agentMessage: 'The claim was proven but its attestation could not be signed; the result is not authoritative.',
      developerFields: {
        ...developerFields,
        constraint_id: SIGNING_ERROR_CONSTRAINT,
        attestation_error: sealed.attestationError,
      },
      withAdmission,
    }),
    attestation: null,
    attestationError: sealed.attestationError,
  };
}

/**
 * The attestation id of the verification run by workflow `workflowId` for `orgId`: derived, so
 * that every attempt of its activity (a retry, a re-run after a worker crash) issues the same id,
 * and the audit entry written by the first attempt names the attestation the caller gets. With
 * `idTimeMs` (the workflow's start time, session 23) it starts with that time, and so does the
 * id of the entry that carries it (attestationEntryId keeps the hex): core/time-ordered-id.ts.
 */
export function attestationIdFor(orgId: string | null, workflowId: string, idTimeMs?: number): string {
  const digest = createHash('sha256')
    .update(`attestation\u0000${orgId ?? ''}\u0000${workflowId}`, 'utf8')
    .digest('hex');
  return `att_${derivedIdHex(digest, idTimeMs)}`;
}

/**
 * Records an issued attestation in `attestations` (insert-once by jti) and returns the one to
 * answer: this one, or, when an earlier attempt of the same verification stored its record
 * (`derived`: the jti is attestationIdFor's), that record, never a second token. Throws on a
 * store failure (the activity retries) and when the stored record is another proof's.
 */
export async function recordIssuedAttestation(
  ctx: ProofContext,
  attestation: IssuedAttestation,
  meta: {
    orgId: string | null;
    engine: string;
    proofRef: string;
    derived: boolean;
    /**
     * The artifact, when it was to ride in an audit entry that turned out to carry no record
     * (session 24): where the record goes, the proof goes, so it is retained in `proofs` first.
     */
    artifact?: Record<string, unknown>;
  },
): Promise<IssuedAttestation> {
  if (meta.artifact) await retainProof(ctx.store, meta.engine, meta.orgId, meta.artifact);
  const inserted = await recordAttestation(ctx.store, attestation, meta);
  if (inserted || !meta.derived) return attestation;
  // attestations by `_id` (or the audit entry that carries it: findAttestation).
  const stored = await findAttestation(ctx.store, attestation.jti);
  if (!stored || stored.org_id !== meta.orgId || stored.proof_ref !== meta.proofRef)
    throw new Error(`attestation ${attestation.jti} is stored for another proof`);
  return { token: stored.token, jti: stored._id, claims: stored.claims, status: stored.status };
}

export type SealedProof =
  { ok: true; proofRef: string; attestation: IssuedAttestation } | { ok: false; attestationError: string };

/**
 * The one finalisation path of a proven outcome (finalizeOutcome, the math activity): retain the
 * artifact under its proof_ref, sign the ES256 attestation, record it. A signing failure is a
 * value (the caller answers UNVERIFIABLE); a store failure is thrown (the activity retries).
 */
export async function sealProof(
  ctx: ProofContext,
  proof: Record<string, unknown>,
  opts: Pick<FinalizeOptions, 'engine' | 'orgId' | 'evaluatedExpression' | 'confidence'> & {
    admission?: ReturnType<typeof admissionOf>;
    /** A derived attestation id (attestationIdFor): a later attempt answers the record the first one stored. */
    attestationId?: string;
    /**
     * The caller stores the attestation record in the verification's audit entry, which it writes
     * before returning the verdict (the math activity; persistence/proofs.ts): not recorded here.
     * Since session 24 the proof rides in the same entry (AttestationInEntry.artifact): not
     * retained here either; the entry's insert retains both before the verdict leaves.
     */
    recordInAuditEntry?: boolean;
  },
): Promise<SealedProof> {
  const proofRef = proofRidesInEntry(ctx, opts.recordInAuditEntry, proof)
    ? sha256Ref(proof)
    : await retainProof(ctx.store, opts.engine, opts.orgId, proof);
  try {
    const attestation = await ctx.signer.sign(
      {
        evaluatedExpression: opts.evaluatedExpression,
        status: 'VERIFIED',
        verified: true,
        engine: opts.engine,
        confidence: opts.confidence ?? 1,
        proofRef,
        ...(opts.admission ? { admission: opts.admission } : {}),
      },
      { jti: opts.attestationId },
    );
    if (opts.recordInAuditEntry) return { ok: true, proofRef, attestation };
    // A store failure is not an AttestationError: the catch below rethrows it (the activity retries).
    const recorded = await recordIssuedAttestation(ctx, attestation, {
      orgId: opts.orgId,
      engine: opts.engine,
      proofRef,
      derived: opts.attestationId !== undefined,
    });
    return { ok: true, proofRef, attestation: recorded };
  } catch (err) {
    if (!(err instanceof AttestationError)) throw err;
    return { ok: false, attestationError: err.code };
  }
}

/**
 * finalizeOutcome for several outcomes at once (a batch chunk, issue 22): the same verdicts, with
 * the store writes grouped. Every proven artifact is retained (one insertMany) before any
 * attestation is recorded (they are signed meanwhile, in memory); the signed attestations are
 * recorded (one insertMany) before any verdict is returned. `attestationId` per outcome (attestationIdFor) makes a retried chunk
 * answer the attestations its first attempt stored. A store failure rejects (the caller retries).
 *
 * `recordInAuditEntry` (session 17, a batch math unit whose workflow asks for it): the signed
 * attestations are not recorded here; the caller stores each in its item's audit entry, which it
 * writes before any verdict is released (activities/verify-batch.ts). Since session 24 the proofs
 * ride in the same entries (AttestationInEntry.artifact, the outcome's proof): no `proofs` insert.
 */
export async function finalizeOutcomes(
  ctx: ProofContext,
  items: Array<{ outcome: EngineOutcome; opts: FinalizeOptions & { attestationId?: string } }>,
  mode: { recordInAuditEntry?: boolean } = {},
): Promise<FinalizedDiagnostic[]> {
  const proven = items.flatMap(({ outcome, opts }, i) =>
    outcome.kind === 'proven' ? [{ i, proof: outcome.proof, opts, proofRef: sha256Ref(outcome.proof) }] : [],
  );
  const createdAt = new Date();
  // Session 24: with `recordInAuditEntry` each proof rides in its item's entry beside the
  // attestation record (the caller's insert retains both before any verdict is released).
  // Review A2: an artifact over PROOF_IN_ENTRY_MAX_BYTES goes to `proofs` all the same.
  const toProofs = proven.filter((p) => !proofRidesInEntry(ctx, mode.recordInAuditEntry, p.proof));
  const retained =
    toProofs.length > 0
      ? insertProofs(
          ctx.store,
          toProofs.map((p) => ({
            proofRef: p.proofRef,
            record: { artifact: p.proof, engine: p.opts.engine, org_id: p.opts.orgId, created_at: createdAt },
          })),
        )
      : Promise.resolve();
  // Signed beside the proofs' insert (the signature needs only the proof_ref, a hash): no
  // attestation is recorded and no verdict returned before every proof is stored (awaited first).
  // A signing failure is that item's value, never VERIFIED.
  const signing = Promise.all(
    proven.map(async (p): Promise<IssuedAttestation | { error: string }> => {
      const outcome = items[p.i]!.outcome as Extract<EngineOutcome, { kind: 'proven' }>;
      try {
        return await ctx.signer.sign(
          {
            evaluatedExpression: p.opts.evaluatedExpression,
            status: 'VERIFIED',
            verified: true,
            engine: p.opts.engine,
            confidence: p.opts.confidence ?? 1,
            proofRef: p.proofRef,
            ...(p.opts.withAdmission ? { admission: admissionOf('VERIFIED', outcome.developerFields) } : {}),
          },
          { jti: p.opts.attestationId },
        );
      } catch (err) {
        if (!(err instanceof AttestationError)) throw err;
        return { error: err.code };
      }
    }),
  );
  void signing.catch(() => undefined); // awaited below; handled if the proofs' insert fails first
  await retained;
  const signed = await signing;
  const toRecord = proven.flatMap((p, k) => {
    const a = signed[k]!;
    return 'error' in a ? [] : [{ k, issued: a, orgId: p.opts.orgId, engine: p.opts.engine, proofRef: p.proofRef }];
  });
  const sealed = new Map<number, SealedProof>();
  proven.forEach((p, k) => {
    const a = signed[k]!;
    if ('error' in a) sealed.set(p.i, { ok: false, attestationError: a.error });
    else if (mode.recordInAuditEntry) sealed.set(p.i, { ok: true, proofRef: p.proofRef, attestation: a });
  });
  if (mode.recordInAuditEntry)
    return items.map(({ outcome, opts }, i) => finalizedOf(outcome, sealed.get(i), opts.withAdmission ?? false));
  const inserted = await recordAttestations(ctx.store, toRecord);
  await Promise.all(
    toRecord.map(async (r, j) => {
      const p = proven[r.k]!;
      if (inserted[j] || p.opts.attestationId === undefined) {
        sealed.set(p.i, { ok: true, proofRef: p.proofRef, attestation: r.issued });
        return;
      }
      // An earlier attempt stored this attestation (and maybe the audit entry naming it): that record.
      const stored = await findAttestation(ctx.store, r.issued.jti);
      if (!stored || stored.org_id !== p.opts.orgId || stored.proof_ref !== p.proofRef)
        throw new Error(`attestation ${r.issued.jti} is stored for another proof`);
      sealed.set(p.i, {
        ok: true,
        proofRef: p.proofRef,
        attestation: { token: stored.token, jti: stored._id, claims: stored.claims, status: stored.status },
      });
    }),
  );
  return items.map(({ outcome, opts }, i) => finalizedOf(outcome, sealed.get(i), opts.withAdmission ?? false));
}
