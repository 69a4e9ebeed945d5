// Activities of the engines that answer with the contract's DiagnosticResult (+ admission):
// /verify/code and /verify/sql. Each runs its pure engine, then finalizeOutcome retains the
// proof and signs the attestation; only that path can yield VERIFIED.
import { CONSTRAINT } from '../engines/code/index.js';
import { blockedOutcome } from '../engines/code/verdict.js';
import { postgresCheckFor, validateSqlRequest } from '../engines/sql/index.js';
import { finalizeOutcome, type ProofContext } from './proofs.js';
import { blockedDiagnostic, type EngineOutcome } from '../core/diagnostic.js';
import { ApplicationFailure } from '@temporalio/common';
import { DETERMINISTIC_ENGINE_FAILURE } from '../core/engine-failures.js';
import { getEnginePool } from './isolation/engine-pool.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { VerifyActivityInput } from './types.js';
import type { DiagnosticActivityResult } from '../core/verification-io.js';
import { logger } from '../core/logger.js';
import { sha256Hex } from '../core/canonical-json.js';
import { loadSqlEngineConfig, type SqlEngineConfig } from '../core/config.js';
export type { DiagnosticActivityResult };

const log = logger('sql');

function withAttestation(f: Awaited<ReturnType<typeof finalizeOutcome>>): DiagnosticActivityResult {
  return f.attestation ? { ...f.diagnostic, attestation: { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status } } : f.diagnostic;
}

export function makeVerifyCodeActivity(ctx: ProofContext, timeoutMs: number) {
  return async function verifyCodeActivity(req: VerifyActivityInput<{ code: string; language?: string }>): Promise<DiagnosticActivityResult> {
    // The scan runs in the engine pool: its cooperative deadline ends a little before the hard
    // one, and either way a late scan is the BLOCKED time-out verdict (never retried).
    const budget = engineBudgetMs(timeoutMs);
    const run = await getEnginePool().run<EngineOutcome>(
      { engine: 'code', code: req.input.code, language: req.input.language ?? 'python', timeoutMs: Math.max(1, budget - CODE_COOPERATIVE_MARGIN_MS) },
      { orgId: req.org_id, timeoutMs: budget },
    );
    if (run.kind === 'failed') throw ApplicationFailure.create({ message: `Engine failed on this input: ${run.detail}`, type: DETERMINISTIC_ENGINE_FAILURE, nonRetryable: true });
    const outcome = run.kind === 'ok' ? run.value : blockedOutcome(CONSTRAINT.timeout, 'Code verification timed out.');
    const f = await finalizeOutcome(ctx, outcome, { engine: 'code', orgId: req.org_id, evaluatedExpression: req.input.code, withAdmission: true });
    return withAttestation(f);
  };
}

/** Time between the scan's cooperative deadline and the thread's hard one. */
const CODE_COOPERATIVE_MARGIN_MS = 250;
/** The /verify/sql route's budget. */
const SQL_BUDGET_MS = 10_000;

export function makeVerifySqlActivity(ctx: ProofContext, sqlConfig: SqlEngineConfig = loadSqlEngineConfig()) {
  return async function verifySqlActivity(req: VerifyActivityInput<Record<string, unknown>>): Promise<DiagnosticActivityResult> {
    // PostgreSQL's own parse and name resolution (PGlite, in its own thread with its own
    // deadline) first; then the structural engine in the engine pool with that result.
    const parsed = validateSqlRequest(req.input);
    const postgres = parsed.ok ? await postgresCheckFor(parsed.value, sqlConfig.pgCheck) : undefined;
    const r = await runIsolated<{ invalid: string } | { outcome: EngineOutcome; query: string }>(
      { engine: 'sql', input: req.input, postgres },
      { orgId: req.org_id, timeoutMs: engineBudgetMs(SQL_BUDGET_MS), timeoutDetail: 'SQL verification timed out.' },
    );
    if ('invalid' in r) return blockedDiagnostic(r.invalid, 'sql_verifier.parse_error', {}, true);
    logResolverDefects(r.outcome, r.query);
    const f = await finalizeOutcome(ctx, r.outcome, { engine: 'sql', orgId: req.org_id, evaluatedExpression: r.query, withAdmission: true });
    return withAttestation(f);
  };
}

/**
 * A real engine accepted what the JS resolver refused: the verdict followed the engine, and the
 * resolver has a defect to fix. Logged with the finding types and the query's hash only (the
 * query text may carry anything).
 */
export function logResolverDefects(outcome: EngineOutcome, query: string): void {
  const f = outcome.developerFields;
  const defects = typeof f.resolver_defects === 'number' ? f.resolver_defects : 0;
  if (defects === 0) return;
  const issues = Array.isArray(f.issues) ? (f.issues as Array<Record<string, unknown>>) : [];
  const overruled = issues.filter((i) => typeof i.overruled_by === 'string');
  log.warn('sql resolver defect: a real engine accepted a statement the resolver refused', {
    dialect: f.dialect,
    engine: overruled[0]?.overruled_by,
    defects,
    finding_types: [...new Set(overruled.map((i) => String(i.type)))].sort(),
    query_sha256: sha256Hex(query),
  });
}
