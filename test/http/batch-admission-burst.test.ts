// A burst of submissions at the job limit (issue 22, session 14; docs/batch.md "Session 14,
// admission"), black box: an API of its own on a database of its own (so its
// SVC_BATCH_MAX_JOBS=4 bounds a job store no other file shares) and a worker of its own, both
// recording their store commands (test/store-commands/capture.mjs). Four finished jobs fill the
// store; four submissions at once each evict one: every POST answers with its own job, every
// evicted job answers 404 at once, the new jobs complete with their items, and the evicted jobs'
// documents are deleted only once the burst's admissions are done (before, each deletion's writes
// queued on SQLite's one writer beside the admissions still in flight), and then all of them.
import { describe, expect, it } from 'vitest';
import { batchApiAtLimit } from './batch-limit-api.js';
import { readCapture, type Captured } from '../store-commands/classify.js';
import { IDENTITY, BARE, call, sleep, waitCompleted } from './batch-fixtures.js';

const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };
const LIMIT = 4;

describe('a burst of submissions at the job limit (an API of its own on a database of its own, SVC_BATCH_MAX_JOBS=4)', () => {
  const at = batchApiAtLimit('burst', LIMIT);

  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const submit = () => call(at.url, 'POST', '/verify/batch', at.key, { items: ITEMS });
  const coll = (name: string) => at.db.collection<{ _id: string | number; [k: string]: any }>(name);
  /** The API's commands (the worker records into the same folder, as `verification-worker-<pid>`). */
  const apiCommands = (): Captured[] => readCapture(at.dir).filter((c) => !(c.role ?? '').includes('worker'));

  it('four submissions at once each evict one finished job: all answered, the evicted ones 404 at once, their documents deleted only after the last admission, then all of them', async () => {
    const first = await Promise.all(Array.from({ length: LIMIT }, () => submit()));
    expect(first.map((r) => r.status)).toEqual(Array(LIMIT).fill(202));
    const old = first.map((r) => r.body.job_id as string);
    await Promise.all(old.map((id) => waitCompleted(at.url, at.key, id, 120_000)));
    await sleep(1_000); // the completions' slot releases are written

    const sentAt = Date.now();
    const burst = await Promise.all(Array.from({ length: LIMIT }, () => submit()));
    const answeredAt = Date.now();
    expect(burst.map((r) => r.status)).toEqual(Array(LIMIT).fill(202));
    const fresh = burst.map((r) => r.body.job_id as string);
    expect(new Set(fresh).size).toBe(LIMIT);
    for (const r of burst)
      expect(r.body).toMatchObject({ job_id: r.body.job_id, status: 'running', total_items: 2, items: [] });
    // Every finished job was evicted (the store holds 4): each answers 404 from its slot write on.
    for (const id of old) {
      const gone = await call(at.url, 'GET', `/verify/batch/${id}`, at.key);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(NOT_FOUND_BODY);
    }
    // The new jobs complete with their items.
    for (const id of fresh) {
      const done = await waitCompleted(at.url, at.key, id, 120_000);
      expect(done).toMatchObject({ job_id: id, status: 'completed', completed_items: 2, failed_items: 0 });
      expect(done.items.map((i: { id: string }) => i.id)).toEqual([`${id}-0`, `${id}-1`]);
    }
    // The evicted jobs' documents go (at most the deferral's bound after the burst, plus the deletions).
    const deadline = Date.now() + 30_000;
    let left = -1;
    while (Date.now() < deadline) {
      left = await coll('batch_jobs').countDocuments({ _id: { $in: old } });
      if (left === 0) break;
      await sleep(200);
    }
    expect(left).toBe(0);
    expect(await coll('batch_requests').countDocuments({ _id: { $in: old } })).toBe(0);
    expect(await coll('batch_results').countDocuments({ _id: { $in: old.map((id) => `${id}#0`) } })).toBe(0);
    expect((await coll('batch_jobs').find({}).toArray()).map((d) => d._id).sort()).toEqual([...fresh].sort());

    // The capture (flushed every 250 ms): the burst's admissions and the deletions after them.
    await sleep(600);
    const cmds = apiCommands().filter((c) => c.t >= sentAt - 50);
    const inBurst = (c: Captured) => c.t <= answeredAt;
    const claims = cmds.filter((c) => inBurst(c) && c.cmd === 'insert' && c.coll === 'batch_slot_claims');
    // One claim each, none lost to a sibling of the same process (session 20: grouped while one is in flight, so counted by document).
    expect(claims.reduce((a, c) => a + (c.n ?? 1), 0)).toBe(LIMIT);
    expect(claims.filter((c) => c.error)).toEqual([]);
    const jobInserts = cmds.filter((c) => inBurst(c) && c.cmd === 'insert' && c.coll === 'batch_jobs');
    // Session 18: the admissions' job inserts go out grouped (persistence/insert-coalescer.ts): every job once.
    expect(jobInserts.reduce((a, c) => a + (c.n ?? 1), 0)).toBe(LIMIT);
    const lastAdmissionWrite = Math.max(...jobInserts.map((c) => c.t + (c.ms ?? 0)));
    const deletions = cmds.filter(
      (c) => c.cmd === 'delete' && ['batch_jobs', 'batch_results', 'batch_requests'].includes(c.coll ?? ''),
    );
    // Its result unit, request and job per evicted job: point deletes, the burst's together (session 18: 3 commands, not 3 per job).
    expect(deletions.reduce((n, c) => n + (c.ops?.length ?? 1), 0)).toBeGreaterThanOrEqual(3 * LIMIT);
    expect(deletions.length).toBeLessThan(3 * LIMIT);
    // Deferred: none started before the last admission's job write was acknowledged, plus the quiet time (300 ms; 10 ms of clock slack).
    expect(Math.min(...deletions.map((c) => c.t))).toBeGreaterThanOrEqual(lastAdmissionWrite + 290);
  }, 480_000);
});
