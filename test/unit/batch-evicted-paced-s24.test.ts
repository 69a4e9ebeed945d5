// Session 24 (issue 22; docs/batch.md "Session 24: the deletion of evicted jobs"):
//   - the deletion of evicted jobs is paced: at most DROP_STEP_UNITS result documents per `delete`
//     command, one command at a time (the requests no longer beside the results), the jobs last,
//     each command by `_id`; session 23 sent all the batch's result documents in one command beside
//     its requests, so a read or a verification waited behind up to 32 jobs' deletes;
//   - a dead process's evictions are found through `batch_evictors` (one document per API process,
//     written at its start and every EVICTOR_BEAT_MS): the periodic sweep reads the slots only when
//     a process is dead (EVICTOR_STALE_MS without a beat), not every 5 minutes in every process.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  BatchJobStore,
  DROP_STEP_UNITS,
  EVICTOR_STALE_MS,
  newBatchJob,
  resultId,
  type BatchResultDoc,
  type NewBatchJob,
} from '../../persistence/batch.js';
import { batchUnits, itemViews, type BatchItemOutcome } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [
  { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const },
  { query: '2 + 2', type: 'math' as const },
  { query: '(AND (GT x 5))', type: 'logic' as const },
];
const T0 = new Date('2026-11-28T10:00:00Z').getTime();

function newJob(id: string): NewBatchJob {
  return newBatchJob({
    jobId: id,
    orgId: 'org_s24',
    workflowId: `batch-org_s24-${id}`,
    totalItems: ITEMS.length,
    units: batchUnits(ITEMS, 8).length,
    createdAt: new Date(T0),
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });
}

/** Unit 0: the two math items; unit 1: the logic item. */
function resultDocs(jobId: string): BatchResultDoc[] {
  const outcomes: BatchItemOutcome[] = ITEMS.map((_, index) => ({
    index,
    status: 'completed',
    result: { status: index === 0 ? 'VERIFIED' : 'UNVERIFIABLE' },
    latency_ms: 1,
  }));
  const views = itemViews(jobId, ITEMS, outcomes);
  return [
    {
      _id: resultId(jobId, 0),
      job_id: jobId,
      org_id: 'org_s24',
      unit: 0,
      items: [0, 1].map((i) => ({ index: i, view: views[i]! })),
    },
    { _id: resultId(jobId, 1), job_id: jobId, org_id: 'org_s24', unit: 1, items: [{ index: 2, view: views[2]! }] },
  ];
}

async function runToCompletion(jobs: BatchJobStore, jobId: string, at: Date) {
  for (const d of resultDocs(jobId)) await jobs.storeUnit(d);
  await jobs.complete(jobId, { completed_items: 3, failed_items: 0 }, 2, at);
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('session 24: the paced deletion of evicted jobs', () => {
  let m: ReturnType<typeof memStore>;
  let jobs: BatchJobStore;
  /** Every `bulkWrite` (one `delete` command): its collection, statements, and how many were in flight when it started. */
  let commands: Array<{ coll: string; statements: number; inFlight: number }>;
  beforeEach(() => {
    m = memStore();
    jobs = new BatchJobStore(m.store);
    commands = [];
    let inFlight = 0;
    for (const name of ['batch_results', 'batch_requests', 'batch_jobs']) {
      const coll = m.coll(name);
      const orig = coll.bulkWrite.bind(coll);
      coll.bulkWrite = async (ops) => {
        commands.push({ coll: name, statements: ops.length, inFlight: ++inFlight });
        try {
          await tick(); // a command takes a moment: one sent beside it overlaps
          return await orig(ops);
        } finally {
          inFlight--;
        }
      };
    }
  });

  /** Ten finished jobs (two result documents each) evicted: their names as the admissions left them. */
  async function tenEvicted(): Promise<string[]> {
    const ids = Array.from({ length: 10 }, (_, i) => `bj_p${i}`);
    for (const id of ids) await jobs.admit(newJob(id), ITEMS, 10);
    for (const [i, id] of ids.entries()) await runToCompletion(jobs, id, new Date(T0 + (i + 1) * 60_000));
    await tick();
    const drop: string[] = [];
    for (let i = 0; i < 10; i++) drop.push(...(await jobs.admit(newJob(`bj_n${i}`), ITEMS, 10)).drop);
    expect(drop.sort()).toEqual([...ids].sort());
    return drop;
  }

  it('paced: at most DROP_STEP_UNITS result documents per command, one command at a time, the requests after the results, the jobs last; everything deleted by id', async () => {
    const drop = await tenEvicted();
    const from = m.log.length;
    expect(await jobs.dropEvicted(drop, { paced: true })).toBe(10);
    // 20 result documents: 8 + 8 + 4, then the 10 requests, then the 10 jobs. Session 23 (unpaced): 20 beside 10, then 10.
    expect(commands.map((c) => `${c.coll} ${c.statements}`)).toEqual([
      `batch_results ${DROP_STEP_UNITS}`,
      `batch_results ${DROP_STEP_UNITS}`,
      `batch_results ${20 - 2 * DROP_STEP_UNITS}`,
      'batch_requests 10',
      'batch_jobs 10',
    ]);
    expect(commands.every((c) => c.inFlight === 1)).toBe(true);
    for (const r of m.log.slice(from)) expect(Object.keys(r.filter)).toEqual(['_id']);
    expect(m.log.slice(from).filter((r) => r.op.startsWith('find'))).toEqual([]); // counts known from the slots
    for (const id of drop) {
      expect(await jobs.find(id)).toBeNull();
      expect(await jobs.request(id)).toBeNull();
      expect(await jobs.unitResults(id, [0, 1])).toEqual([null, null]);
    }
    expect(m.coll('batch_jobs').docs.size).toBe(10); // the ten admitted
    expect(m.coll('batch_results').docs.size).toBe(0);
    // Idempotent: nothing sent again for names deleted.
    expect(await jobs.dropEvicted(drop, { paced: true })).toBe(0);
    expect(commands).toHaveLength(5);
  });

  it('paced: a job whose count is unknown is read by id first; one already gone costs that read only', async () => {
    const drop = await tenEvicted();
    const other = new BatchJobStore(m.store); // knows no count: reads each job
    expect(await other.dropEvicted(drop.slice(0, 3), { paced: true })).toBe(3);
    expect(commands.map((c) => `${c.coll} ${c.statements}`)).toEqual([
      'batch_results 6',
      'batch_requests 3',
      'batch_jobs 3',
    ]);
    expect(commands.every((c) => c.inFlight === 1)).toBe(true);
    const again = new BatchJobStore(m.store);
    const from = m.log.length;
    expect(await again.dropEvicted(drop.slice(0, 3), { paced: true })).toBe(0);
    expect(m.log.slice(from).map((r) => `${r.coll} ${r.op}`)).toEqual(Array(3).fill('batch_jobs findOne'));
  });

  it('unpaced (an admission that could not start its workflow, the claim sweep): as session 18, three commands per batch', async () => {
    const drop = await tenEvicted();
    expect(await jobs.dropEvicted(drop)).toBe(10);
    expect(commands.map((c) => `${c.coll} ${c.statements}`)).toEqual([
      'batch_results 20',
      'batch_requests 10',
      'batch_jobs 10',
    ]);
  });
});

describe('session 24: a dead process found through batch_evictors', () => {
  let m: ReturnType<typeof memStore>;
  beforeEach(() => {
    m = memStore();
  });
  const slotReads = (from: number) =>
    m.log.slice(from).filter((r) => r.coll === 'batch_slots' && r.op.startsWith('find'));

  it('the periodic sweep reads the slots only once a process is stale; it finishes its evictions and deletes its document', async () => {
    const p = new BatchJobStore(m.store);
    const q = new BatchJobStore(m.store);
    await p.beat('api_p', new Date(T0));
    await q.beat('api_q', new Date(T0));
    await p.admit(newJob('bj_a1'), ITEMS, 1);
    await runToCompletion(p, 'bj_a1', new Date(T0 + 1000));
    await tick();
    // P evicts bj_a1 and dies before its deletion.
    expect((await p.admit(newJob('bj_a2'), ITEMS, 1)).drop).toEqual(['bj_a1']);
    await p.slotsById([0]); // Q's one-time key rewrite out of the way
    await q.slotsById([0]);

    // Q's sweeps while P's `seen` has changed within EVICTOR_STALE_MS of Q's clock (Q first read it
    // at 60 s): one read of batch_evictors, no slot read, nothing deleted.
    for (const s of [60, 120, 179, 239]) {
      await q.beat('api_q', new Date(T0 + s * 1000));
      const from = m.log.length;
      expect(await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + s * 1000 })).toBe(0);
      expect(m.log.slice(from).map((r) => `${r.coll} ${r.op}`)).toEqual(['batch_evictors find']);
    }
    expect(await q.find('bj_a1')).not.toBeNull();

    // EVICTOR_STALE_MS after Q first read P's last `seen`: one read of the slots, bj_a1 deleted by id, P's document gone, Q's kept.
    const now = T0 + 60_000 + EVICTOR_STALE_MS;
    await q.beat('api_q', new Date(now));
    const from = m.log.length;
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now, paced: true })).toBe(1);
    expect(slotReads(from)).toHaveLength(1);
    for (const r of m.log.slice(from).filter((x) => x.coll !== 'batch_slots' && x.coll !== 'batch_evictors'))
      expect(Object.keys(r.filter)).toEqual(['_id']);
    expect(await q.find('bj_a1')).toBeNull();
    expect(await q.request('bj_a1')).toBeNull();
    expect(await q.unitResults('bj_a1', [0, 1])).toEqual([null, null]);
    expect([...m.coll('batch_evictors').docs.values()].map((d) => d._id)).toEqual(['api_q']);
    // The next sweep reads batch_evictors only again.
    const next = m.log.length;
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now: now + 60_000 })).toBe(0);
    expect(slotReads(next)).toEqual([]);
  });

  it('a process never counts itself dead; the first sweep (whole) reads the slots anyway, for processes from before session 24', async () => {
    const q = new BatchJobStore(m.store);
    await q.beat('api_q', new Date(T0));
    await q.slotsById([0]);
    let from = m.log.length;
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + 10 * EVICTOR_STALE_MS })).toBe(0);
    expect(slotReads(from)).toEqual([]);
    // A dead process from before (no document): its name on a slot is found by the first sweep only.
    const old = new BatchJobStore(m.store);
    await old.admit(newJob('bj_o1'), ITEMS, 1);
    await runToCompletion(old, 'bj_o1', new Date(T0 + 1000));
    await tick();
    expect((await old.admit(newJob('bj_o2'), ITEMS, 1)).drop).toEqual(['bj_o1']);
    from = m.log.length;
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + 1000, whole: true })).toBe(1);
    expect(slotReads(from)).toHaveLength(1);
    expect(await q.find('bj_o1')).toBeNull();
  });

  it('a stale document whose process beats again before the sweep deletes it is kept (the delete matches the `seen` read)', async () => {
    const p = new BatchJobStore(m.store);
    const q = new BatchJobStore(m.store);
    await p.beat('api_p', new Date(T0));
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now: T0 })).toBe(0); // Q reads P's `seen`
    const now = T0 + EVICTOR_STALE_MS + 1000;
    // P was slow, not dead: it beats while Q's sweep reads the slots.
    const sweep = q.sweepEvicted.bind(q);
    q.sweepEvicted = async (...args) => {
      await p.beat('api_p', new Date(now));
      return sweep(...args);
    };
    expect(await q.sweepDeadEvictors('api_q', new Set(), { now })).toBe(0);
    expect(m.coll('batch_evictors').docs.get(JSON.stringify('api_p'))?.seen).toEqual(new Date(now));
  });

  it("review C3: staleness is timed by the sweeper's clock: a live process whose clock is 10 min behind is never dead, a dead one whose clock is 10 min ahead is dead EVICTOR_STALE_MS after its last `seen` was read", async () => {
    const p = new BatchJobStore(m.store);
    const q = new BatchJobStore(m.store);
    const SKEW = 600_000;
    await q.slotsById([0]);
    // P lives and beats every 60 s by its own clock, 10 min behind Q's: Q never reads the slots for it.
    for (let s = 0; s <= 600; s += 60) {
      await p.beat('api_p', new Date(T0 - SKEW + s * 1000));
      const from = m.log.length;
      expect(await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + s * 1000 })).toBe(0);
      expect(slotReads(from)).toEqual([]); // session 24 before the fix: a read of the slots every sweep
    }
    expect([...m.coll('batch_evictors').docs.keys()]).toEqual([JSON.stringify('api_p')]);

    // R's clock is 10 min ahead; it beats once (read by Q at 660 s) and dies.
    await p.beat('api_p', new Date(T0 - SKEW + 660_000));
    await new BatchJobStore(m.store).beat('api_r', new Date(T0 + SKEW + 660_000));
    for (const s of [660, 720, 780, 839]) {
      await p.beat('api_p', new Date(T0 - SKEW + s * 1000));
      const from = m.log.length;
      await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + s * 1000 });
      expect(slotReads(from)).toEqual([]);
    }
    await p.beat('api_p', new Date(T0 - SKEW + 840_000));
    const from = m.log.length;
    await q.sweepDeadEvictors('api_q', new Set(), { now: T0 + 660_000 + EVICTOR_STALE_MS });
    expect(slotReads(from)).toHaveLength(1); // before the fix: only 10 min later
    expect([...m.coll('batch_evictors').docs.keys()]).toEqual([JSON.stringify('api_p')]);
  });

  it('a beat recreates a document a sweep deleted (upsert), and only moves `seen`', async () => {
    const p = new BatchJobStore(m.store);
    await p.beat('api_p', new Date(T0));
    m.coll('batch_evictors').docs.clear();
    await p.beat('api_p', new Date(T0 + 5000));
    expect([...m.coll('batch_evictors').docs.values()]).toEqual([{ _id: 'api_p', seen: new Date(T0 + 5000) }]);
    expect(m.log.filter((r) => r.coll === 'batch_evictors').map((r) => r.filter)).toEqual([
      { _id: 'api_p' },
      { _id: 'api_p' },
    ]);
  });
});
