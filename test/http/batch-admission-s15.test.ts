// Admission at the job limit costs what an admission below it does (issue 22, session 15;
// docs/batch.md "Session 15, admission"), black box: an API of its own on a database of its own
// (SVC_BATCH_MAX_JOBS=4, a job store no other file shares) and a worker of its own, both
// recording their store commands (test/store-commands/capture.mjs). Once the store is full of
// finished jobs, every submission evicts one. The first one at the limit reads the release queue's
// window; the next ones, from the window the process holds, send no read before their claim, then
// the slot write and the job's insert side by side (before: the hints, the window, its slots, the
// claim, the slot write, the job, six round trips one after the other). Every guarantee stays:
// each POST answers its own job, the evicted job answers 404 at once, the new jobs complete with
// their items, and afterwards the store holds the live jobs' documents and nothing else. An
// evicted job's deferred deletion reads no job document (its finished slot carries the count of
// its result documents): three deletes by id per job.
import { describe, expect, it } from 'vitest';
import { batchApiAtLimit } from './batch-limit-api.js';
import { readCapture, type Captured } from '../store-commands/classify.js';
import { IDENTITY, BARE, call, sleep, waitCompleted } from './batch-fixtures.js';

const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };
const LIMIT = 4;
/** The directory's reads (a hint, a queue position, a slot): what an admission at the limit read before its claim. */
const DIRECTORY = ['batch_slot_cursors', 'batch_slot_queue', 'batch_slots'];

describe('admission at the job limit from the window in hand (an API of its own on a database of its own, SVC_BATCH_MAX_JOBS=4)', () => {
  const at = batchApiAtLimit('adm15', LIMIT);

  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const submit = () => call(at.url, 'POST', '/verify/batch', at.key, { items: ITEMS });
  const coll = (name: string) => at.db.collection<{ _id: string | number; [k: string]: any }>(name);
  /** The API's commands between two instants (the worker records into the same folder, as `verification-worker-<pid>`). */
  const apiCommands = (from: number, to: number): Captured[] =>
    readCapture(at.dir).filter((c) => !(c.role ?? '').includes('worker') && c.t >= from && c.t <= to);

  it('at the limit, the first admission reads the window; the next ones send no read before their claim, then the slot write beside the job insert; evicted jobs 404 at once, new ones complete, nothing else stays', async () => {
    const first = await Promise.all(Array.from({ length: LIMIT }, () => submit()));
    expect(first.map((r) => r.status)).toEqual(Array(LIMIT).fill(202));
    const old = first.map((r) => r.body.job_id as string);
    await Promise.all(old.map((id) => waitCompleted(at.url, at.key, id, 120_000)));
    await sleep(1_000); // the completions' slot releases are written

    // One submission at a time, each waited for: the only batch commands of the API in a POST's time are its admission's.
    const windows: Array<[number, number]> = [];
    const fresh: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const sentAt = Date.now();
      const r = await submit();
      const answeredAt = Date.now();
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ status: 'running', total_items: 2, items: [] });
      windows.push([sentAt, answeredAt]);
      fresh.push(r.body.job_id as string);
      // The job it evicted (the one of the four that finished first among those left) answers 404 from the answer on: one more each time.
      const gets = await Promise.all(old.map((id) => call(at.url, 'GET', `/verify/batch/${id}`, at.key)));
      const gone = gets.filter((g) => g.status === 404);
      expect(gone, `after submission ${i + 1}`).toHaveLength(i + 1);
      for (const g of gone) expect(g.body).toEqual(NOT_FOUND_BODY);
      for (const g of gets.filter((x) => x.status !== 404))
        expect(g).toMatchObject({ status: 200, body: { status: 'completed' } });
      const done = await waitCompleted(at.url, at.key, r.body.job_id, 120_000);
      expect(done).toMatchObject({ job_id: r.body.job_id, status: 'completed', completed_items: 2, failed_items: 0 });
      expect(done.items.map((it: { id: string }) => it.id)).toEqual([`${r.body.job_id}-0`, `${r.body.job_id}-1`]);
      await sleep(1_000); // its completion's slot release and the deferred deletion are written before the next POST
    }
    expect(new Set(fresh).size).toBe(LIMIT);

    await sleep(600); // the capture is flushed every 250 ms
    const perAdmission = windows.map(([a, b]) => {
      const cmds = apiCommands(a, b).filter((c) => (c.coll ?? '').startsWith('batch_'));
      const claims = cmds.filter((c) => c.cmd === 'insert' && c.coll === 'batch_slot_claims');
      return { cmds, claims };
    });
    for (const { claims } of perAdmission) expect(claims).toHaveLength(1); // one claim each, none lost
    // The first admission at the limit has nothing in hand: it reads the hints and the window.
    const firstReads = perAdmission[0]!.cmds.filter((c) => c.cmd === 'find' && DIRECTORY.includes(c.coll ?? ''));
    expect(firstReads.length).toBeGreaterThan(0);
    for (const [i, { cmds, claims }] of perAdmission.slice(1).entries()) {
      const claim = claims[0]!;
      const claimEnd = Math.floor(claim.t + (claim.ms ?? 0)); // whole ms, as every `t` (a start read by Date.now())
      const before = cmds.filter((c) => c.cmd === 'find' && DIRECTORY.includes(c.coll ?? '') && c.t < claimEnd);
      expect(before, `admission ${i + 2}: directory reads before its claim`).toEqual([]);
      // The admission's slot write is the first (a job run eagerly in this process may finish, and mark its slot, before the POST answers).
      const slotWrite = cmds.filter((c) => c.cmd === 'update' && c.coll === 'batch_slots').sort((a, b) => a.t - b.t);
      const jobWrite = cmds.filter((c) => c.cmd === 'insert' && c.coll === 'batch_jobs');
      expect(slotWrite.length).toBeGreaterThanOrEqual(1);
      expect(jobWrite).toHaveLength(1);
      // Both after the claim was acknowledged, and side by side: the job's insert sent before the slot write was acknowledged.
      // (`t` is Date.now() at the start, whole ms; `ms` the driver's own duration: an end read as
      // `t + ms` can be up to 1 ms early, as CI saw once: the insert "1 ms after" the acknowledgement.)
      // Session 23: the same 1 ms for the claim's end against the writes' starts (a run at load 30 read the slot write 1 ms "before" it).
      expect(slotWrite[0]!.t + 1).toBeGreaterThanOrEqual(claimEnd);
      expect(jobWrite[0]!.t + 1).toBeGreaterThanOrEqual(claimEnd);
      expect(jobWrite[0]!.t).toBeLessThanOrEqual(slotWrite[0]!.t + (slotWrite[0]!.ms ?? 0) + 1);
    }

    // Afterwards: every evicted job's documents are gone, and the store holds the live jobs and nothing else.
    const deadline = Date.now() + 30_000;
    let left = -1;
    while (Date.now() < deadline) {
      left = await coll('batch_jobs').countDocuments({ _id: { $in: old } });
      if (left === 0) break;
      await sleep(200);
    }
    expect(left).toBe(0);
    expect((await coll('batch_jobs').find({}).toArray()).map((d) => d._id).sort()).toEqual([...fresh].sort());
    expect((await coll('batch_requests').find({}).toArray()).map((d) => d._id).sort()).toEqual([...fresh].sort());
    expect(await coll('batch_results').countDocuments({ _id: { $in: old.map((id) => `${id}#0`) } })).toBe(0);
    const slots = await coll('batch_slots').find({}).toArray();
    expect(slots.map((s) => s.job_id).sort()).toEqual([...fresh].sort());
    // Each finished slot carries its job's result-document count (one unit of two math items), so
    // an evicted job's deletion is its three deletes by id, with no read of the job first.
    for (const s of slots) expect(s).toMatchObject({ state: 'finished', units: 1 });
    await sleep(600); // the capture is flushed every 250 ms
    const jobCmds = apiCommands(windows[0]![0], Date.now()).filter((c) => c.coll === 'batch_jobs');
    expect(jobCmds.filter((c) => c.cmd === 'delete')).toHaveLength(LIMIT);
    expect(jobCmds.filter((c) => c.cmd === 'find' && (c.projection ?? []).includes('units'))).toEqual([]);
  }, 480_000);
});
