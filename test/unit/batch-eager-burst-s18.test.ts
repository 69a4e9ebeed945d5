// Session 18 (issue 22, the POST stall; docs/performance.md "Session 18: the POST stall"): a
// burst's first job does not start eagerly in the API process. The eager choice (a one-step job
// runs in this process's own worker) required only that no other submission was between its
// admission and its start; a burst's first POST usually got there while the others were still
// reading their bodies, so it ran here beside the rest of the burst (3 of 12 bursts in a
// data-scale run, the slowest ones). Now every POST /verify/batch counts from its arrival
// (api/app.ts, before the body; batchArrival) until its start is done, and a job is eager only
// when no other POST is counted. In-memory store, Temporal faked (the start's options recorded).
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceConfig } from '../../core/config.js';
import type { TemporalGateway } from '../../api/temporal.js';
import { BatchJobs, batchArrival } from '../../api/batch-jobs.js';
import { jobEnded } from '../../core/completion-notices.js';
import { memStore } from './batch-mem-store.js';

const ITEMS = [{ query: '1 + 1', type: 'math' as const, params: {} }];
const cfg = {
  SVC_BATCH_MAX_JOBS: 10,
  SVC_BATCH_ORPHAN_SECONDS: 60,
  SVC_BATCH_WAIT_SECONDS: 0,
  SVC_BATCH_ITEM_TIMEOUT: 60,
  SVC_PROVIDER_TIMEOUT: 30,
  SVC_ACTIVITY_MODE: 'auto',
} as unknown as ServiceConfig;

/** Temporal with an eager route; every start succeeds and is recorded with its options. */
function fakeTemporal() {
  const starts: Array<{ workflowId: string; requestEagerStart?: boolean; taskQueue?: string }> = [];
  const fail = { next: false };
  const direct = { withDeadline: <R>(_d: unknown, fn: () => Promise<R>) => fn() };
  const temporal = {
    client: { workflow: { getHandle: () => ({}) } },
    connection: direct,
    eagerRoute: () => ({ client: {}, connection: direct, taskQueue: 'svc-eager' }),
    startWorkflow: async (
      _w: unknown,
      opts: { workflowId: string; requestEagerStart?: boolean; taskQueue?: string },
    ) => {
      starts.push(opts);
      if (fail.next) {
        fail.next = false;
        throw new Error('Temporal unreachable');
      }
      return { result: async () => ({}) };
    },
  } as unknown as TemporalGateway;
  return { temporal, starts, fail };
}

const started: string[] = [];
afterEach(() => {
  for (const id of started.splice(0)) jobEnded(id); // the eager-job count is per process
});

describe('a burst is never eager (session 18)', () => {
  const setup = () => {
    const t = fakeTemporal();
    const jobs = new BatchJobs(cfg, memStore().store, t.temporal);
    const submit = async (arrival?: () => void) => {
      const view = await jobs.submit({
        orgId: 'org_s18',
        principal: { userId: null, keyId: 'k1' },
        items: ITEMS,
        ...(arrival ? { arrival } : {}),
      });
      started.push(view.job_id);
      return t.starts.at(-1)!;
    };
    return { submit, fail: t.fail };
  };

  it('a POST alone starts eagerly; its arrival is released once its start is done', async () => {
    const { submit } = setup();
    const start = await submit(batchArrival());
    expect(start).toMatchObject({ requestEagerStart: true, taskQueue: 'svc-eager' });
    jobEnded(started.pop()!);
    // Its arrival no longer counts: the next one alone is eager too.
    expect(await submit(batchArrival())).toMatchObject({ requestEagerStart: true });
  });

  it('another POST arrived (still reading its body) when this one reaches its start: not eager; once it is gone, eager again', async () => {
    const { submit } = setup();
    const other = batchArrival(); // the rest of the burst, not yet at submit
    const first = await submit(batchArrival());
    expect(first.requestEagerStart).toBeUndefined();
    expect(first.taskQueue).toBeUndefined(); // the gateway's own queue: the standalone workers
    // A call without an arrival of its own (not through the route) sees the other one as well.
    expect((await submit()).requestEagerStart).toBeUndefined();
    other();
    other(); // idempotent
    expect(await submit(batchArrival())).toMatchObject({ requestEagerStart: true });
  });

  it('a POST whose start fails releases its arrival: the next one alone is eager', async () => {
    const { submit, fail } = setup();
    fail.next = true;
    await expect(submit(batchArrival())).rejects.toThrow('Temporal unreachable');
    expect(await submit(batchArrival())).toMatchObject({ requestEagerStart: true });
  });
});
