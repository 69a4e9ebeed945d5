// POST /verify/sql: parser, schema, malice classification and (sqlite) prepare check.
import type { AppDeps } from '../deps.js';
import { engineRoute } from '../engine-route.js';

export function sqlHandlers(deps: AppDeps) {
  const verifySql = engineRoute(deps, 'verifySql', {
    engine: 'sql',
    // The activity re-validates the caller's fields, so the raw known fields travel as given.
    // A null dialect is absent (contract/common.ts, nullMeansAbsent).
    prepare: (_input, _ctx, raw) => ({
      input: { query: raw.query, schema_ddl: raw.schema_ddl, dialect: raw.dialect ?? undefined },
    }),
  });
  return { verifySql };
}
