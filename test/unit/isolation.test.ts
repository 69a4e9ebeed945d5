// Isolation (docs/isolation.md): fair slots across organizations, the engine pool's hard
// deadline and byte-identical results, and the Z3 pool's per-organization cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairSlots } from '../../core/fair-slots.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { runEngineTask, type EngineTask } from '../../activities/isolation/engine-tasks.js';
import { LogicPool } from '../../engines/logic/pool.js';
import { solveLogic } from '../../engines/logic/index.js';

describe('FairSlots', () => {
  it('caps one organization at its share: another still gets a slot at once', async () => {
    const s = new FairSlots({ capacity: 4 });
    expect(s.perOrgCap).toBe(2);
    const a1 = await s.acquire('A', 1000);
    const a2 = await s.acquire('A', 1000);
    const a3 = s.acquire('A', 10_000); // waits: A is at its cap
    const b1 = await s.acquire('B', 1000);
    expect([a1.ok, a2.ok, b1.ok]).toEqual([true, true, true]);
    expect(b1.ok && b1.waitedMs).toBe(0);
    expect(s.stats()).toMatchObject({ inUse: 3, waiting: 1, orgs: { A: 2, B: 1 } });
    if (a1.ok) a1.release();
    const third = await a3;
    expect(third.ok).toBe(true);
    expect(s.stats().orgs).toEqual({ A: 2, B: 1 });
  });

  it('serves waiting organizations in turn, not in arrival order', async () => {
    const s = new FairSlots({ capacity: 1 });
    const first = await s.acquire('A', 1000);
    const order: string[] = [];
    const waits = ['A', 'A', 'B'].map((org) =>
      s.acquire(org, 10_000).then((o) => {
        order.push(org);
        setTimeout(() => o.ok && o.release(), 0);
        return o;
      }),
    );
    if (first.ok) first.release();
    await Promise.all(waits);
    expect(order).toEqual(['A', 'B', 'A']);
  });

  it("a slot freed after a waiter's deadline, before its timer could fire, is not granted to it", async () => {
    const s = new FairSlots({ capacity: 1 });
    const first = await s.acquire('A', 1000);
    const late = s.acquire('A', 20);
    const spin = Date.now() + 60; // a busy event loop: the waiter's 20 ms timer cannot fire
    while (Date.now() < spin);
    if (first.ok) first.release();
    expect(await late).toEqual({ ok: false, reason: 'deadline' });
    expect(s.stats()).toMatchObject({ inUse: 0, waiting: 0 });
  });

  it('a waiter gives up at its deadline; tryAcquire never waits', async () => {
    const s = new FairSlots({ capacity: 2, perOrgCap: 1 });
    const a = s.tryAcquire('A');
    expect(a.ok).toBe(true);
    expect(s.tryAcquire('A')).toEqual({ ok: false, reason: 'org_cap' });
    const b = s.tryAcquire('B');
    expect(b.ok).toBe(true);
    expect(s.tryAcquire('C')).toEqual({ ok: false, reason: 'queue_full' });
    expect(await s.acquire('C', 30)).toEqual({ ok: false, reason: 'deadline' });
    expect(s.stats().waiting).toBe(0);
    if (a.ok) a.release();
    if (b.ok) b.release();
    expect(s.stats().inUse).toBe(0);
  });

  it("another organization's capped waiters do not hold back a free slot", async () => {
    const s = new FairSlots({ capacity: 3, perOrgCap: 1 });
    const a = s.tryAcquire('A');
    const aWaits = s.acquire('A', 10_000); // A is at its cap: queued
    expect(s.stats().waiting).toBe(1);
    const b = s.tryAcquire('B'); // a slot is free and B is under its cap
    expect(b).toMatchObject({ ok: true, waitedMs: 0 });
    const c = await s.acquire('C', 1000);
    expect(c).toMatchObject({ ok: true, waitedMs: 0 });
    expect(s.tryAcquire('D')).toEqual({ ok: false, reason: 'queue_full' });
    if (a.ok) a.release();
    expect((await aWaits).ok).toBe(true);
    expect(s.stats()).toMatchObject({ inUse: 3, waiting: 0, orgs: { A: 1, B: 1, C: 1 } });
  });
});

describe('EnginePool', () => {
  let pool: EnginePool;
  beforeAll(async () => {
    pool = new EnginePool({ size: 2, perOrgCap: 1 });
    await pool.warmUp();
  }, 120_000);
  afterAll(async () => {
    await pool.shutdown();
  });

  const tasks: EngineTask[] = [
    { engine: 'math', input: { expression: 'x^2 - 1 = (x-1)*(x+1)' } as never },
    { engine: 'math', input: { expression: '2 + 2 = 5' } as never },
    { engine: 'math_batch', input: { expression: 'sin(x)^2 + cos(x)^2 = 1', params: {} } },
    { engine: 'process', input: { trace: '## Issue\nRule: law.\nIn this case yes. Therefore no.' } },
    { engine: 'process', input: { trace: 'x', mode: 'milestones', milestones: ['x', 'y'] } },
    { engine: 'process', input: { trace: 5 } },
    { engine: 'rag', input: { chunks: [], expected_rate: '1/2' } },
    { engine: 'sql', input: { request: { query: "SELECT * FROM users WHERE name = '' OR 1=1" } } },
    { engine: 'sql', input: { request: { query: 7 } } },
    { engine: 'code', input: { code: 'import os\nos.system(cmd)\n', language: 'python', timeoutMs: 5000 } },
    { engine: 'stats_query', input: { query: 'mean(price) > 3' } },
    // The math steps of consensus and natural language (session 14: off the worker's main thread).
    { engine: 'consensus_translate', input: { expression: '-(2^3) + x/4 = abs(x) - 0.25' } },
    { engine: 'consensus_translate', input: { expression: 'sin(pi)' } },
    { engine: 'consensus_translate', input: { expression: '2 = 3 = 4' } },
    { engine: 'consensus_math', input: { expression: '2^10 = 1024' } },
    { engine: 'consensus_math', input: { expression: '1/0' } },
    {
      engine: 'consensus_agree',
      input: {
        entries: [
          { answer: { kind: 'number', text: '1/3', precision: 'exact' }, confidence: 100 },
          { answer: { kind: 'number', text: '0.3333333333333333', precision: 'float' }, confidence: 95 },
          { answer: null, confidence: 0 },
        ],
      },
    },
    { engine: 'nl_evaluate', input: { expression: '3 * 4.50', claimedAnswer: 13.5 } },
    { engine: 'nl_evaluate', input: { expression: '7 * 1.25', claimedAnswer: 9 } },
    { engine: 'nl_evaluate', input: { expression: '1/0', claimedAnswer: 1 } },
  ];

  it('returns exactly what the engine returns in-process', async () => {
    for (const task of tasks) {
      const r = await pool.run(task, { orgId: 'org_a', timeoutMs: 20_000 });
      expect(r.kind, task.engine).toBe('ok');
      if (r.kind === 'ok') expect(JSON.stringify(r.value)).toBe(JSON.stringify(await runEngineTask(task)));
    }
  }, 120_000);

  it('terminates a run at its deadline; the other organization is served meanwhile', async () => {
    const before = pool.stats().totals.killed;
    const t0 = Date.now();
    const spin = pool.run({ engine: 'spin' }, { orgId: 'org_a', timeoutMs: 800 });
    const queued = pool.run(
      { engine: 'math', input: { expression: '1 + 1 = 2' } as never },
      { orgId: 'org_a', timeoutMs: 300 },
    );
    const other = await pool.run(
      { engine: 'math', input: { expression: '1 + 1 = 2' } as never },
      { orgId: 'org_b', timeoutMs: 20_000 },
    );
    expect(other.kind).toBe('ok');
    // org_a is at its cap (1 of 2 threads): its second run waits, then gives up at its deadline.
    expect(await queued).toEqual({ kind: 'timeout', phase: 'queue' });
    expect(await spin).toEqual({ kind: 'timeout', phase: 'run' });
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(pool.stats().totals.killed).toBe(before + 1);
    // The replacement thread serves the next run.
    const after = await pool.run(
      { engine: 'math', input: { expression: '1 + 1 = 2' } as never },
      { orgId: 'org_a', timeoutMs: 60_000 },
    );
    expect(after.kind).toBe('ok');
  }, 120_000);

  it('the code scan of the issue (lambda nesting) ends at its deadline, not later', async () => {
    const r = await pool.run(
      { engine: 'code', input: { code: `${'lambda: '.repeat(25_000)}1`, language: 'python', timeoutMs: 1_000 } },
      { orgId: 'org_a', timeoutMs: 1_500 },
    );
    // Either the scan's own deadline or the hard kill: never a result after the deadline.
    if (r.kind === 'ok')
      expect((r.value as { developerFields?: unknown; agentMessage?: string }).agentMessage).toBe(
        'Code verification timed out.',
      );
    else expect(r).toEqual({ kind: 'timeout', phase: 'run' });
  }, 120_000);
});

describe('Z3 pool fairness', () => {
  const HARD = '(AND (GT x 0) (GT y 0) (GT z 0) (EQ (PLUS (POW x 3) (POW y 3)) (POW z 3)))';
  it('one organization occupies at most its share of the workers', async () => {
    const p = new LogicPool({ size: 2, perOrgCap: 1, defaultTimeoutMs: 30_000 });
    try {
      await p.warmUp();
      const hard = [
        solveLogic(HARD, { pool: p, timeoutMs: 4_000, orgId: 'org_a' }),
        solveLogic(HARD, { pool: p, timeoutMs: 4_000, orgId: 'org_a' }),
      ];
      await new Promise((r) => setTimeout(r, 200));
      const trivial = await solveLogic('(AND (GT x 5) (LT x 10))', { pool: p, timeoutMs: 4_000, orgId: 'org_b' });
      expect(trivial.status).toBe('SAT');
      const stats = p.stats();
      expect(stats.workers.filter((w) => w.state === 'busy').length).toBeLessThanOrEqual(1);
      await Promise.all(hard);
    } finally {
      await p.shutdown();
    }
  }, 60_000);
});
