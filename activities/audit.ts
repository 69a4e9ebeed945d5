// appendAuditActivity: records one verification in its organization's audit chain. The
// workflow runs it right after the engine activity; if it fails (no SVC_AUDIT_SECRET_KEY,
// store down), the workflow fails and the caller gets a 503 instead of a verdict: no
// verification result is returned without its audit record (fail closed).
import { scanForLiveKeys, maskApiKey } from '../core/api-keys.js';
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Store } from '../core/store.js';
import { AuditChainError, type AuditEntryFields } from '../core/audit-chain.js';
import { AuditLog } from '../persistence/audit.js';
import type { AuditContext } from '../core/engines.js';
import type { AttestationInEntry } from '../core/audit-log.js';
import { logger } from '../core/logger.js';
import { derivedIdHex } from '../core/time-ordered-id.js';

const log = logger('audit');

export interface AppendAuditInput {
  org_id: string;
  workflow_id: string;
  engine: string;
  /** The validated request the engine received. */
  input: unknown;
  /** The engine activity's result, as returned to the caller. */
  result: unknown;
  audit: AuditContext | null;
  /** Entry id; default derived from the workflow id (one entry per workflow). */
  log_id?: string;
  /** The workflow's start time (epoch ms) when its run asked for time-ordered ids: the default entry id starts with it (auditLogId). */
  id_time_ms?: number;
  /**
   * The caller's own deadline (epoch ms), e.g. a batch unit's activity deadline: the append then
   * keeps trying until `budget_ms` after its first attempt, never past it. Absent: 8 s from queueing.
   */
  not_after_ms?: number;
  /** The append's budget with `not_after_ms` (default: up to not_after_ms). */
  budget_ms?: number;
  /**
   * The verification's attestation record, stored in its entry (one insert fewer: no separate
   * `attestations` record). Its jti must be the result's attestation id, and `log_id` its
   * attestationEntryId (persistence/proofs.ts), or GET /attestation/{id} cannot find it.
   */
  attestation?: AttestationInEntry;
}

export interface AppendAuditOutput {
  log_id: string;
  seq: number;
  /** True when the entry already existed (written by an earlier attempt of the same activity). */
  existing?: boolean;
  /** The attestation record the stored entry carries (an existing entry's may be absent: it was written without one). */
  attestation?: AttestationInEntry | null;
}

/** Longest query text kept in an entry; request_digest covers the full request. */
export const MAX_AUDIT_QUERY = 20_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Audit fields must be hashable (RFC 8785 domain): lone surrogates become U+FFFD. */
const wellFormed = (s: string) => s.replace(LONE_SURROGATE, '\ufffd');

const asRecord = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null => (typeof v === 'string' ? wellFormed(v) : null);

/** Raw production keys never reach an audit record: a submitted snippet that contains one keeps only its masked form. */
export function redactLiveKeys(text: string): string {
  let out = text;
  for (const m of scanForLiveKeys(text)) out = out.split(m.key).join(maskApiKey(m.key));
  return out;
}

/**
 * The entry id of a workflow's audit record: stable across activity retries. With `idTimeMs` (the
 * workflow's start time, when its run asked for time-ordered ids: session 23) the id starts with
 * that time, so new entries sort after the stored ones (core/time-ordered-id.ts).
 */
export function auditLogId(orgId: string, workflowId: string, idTimeMs?: number): string {
  return `log_${derivedIdHex(createHash('sha256').update(`${orgId}\u0000${workflowId}`, 'utf8').digest('hex'), idTimeMs)}`;
}

/** What was evaluated: the engine's evaluated expression if it reports one, else the request's claim text. */
export function auditQuery(input: unknown, result: unknown): string {
  const r = asRecord(result);
  const i = asRecord(input);
  const candidates = [
    r.evaluated_expression,
    asRecord(r.developer_fields).evaluated_expression,
    i.expression,
    i.query,
    i.claim,
    i.code,
    i.trace,
    i.target_document_id,
  ];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
  const text = found ?? JSON.stringify(input ?? null);
  const points = Array.from(redactLiveKeys(text));
  return wellFormed(points.length > MAX_AUDIT_QUERY ? points.slice(0, MAX_AUDIT_QUERY).join('') : points.join(''));
}

/** The verdict status of any engine's result shape (DiagnosticResult, logic, fact, process...). */
export function verdictStatus(result: unknown): string {
  const r = asRecord(result);
  if (typeof r.status === 'string') return wellFormed(r.status);
  if (typeof r.verdict === 'string') return wellFormed(r.verdict);
  if (typeof r.verified === 'boolean') return r.verified ? 'VERIFIED' : 'NOT_VERIFIED';
  return 'UNKNOWN';
}

export function auditFields(req: AppendAuditInput, timestamp: Date): AuditEntryFields {
  const r = asRecord(req.result);
  const status = verdictStatus(req.result);
  return {
    organization_id: req.org_id,
    user_id: req.audit?.user_id ?? null,
    query: auditQuery(req.input, req.result),
    // Only fixed, typed fields: the hashed payload stays small and inside the canonical domain.
    result: {
      status,
      admission: str(r.admission),
      proof_ref: str(r.proof_ref),
      attestation_id: str(asRecord(r.attestation).id),
      key_id: req.audit?.key_id ?? null,
      workflow_id: req.workflow_id,
      request_digest: req.audit?.request_digest ?? null,
    },
    verified: status === 'VERIFIED',
    domain: req.engine,
    timestamp,
    raw_llm_output: str(r.raw_llm_output),
  };
}

/** One AuditLog per store in a process: its group commit and cached heads serve every activity that appends. */
const auditLogs = new WeakMap<Store, AuditLog>();
function auditLogFor(store: Store): AuditLog {
  let auditLog = auditLogs.get(store);
  if (!auditLog) auditLogs.set(store, (auditLog = new AuditLog(store)));
  return auditLog;
}

export interface AuditDeps {
  store: Store;
  /** SVC_AUDIT_SECRET_KEY; unset makes every audited verification fail closed. */
  auditSecret: string | undefined;
}

/** Retrying cannot help without the secret: the workflow fails now (the caller gets a 503, never a verdict). */
export function requireAuditSecret(deps: Pick<AuditDeps, 'auditSecret'>): void {
  if (!deps.auditSecret)
    throw ApplicationFailure.nonRetryable('audit secret is not configured (SVC_AUDIT_SECRET_KEY)', 'AuditConfigError');
}

/**
 * Appends one verification's entry to its organization's chain, insert-once under its id (by
 * default derived from the workflow id, so a retried attempt finds its entry). Used by
 * appendAuditActivity and by the engine activities that append their own entry (math).
 */
export async function appendVerificationAudit(deps: AuditDeps, req: AppendAuditInput): Promise<AppendAuditOutput> {
  requireAuditSecret(deps);
  try {
    const res = await auditLogFor(deps.store).append(auditFields(req, new Date()), {
      logId: req.log_id ?? auditLogId(req.org_id, req.workflow_id, req.id_time_ms),
      secret: deps.auditSecret,
      ...(req.attestation ? { attestation: req.attestation } : {}),
      ...(req.not_after_ms !== undefined
        ? { notAfter: req.not_after_ms, budgetMs: req.budget_ms ?? Math.max(0, req.not_after_ms - Date.now()) }
        : req.budget_ms !== undefined
          ? { budgetMs: req.budget_ms }
          : {}),
    });
    if (res.attempts > 1)
      log.debug('audit append retried', { org_id: req.org_id, attempts: res.attempts, existing: res.existing });
    return {
      log_id: res.doc._id,
      seq: res.doc.seq,
      ...(req.attestation ? { existing: res.existing, attestation: res.doc.attestation ?? null } : {}),
    };
  } catch (err) {
    if (err instanceof AuditChainError) throw ApplicationFailure.nonRetryable(err.message, 'AuditChainError');
    throw err;
  }
}

export function makeAppendAuditActivity(deps: AuditDeps) {
  return async function appendAuditActivity(req: AppendAuditInput): Promise<AppendAuditOutput> {
    return appendVerificationAudit(deps, req);
  };
}
