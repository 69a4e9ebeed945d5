// Eviction off the POST's path (issue 22, session 13; docs/batch.md "Session 13, eviction"), black
// box: an API of its own on a database of its own (so its SVC_BATCH_MAX_JOBS=2 bounds a job store
// no other file shares) and a worker of its own. At the job limit an admission only claims the
// slot and names the evicted job on it; the evicted job answers 404 from that moment, its
// documents are deleted after the POST answered, and an eviction whose process died before the
// deletion (a hand-written dead admission, and a SIGKILL right after the 202) is finished by the
// restarted API's sweep: no unit, request or job of an evicted job is left.
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtraApi } from './extra-api.js';
import { startOwnDbStack, type OwnDbStack } from './own-db-stack.js';
import { IDENTITY, BARE, call, sleep, waitCompleted } from './batch-fixtures.js';

const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };

describe('eviction after the answer (an API of its own on a database of its own, SVC_BATCH_MAX_JOBS=2)', () => {
  let own: OwnDbStack;
  let api: ExtraApi;
  let db: Db;
  let key: string;
  beforeAll(async () => {
    own = await startOwnDbStack('evict', { SVC_BATCH_MAX_JOBS: '2', SVC_BATCH_WAIT_SECONDS: '0' });
    ({ api, db, key } = own);
  }, 240_000);
  afterAll(async () => {
    await own?.close();
  });

  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const submit = () => call(api.url, 'POST', '/verify/batch', key, { items: ITEMS });
  const get = (jobId: string) => call(api.url, 'GET', `/verify/batch/${jobId}`, key);
  const coll = (name: string) => db.collection<{ _id: string | number; [k: string]: any }>(name);
  /** What is stored of a job, by id: its document, its one result unit, its request. */
  const stored = async (jobId: string) => ({
    job: (await coll('batch_jobs').findOne({ _id: jobId })) !== null,
    unit: (await coll('batch_results').findOne({ _id: `${jobId}#0` })) !== null,
    request: (await coll('batch_requests').findOne({ _id: jobId })) !== null,
  });
  const NOTHING = { job: false, unit: false, request: false };
  const EVERYTHING = { job: true, unit: true, request: true };
  /** Polls until nothing of `jobId` is stored (the deletion runs after the answer). */
  const goneWithin = async (jobId: string, ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const s = await stored(jobId);
      if (!s.job && !s.unit && !s.request) return s;
      if (Date.now() > deadline) return s;
      await sleep(200);
    }
  };
  const slotOf = async (jobId: string) => (await coll('batch_jobs').findOne({ _id: jobId }))?.slot as number;

  let finished: string[] = []; // completed jobs, oldest completion first
  let third = '';

  it('at the limit, the POST answers before the evicted job is deleted; that job answers 404 at once and its documents go afterwards; the other stays whole', async () => {
    const first = await submit();
    const second = await submit();
    expect([first.status, second.status]).toEqual([202, 202]);
    const done = await Promise.all([first, second].map((r) => waitCompleted(api.url, key, r.body.job_id, 120_000)));
    finished = done
      .sort((a, b) => Date.parse(a.completed_at) - Date.parse(b.completed_at))
      .map((d) => d.job_id as string);
    const [oldest, kept] = finished as [string, string];
    expect(await stored(oldest)).toEqual(EVERYTHING);
    const slot = await slotOf(oldest);

    const next = await submit();
    expect(next.status).toBe(202);
    third = next.body.job_id;
    expect(next.body).toMatchObject({ job_id: third, status: 'running', total_items: 2, items: [] });
    // Evicted from the slot write on: 404, whatever of its documents is still being deleted.
    const gone = await get(oldest);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(NOT_FOUND_BODY);
    // The slot names the new job and, until a later admission, the job it evicted.
    expect(await coll('batch_slots').findOne({ _id: String(slot) })).toMatchObject({
      job_id: third,
      evicting: [oldest],
    });
    // Its documents are deleted after the answer (the API deletes them right after the workflow start).
    expect(await goneWithin(oldest, 30_000)).toEqual(NOTHING);
    // The other finished job is whole, and answers with its items.
    const other = await get(kept);
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ job_id: kept, status: 'completed', completed_items: 2, failed_items: 0 });
    expect(other.body.items.map((i: { id: string }) => i.id)).toEqual([`${kept}-0`, `${kept}-1`]);
    expect(await stored(kept)).toEqual(EVERYTHING);
    const t = await waitCompleted(api.url, key, third, 120_000);
    expect(t.items).toHaveLength(2);
  }, 360_000);

  it("an eviction whose process died before the deletion (a dead admission's slot write; a SIGKILL right after the 202) is finished by the restarted API's sweep: nothing of the evicted jobs is left", async () => {
    expect(finished).toHaveLength(2);
    const victim = finished[1] as string; // now the oldest finished job (the third one finished after it)
    expect(await stored(victim)).toEqual(EVERYTHING);
    // 1. What an admission leaves when its process dies between the slot write and the deletion:
    // the claim of the next generation, and the slot naming its new job and the evicted one.
    const slot = await slotOf(victim);
    const cur = (await coll('batch_slots').findOne({ _id: String(slot) }))!;
    expect(cur).toMatchObject({ state: 'finished', job_id: victim });
    const dead = `bj_${randomBytes(12).toString('hex')}`;
    await coll('batch_slot_claims').insertOne({
      _id: `${slot}:${cur.gen + 1}`,
      slot,
      gen: cur.gen + 1,
      job_id: dead,
      created_at: new Date(),
    });
    await coll('batch_slots').updateOne(
      { _id: String(slot) },
      {
        $set: {
          gen: cur.gen + 1,
          state: 'active',
          job_id: dead,
          claimed_at: new Date(),
          finished_at: null,
          evicting: [victim],
        },
      },
    );
    // 404 at once though every document is still there: the slot decides, not the deletion.
    const gone = await get(victim);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(NOT_FOUND_BODY);
    expect(await stored(victim)).toEqual(EVERYTHING);

    // 2. A real crash: the next admission evicts the third job; the API is SIGKILLed as soon as it answered.
    const evicted = third;
    const fourth = await submit();
    expect(fourth.status).toBe(202);
    await api.proc.kill9();
    // The restart: the new process's first sweep (seconds after its start) finishes both evictions.
    await api.proc.start();
    expect(await goneWithin(victim, 60_000)).toEqual(NOTHING);
    expect(await goneWithin(evicted, 60_000)).toEqual(NOTHING);
    expect((await get(evicted)).status).toBe(404);
    expect((await get(victim)).status).toBe(404);
    // The new job runs to completion; what the store holds of jobs is exactly the live ones (no leftover unit or request).
    const done = await waitCompleted(api.url, key, fourth.body.job_id, 120_000);
    expect(done.completed_items).toBe(2);
    const live = new Set((await coll('batch_jobs').find({}).toArray()).map((j) => j._id as string));
    expect(live).toEqual(new Set([fourth.body.job_id]));
    const units = await coll('batch_results').find({}).toArray();
    expect(units.map((u) => u.job_id)).toEqual([fourth.body.job_id]);
    const requests = await coll('batch_requests').find({}).toArray();
    expect(requests.map((r) => r._id)).toEqual([fourth.body.job_id]);
  }, 360_000);
});
