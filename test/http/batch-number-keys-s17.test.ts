// Slot numbers and queue positions stored under their decimal strings (issue 22, session 17;
// persistence/number-keyed.ts), black box on the real store: FerretDB 1.24/SQLite answers
// `{_id: <number>}` by reading the whole table, so `batch_slots` and `batch_slot_queue` keep the
// number's string as `_id`. A store written before (numbers) is rewritten by the first process that
// touches the slot directory, before it reads a slot: its finished job is still served, and the
// queue entry it left still evicts that job. An API and a worker of their own on a database of
// their own (SVC_BATCH_MAX_JOBS=1: the second job must evict the first).
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtraApi } from './extra-api.js';
import { startOwnDbStack, type OwnDbStack } from './own-db-stack.js';
import { IDENTITY, BARE, call, untilSlotsReleased, waitCompleted } from './batch-fixtures.js';

describe('batch slot directory keys: strings on the store, a store written with numbers rewritten once (session 17)', () => {
  let own: OwnDbStack;
  let api: ExtraApi;
  let db: Db;
  let key: string;
  beforeAll(async () => {
    own = await startOwnDbStack('keys', { SVC_BATCH_MAX_JOBS: '1', SVC_BATCH_WAIT_SECONDS: '0' });
    ({ api, db, key } = own);
  }, 240_000);
  afterAll(async () => {
    await own?.close();
  });

  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const coll = (name: string) => db.collection<{ _id: string | number; [k: string]: any }>(name);
  const ids = async (name: string) => (await coll(name).find({}).toArray()).map((d) => d._id);

  it('a job stored by this version: its slot and its release are string keys, no number anywhere', async () => {
    const posted = await call(api.url, 'POST', '/verify/batch', key, { items: ITEMS });
    expect(posted.status).toBe(202);
    await waitCompleted(api.url, key, posted.body.job_id, 120_000);
    await untilSlotsReleased(db, [posted.body.job_id]);
    expect(await ids('batch_slots')).toEqual(['0']);
    expect(await ids('batch_slot_queue')).toEqual(['0']);
    expect(await coll('batch_slots').findOne({ _id: '0' })).toMatchObject({
      state: 'finished',
      job_id: posted.body.job_id,
      gen: 1,
    });
    expect(await coll('batch_slot_queue').findOne({ _id: '0' })).toMatchObject({ slot: 0, gen: 1, state: 'finished' });
  }, 240_000);

  it('a store written with numeric keys (as session 16 wrote it): after a restart its finished job is served, the next job evicts it from the same slot, and no numeric key is left', async () => {
    const [old] = (await coll('batch_jobs').find({}).toArray()).map((d) => d._id as string);
    expect(old).toMatch(/^bj_/);
    // The old layout: every slot and queue document back under its number; the rewrite forgotten.
    await api.proc.stop();
    for (const name of ['batch_slots', 'batch_slot_queue']) {
      for (const d of await coll(name).find({}).toArray()) {
        await coll(name).insertOne({ ...d, _id: Number(d._id) });
        await coll(name).deleteOne({ _id: d._id });
      }
    }
    await coll('migrations').deleteOne({ _id: 'number-keys-v1' });
    expect(await ids('batch_slots')).toEqual([0]);
    expect(await ids('batch_slot_queue')).toEqual([0]);

    await api.proc.start();
    const served = await call(api.url, 'GET', `/verify/batch/${old}`, key);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ job_id: old, status: 'completed', completed_items: 2, failed_items: 0 });
    expect(served.body.items.map((i: { id: string }) => i.id)).toEqual([`${old}-0`, `${old}-1`]);
    expect(await ids('batch_slots')).toEqual(['0']);
    expect(await ids('batch_slot_queue')).toEqual(['0']);
    expect(await coll('migrations').findOne({ _id: 'number-keys-v1' })).toMatchObject({
      counts: { batch_slots: 1, batch_slot_queue: 1 },
    });

    // SVC_BATCH_MAX_JOBS=1: the next job takes slot 0 from the release queue written before, evicting the old job.
    const next = await call(api.url, 'POST', '/verify/batch', key, { items: ITEMS });
    expect(next.status).toBe(202);
    expect(next.body).toMatchObject({ status: 'running', total_items: 2, items: [] });
    const gone = await call(api.url, 'GET', `/verify/batch/${old}`, key);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Batch job not found', code: 'not_found', request_id: expect.any(String) });
    const done = await waitCompleted(api.url, key, next.body.job_id, 120_000);
    expect(done).toMatchObject({ status: 'completed', completed_items: 2, failed_items: 0 });
    await untilSlotsReleased(db, [next.body.job_id]);
    expect(await ids('batch_slots')).toEqual(['0']);
    expect(await coll('batch_slots').findOne({ _id: '0' })).toMatchObject({
      state: 'finished',
      job_id: next.body.job_id,
      gen: 2,
    });
    expect((await ids('batch_slot_queue')).every((id) => typeof id === 'string')).toBe(true);
  }, 360_000);
});
