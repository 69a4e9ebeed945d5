// One `_id` index per FerretDB table (session 21, infra/ferret-id-index.ts), through the real stack:
// the keeper re-creates FerretDB's unique `_id` index on its lookup expression and the second index
// of sessions 9-20 is gone; uniqueness holds for the service's own store paths (a duplicate `_id`
// answers 11000; concurrent unique inserts of one organization's key directory each get their own
// position); a collection dropped and created again is converted by the keeper's next sweep.
import Database from 'better-sqlite3';
import path from 'node:path';
import { MongoServerError } from 'mongodb';
import { expect, inject, it } from 'vitest';
import { FERRET_ID_EXPRESSION, LEGACY_LOOKUP_SUFFIX } from '../../infra/ferret-id-index.js';
import { db, get, mintKey, newTenant, post } from './helpers.js';

const storeFile = () => path.join(inject('dataDir'), 'ferretdb', 'svc.sqlite');

interface IndexRow {
  table: string;
  name: string;
  sql: string;
}

/** Every `_id` index of a collection table (FerretDB's name, or the old lookup index), read from the stack's file. */
function idIndexes(): IndexRow[] {
  const s = new Database(storeFile(), { readonly: true, timeout: 5_000 });
  try {
    return s
      .prepare(
        `SELECT tbl_name AS "table", name, sql FROM sqlite_master WHERE type = 'index' AND (name = tbl_name || '__id_' OR name = tbl_name || ?) ORDER BY name`,
      )
      .all(LEGACY_LOOKUP_SUFFIX) as IndexRow[];
  } finally {
    s.close();
  }
}

/** Polls until `done` holds (the keeper sweeps every 5 s; no fixed sleep). */
async function until<T>(read: () => T, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const converted = (rows: IndexRow[]) =>
  rows.length > 0 &&
  rows.every(
    (r) =>
      r.name === `${r.table}__id_` && r.sql.startsWith('CREATE UNIQUE INDEX') && r.sql.includes(FERRET_ID_EXPRESSION),
  );

it("every collection table has one unique `_id` index, FerretDB's, on its lookup expression; a proof lookup searches it", async () => {
  const t = await newTenant();
  const r = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, { 'x-api-key': t.key });
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('VERIFIED');
  // The tables there now (other files' tests create collections meanwhile: each new one waits for the next sweep).
  const tables = new Set(idIndexes().map((x) => x.table));
  const rows = await until(
    () => idIndexes().filter((x) => tables.has(x.table)),
    (now) => converted(now),
  );
  expect(idIndexes().filter((x) => x.name.endsWith(LEGACY_LOOKUP_SUFFIX))).toEqual([]);
  expect(rows.filter((x) => !converted([x]))).toEqual([]);
  expect(rows.map((x) => x.table)).toEqual(expect.arrayContaining([expect.stringMatching(/^proofs_[0-9a-f]{8}$/)]));
  const s = new Database(storeFile(), { readonly: true, timeout: 5_000 });
  try {
    const table = rows.find((x) => x.table.startsWith('proofs_'))!.table;
    const plan = s
      .prepare(`EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM "${table}" WHERE ${FERRET_ID_EXPRESSION} = ?`)
      .all(JSON.stringify(r.body.proof_ref ?? 'x')) as { detail: string }[];
    expect(plan.map((p) => p.detail)).toEqual([`SEARCH ${table} USING INDEX ${table}__id_ (<expr>=?)`]);
  } finally {
    s.close();
  }
});

it("a duplicate `_id` in the service's collections answers 11000; concurrent key mints each get their own directory position", async () => {
  const t = await newTenant();
  const store = await db();
  await until(idIndexes, (rows) => converted(rows.filter((x) => /^(org_directory|api_keys)_/.test(x.table))));
  const existing = await store.collection('api_keys').findOne({ _id: t.keyId } as never);
  expect(existing).not.toBeNull();
  const dup = await store
    .collection('api_keys')
    .insertOne({ _id: t.keyId } as never)
    .then(
      () => 'accepted',
      (e: unknown) => (e instanceof MongoServerError ? e.code : String(e)),
    );
  expect(dup).toBe(11000);
  // The key directory's positions are unique inserts by `_id` (persistence/accounts.ts OrgDirectory):
  // eight mints at once race for the same next positions, and only uniqueness keeps them apart.
  const minted = await Promise.all(Array.from({ length: 8 }, (_, i) => mintKey(t.token, `s21 key ${i}`)));
  const listed = await get('/auth/api-keys', { authorization: `Bearer ${t.token}` });
  expect(listed.status).toBe(200);
  const ids = (listed.body as { id: string }[]).map((k) => k.id).sort();
  expect(ids).toEqual([t.keyId, ...minted.map((m) => m.id)].sort());
  const positions = await store
    .collection('org_directory')
    .find({ ref: { $in: ids } } as never)
    .toArray();
  expect(positions).toHaveLength(9);
  expect(new Set(positions.map((p) => p._id)).size).toBe(9);
});

it('a collection dropped and created again gets the one index back from the next sweep; duplicates are refused throughout', async () => {
  const store = await db();
  const name = `s21_recreated_${Date.now().toString(36)}`;
  const c = store.collection<{ _id: string; n: number }>(name);
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (e: unknown) => (e instanceof MongoServerError ? e.code : String(e)),
    );
  const mine = () => idIndexes().filter((x) => x.table.startsWith(`${name}_`));
  await c.insertOne({ _id: 'a', n: 1 });
  expect(converted(await until(mine, converted))).toBe(true);
  await c.drop();
  await c.insertOne({ _id: 'a', n: 2 });
  // Before the next sweep FerretDB's own index keeps `_id` unique; after it, the converted one does.
  expect(await code(c.insertOne({ _id: 'a', n: 3 }))).toBe(11000);
  const after = await until(mine, converted);
  expect(after).toHaveLength(1);
  expect(converted(after)).toBe(true);
  expect(await code(c.insertOne({ _id: 'a', n: 4 }))).toBe(11000);
  expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
  await c.drop();
});
