// Session 20 (issue 22, the admission at the job limit; docs/batch.md "Session 20: the admission at
// the limit"; docs/performance.md "Session 20: the evicting admission"): at SVC_BATCH_MAX_JOBS every
// admission evicts, and on 478adfa each sent its claim (`batch_slot_claims` insert) and then its
// slot's write (`batch_slots` update) as commands of their own: ten of each per burst of ten, where
// ten new slot numbers cost ten slot inserts. Now one process's claims, and its claim winners' slot
// writes, that arrive while one is in flight go out as one command each, every claim still its own
// unique insert and every slot write its winner's own statement by `_id`.
//   1. Real store (a database of its own), ten admissions at once in one process at the limit: the
//      claims and the slot writes go out grouped, fewer commands than admissions with one carrying
//      several (on 478adfa: 10 and 10, one each; how many depends on timing, so no exact count);
//      each admission its own slot, each evicted job named once, the slots as written.
//   2. Black box (an API and a worker of their own at SVC_BATCH_MAX_JOBS=10, recording their store
//      commands): ten POSTs at once at the limit all answer 202 with their own running job, every
//      evicted job answers 404 at once, the new jobs complete with their items, each claim is
//      stored once, and the slots name exactly the new jobs.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandStartedEvent } from 'mongodb';
import { Store } from '../../core/store.js';
import { batchUnits } from '../../core/batch.js';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { itemViews } from '../../core/batch.js';
import { stackEnv } from './helpers.js';
import { batchApiAtLimit } from './batch-limit-api.js';
import { readCapture, type Captured } from '../store-commands/classify.js';
import { IDENTITY, BARE, call, sleep, waitCompleted, untilSlotsReleased } from './batch-fixtures.js';

const N = 10;
const NOT_FOUND_BODY = { detail: 'Batch job not found', code: expect.any(String), request_id: expect.any(String) };

describe('ten admissions at the limit in one process: claims and slot writes grouped (session 20, real store)', () => {
  const dbName = `svc_adm20_${randomBytes(4).toString('hex')}`;
  const u = new URL(stackEnv().MONGODB_URI as string);
  u.pathname = `/${dbName}`;
  const store = Store.lazy(u.toString());
  const sent: Array<{ cmd: string; coll: string; n: number }> = [];
  (store.client as unknown as { monitorCommands: boolean }).monitorCommands = true;
  store.client.on('commandStarted', (ev: CommandStartedEvent) => {
    if (ev.commandName === 'insert')
      sent.push({ cmd: 'insert', coll: String(ev.command.insert), n: (ev.command.documents as unknown[]).length });
    if (ev.commandName === 'update')
      sent.push({ cmd: 'update', coll: String(ev.command.update), n: (ev.command.updates as unknown[]).length });
  });
  afterAll(async () => {
    await store.db.dropDatabase().catch(() => undefined);
    await store.close().catch(() => undefined);
  });
  const ITEMS = [{ query: IDENTITY, type: 'math' as const }];
  const newJob = (id: string): NewBatchJob =>
    newBatchJob({
      jobId: id,
      orgId: 'org_adm20',
      workflowId: `batch-org_adm20-${id}`,
      totalItems: 1,
      units: batchUnits(ITEMS, 8).length,
      createdAt: new Date(),
      submittedBy: { user_id: null, key_id: 'k1' },
      started: true,
    });

  it('claims and slot writes go out grouped (a command carries several; 478adfa: one each, 10 and 10 commands); every admission its own slot', async () => {
    const jobs = new BatchJobStore(store);
    await jobs.moveCursor('next', 0);
    const tag = randomBytes(3).toString('hex');
    const old = Array.from({ length: N }, (_, i) => `bj_adm20_o${i}_${tag}`);
    sent.length = 0;
    await Promise.all(old.map((id) => jobs.admit(newJob(id), ITEMS, N)));
    const newNumbers = sent.filter((c) => c.cmd === 'insert' && c.coll === 'batch_slots');
    expect(newNumbers.reduce((a, c) => a + c.n, 0)).toBe(N);
    for (const [i, id] of old.entries()) {
      const views = itemViews(id, ITEMS, [
        { index: 0, status: 'completed', result: { status: 'VERIFIED' }, latency_ms: 1 },
      ]);
      await jobs.storeUnit({
        _id: resultId(id, 0),
        job_id: id,
        org_id: 'org_adm20',
        unit: 0,
        items: [{ index: 0, view: views[0]! }],
      });
      await jobs.complete(id, { completed_items: 1, failed_items: 0 }, 1, new Date(Date.now() + i));
    }

    sent.length = 0;
    const fresh = Array.from({ length: N }, (_, i) => `bj_adm20_n${i}_${tag}`);
    const admitted = await Promise.all(fresh.map((id) => jobs.admit(newJob(id), ITEMS, N)));
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(N);
    expect(admitted.map((a) => a.evicted).sort()).toEqual([...old].sort());
    const claims = sent.filter((c) => c.cmd === 'insert' && c.coll === 'batch_slot_claims');
    const slotWrites = sent.filter((c) => c.cmd === 'update' && c.coll === 'batch_slots');
    expect(claims.reduce((a, c) => a + c.n, 0)).toBe(N); // one claim each, none lost
    expect(slotWrites.reduce((a, c) => a + c.n, 0)).toBe(N);
    // How many commands carry them depends on when each admission's claim (and its acknowledgement)
    // arrives: 2 to 5 each in runs here (e.g. [1, 7, 2]), and a machine twice as fast or slow can move
    // that. What cannot happen without the grouping: a command carrying more than one (478adfa: all 1s).
    expect(Math.max(...claims.map((c) => c.n))).toBeGreaterThanOrEqual(2);
    expect(Math.max(...slotWrites.map((c) => c.n))).toBeGreaterThanOrEqual(2);
    expect(claims.length).toBeLessThan(N);
    expect(slotWrites.length).toBeLessThan(N);
    for (const [i, id] of fresh.entries()) {
      expect(await jobs.holdsSlot({ _id: id, slot: admitted[i]!.slot })).toBe(true);
      expect(await jobs.find(id)).toMatchObject({ _id: id, slot: admitted[i]!.slot, status: 'running' });
    }
    const slots = await store.db
      .collection<{ _id: string; job_id: string; state: string; gen: number; evicting: string[] }>('batch_slots')
      .find({})
      .toArray();
    expect(slots.map((s) => s.job_id).sort()).toEqual([...fresh].sort());
    for (const s of slots) {
      expect(s).toMatchObject({ state: 'active', gen: 2 });
      expect(s.evicting).toHaveLength(1);
    }
    expect(slots.flatMap((s) => s.evicting).sort()).toEqual([...old].sort());
    for (const id of old) expect(await jobs.holdsSlot((await jobs.find(id))!)).toBe(false);
  }, 120_000);
});

describe('ten POSTs at once at the job limit through the real stack (session 20, an API of its own, SVC_BATCH_MAX_JOBS=10)', () => {
  const at = batchApiAtLimit('adm20', N);
  const ITEMS = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
  ];
  const submit = () => call(at.url, 'POST', '/verify/batch', at.key, { items: ITEMS });
  const apiCommands = (): Captured[] => readCapture(at.dir).filter((c) => !(c.role ?? '').includes('worker'));

  it('every POST 202 with its own job; the evicted jobs 404 at once; the new jobs complete; each claim stored once; the slots name the new jobs', async () => {
    const first = await Promise.all(Array.from({ length: N }, () => submit()));
    expect(first.map((r) => r.status)).toEqual(Array(N).fill(202));
    const old = first.map((r) => r.body.job_id as string);
    await Promise.all(old.map((id) => waitCompleted(at.url, at.key, id, 120_000)));
    await untilSlotsReleased(at.db, old, 30_000);

    const sentAt = Date.now();
    const burst = await Promise.all(Array.from({ length: N }, () => submit()));
    const answeredAt = Date.now();
    // 202, or 200 when a job finished within the POST's wait (SVC_BATCH_WAIT_SECONDS=0 here: 202).
    expect(burst.map((r) => r.status)).toEqual(Array(N).fill(202));
    const fresh = burst.map((r) => r.body.job_id as string);
    expect(new Set(fresh).size).toBe(N);
    for (const r of burst)
      expect(r.body).toMatchObject({
        job_id: expect.stringMatching(/^bj_[0-9a-f]{24}$/),
        status: 'running',
        total_items: 2,
        completed_items: 0,
        failed_items: 0,
        items: [],
        completed_at: null,
      });
    for (const id of old) {
      const gone = await call(at.url, 'GET', `/verify/batch/${id}`, at.key);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(NOT_FOUND_BODY);
    }
    for (const id of fresh) {
      const done = await waitCompleted(at.url, at.key, id, 120_000);
      expect(done).toMatchObject({ job_id: id, status: 'completed', completed_items: 2, failed_items: 0 });
      expect(done.items.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
        [`${id}-0`, 'completed'],
        [`${id}-1`, 'completed'],
      ]);
    }
    const slots = await at.db.collection<{ _id: string; job_id: string }>('batch_slots').find({}).toArray();
    expect(slots.map((s) => s.job_id).sort()).toEqual([...fresh].sort());
    const claimsStored = await at.db.collection<{ job_id: string }>('batch_slot_claims').find({}).toArray();
    for (const id of fresh) expect(claimsStored.filter((c) => c.job_id === id)).toHaveLength(1);

    // The burst's claims: every admission's once, none failed (the capture is flushed every 250 ms).
    let claimDocs = 0;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const cmds = apiCommands().filter((c) => c.t >= sentAt - 50 && c.t <= answeredAt);
      claimDocs = cmds
        .filter((c) => c.cmd === 'insert' && c.coll === 'batch_slot_claims' && !c.error)
        .reduce((a, c) => a + (c.n ?? 1), 0);
      if (claimDocs >= N) break;
      await sleep(250);
    }
    expect(claimDocs).toBe(N);
  }, 480_000);
});
