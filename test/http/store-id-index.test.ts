// The embedded store answers `_id` lookups from an index (infra/ferret-id-index.ts, issue 22;
// since session 21 FerretDB's own unique `_id` index, re-created on its lookup expression):
// on the real FerretDB file of the running stack, FerretDB's own lookup expression for a proof
// is an index search once a verification has written one, not a scan of the table.
import Database from 'better-sqlite3';
import path from 'node:path';
import { inject, expect, it } from 'vitest';
import { FERRET_ID_EXPRESSION } from '../../infra/ferret-id-index.js';
import { newTenant, post } from './helpers.js';

it('a proof lookup by _id on the embedded store is an index search', async () => {
  const t = await newTenant();
  const r = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, { 'x-api-key': t.key });
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('VERIFIED');
  const file = path.join(inject('dataDir'), 'ferretdb', 'svc.sqlite');
  let detail = '';
  // The keeper sweeps every 5 s; a table FerretDB created after the last sweep is indexed by the next.
  for (let i = 0; i < 40 && !/USING INDEX/.test(detail); i++) {
    const db = new Database(file, { readonly: true, timeout: 5_000 });
    try {
      const table = (
        db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'proofs\\_%' ESCAPE '\\'`)
          .get() as { name: string } | undefined
      )?.name;
      if (table) {
        detail = (
          db
            .prepare(`EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM "${table}" WHERE ${FERRET_ID_EXPRESSION} = ?`)
            .all(JSON.stringify(r.body.proof_ref ?? 'x')) as { detail: string }[]
        )
          .map((p) => p.detail)
          .join('; ');
      }
    } finally {
      db.close();
    }
    if (!/USING INDEX/.test(detail)) await new Promise((res) => setTimeout(res, 250));
  }
  expect(detail).toMatch(/^SEARCH proofs_[0-9a-f]+ USING INDEX proofs_[0-9a-f]+__id_ \(<expr>=\?\)$/);
});
