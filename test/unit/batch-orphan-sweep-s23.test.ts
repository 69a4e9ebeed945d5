// Session 23 (issue 22; docs/batch.md "Session 23: the crash repair's read of the slots"): the
// background crash repair (api/batch-jobs.ts sweepNeverStarted, every half of
// SVC_BATCH_ORPHAN_SECONDS) read `batch_slots` whole on every run: on a filled store (1,150 slots)
// ~60 ms of FerretDB's CPU every 30 s per API process, whatever the traffic. It now reads them
// whole on every other run (and on its first, and for the at-capacity repair); between, it reads
// by `_id` only the slots the last whole read saw active. A job whose process died right after a
// whole read is still repaired within 1.5 deadlines of its claim, as before.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TemporalGateway } from '../../api/temporal.js';
import { BatchJobs, batchWorkflowId } from '../../api/batch-jobs.js';
import { batchJobsCfg, memStore, runningJob } from './batch-mem-store.js';

const ITEMS = [{ query: '1 + 1', type: 'math' as const }];
const ORG = 'org_s23';
const T0 = new Date('2026-11-28T10:00:00Z').getTime();

/** A one-item running job of ORG, not yet started (batch-mem-store.ts runningJob). */
const job = (id: string) => runningJob(ORG, id);

/** Temporal as the sweep sees it: the workflows in `running` run; every other one does not exist. */
function fakeTemporal() {
  const running = new Set<string>();
  const temporal = {
    client: {
      workflow: {
        getHandle: (id: string) => ({
          describe: async () => {
            if (running.has(id)) return { status: { name: 'RUNNING' } };
            throw new WorkflowNotFoundError('workflow not found', id, undefined);
          },
        }),
      },
    },
    connection: { withDeadline: <R>(_d: unknown, fn: () => Promise<R>) => fn() },
    eagerRoute: () => null,
  } as unknown as TemporalGateway;
  return { temporal, running };
}

const cfg = batchJobsCfg(20);

describe('batch: the crash repair reads the slots whole every other run (session 23)', () => {
  let m: ReturnType<typeof memStore>;
  let t: ReturnType<typeof fakeTemporal>;
  let jobs: BatchJobs;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    m = memStore();
    t = fakeTemporal();
    jobs = new BatchJobs(cfg, m.store, t.temporal);
    await jobs.store.slotsById([0]); // the process's one-time numeric-key rewrite (its own whole read) done first
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const at = (s: number) => vi.setSystemTime(T0 + s * 1000);
  /** The sweep as its timer runs it; returns how many slots it freed and which reads of batch_slots it sent. */
  const sweep = async () => {
    const from = m.log.length;
    const freed = await jobs.sweepNeverStarted();
    const reads = m.log.slice(from).filter((r) => r.coll === 'batch_slots' && r.op.startsWith('find'));
    return {
      freed,
      whole: reads.filter((r) => Object.keys(r.filter).length === 0).length,
      byId: reads.filter((r) => '_id' in r.filter).length,
    };
  };

  it('a whole read on the first run and on every other one; between, only the slots seen active, by _id', async () => {
    // Ten finished jobs' slots and two running jobs (their workflows run).
    for (let i = 0; i < 10; i++) {
      await jobs.store.admit(job(`bj_done${i}`), ITEMS, 20);
      await jobs.store.complete(`bj_done${i}`, { completed_items: 1, failed_items: 0 }, 1, new Date());
    }
    for (const id of ['bj_run1', 'bj_run2']) {
      await jobs.store.admit(job(id), ITEMS, 20);
      t.running.add(batchWorkflowId(ORG, id));
    }
    const runs = [];
    for (const s of [0, 30, 60, 90, 120, 150]) {
      at(s);
      runs.push(await sweep());
    }
    // Base 48254a7: a whole read of the 12 slots on each of the six runs.
    expect(runs.map((r) => r.whole)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(runs.map((r) => r.byId)).toEqual([0, 2, 0, 2, 0, 2]);
    expect(runs.map((r) => r.freed)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('a job whose process died right after a whole read is still deleted within 1.5 deadlines of its claim', async () => {
    at(0);
    expect(await sweep()).toEqual({ freed: 0, whole: 1, byId: 0 });
    // Claimed 1 s after that whole read; its workflow never started (the process died).
    at(1);
    const dead = await jobs.store.admit(job('bj_dead'), ITEMS, 20);
    at(30);
    expect(await sweep()).toEqual({ freed: 0, whole: 0, byId: 0 }); // it was not active at the whole read
    at(60);
    expect(await sweep()).toEqual({ freed: 0, whole: 1, byId: 0 }); // seen active, claimed 59 s ago: within the deadline
    expect(await jobs.store.find('bj_dead')).toMatchObject({ status: 'running' });
    at(90);
    expect(await sweep()).toMatchObject({ freed: 1, whole: 0 }); // 89 s after its claim, by `_id`
    expect(await jobs.store.find('bj_dead')).toBeNull();
    expect(m.coll('batch_slots').docs.get(JSON.stringify(String(dead.slot)))).toMatchObject({
      state: 'free',
      job_id: null,
      gen: 2,
    });
  });

  it("a whole read by the at-capacity repair moves the sweep's whole reads later, within 1.25 deadlines, and the bound holds", async () => {
    at(0);
    expect(await sweep()).toMatchObject({ whole: 1 });
    at(50);
    expect(await jobs.reclaimOrphans()).toBe(0); // an admission found every slot active: a whole read
    at(51);
    await jobs.store.admit(job('bj_late'), ITEMS, 20); // its process dies before the start
    at(60);
    expect(await sweep()).toEqual({ freed: 0, whole: 0, byId: 0 });
    at(90);
    expect(await sweep()).toEqual({ freed: 0, whole: 0, byId: 0 }); // 40 s after the whole read at 50
    at(120);
    expect(await sweep()).toMatchObject({ freed: 1, whole: 1 }); // 70 s after it; the job was claimed 69 s ago
    expect(await jobs.store.find('bj_late')).toBeNull();
  });

  it('the repair asked by an admission that found every slot active reads the slots whole, whatever the sweep read last', async () => {
    at(0);
    await sweep();
    const from = m.log.length;
    expect(await jobs.reclaimOrphans()).toBe(0);
    expect(m.log.slice(from).filter((r) => r.coll === 'batch_slots' && r.op === 'find')).toHaveLength(1);
  });
});
