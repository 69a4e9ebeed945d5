// /verify/stats as an activity: the query is parsed and checked here, then the uploaded CSV is
// read back from the store (it is too large for a Temporal payload) and evaluated in the
// Docker sandbox. The result is a DiagnosticResult that is never VERIFIED; the route reads
// developer_fields.security_policy (403) and developer_fields.sandbox_error (503 when
// 'unavailable') to choose the status code.
import type { DiagnosticResult } from '../core/diagnostic.js';
import type { Store } from '../core/store.js';
import { loadUpload } from '../core/uploads.js';
import { verifyStatsClaim } from './stats/verify.js';
import type { VerifyActivityInput } from './types.js';
import { engineBudgetMs, runIsolated } from './isolation/run.js';
import type { EnginePool } from './isolation/engine-pool.js';
import type { StatsActivityInput } from '../core/verification-io.js';
export type { StatsActivityInput };

/** The query parser's budget (the query is at most 1,000 characters: milliseconds in practice). */
const STATS_PARSE_BUDGET_MS = 5_000;

export function makeVerifyStatsActivity(deps: { store: Store; enginePool: EnginePool }) {
  return async function verifyStatsActivity(req: VerifyActivityInput<StatsActivityInput>): Promise<DiagnosticResult> {
    const input = req.input;
    const parsed = await runIsolated(
      'stats_query',
      { query: input.query },
      {
        orgId: req.org_id,
        timeoutMs: engineBudgetMs(STATS_PARSE_BUDGET_MS),
        timeoutDetail: 'Statistics verification timed out.',
        pool: deps.enginePool,
      },
    );
    const v = await verifyStatsClaim(
      { query: input.query, columns: input.columns, datasetSha256: input.dataset_sha256 },
      () => loadUpload(deps.store, input.upload_id, req.org_id),
      { parsed },
    );
    return v.diagnostic;
  };
}
