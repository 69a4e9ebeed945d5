// /verify/stats: a statistical claim about an uploaded CSV, evaluated in the sandbox.
//
// Statistical computation is never a proof, so a successful run is UNVERIFIABLE
// (constraint stats_verifier.claim_not_verified, is_valid = whether the claim held); every
// failure is BLOCKED with stats_verifier.validation_error, .execution_failure or
// .runtime_unavailable. The result never carries a proof (proof_ref null).
import { blockedDiagnostic, buildDiagnostic, type DiagnosticResult } from '../../core/diagnostic.js';
import {
  SANDBOX_TYPE,
  SandboxCapacityError,
  SandboxUnavailableError,
  SANDBOX_CAPACITY_MESSAGE,
} from '../sandbox/runner.js';
import { parseStatsQuery, type StatsQueryParse, type StatsSpec } from '../../engines/stats/query.js';
import { runStatsProgram, type StatsRunOptions } from './run.js';

export const STATS_CONSTRAINTS = {
  claimNotVerified: 'stats_verifier.claim_not_verified',
  validationError: 'stats_verifier.validation_error',
  executionFailure: 'stats_verifier.execution_failure',
  runtimeUnavailable: 'stats_verifier.runtime_unavailable',
} as const;

/** developer_fields.sandbox_error values the HTTP layer turns into status codes. */
export type StatsSandboxError = 'unavailable' | 'capacity';

export interface StatsClaimInput {
  query: string;
  /** Header of the CSV as parsed by the API (the dataset has at least one column and one row). */
  columns: string[];
  /** Hex SHA-256 of the CSV bytes. */
  datasetSha256: string;
}

export interface StatsVerdict {
  diagnostic: DiagnosticResult;
  /** The query was refused by the security policy (HTTP 403). */
  securityPolicy: boolean;
  sandboxError: StatsSandboxError | null;
}

const describe = (spec: StatsSpec, normalized: string) =>
  spec.comparator ? `the claim "${normalized}"` : `"${normalized}"`;

function verdict(diagnostic: DiagnosticResult, extra: Partial<StatsVerdict> = {}): StatsVerdict {
  return { diagnostic, securityPolicy: false, sandboxError: null, ...extra };
}

/**
 * Parses and checks the query, then (only if it is valid) loads the CSV and runs it in the
 * sandbox. `loadCsv` is called at most once.
 */
export async function verifyStatsClaim(
  input: StatsClaimInput,
  loadCsv: () => Promise<Buffer>,
  opts: StatsRunOptions & { parsed?: StatsQueryParse } = {},
): Promise<StatsVerdict> {
  const base = { columns: input.columns, dataset_sha256: input.datasetSha256, sandbox_type: SANDBOX_TYPE };
  // The activity parses in the engine pool (docs/isolation.md) and passes the parse in.
  const parsed = opts.parsed ?? parseStatsQuery(input.query);
  if (!parsed.ok) {
    if (parsed.kind === 'security_policy') {
      return verdict(
        blockedDiagnostic(parsed.message, STATS_CONSTRAINTS.validationError, { ...base, security_policy: parsed.rule }),
        { securityPolicy: true },
      );
    }
    return verdict(
      blockedDiagnostic(parsed.message, STATS_CONSTRAINTS.validationError, { ...base, error: 'unsupported_query' }),
    );
  }
  const { spec, normalized } = parsed;
  const unknown = spec.columns.filter((c) => !input.columns.includes(c));
  if (unknown.length > 0) {
    return verdict(
      blockedDiagnostic(
        `Unknown column ${JSON.stringify(unknown[0])}; the dataset has ${input.columns.map((c) => JSON.stringify(c)).join(', ')}.`,
        STATS_CONSTRAINTS.validationError,
        {
          ...base,
          error: 'unknown_column',
          query: normalized,
        },
      ),
    );
  }
  const csv = await loadCsv();
  let run;
  try {
    run = await runStatsProgram(csv, spec, opts);
  } catch (err) {
    if (err instanceof SandboxCapacityError) {
      return verdict(
        blockedDiagnostic(SANDBOX_CAPACITY_MESSAGE, STATS_CONSTRAINTS.runtimeUnavailable, {
          ...base,
          query: normalized,
          sandbox_error: 'capacity',
        }),
        {
          sandboxError: 'capacity',
        },
      );
    }
    if (err instanceof SandboxUnavailableError) {
      return verdict(
        blockedDiagnostic('The code-execution sandbox is unavailable.', STATS_CONSTRAINTS.runtimeUnavailable, {
          ...base,
          query: normalized,
          sandbox_error: 'unavailable',
        }),
        { sandboxError: 'unavailable' },
      );
    }
    throw err;
  }
  const timing = { execution_time_ms: run.durationMs };
  switch (run.kind) {
    case 'validation':
      return verdict(
        blockedDiagnostic(run.message, STATS_CONSTRAINTS.validationError, { ...base, ...timing, query: normalized }),
      );
    case 'execution':
      return verdict(
        blockedDiagnostic(run.message, STATS_CONSTRAINTS.executionFailure, { ...base, ...timing, query: normalized }),
      );
    case 'runtime':
      return verdict(
        blockedDiagnostic(run.message, STATS_CONSTRAINTS.runtimeUnavailable, { ...base, ...timing, query: normalized }),
      );
    case 'ok': {
      const held = run.holds;
      const what = describe(spec, normalized);
      const agentMessage =
        held === null
          ? `Computed ${what} = ${run.observed} on ${run.rows} rows in the sandbox. A statistical computation is not a proof, so the result is UNVERIFIABLE.`
          : `${what[0]?.toUpperCase()}${what.slice(1)} ${held ? 'holds' : 'does not hold'} on the data (observed ${run.observed}, ${run.rows} rows). A statistical computation is not a proof, so the result is UNVERIFIABLE.`;
      return verdict(
        buildDiagnostic({
          status: 'UNVERIFIABLE',
          agentMessage,
          developerFields: {
            constraint_id: STATS_CONSTRAINTS.claimNotVerified,
            // A bare aggregate makes no claim: it evaluated, and nothing was contradicted.
            is_valid: held ?? true,
            claim_evaluated: held !== null,
            observed_result: run.observed,
            query: normalized,
            rows: run.rows,
            values_used: run.usedValues,
            ...base,
            ...timing,
          },
        }),
      );
    }
  }
}
