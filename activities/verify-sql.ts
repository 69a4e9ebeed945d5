// /verify/sql as an activity: PostgreSQL's own parse and name resolution (PGlite, in its own
// thread with its own deadline) first; then the structural engine in the engine pool with that
// result; then finalizeOutcome retains the proof and signs the attestation.
// Not the engine's barrel (engines/sql/index.ts): it would load the SQL parser and SQLite into
// the worker's main thread; the structural engine runs in the engine pool (docs/performance.md, memory).
import { validateSqlRequest } from '../contract/sql.js';
import { postgresCheckFor } from '../engines/sql/pg-request.js';
import type { PgCheck } from '../engines/sql/pg-check.js';
import { blockedDiagnostic, type EngineOutcome } from '../core/diagnostic.js';
import type { DiagnosticActivityResult } from '../core/verification-io.js';
import { logger } from '../core/logger.js';
import { sha256Hex } from '../core/canonical-json.js';
import { finalizeOutcome, type ProofContext } from './proofs.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { withAttestation } from './verify-code.js';
import type { VerifyActivityInput } from './types.js';

const log = logger('sql');

/** The /verify/sql route's budget. */
const SQL_BUDGET_MS = 10_000;
/** Kept for the structural engine and the finalisation after PostgreSQL's check (typically tens of ms). */
const SQL_ENGINE_RESERVE_MS = 2_000;

/**
 * `pg` is the worker's PostgreSQL check (PGlite), created by its composition root: started on
 * the first postgresql request and released when idle. A request that finds it cold waits for
 * its start within the request's own budget (docs/sql-engine.md, "PGlite on demand").
 */
export function makeVerifySqlActivity(ctx: ProofContext & { enginePool: EnginePool; pg: PgCheck }) {
  return async function verifySqlActivity(
    req: VerifyActivityInput<Record<string, unknown>>,
  ): Promise<DiagnosticActivityResult> {
    const budgetMs = engineBudgetMs(SQL_BUDGET_MS);
    const deadline = performance.now() + budgetMs;
    const parsed = validateSqlRequest(req.input);
    const postgres = parsed.ok
      ? await postgresCheckFor(parsed.value, ctx.pg, { budgetMs: budgetMs - SQL_ENGINE_RESERVE_MS })
      : undefined;
    const r = await runIsolated(
      'sql',
      { request: req.input, postgres },
      {
        orgId: req.org_id,
        // What PostgreSQL's check (and a cold start of it) left of the budget.
        timeoutMs: Math.max(50, deadline - performance.now()),
        timeoutDetail: 'SQL verification timed out.',
        pool: ctx.enginePool,
      },
    );
    if ('invalid' in r) return blockedDiagnostic(r.invalid, 'sql_verifier.parse_error', {}, true);
    logResolverDefects(r.outcome, r.query);
    const f = await finalizeOutcome(ctx, r.outcome, {
      engine: 'sql',
      orgId: req.org_id,
      evaluatedExpression: r.query,
      withAdmission: true,
    });
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
