// Session 21 (issue 22, the evicting admission; docs/batch.md "Session 21: the evicting
// admission's slot write after the job"; docs/performance.md "Session 21: the evicting
// admission"): at SVC_BATCH_MAX_JOBS every admission evicts. On 0a0720a its POST waited for the
// claim, then the slot's write beside the job's insert, then the workflow's start. Now the API's
// admissions send the slot write once the job is stored, beside the start, and answer once both
// are done; a job that finishes before its slot write lands waits for it in its finish step.
//   1. Real store (a database of its own), ten admissions at once in one process at the limit with
//      `slotWriteAfterJob`: every slot write starts after its own job's insert was acknowledged
//      (0a0720a: side by side with it), and once `slotWritten` settles each slot names its job.
//   2. Black box (an API and a worker of their own at SVC_BATCH_MAX_JOBS=10, recording their store
//      commands): ten POSTs at once at the limit all answer 202; the API's slot writes of that burst
//      start only after a job insert of it was acknowledged (0a0720a: the first goes out with the
//      first job insert); every evicted job answers 404 at once; the new jobs complete and their
//      slots end `finished` and queued (none left `active` by a finish that came first).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { Store } from '../../core/store.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { stackEnv } from './helpers.js';
import { batchApiAtLimit } from './batch-limit-api.js';
import { readCapture, type Captured } from '../store-commands/classify.js';
import { IDENTITY, BARE, call, sleep, waitCompleted, untilSlotsReleased } from './batch-fixtures.js';

const N = 10;
const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };

describe('ten evicting admissions at once, the slot write after the job (session 21, real store)', () => {
  const dbName = `svc_swj21_${randomBytes(4).toString('hex')}`;
  const u = new URL(stackEnv().MONGODB_URI as string);
  u.pathname = `/${dbName}`;
  const store = Store.lazy(u.toString());
  /** Each insert and update command: the ids it carries, when it was sent and when it was acknowledged (event order). */
  const cmds = new Map<number, { cmd: string; coll: string; ids: string[]; sent: number; acked: number }>();
  let seq = 0;
  (store.client as unknown as { monitorCommands: boolean }).monitorCommands = true;
  store.client.on('commandStarted', (ev: CommandStartedEvent) => {
    if (ev.commandName !== 'insert' && ev.commandName !== 'update') return;
    const ids =
      ev.commandName === 'insert'
        ? (ev.command.documents as Array<{ _id: string }>).map((d) => String(d._id))
        : (ev.command.updates as Array<{ q: { _id: string } }>).map((s) => String(s.q._id));
    const coll = String(ev.command[ev.commandName]);
    cmds.set(ev.requestId, { cmd: ev.commandName, coll, ids, sent: ++seq, acked: Infinity });
  });
  store.client.on('commandSucceeded', (ev: CommandSucceededEvent) => {
    const c = cmds.get(ev.requestId);
    if (c) c.acked = ++seq;
  });
  afterAll(async () => {
    await store.db.dropDatabase().catch(() => undefined);
    await store.close().catch(() => undefined);
  });
  const ITEMS = [{ query: IDENTITY, type: 'math' as const }];
  const newJob = (id: string): NewBatchJob =>
    newBatchJob({
      jobId: id,
      orgId: 'org_swj21',
      workflowId: `batch-org_swj21-${id}`,
      totalItems: 1,
      units: batchUnits(ITEMS, 8).length,
      createdAt: new Date(),
      submittedBy: { user_id: null, key_id: 'k1' },
      started: true,
    });

  it("every slot write starts after its job's insert is acknowledged and settles in slotWritten; the slots then name the new jobs (0a0720a: beside the insert)", async () => {
    const jobs = new BatchJobStore(store);
    await jobs.moveCursor('next', 0);
    const tag = randomBytes(3).toString('hex');
    const old = Array.from({ length: N }, (_, i) => `bj_swj21_o${i}_${tag}`);
    await Promise.all(old.map((id) => jobs.admit(newJob(id), ITEMS, N)));
    for (const [i, id] of old.entries()) {
      const views = itemViews(id, ITEMS, [
        { index: 0, status: 'completed', result: { status: 'VERIFIED' }, latency_ms: 1 },
      ]);
      await jobs.storeUnit({
        _id: resultId(id, 0),
        job_id: id,
        org_id: 'org_swj21',
        unit: 0,
        items: [{ index: 0, view: views[0]! }],
      });
      await jobs.complete(id, { completed_items: 1, failed_items: 0 }, 1, new Date(Date.now() + i));
    }

    cmds.clear();
    const fresh = Array.from({ length: N }, (_, i) => `bj_swj21_n${i}_${tag}`);
    const admitted = await Promise.all(
      fresh.map((id) => jobs.admit(newJob(id), ITEMS, N, undefined, { slotWriteAfterJob: true })),
    );
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(N);
    expect(admitted.map((a) => a.evicted).sort()).toEqual([...old].sort());
    await Promise.all(admitted.map((a) => a.slotWritten ?? Promise.resolve()));
    const all = [...cmds.values()];
    for (const [i, id] of fresh.entries()) {
      const jobInsert = all.find((c) => c.cmd === 'insert' && c.coll === 'batch_jobs' && c.ids.includes(id));
      const slotWrite = all.find(
        (c) => c.cmd === 'update' && c.coll === 'batch_slots' && c.ids.includes(String(admitted[i]!.slot)),
      );
      expect(jobInsert, id).toBeDefined();
      expect(slotWrite, id).toBeDefined();
      expect(slotWrite!.sent, id).toBeGreaterThan(jobInsert!.acked);
      expect(await jobs.holdsSlot({ _id: id, slot: admitted[i]!.slot })).toBe(true);
    }
    const slots = await store.db
      .collection<{ _id: string; job_id: string; state: string; gen: number; evicting: string[] }>('batch_slots')
      .find({})
      .toArray();
    expect(slots.map((s) => s.job_id).sort()).toEqual([...fresh].sort());
    for (const s of slots) expect(s).toMatchObject({ state: 'active', gen: 2 });
    expect(slots.flatMap((s) => s.evicting).sort()).toEqual([...old].sort());
    for (const id of old) expect(await jobs.holdsSlot((await jobs.find(id))!)).toBe(false);
  }, 120_000);
});

describe('ten POSTs at once at the job limit, the slot write beside the start (session 21, an API of its own, SVC_BATCH_MAX_JOBS=10)', () => {
  const at = batchApiAtLimit('swj21', N);
  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const submit = () => call(at.url, 'POST', '/verify/batch', at.key, { items: ITEMS });
  const apiCommands = (): Captured[] => readCapture(at.dir).filter((c) => !(c.role ?? '').includes('worker'));

  it('every POST 202; the slot writes start after a job insert was acknowledged; the evicted jobs 404 at once; the new jobs complete with their slots finished and queued', async () => {
    const first = await Promise.all(Array.from({ length: N }, () => submit()));
    expect(first.map((r) => r.status)).toEqual(Array(N).fill(202));
    const old = first.map((r) => r.body.job_id as string);
    await Promise.all(old.map((id) => waitCompleted(at.url, at.key, id, 120_000)));
    await untilSlotsReleased(at.db, old, 30_000);

    const sentAt = Date.now();
    const burst = await Promise.all(Array.from({ length: N }, () => submit()));
    const answeredAt = Date.now();
    // SVC_BATCH_WAIT_SECONDS=0 here: 202 with the running job.
    expect(burst.map((r) => r.status)).toEqual(Array(N).fill(202));
    const fresh = burst.map((r) => r.body.job_id as string);
    expect(new Set(fresh).size).toBe(N);
    for (const r of burst)
      expect(r.body).toMatchObject({ status: 'running', total_items: 2, completed_items: 0, items: [] });
    // Answered only once the slot writes landed: every evicted job reads 404 at once.
    for (const id of old) {
      const gone = await call(at.url, 'GET', `/verify/batch/${id}`, at.key);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(NOT_FOUND_BODY);
    }
    for (const id of fresh) {
      const done = await waitCompleted(at.url, at.key, id, 120_000);
      expect(done).toMatchObject({ job_id: id, status: 'completed', completed_items: 2, failed_items: 0 });
    }
    // Each new job's slot finished at its generation and queued (a finish that came before its slot write waited for it).
    await untilSlotsReleased(at.db, fresh, 30_000);
    const slots = await at.db
      .collection<{ _id: string; job_id: string; state: string; gen: number }>('batch_slots')
      .find({})
      .toArray();
    expect(slots.map((s) => s.job_id).sort()).toEqual([...fresh].sort());
    for (const s of slots) expect(s).toMatchObject({ state: 'finished', gen: 2 });

    // The API's commands of the burst (the capture is flushed every 250 ms): ten slot writes, each sent after a
    // job insert of the burst was acknowledged. Times are whole ms: sent ≥ acknowledged − 1.
    let window: Captured[] = [];
    const deadline = Date.now() + 10_000;
    const slotStatements = () =>
      window.filter((c) => c.cmd === 'update' && c.coll === 'batch_slots').reduce((a, c) => a + (c.n ?? 1), 0);
    while (Date.now() < deadline) {
      window = apiCommands().filter((c) => c.t >= sentAt - 50 && c.t <= answeredAt);
      if (slotStatements() >= N) break;
      await sleep(250);
    }
    const jobInserts = window.filter((c) => c.cmd === 'insert' && c.coll === 'batch_jobs' && !c.error);
    const slotWrites = window.filter((c) => c.cmd === 'update' && c.coll === 'batch_slots');
    expect(jobInserts.length).toBeGreaterThan(0);
    // ≥ N: an eager job's own finish in the API process (the burst's first POST may run in it) writes its slot too.
    expect(slotStatements()).toBeGreaterThanOrEqual(N);
    const firstAck = Math.min(...jobInserts.map((c) => c.t + (c.ms ?? 0)));
    for (const w of slotWrites) expect(w.t).toBeGreaterThanOrEqual(Math.floor(firstAck) - 1);
  }, 480_000);
});
