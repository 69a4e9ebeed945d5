// POST /verify/sql: parser, schema, malice classification and (sqlite) prepare check.
import type Router from '@koa/router';
import { sqlRequestSchema } from '../../contract/sql.js';
import type { AppDeps } from '../deps.js';
import { registerEngineRoute } from '../engine-route.js';

export function registerSqlRoutes(router: Router, deps: AppDeps): void {
  registerEngineRoute(router, deps, {
    path: '/verify/sql',
    engine: 'sql',
    schema: sqlRequestSchema,
    // The activity re-validates the caller's fields, so the raw known fields travel as given.
    // A null dialect is absent (contract/common.ts, nullMeansAbsent).
    prepare: (_input, _ctx, raw) => ({
      input: { query: raw.query, schema_ddl: raw.schema_ddl, dialect: raw.dialect ?? undefined },
    }),
  });
}
