// Session 15 (issue 22, 10 jobs at once): a running one-unit job's GET reads its stored unit
// instead of asking the workflow (api/batch-jobs.ts progressQueryUseful), and what it answers
// then (storedProgress). The black-box rows are test/http/batch-burst-s15.test.ts.
import { describe, expect, it } from 'vitest';
import { progressQueryUseful, storedProgress } from '../../api/batch-jobs.js';
import type { BatchJobDoc, BatchResultDoc } from '../../persistence/batch.js';

const job = (units: number, total: number): BatchJobDoc => ({
  _id: 'bj_s15',
  org_id: 'org_s15',
  slot: 0,
  status: 'running',
  workflow_id: 'batch-org_s15-bj_s15',
  total_items: total,
  completed_items: 0,
  failed_items: 0,
  progress_percent: 0,
  units,
  created_at: new Date('2026-11-27T00:00:00Z'),
  completed_at: null,
  started: false,
  submitted_by: { user_id: null, key_id: null },
});

const unit = (n: number, audited: boolean | undefined, failedAt: number[] = []): BatchResultDoc => ({
  _id: `bj_s15#0`,
  job_id: 'bj_s15',
  org_id: 'org_s15',
  unit: 0,
  items: Array.from({ length: n }, (_, i) => ({
    index: i,
    view: failedAt.includes(i)
      ? { id: `bj_s15-${i}`, query: `q${i}`, type: 'math', status: 'failed', error: 'x', latency_ms: 1 }
      : {
          id: `bj_s15-${i}`,
          query: `q${i}`,
          type: 'math',
          status: 'completed',
          result: { status: 'VERIFIED' },
          latency_ms: 1,
        },
  })),
  ...(audited === undefined ? {} : { audited }),
});

describe('a running job: query the workflow or read the stored unit', () => {
  it('a one-unit job is read from the store; a job of several units, or a legacy one without units, asks its workflow', () => {
    expect(progressQueryUseful({ units: 1 })).toBe(false);
    for (const units of [2, 4, 101]) expect(progressQueryUseful({ units })).toBe(true);
    // Documents written before `units` existed (read as 0 or absent): their workflow answers.
    expect(progressQueryUseful({ units: 0 })).toBe(true);
    expect(progressQueryUseful({} as { units: number })).toBe(true);
  });

  it("a one-unit job's stored answer: nothing before its unit is stored and audited, then every item, never ahead", () => {
    const doc = job(1, 100);
    // Unit running (no document) or stored but not audited yet: running, no item, 0 %.
    for (const stored of [[null], [unit(100, false)], [unit(100, undefined)]]) {
      const v = storedProgress(doc, stored);
      expect(v).toMatchObject({
        job_id: 'bj_s15',
        status: 'running',
        progress_percent: 0,
        total_items: 100,
        completed_items: 0,
        failed_items: 0,
        items: [],
        completed_at: null,
        workflow_id: 'batch-org_s15-bj_s15',
      });
    }
    // Audited (the job is stored completed right after): its items, counted, still `running`.
    const v = storedProgress(doc, [unit(100, true, [3, 7])]);
    expect(v.status).toBe('running');
    expect(v.items).toHaveLength(100);
    expect(v.items[3]).toMatchObject({ id: 'bj_s15-3', status: 'failed' });
    expect(v).toMatchObject({ completed_items: 98, failed_items: 2, progress_percent: 100 });
  });
});
