// Session 18 (issue 22, the POST stall): the per-POST trace of POST /verify/batch
// (api/batch-post-trace.ts), off by default. On: one debug line per POST with its spans and the
// event-loop lag, and the POST's job id as the tag every store command it issues carries (read by
// the store-command capture through globalThis.__svcStoreTag). Off: no line, no tag, no timer.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchPostTrace } from '../../api/batch-post-trace.js';
import { setLogLevel } from '../../core/logger.js';

const tagNow = () => (globalThis as { __svcStoreTag?: () => string | undefined }).__svcStoreTag?.();
const lines = () => {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  return () =>
    spy.mock.calls
      .map((c) => String(c[0]))
      .filter((l) => l.includes('"batch post trace"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
};

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel('info');
  delete (globalThis as { __svcStoreTag?: unknown }).__svcStoreTag;
});

describe('POST /verify/batch trace (session 18)', () => {
  it('on: the POST tags what runs under it (across awaits, not outside), and writes one debug line with its spans and the lag', async () => {
    setLogLevel('debug');
    const read = lines();
    const trace = new BatchPostTrace(true);
    const spans = trace.begin('bj_trace_1');
    const seen = await spans.run(async () => {
      const before = tagNow();
      await new Promise((r) => setTimeout(r, 20));
      spans.mark('admitted_ms');
      const after = tagNow();
      return [before, after];
    });
    expect(seen).toEqual(['bj_trace_1', 'bj_trace_1']);
    expect(tagNow()).toBeUndefined();
    spans.done({ eager: false });
    spans.done({ eager: true }); // once
    const out = read();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ level: 'debug', component: 'batch', job_id: 'bj_trace_1', eager: false });
    expect(out[0]!.admitted_ms as number).toBeGreaterThanOrEqual(15);
    expect(out[0]!.total_ms as number).toBeGreaterThanOrEqual(out[0]!.admitted_ms as number);
    expect(typeof out[0]!.lag_max_ms).toBe('number');
    expect(Math.abs((out[0]!.at as number) - Date.now())).toBeLessThan(10_000);
  });

  it('the lag: a blocked event loop during the POST shows as its longest lateness', async () => {
    setLogLevel('debug');
    const read = lines();
    const spans = new BatchPostTrace(true).begin('bj_trace_2');
    await new Promise((r) => setTimeout(r, 30)); // the sampler runs
    const until = Date.now() + 120;
    while (Date.now() < until) {
      /* a 120 ms synchronous block */
    }
    await new Promise((r) => setTimeout(r, 30));
    spans.done({});
    expect(read()[0]!.lag_max_ms as number).toBeGreaterThanOrEqual(100);
  });

  it('off (the default): no line and no tag', async () => {
    setLogLevel('debug');
    const read = lines();
    const spans = new BatchPostTrace(false).begin('bj_trace_3');
    expect(await spans.run(async () => tagNow())).toBeUndefined();
    spans.mark('admitted_ms');
    spans.done({});
    expect(read()).toEqual([]);
  });
});
