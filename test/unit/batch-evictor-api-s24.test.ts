// Session 24 (issue 22; docs/batch.md "Session 24: the deletion of evicted jobs"): the API
// process's side of `batch_evictors` (api/batch-jobs.ts). It writes its document at start and at
// every beat; its periodic sweep reads `batch_evictors` and reads the slots only when a process is
// stale (session 23: all of `batch_slots` every 5 minutes in every process), its first sweep reads
// them anyway; an admission waits for a beat only when the last one is older than half the
// staleness; a deletion that failed is retried by the process itself at its next beat.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TemporalGateway } from '../../api/temporal.js';
import { BatchJobs, EVICTION_WHOLE_SWEEP_MS } from '../../api/batch-jobs.js';
import { BatchJobStore, EVICTOR_STALE_MS } from '../../persistence/batch.js';
import { batchJobsCfg, memStore, runningJob } from './batch-mem-store.js';

const ITEMS = [{ query: '1 + 1', type: 'math' as const }];
const ORG = 'org_s24';
const T0 = new Date('2026-11-28T10:00:00Z').getTime();

/** A one-item running job of ORG, not yet started (batch-mem-store.ts runningJob). */
const job = (id: string) => runningJob(ORG, id);

const temporal = {
  client: { workflow: { getHandle: () => ({ describe: async () => ({ status: { name: 'RUNNING' } }) }) } },
  connection: { withDeadline: <R>(_d: unknown, fn: () => Promise<R>) => fn() },
  eagerRoute: () => null,
} as unknown as TemporalGateway;

const cfg = batchJobsCfg(20);

/** The private parts of BatchJobs these rows drive as its timers and its POST do. */
type Internals = {
  beat(): Promise<void>;
  evictorFresh(): Promise<void>;
  sweepEvicted(whole: boolean): void;
  evictSweep: Promise<void> | null;
  dropEvicted(names: string[]): void;
  failedDrops: Set<string>;
};

describe('session 24: an API process in batch_evictors (api/batch-jobs.ts)', () => {
  let m: ReturnType<typeof memStore>;
  let jobs: BatchJobs;
  let api: Internals;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    m = memStore();
    jobs = new BatchJobs(cfg, m.store, temporal);
    api = jobs as unknown as Internals;
    await api.beat(); // the one sent at construction, or this one
    await jobs.store.slotsById([0]); // the one-time numeric-key rewrite out of the way
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const at = (s: number) => vi.setSystemTime(T0 + s * 1000);
  /** The sweep as its timer runs it; returns the reads of batch_slots it sent. */
  const sweep = async (whole: boolean) => {
    const from = m.log.length;
    api.sweepEvicted(whole);
    await api.evictSweep;
    return m.log.slice(from).filter((r) => r.coll === 'batch_slots' && r.op.startsWith('find')).length;
  };
  const seen = (id: string) => m.coll('batch_evictors').docs.get(JSON.stringify(id))?.seen as Date | undefined;

  it('its document from the start; the periodic sweep reads no slot while no process is dead; the first one reads them', async () => {
    expect(jobs.evictorId).toMatch(/^api_[0-9a-f]{16}$/);
    expect(seen(jobs.evictorId)).toEqual(new Date(T0));
    // Session 23: the sweep read all of batch_slots on every run.
    for (const s of [60, 120, 180, 240]) {
      at(s);
      await api.beat();
      expect(await sweep(false)).toBe(0);
    }
    expect(await sweep(true)).toBe(1);
  });

  it("a dead process's eviction: left alone while its document is fresh, finished by the first sweep after it went stale, its document deleted", async () => {
    const dead = new BatchJobStore(m.store);
    await dead.beat('api_dead', new Date(T0));
    await dead.admit(job('bj_d1'), ITEMS, 1);
    await dead.complete('bj_d1', { completed_items: 1, failed_items: 0 }, 1, new Date(T0 + 1000));
    await new Promise((r) => setTimeout(r, 5));
    expect((await dead.admit(job('bj_d2'), ITEMS, 1)).drop).toEqual(['bj_d1']); // and it dies
    // The sweeper times the dead process's `seen` by its own clock from its first read (60 s).
    for (const s of [60, 120, 180, 239]) {
      at(s);
      await api.beat();
      expect(await sweep(false)).toBe(0);
    }
    expect(await jobs.store.find('bj_d1')).not.toBeNull();
    at(240);
    await api.beat();
    expect(await sweep(false)).toBe(1);
    expect(await jobs.store.find('bj_d1')).toBeNull();
    expect(seen('api_dead')).toBeUndefined();
    expect(seen(jobs.evictorId)).toEqual(new Date(T0 + 240_000));
    at(300);
    expect(await sweep(false)).toBe(0);
  });

  it("review C2: a process from before session 24 (no document) that dies after this one's first sweep: its eviction is finished by the slow backstop, every EVICTION_WHOLE_SWEEP_MS", async () => {
    expect(await sweep(true)).toBe(1); // the first sweep, at start
    const old = new BatchJobStore(m.store); // session 23: no beat
    await old.admit(job('bj_o1'), ITEMS, 1);
    await old.complete('bj_o1', { completed_items: 1, failed_items: 0 }, 1, new Date(T0 + 1000));
    await new Promise((r) => setTimeout(r, 5));
    expect((await old.admit(job('bj_o2'), ITEMS, 1)).drop).toEqual(['bj_o1']); // and it stops
    for (const s of [60, 3600, EVICTION_WHOLE_SWEEP_MS / 1000 - 1]) {
      at(s);
      expect(await sweep(false)).toBe(0);
    }
    expect(await jobs.store.find('bj_o1')).not.toBeNull();
    at(EVICTION_WHOLE_SWEEP_MS / 1000 + 1);
    expect(await sweep(false)).toBe(1); // before the fix: never (until the slot's next admission)
    expect(await jobs.store.find('bj_o1')).toBeNull();
    at(EVICTION_WHOLE_SWEEP_MS / 1000 + 61);
    expect(await sweep(false)).toBe(0);
  });

  it('an admission waits for a beat only when the last one is older than half the staleness', async () => {
    const writes = () => m.log.filter((r) => r.coll === 'batch_evictors' && r.op === 'updateOne').length;
    const before = writes();
    at(EVICTOR_STALE_MS / 2000 - 1);
    await api.evictorFresh();
    expect(writes()).toBe(before);
    at(EVICTOR_STALE_MS / 2000 + 1);
    await api.evictorFresh();
    expect(writes()).toBe(before + 1);
    expect(seen(jobs.evictorId)).toEqual(new Date(T0 + EVICTOR_STALE_MS / 2 + 1000));
  });

  it('a deletion that failed is retried by the process at its next beat (no longer left to a read of every slot)', async () => {
    await jobs.store.admit(job('bj_f1'), ITEMS, 1);
    await jobs.store.complete('bj_f1', { completed_items: 1, failed_items: 0 }, 1, new Date(T0 + 1000));
    await new Promise((r) => setTimeout(r, 5));
    const { drop } = await jobs.store.admit(job('bj_f2'), ITEMS, 1);
    expect(drop).toEqual(['bj_f1']);
    const real = jobs.store.dropEvicted.bind(jobs.store);
    let failures = 1;
    jobs.store.dropEvicted = async (names, opts) => {
      if (failures-- > 0) throw new Error('store unavailable');
      return real(names, opts);
    };
    api.dropEvicted(drop);
    for (let i = 0; i < 100 && api.failedDrops.size === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect([...api.failedDrops]).toEqual(['bj_f1']);
    expect(await jobs.store.find('bj_f1')).not.toBeNull();
    at(60);
    expect(await sweep(false)).toBe(0); // the retry is this process's own: no read of the slots
    for (let i = 0; i < 100 && (await jobs.store.find('bj_f1')) !== null; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await jobs.store.find('bj_f1')).toBeNull();
    expect(api.failedDrops.size).toBe(0);
  });
});
