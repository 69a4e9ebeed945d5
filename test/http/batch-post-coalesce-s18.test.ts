// Session 18 (issue 22, the POST /verify/batch stall; docs/performance.md "Session 18: the POST
// stall"): the admissions of one API process send their request and job documents as grouped
// `insert` commands (persistence/insert-coalescer.ts): while one is in flight, the ones that
// arrive wait and go out together. Before, a burst of ten POSTs sent ten of each, every one a
// commit racing the others (and the running jobs' commits) for SQLite's one writer.
//   1. Real store (a database of its own), ten admissions at once in one process: the requests go
//      out as two insert commands (the first alone, the nine that came meanwhile together), every
//      admission has its own slot, job and request. Fails without the grouping (ten commands).
//   2. Black box (an API and a worker of their own, recording their store commands): ten POSTs at
//      once all answer 202 with their own running job, each job completes with its items, and the
//      API stored each request and job exactly once.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandStartedEvent } from 'mongodb';
import { Store } from '../../core/store.js';
import { batchUnits } from '../../core/batch.js';
import { BatchJobStore, newBatchJob, type NewBatchJob } from '../../persistence/batch.js';
import { stackEnv } from './helpers.js';
import { batchApiAtLimit } from './batch-limit-api.js';
import { readCapture } from '../store-commands/classify.js';
import { IDENTITY, BARE, call, waitCompleted } from './batch-fixtures.js';

const ITEMS = [
  { query: IDENTITY, type: 'math' as const },
  { query: BARE, type: 'math' as const },
];
const N = 10;

describe('admissions of one process: requests and jobs as grouped inserts (session 18, real store)', () => {
  const dbName = `svc_post18_${randomBytes(4).toString('hex')}`;
  const u = new URL(stackEnv().MONGODB_URI as string);
  u.pathname = `/${dbName}`;
  const store = Store.lazy(u.toString());
  // Every insert command this "process" sends (collection, documents), before its first connect.
  const inserts: Array<{ coll: string; n: number }> = [];
  (store.client as unknown as { monitorCommands: boolean }).monitorCommands = true;
  store.client.on('commandStarted', (ev: CommandStartedEvent) => {
    if (ev.commandName === 'insert')
      inserts.push({ coll: String(ev.command.insert), n: (ev.command.documents as unknown[]).length });
  });
  afterAll(async () => {
    await store.db.dropDatabase().catch(() => undefined);
    await store.close().catch(() => undefined);
  });
  const newJob = (id: string): NewBatchJob =>
    newBatchJob({
      jobId: id,
      orgId: 'org_post18',
      workflowId: `batch-org_post18-${id}`,
      totalItems: ITEMS.length,
      units: batchUnits(ITEMS, 8).length,
      createdAt: new Date(),
      submittedBy: { user_id: null, key_id: 'k1' },
    });

  it('ten admissions at once: the requests go out as 2 insert commands (1 + 9), not 10; every admission has its own slot, job and request', async () => {
    const jobs = new BatchJobStore(store);
    await jobs.moveCursor('next', 0); // a directory from the start
    inserts.length = 0;
    const ids = Array.from({ length: N }, (_, i) => `bj_post18_${i}_${randomBytes(3).toString('hex')}`);
    const admitted = await Promise.all(ids.map((id) => jobs.admit(newJob(id), ITEMS, 100)));
    const of = (coll: string) => inserts.filter((c) => c.coll === coll);
    // Without the grouping: 10 commands of 1 document each.
    expect(of('batch_requests').map((c) => c.n)).toEqual([1, N - 1]);
    // Jobs are inserted once their slot is known (their admissions end at different times): grouped as they come.
    expect(of('batch_jobs').reduce((a, c) => a + c.n, 0)).toBe(N);
    expect(of('batch_jobs').length).toBeLessThanOrEqual(N);
    expect(new Set(admitted.map((a) => a.slot)).size).toBe(N);
    for (const [i, id] of ids.entries()) {
      expect(await jobs.find(id)).toMatchObject({ _id: id, slot: admitted[i]!.slot, status: 'running' });
      expect(await jobs.request(id)).toEqual({ _id: id, items: ITEMS });
      expect(await jobs.holdsSlot({ _id: id, slot: admitted[i]!.slot })).toBe(true);
    }
  }, 60_000);

  it('an admission whose job id is already stored fails with the duplicate key; the admission grouped with it lands', async () => {
    const jobs = new BatchJobStore(store);
    const id = `bj_post18_dup_${randomBytes(3).toString('hex')}`;
    const other = `bj_post18_ok_${randomBytes(3).toString('hex')}`;
    await jobs.admit(newJob(id), ITEMS, 100);
    const [again, ok] = await Promise.allSettled([
      jobs.admit(newJob(id), ITEMS, 100),
      jobs.admit(newJob(other), ITEMS, 100),
    ]);
    expect(again.status).toBe('rejected');
    expect((again as PromiseRejectedResult).reason).toMatchObject({ code: 11000 });
    expect(ok.status).toBe('fulfilled');
    expect(await jobs.find(other)).toMatchObject({ _id: other, status: 'running' });
  }, 60_000);
});

describe('a burst of POST /verify/batch through the real stack (session 18, an API of its own)', () => {
  const at = batchApiAtLimit('post18', 100);

  it('ten POSTs at once: all 202 with their own running job, all complete with their items; each request and job stored exactly once', async () => {
    const burst = await Promise.all(
      Array.from({ length: N }, () => call(at.url, 'POST', '/verify/batch', at.key, { items: ITEMS })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(N).fill(202));
    const ids = burst.map((r) => r.body.job_id as string);
    expect(new Set(ids).size).toBe(N);
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
    for (const id of ids) {
      const done = await waitCompleted(at.url, at.key, id, 120_000);
      expect(done).toMatchObject({ job_id: id, status: 'completed', completed_items: 2, failed_items: 0 });
      expect(done.items.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
        [`${id}-0`, 'completed'],
        [`${id}-1`, 'completed'],
      ]);
    }
    // Each request and job once (a grouped insert that failed and was sent again would show twice).
    const apiInserts = readCapture(at.dir).filter(
      (c) => !(c.role ?? '').includes('worker') && c.cmd === 'insert' && !c.error,
    );
    const docs = (coll: string) => apiInserts.filter((c) => c.coll === coll).reduce((a, c) => a + (c.n ?? 0), 0);
    expect(docs('batch_requests')).toBe(N);
    expect(docs('batch_jobs')).toBe(N);
    const stored = await at.db
      .collection<{ _id: string; slot: number }>('batch_jobs')
      .find({ _id: { $in: ids } })
      .toArray();
    expect(stored).toHaveLength(N);
    expect(new Set(stored.map((d) => d.slot)).size).toBe(N);
    expect(await at.db.collection('batch_requests').countDocuments({ _id: { $in: ids } as never })).toBe(N);
  }, 240_000);
});
