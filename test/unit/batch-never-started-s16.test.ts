// Session 16 (issue 22): a job whose API process died between its admission and its workflow's
// start (the job document is inserted beside the slot write, before the start; its POST never
// answered) held its slot until the store was full and an admission asked for a repair. The
// background sweep (api/batch-jobs.ts sweepNeverStarted, every half of SVC_BATCH_ORPHAN_SECONDS)
// now deletes such a job once its slot was claimed longer ago than the deadline and Temporal says
// its workflow does not exist, and frees its slot into the release queue. A job whose workflow
// runs is left alone (and not described again for a while); a job still within the deadline is
// left to its submission. A submission that reaches its start later than half the deadline (a
// stalled process) gives up with 503 instead of starting a workflow the sweep may have orphaned.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TemporalGateway } from '../../api/temporal.js';
import { BatchJobs, batchWorkflowId } from '../../api/batch-jobs.js';
import { HttpError } from '../../api/errors.js';
import { batchJobsCfg, memStore, runningJob } from './batch-mem-store.js';

const ITEMS = [{ query: '1 + 1', type: 'math' as const }];
const ORG = 'org_s16';

/** A one-item running job of ORG, not yet started (batch-mem-store.ts runningJob). */
const job = (id: string) => runningJob(ORG, id);

/** Temporal as the sweep sees it: the workflows in `running` exist and run; every other one does not exist. */
function fakeTemporal() {
  const running = new Set<string>();
  const described: string[] = [];
  const started: string[] = [];
  const temporal = {
    client: {
      workflow: {
        getHandle: (id: string) => ({
          describe: async () => {
            described.push(id);
            if (running.has(id)) return { status: { name: 'RUNNING' } };
            throw new WorkflowNotFoundError('workflow not found', id, undefined);
          },
        }),
      },
    },
    connection: { withDeadline: <R>(_d: unknown, fn: () => Promise<R>) => fn() },
    eagerRoute: () => null,
    startWorkflow: async (_w: unknown, opts: { workflowId: string }) => {
      started.push(opts.workflowId);
      throw new Error('not reached in these rows');
    },
  } as unknown as TemporalGateway;
  return { temporal, running, described, started };
}

const cfg = batchJobsCfg(3);

describe('batch: the sweep of never-started jobs (session 16)', () => {
  let m: ReturnType<typeof memStore>;
  let t: ReturnType<typeof fakeTemporal>;
  let jobs: BatchJobs;
  beforeEach(() => {
    m = memStore();
    t = fakeTemporal();
    jobs = new BatchJobs(cfg, m.store, t.temporal);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Moves a slot's claim time `ms` into the past (as if claimed that long ago). */
  const age = (slot: number, ms: number) => {
    const doc = m.coll('batch_slots').docs.get(JSON.stringify(String(slot))) as unknown as { claimed_at: Date };
    doc.claimed_at = new Date(doc.claimed_at.getTime() - ms);
  };

  it('deletes a job without a workflow past the deadline and frees its slot into the release queue; leaves a running one and a recent one; then the freed slot is admitted', async () => {
    // Three admissions as submit makes them; only bj_run's workflow was started.
    const dead = await jobs.store.admit(job('bj_dead'), ITEMS, 3);
    const run = await jobs.store.admit(job('bj_run'), ITEMS, 3);
    const fresh = await jobs.store.admit(job('bj_fresh'), ITEMS, 3);
    t.running.add(batchWorkflowId(ORG, 'bj_run'));
    age(dead.slot, 61_000);
    age(run.slot, 61_000);
    age(fresh.slot, 10_000); // within the deadline: its start may still be in flight
    // Full: before session 16 nothing freed bj_dead's slot until an admission found the store full.
    expect(await jobs.sweepNeverStarted()).toBe(1);
    expect(await jobs.store.find('bj_dead')).toBeNull();
    expect(await jobs.store.request('bj_dead')).toBeNull();
    const slot = m.coll('batch_slots').docs.get(JSON.stringify(String(dead.slot)));
    expect(slot).toMatchObject({ state: 'free', job_id: null, gen: 2 });
    expect([...m.coll('batch_slot_queue').docs.values()]).toEqual([
      expect.objectContaining({ slot: dead.slot, gen: 2, state: 'free' }),
    ]);
    // The running job and the recent one are untouched; only the two old ones were described.
    expect(await jobs.store.find('bj_run')).toMatchObject({ status: 'running' });
    expect(await jobs.store.find('bj_fresh')).toMatchObject({ status: 'running' });
    expect(t.described.sort()).toEqual([batchWorkflowId(ORG, 'bj_dead'), batchWorkflowId(ORG, 'bj_run')].sort());
    // The next sweep does not describe the job it saw running (its workflow exists: started).
    t.described.length = 0;
    expect(await jobs.sweepNeverStarted()).toBe(0);
    expect(t.described).toEqual([]);
    // The store is at its bound of 3: the freed slot is the one a new job gets, without a repair.
    const next = await jobs.store.admit(job('bj_next'), ITEMS, 3);
    expect(next).toMatchObject({ slot: dead.slot, evicted: null });
    // Every read of a growing collection was by `_id`; only the bounded batch_slots was read whole.
    const wide = m.log.filter((r) => Object.keys(r.filter).length > 0 && !('_id' in r.filter));
    expect(wide.filter((r) => r.coll !== 'batch_slot_claims')).toEqual([]);
  });

  it('Temporal unreachable: nothing is deleted (it cannot tell a never-started job from a running one)', async () => {
    const a = await jobs.store.admit(job('bj_unknown'), ITEMS, 3);
    age(a.slot, 61_000);
    (t.temporal.client.workflow as { getHandle: unknown }).getHandle = () => ({
      describe: async () => {
        throw new Error('14 UNAVAILABLE: connection refused');
      },
    });
    expect(await jobs.sweepNeverStarted()).toBe(0);
    expect(await jobs.store.find('bj_unknown')).toMatchObject({ status: 'running' });
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(a.slot)))).toMatchObject({ state: 'active' });
  });

  it('a submission that reaches its start later than half the deadline (a stalled process) answers 503 and starts nothing; its job and slot are undone', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-27T10:00:00Z'));
    // The job's insert "takes" 31 s (the process stalled between admission and start).
    const jobsColl = m.coll('batch_jobs');
    const insert = jobsColl.insertOne.bind(jobsColl);
    jobsColl.insertOne = async (doc) => {
      const r = await insert(doc);
      vi.setSystemTime(new Date(Date.now() + 31_000));
      return r;
    };
    const err = await jobs
      .submit({ orgId: ORG, principal: { userId: null, keyId: 'k1' }, items: [{ ...ITEMS[0]!, params: {} }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(503);
    expect(t.started).toEqual([]);
    expect(jobsColl.docs.size).toBe(0);
    expect([...m.coll('batch_slots').docs.values()]).toEqual([
      expect.objectContaining({ state: 'free', job_id: null }),
    ]);
  });
});
