// Session 20 (issue 22, the admission at the job limit; docs/batch.md "Session 20: the admission at
// the limit"): at SVC_BATCH_MAX_JOBS every admission evicts, and each sent its claim and its slot's
// write as commands of their own (ten of each per burst of ten, each a commit on SQLite's one
// writer). Now a process's claims, and its claim winners' slot writes, that arrive while one is in
// flight go out as one command (persistence/update-coalescer.ts for the updates), each still its
// own statement. 1. the coalescer itself; 2. the job store against the in-memory store, counting
// the commands (fails on 478adfa: 10 claim and 10 slot-update commands). The real store's row is
// test/http/batch-admission-grouped-s20.test.ts.
import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import { UpdateCoalescer, type UpdateReply, type UpdateStatement } from '../../persistence/update-coalescer.js';
import { BatchJobStore, newBatchJob, resultId, type NewBatchJob } from '../../persistence/batch.js';
import { batchUnits, itemViews } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

/** A sender that records each command and answers when the test lets it. */
function gatedSender(answer: (sts: UpdateStatement[]) => UpdateReply | Error = () => ({})) {
  const sent: UpdateStatement[][] = [];
  const gates: Array<() => void> = [];
  const send = (sts: UpdateStatement[]) => {
    sent.push(sts);
    return new Promise<UpdateReply>((resolve, reject) =>
      gates.push(() => {
        const a = answer(sts);
        if (a instanceof Error) reject(a);
        else resolve(a);
      }),
    );
  };
  const open = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { sent, send, open };
}

describe('UpdateCoalescer (session 20)', () => {
  it('the first update goes alone; the ones that arrive meanwhile go together as one command, each its own statement', async () => {
    const g = gatedSender();
    const c = new UpdateCoalescer(g.send);
    const done: string[] = [];
    const ps = ['1', '2', '3', '4'].map((id) => c.update(id, { $set: { v: id } }).then(() => done.push(id)));
    await new Promise((r) => setImmediate(r));
    expect(g.sent.map((b) => b.map((s) => s.q._id))).toEqual([['1']]);
    await g.open();
    expect(done).toEqual(['1']);
    expect(g.sent.map((b) => b.map((s) => s.q._id))).toEqual([['1'], ['2', '3', '4']]);
    expect(g.sent[1]!.map((s) => s.u)).toEqual([{ $set: { v: '2' } }, { $set: { v: '3' } }, { $set: { v: '4' } }]);
    await g.open();
    await Promise.all(ps);
    expect(done).toEqual(['1', '2', '3', '4']);
  });

  it('two updates of one _id never share a command: the later one goes in the next, in order', async () => {
    const g = gatedSender();
    const c = new UpdateCoalescer(g.send);
    const ps = [c.update('a', { $set: { v: 1 } }), c.update('b', { $set: { v: 1 } })];
    ps.push(c.update('b', { $set: { v: 2 } }), c.update('c', { $set: { v: 1 } }), c.update('b', { $set: { v: 3 } }));
    await g.open();
    await g.open();
    await g.open();
    await g.open();
    await Promise.all(ps);
    expect(g.sent.map((b) => b.map((s) => `${s.q._id}${(s.u.$set as { v: number }).v}`))).toEqual([
      ['a1'],
      ['b1', 'c1'],
      ['b2'],
      ['b3'],
    ]);
  });

  it("a statement's write error fails its caller alone; a failed command or a write concern error fails every caller of it", async () => {
    let mode: 'statement' | 'command' | 'concern' = 'statement';
    const g = gatedSender((sts) => {
      if (mode === 'command') return new MongoServerError({ message: 'connection reset', code: 6 });
      if (mode === 'concern')
        return { n: sts.length, writeConcernError: { code: 64, errmsg: 'waiting for replication' } };
      return { n: sts.length - 1, writeErrors: [{ index: 1, code: 2, errmsg: 'bad update' }] };
    });
    const c = new UpdateCoalescer(g.send);
    const first = c.update('x', { $set: { v: 0 } });
    const batch = Promise.allSettled(['p', 'q', 'r'].map((id) => c.update(id, { $set: { v: 1 } })));
    await g.open(); // x alone: no error at index 1 in a one-statement command
    await expect(first).resolves.toBeUndefined();
    await g.open();
    const settled = await batch;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: 2, message: 'bad update' });
    for (const m of ['command', 'concern'] as const) {
      mode = m;
      const settledAll = Promise.allSettled(['s', 't', 'u'].map((id) => c.update(id, { $set: { v: 2 } })));
      await g.open(); // s alone
      await g.open(); // t and u together
      expect(g.sent.at(-1)!.map((st) => st.q._id)).toEqual(['t', 'u']);
      const all = await settledAll;
      expect(
        all.map((x) => x.status),
        m,
      ).toEqual(['rejected', 'rejected', 'rejected']);
    }
  });
});

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

async function finish(jobs: BatchJobStore, jobId: string, at: Date) {
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
  await jobs.complete(jobId, { completed_items: 1, failed_items: 0 }, 1, at);
}

describe('ten admissions at the limit in one process (session 20, in-memory store)', () => {
  it('the claims go out in at most 4 insert commands and the slot writes in at most 4 update commands, together no more than the 10 slot inserts of ten new numbers; each admission its own slot, the evicted jobs 404', async () => {
    const m = memStore();
    const commands: Array<{ kind: string; coll: string; n: number }> = [];
    const db = (m.store as unknown as { db: { command: (c: Record<string, unknown>) => Promise<unknown> } }).db;
    const send = db.command.bind(db);
    db.command = (c) => {
      const kind = c.insert ? 'insert' : c.update ? 'update' : '?';
      const coll = String(c.insert ?? c.update);
      const n = ((c.documents ?? c.updates) as unknown[]).length;
      commands.push({ kind, coll, n });
      return send(c);
    };
    // The direct (one-document) commands of the slot directory, counted beside the grouped ones.
    const direct = (coll: string, op: string) => m.log.filter((r) => r.coll === coll && r.op === op).length;
    const jobs = new BatchJobStore(m.store);
    await jobs.moveCursor('next', 0);
    // Below the limit: ten new numbers, one slot insert each (the baseline).
    const logFrom = m.log.length;
    const old = Array.from({ length: MAX }, (_, i) => `bj_g${i}`);
    await Promise.all(old.map((id) => jobs.admit(newJob(id), ITEMS, MAX)));
    const newNumberInserts = m.log
      .slice(logFrom)
      .filter((r) => r.coll === 'batch_slots' && r.op === 'insertOne').length;
    expect(newNumberInserts).toBe(MAX);
    for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await new Promise((r) => setTimeout(r, 5));

    // At the limit: ten admissions at once, each evicts one finished job.
    commands.length = 0;
    const updatesBefore = direct('batch_slots', 'updateOne');
    const fresh = Array.from({ length: MAX }, (_, i) => `bj_h${i}`);
    const admitted = await Promise.all(fresh.map((id) => jobs.admit(newJob(id), ITEMS, MAX)));
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(MAX);
    expect(admitted.map((a) => a.evicted).sort()).toEqual([...old].sort());
    const claimCmds = commands.filter((c) => c.kind === 'insert' && c.coll === 'batch_slot_claims');
    const slotCmds = commands.filter((c) => c.kind === 'update' && c.coll === 'batch_slots');
    // On 478adfa: no grouped command at all (10 claim insertOne and 10 slot updateOne of their own).
    expect(claimCmds.reduce((a, c) => a + c.n, 0)).toBe(MAX);
    expect(slotCmds.reduce((a, c) => a + c.n, 0)).toBe(MAX);
    // Seen here: claims [1, 7, 1, 1], slot writes [1, 1, 6, 2] (a queue window holds 8 positions: the
    // last two admissions claim from the next one, read after them). Bounded by 4 each.
    expect(claimCmds.length).toBeLessThanOrEqual(4);
    expect(slotCmds.length).toBeLessThanOrEqual(4);
    expect(claimCmds.length + slotCmds.length).toBeLessThanOrEqual(newNumberInserts);
    // Every slot write went through the grouped command (the in-memory store applies it statement by statement).
    expect(direct('batch_slots', 'updateOne') - updatesBefore).toBe(MAX);
    for (const [i, id] of fresh.entries()) {
      expect(m.coll('batch_slots').docs.get(JSON.stringify(String(admitted[i]!.slot)))).toMatchObject({
        job_id: id,
        state: 'active',
        gen: 2,
        evicting: [admitted[i]!.evicted],
      });
      expect(await jobs.find(id)).toMatchObject({ _id: id, slot: admitted[i]!.slot, status: 'running' });
    }
    for (const id of old) expect(await jobs.holdsSlot((await jobs.find(id))!)).toBe(false);
    expect(m.coll('batch_slot_claims').docs.size).toBe(MAX);
  });

  it('a grouped claim that loses (another process holds `<slot>:<gen>`) loses alone: its admission takes another slot, the others keep theirs', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    await jobs.moveCursor('next', 0);
    const old = Array.from({ length: 4 }, (_, i) => `bj_l${i}`);
    for (const id of old) await jobs.admit(newJob(id), ITEMS, 4);
    for (const [i, id] of old.entries()) await finish(jobs, id, new Date(Date.UTC(2026, 0, 1, 0, i)));
    await new Promise((r) => setTimeout(r, 5));
    // Another process's admission took the oldest slot (its claim and slot write), unknown to this one.
    const other = new BatchJobStore(m.store);
    const taken = await other.admit(newJob('bj_other'), ITEMS, 4);
    expect(taken.evicted).toBe('bj_l0');
    const r = await Promise.allSettled(
      ['bj_m0', 'bj_m1', 'bj_m2', 'bj_m3'].map((id) => jobs.admit(newJob(id), ITEMS, 4)),
    );
    const ok = r.filter(
      (x): x is PromiseFulfilledResult<Awaited<ReturnType<typeof jobs.admit>>> => x.status === 'fulfilled',
    );
    // Three finished slots were left: three admitted on distinct slots, the fourth finds every slot active.
    expect(ok).toHaveLength(3);
    expect(new Set([taken.slot, ...ok.map((x) => x.value.slot)]).size).toBe(4);
    expect(ok.map((x) => x.value.evicted).sort()).toEqual(['bj_l1', 'bj_l2', 'bj_l3']);
    expect(r.filter((x) => x.status === 'rejected')).toHaveLength(1);
    const ids = ['bj_m0', 'bj_m1', 'bj_m2', 'bj_m3'].filter((_, i) => r[i]!.status === 'fulfilled');
    const slots = [...m.coll('batch_slots').docs.values()].map((d) => d.job_id).sort();
    expect(slots).toEqual(['bj_other', ...ids].sort());
  });
});
