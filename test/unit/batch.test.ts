// Pure parts of batch jobs: counters, item views, and the item runner's time-out.
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { batchCounters, itemViews, llmNotConfigured, type BatchItemOutcome } from '../../core/batch.js';
import { runBatchItem } from '../../activities/verify-batch.js';

describe('batchCounters', () => {
  it('counts completed and failed items and floors the progress', () => {
    const outcomes: BatchItemOutcome[] = [
      { index: 0, status: 'completed', result: {}, latency_ms: 1 },
      { index: 2, status: 'failed', error: 'x', latency_ms: 0 },
    ];
    expect(batchCounters(3, outcomes)).toEqual({
      total_items: 3,
      completed_items: 1,
      failed_items: 1,
      progress_percent: 66,
    });
    expect(batchCounters(3, [])).toEqual({ total_items: 3, completed_items: 0, failed_items: 0, progress_percent: 0 });
    const all = [0, 1, 2].map((index): BatchItemOutcome => ({ index, status: 'completed', latency_ms: 0 }));
    expect(batchCounters(3, all).progress_percent).toBe(100);
  });

  it('never reports 100 before the last item is final', () => {
    const outcomes = Array.from({ length: 199 }, (_, index): BatchItemOutcome => ({
      index,
      status: 'completed',
      latency_ms: 0,
    }));
    expect(batchCounters(200, outcomes).progress_percent).toBe(99);
  });
});

describe('itemViews', () => {
  it('lists final items in index order with ids, queries and types from the request', () => {
    const requests = [
      { query: '1+1', type: 'math' as const },
      { query: 'hello', type: 'natural_language' as const },
      { query: 'SELECT 1', type: 'sql' as const },
    ];
    const outcomes: BatchItemOutcome[] = [
      { index: 2, status: 'completed', result: { status: 'BLOCKED' }, latency_ms: 3.5 },
      { index: 1, status: 'failed', error: llmNotConfigured('natural_language'), latency_ms: 0 },
    ];
    expect(itemViews('bj_1', requests, outcomes)).toEqual([
      {
        id: 'bj_1-1',
        query: 'hello',
        type: 'natural_language',
        status: 'failed',
        error: 'LLM provider not configured: natural_language items fail closed',
        latency_ms: 0,
      },
      {
        id: 'bj_1-2',
        query: 'SELECT 1',
        type: 'sql',
        status: 'completed',
        result: { status: 'BLOCKED' },
        latency_ms: 3.5,
      },
    ]);
  });
});

describe('runBatchItem', () => {
  it('returns the result with the time it took', async () => {
    const t0 = performance.now();
    const r = await runBatchItem({ timeout_ms: 30_000 }, async () => {
      await new Promise((res) => setTimeout(res, 30));
      return { status: 'UNSAT' };
    });
    const outside = performance.now() - t0;
    expect(r.result).toEqual({ status: 'UNSAT' });
    expect(r.latency_ms).toBeGreaterThanOrEqual(25);
    // The time the item took (at most what the caller measured around it), not its time-out or another unit.
    expect(r.latency_ms).toBeLessThanOrEqual(outside + 0.01);
  });

  it('fails a late item with a final (non-retryable) BatchItemTimeout carrying the elapsed time', async () => {
    const err = await runBatchItem({ timeout_ms: 50 }, () => new Promise((res) => setTimeout(res, 500))).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    const f = err as ApplicationFailure;
    expect(f.type).toBe('BatchItemTimeout');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toBe('Item exceeded the batch item time-out (50 ms).');
    expect(f.details?.[0]).toBeGreaterThanOrEqual(45);
  });

  it('passes an engine error through (retried by the workflow)', async () => {
    await expect(
      runBatchItem({ timeout_ms: 1000 }, async () => Promise.reject(new Error('store down'))),
    ).rejects.toThrow('store down');
  });
});
