// Session 21 (issue 22, the evicting admission; docs/batch.md "Session 21: the evicting
// admission's slot write after the job"): at SVC_BATCH_MAX_JOBS an admission evicts, and its POST
// waited for the claim, then for the slot's write beside the job's insert, before the workflow's
// start. With `slotWriteAfterJob` (what the API asks for) admit answers once the claim is won and
// the job is stored; the slot write is sent then and settles in `slotWritten`, beside the start.
// The job may therefore finish before its slot is written: its finish step waits for that write.
//   1. the path: claim, then the job's insert; no slot write started before admit answered (on
//      0a0720a the slot write is on the path, beside the job's insert); `slotWritten` then names the job;
//   2. a job that finishes while its admission's slot write is in flight marks its slot finished
//      and queues it once the write lands (on 0a0720a the slot stays `active` for good);
//   3. a job whose slot moved on (evicted) is left alone at once: one claim read, no wait;
//   4. a job insert that fails after the claim: the slot is written and then freed, as before.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MongoServerError } from 'mongodb';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const }];
const MAX = 10;
const newJob = (id: string): NewBatchJob =>
  newBatchJob({
    jobId: id,
    orgId: 'org_a',
    workflowId: `batch-org_a-${id}`,
    totalItems: 1,
    units: batchUnits(ITEMS, 8).length,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });

async function storeUnit(jobs: BatchJobStore, jobId: string) {
  const views = itemViews(jobId, ITEMS, [
    { index: 0, status: 'completed', result: { status: 'VERIFIED' }, latency_ms: 1 },
  ]);
  await jobs.storeUnit({
    _id: resultId(jobId, 0),
    job_id: jobId,
    org_id: 'org_a',
    unit: 0,
    items: [{ index: 0, view: views[0]! }],
  });
}

async function finish(jobs: BatchJobStore, jobId: string, at: Date) {
  await storeUnit(jobs, jobId);
  return jobs.complete(jobId, { completed_items: 1, failed_items: 0 }, 1, at);
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const slotDoc = (m: ReturnType<typeof memStore>, n: number) =>
  m.coll('batch_slots').docs.get(JSON.stringify(String(n)));

describe("an evicting admission's slot write after the job (session 21, in-memory store)", () => {
  let m: ReturnType<typeof memStore>;
  let jobs: BatchJobStore;
  /** Every write of the admission's collections, with when it started and ended (a sequence number). */
  const timeline: Array<{ coll: string; op: string; start: number; end: number }> = [];
  let seq = 0;
  /** Slot updates wait for this gate when it is set (a slot write in flight). */
  let slotGate: Promise<void> | null = null;

  beforeEach(async () => {
    m = memStore();
    jobs = new BatchJobStore(m.store);
    timeline.length = 0;
    slotGate = null;
    for (const name of ['batch_slots', 'batch_slot_claims', 'batch_jobs', 'batch_requests']) {
      const c = m.coll(name);
      for (const op of ['insertOne', 'updateOne'] as const) {
        const orig = (c[op] as (...a: unknown[]) => Promise<unknown>).bind(c);
        (c as unknown as Record<string, unknown>)[op] = async (...args: unknown[]) => {
          const e = { coll: name, op, start: ++seq, end: Infinity };
          timeline.push(e);
          await tick();
          if (name === 'batch_slots' && op === 'updateOne' && slotGate) await slotGate;
          try {
            return await orig(...args);
          } finally {
            e.end = ++seq;
          }
        };
      }
    }
    // Ten finished jobs in the ten slots: every admission from here on evicts one.
    await jobs.moveCursor('next', 0);
    const old = Array.from({ length: MAX }, (_, i) => `bj_o${i}`);
    for (const id of old) await jobs.admit(newJob(id), ITEMS, MAX);
    for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await tick();
    // The first admission at the limit reads the hints and the queue's window; the rows below start with it in hand.
    await jobs.admit(newJob('bj_warm'), ITEMS, MAX);
    await tick();
    timeline.length = 0;
  });

  it('admit answers after the claim and the job insert; the slot write starts only after the job is stored and settles in slotWritten', async () => {
    for (let i = 1; i < 6; i++) {
      timeline.length = 0;
      const id = `bj_n${i}`;
      const a = await jobs.admit(newJob(id), ITEMS, MAX, undefined, { slotWriteAfterJob: true });
      const answered = ++seq;
      expect(a.evicted).toBe(`bj_o${i}`);
      const claim = timeline.find((e) => e.coll === 'batch_slot_claims' && e.op === 'insertOne')!;
      const job = timeline.find((e) => e.coll === 'batch_jobs' && e.op === 'insertOne')!;
      expect(claim.end).toBeLessThan(job.start); // the claim decides the slot first
      expect(job.end).toBeLessThan(answered);
      // No slot write on the path: none started before the job was stored, none acknowledged before admit answered.
      // (0a0720a: the slot's update goes beside the job's insert and admit waits for it.)
      const slotWrites = () => timeline.filter((e) => e.coll === 'batch_slots' && e.op === 'updateOne');
      for (const w of slotWrites()) {
        expect(w.start).toBeGreaterThan(job.end);
        expect(w.end).toBeGreaterThan(answered);
      }
      expect(a.slotWritten).toBeInstanceOf(Promise);
      // Before it settles the slot still names the evicted job (readable: its deletion waits for the write).
      expect(await jobs.holdsSlot({ _id: `bj_o${i}`, slot: a.slot })).toBe(true);
      await a.slotWritten;
      expect(slotWrites()).toHaveLength(1);
      expect(slotDoc(m, a.slot)).toMatchObject({ job_id: id, state: 'active', gen: 2, evicting: [`bj_o${i}`] });
      expect(await jobs.holdsSlot({ _id: `bj_o${i}`, slot: a.slot })).toBe(false);
      expect(await jobs.holdsSlot({ _id: id, slot: a.slot })).toBe(true);
      await jobs.dropEvicted(a.drop);
    }
    // Without the option admit still writes the slot before it answers (tests, benches and older callers).
    const plain = await jobs.admit(newJob('bj_plain'), ITEMS, MAX);
    expect(plain.slotWritten).toBeUndefined();
    expect(slotDoc(m, plain.slot)).toMatchObject({ job_id: 'bj_plain', state: 'active', gen: 2 });
  });

  it('a job that finishes while its slot write is in flight marks its slot finished and queues it once the write lands', async () => {
    let open!: () => void;
    slotGate = new Promise<void>((r) => (open = r));
    const a = await jobs.admit(newJob('bj_fast'), ITEMS, MAX, undefined, { slotWriteAfterJob: true });
    expect(a.evicted).toBe('bj_o1');
    expect(slotDoc(m, a.slot)).toMatchObject({ job_id: 'bj_o1', state: 'finished', gen: 1 });
    // The job's workflow runs beside the slot write and finishes first.
    const at = new Date('2026-01-02T00:00:00Z');
    let finished = false;
    const done = finish(jobs, 'bj_fast', at).then((r) => {
      finished = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(finished).toBe(false); // waiting for the admission's write (0a0720a: returned, the slot left to it)
    expect(slotDoc(m, a.slot)).toMatchObject({ job_id: 'bj_o1', state: 'finished', gen: 1 });
    open();
    await a.slotWritten;
    expect(await done).toMatchObject({ completed_items: 1, completed_at: at });
    expect(slotDoc(m, a.slot)).toMatchObject({ job_id: 'bj_fast', state: 'finished', gen: 2, finished_at: at });
    // Queued for eviction at its generation: the next admission at the limit can take it.
    const queued = [...m.coll('batch_slot_queue').docs.values()].filter((q) => q.slot === a.slot && q.gen === 2);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ state: 'finished', finished_at: at });
  });

  it('the same race written by hand (the base has no option): the finish waits for a slot write that lands later', async () => {
    // Slot 3 holds finished bj_o3 at generation 1; an admission won claim 3:2 for bj_late, stored its job, and its
    // slot write lands 80 ms later, after the job's finish began.
    await m.coll('batch_slot_claims').insertOne({
      _id: '3:2',
      slot: 3,
      gen: 2,
      job_id: 'bj_late',
      created_at: new Date(),
    });
    await m.coll('batch_jobs').insertOne({ ...newJob('bj_late'), slot: 3 });
    const landed = new Promise((r) => setTimeout(r, 80)).then(() =>
      jobs.slots.update(3, {
        $set: { gen: 2, state: 'active', job_id: 'bj_late', claimed_at: new Date(), finished_at: null, units: null },
      }),
    );
    const at = new Date('2026-01-03T00:00:00Z');
    await finish(jobs, 'bj_late', at);
    await landed;
    expect(slotDoc(m, 3)).toMatchObject({ job_id: 'bj_late', state: 'finished', gen: 2, finished_at: at });
  });

  it('a job whose slot moved on is left alone at once: one claim read, no wait', async () => {
    const a = await jobs.admit(newJob('bj_x'), ITEMS, MAX, undefined, { slotWriteAfterJob: true });
    await a.slotWritten;
    // bj_o1 was evicted from a.slot; a late retry of its finish step must not touch the slot.
    const before = structuredClone(slotDoc(m, a.slot));
    const reads = m.log.length;
    const t0 = Date.now();
    await jobs.complete('bj_o1', { completed_items: 1, failed_items: 0 }, 1, new Date());
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(slotDoc(m, a.slot)).toEqual(before);
    const sent = m.log.slice(reads).map((r) => `${r.coll}.${r.op}`);
    expect(sent.filter((s) => s === 'batch_slot_claims.findOne')).toHaveLength(1);
  });

  it('a job insert that fails after the claim: the slot is written and freed (queued free), the job and request gone, the error thrown', async () => {
    const c = m.coll('batch_jobs');
    const insert = c.insertOne.bind(c);
    (c as unknown as Record<string, unknown>).insertOne = async (doc: { _id: string }) => {
      if (doc._id === 'bj_fail') throw new MongoServerError({ message: 'disk I/O error', code: 1 });
      return insert(doc as never);
    };
    await expect(
      jobs.admit(newJob('bj_fail'), ITEMS, MAX, undefined, { slotWriteAfterJob: true }),
    ).rejects.toMatchObject({ message: 'disk I/O error' });
    const claim = [...m.coll('batch_slot_claims').docs.values()].find((c) => c.job_id === 'bj_fail')!;
    expect(claim).toMatchObject({ slot: 1, gen: 2 }); // it evicted bj_o1
    const freed = slotDoc(m, claim.slot);
    expect(freed).toMatchObject({ state: 'free', job_id: null, gen: 2, evicting: ['bj_o1'] });
    expect(await jobs.find('bj_fail')).toBeNull();
    expect(await jobs.request('bj_fail')).toBeNull();
    const q = [...m.coll('batch_slot_queue').docs.values()].filter((e) => e.slot === claim.slot && e.gen === 2);
    expect(q).toMatchObject([{ state: 'free' }]);
  });
});

describe('the release-queue window held 60 s (session 21, in-memory store)', () => {
  it('an admission 20 s after the last burst at the limit claims from the window in hand, with no read before its claim; 70 s after, it reads the hint and the window again', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    try {
      await jobs.moveCursor('next', 0);
      const old = Array.from({ length: MAX }, (_, i) => `bj_q${i}`);
      for (const id of old) await jobs.admit(newJob(id), ITEMS, MAX);
      for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
      await tick();
      // A burst at the limit: its first admission reads the hint and the window, and the next windows are read ahead.
      const first = await Promise.all(['bj_r0', 'bj_r1', 'bj_r2'].map((id) => jobs.admit(newJob(id), ITEMS, MAX)));
      expect(first.map((a) => a.evicted).sort()).toEqual(['bj_q0', 'bj_q1', 'bj_q2']);
      await tick();
      /** The reads an admission sent before its claim's insert. */
      const readsBeforeClaim = async (id: string) => {
        const from = m.log.length;
        const a = await jobs.admit(newJob(id), ITEMS, MAX, undefined, { slotWriteAfterJob: true });
        await a.slotWritten;
        const log = m.log.slice(from);
        const claim = log.findIndex((r) => r.coll === 'batch_slot_claims' && r.op === 'insertOne');
        expect(claim).toBeGreaterThanOrEqual(0);
        return {
          a,
          reads: log
            .slice(0, claim)
            .filter((r) => r.op === 'findOne')
            .map((r) => r.coll),
        };
      };
      skew = 20_000; // 0a0720a held the window and the hint 10 s: this admission read both again before its claim
      const later = await readsBeforeClaim('bj_r3');
      expect(later.a.evicted).toBe('bj_q3');
      expect(later.reads).toEqual([]);
      skew = 20_000 + 70_000; // past the bound: the hint and the window are read again
      const stale = await readsBeforeClaim('bj_r4');
      expect(stale.a.evicted).toBe('bj_q4');
      expect(stale.reads).toContain('batch_slot_cursors');
      expect(stale.reads).toContain('batch_slot_queue');
    } finally {
      clock.mockRestore();
    }
  });
});
