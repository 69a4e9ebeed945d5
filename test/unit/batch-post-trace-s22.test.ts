// Session 22 (issue 22, the POST at the limit): the per-POST trace of POST /verify/batch
// (api/batch-post-trace.ts) also says how much of the POST this process spent in garbage
// collection (perf_hooks `gc` entries that overlapped it: count, summed and longest pause) and its
// heap in use when it answered, so that a long-lived API's slower POST can be told apart from its
// collector (docs/performance.md "Session 22: the POST at the limit").
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchPostTrace } from '../../api/batch-post-trace.js';
import { setLogLevel } from '../../core/logger.js';

setFlagsFromString('--expose-gc');
/** A full collection on demand (the flag above exposes `gc` to contexts made after it). */
const forceGc = runInNewContext('gc') as () => void;

const lines = () => {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  return () =>
    spy.mock.calls
      .map((c) => String(c[0]))
      .filter((l) => l.includes('"batch post trace"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
};
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` and resolves once a `gc` entry that began after it started reached an observer (they
 * are delivered asynchronously, after the trace's own observer was registered: it has them too).
 */
function gcSeen(fn: () => void): Promise<void> {
  const from = performance.now();
  return new Promise((resolve) => {
    const obs = new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.startTime >= from)) {
        obs.disconnect();
        setImmediate(resolve);
      }
    });
    obs.observe({ entryTypes: ['gc'] });
    fn();
  });
}

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel('info');
  delete (globalThis as { __svcStoreTag?: unknown }).__svcStoreTag;
});

describe('POST /verify/batch trace: garbage collection (session 22)', () => {
  it('a full collection during the POST shows in gc_n, gc_ms and gc_max_ms; heap_mb is the heap in use', async () => {
    setLogLevel('debug');
    const read = lines();
    const trace = new BatchPostTrace(true);
    const spans = trace.begin('bj_trace_gc_1');
    await tick(5);
    // Something to collect, then a full (mark-compact) collection inside the POST's window.
    let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` }));
    expect(junk.length).toBe(200_000);
    junk = null;
    await gcSeen(() => forceGc());
    spans.done({});
    const out = read();
    expect(out).toHaveLength(1);
    const line = out[0] as Record<string, number>;
    expect(line.gc_n).toBeGreaterThanOrEqual(1);
    expect(line.gc_ms).toBeGreaterThan(0);
    expect(line.gc_max_ms).toBeGreaterThan(0);
    expect(line.gc_max_ms).toBeLessThanOrEqual(line.gc_ms);
    expect(line.gc_ms).toBeLessThanOrEqual(line.total_ms);
    expect(line.heap_mb).toBeGreaterThan(0);
  });

  it('collections before the POST began are not counted in it', async () => {
    setLogLevel('debug');
    const read = lines();
    const trace = new BatchPostTrace(true);
    await gcSeen(() => forceGc()); // delivered to the observers, and before the POST
    await tick(10);
    const spans = trace.begin('bj_trace_gc_2');
    spans.done({});
    const line = read()[0] as Record<string, number>;
    // A 0 ms window: only a collection that overlapped it could count, and none ran inside it.
    expect(line.gc_n).toBe(0);
    expect(line.gc_ms).toBe(0);
  });

  it('off (the default): no line', async () => {
    setLogLevel('debug');
    const read = lines();
    const spans = new BatchPostTrace(false).begin('bj_trace_gc_3');
    forceGc();
    await tick(20);
    spans.done({});
    expect(read()).toEqual([]);
  });
});
