// Debug instrumentation of POST /verify/batch (issue 22, session 18: the POST stall; docs/performance.md
// "Session 18: the POST stall"). Off by default: SVC_BATCH_POST_TRACE=on with SVC_LOG_LEVEL=debug.
//
// Per POST, one debug line `batch post trace`: when the submission entered the handler (epoch ms,
// fractional) and how long each step after it took (admission, workflow start, answer), and the
// longest event-loop lag of this process during it (a 5 ms timer's lateness). Every store command
// the POST issues runs under its job id (an AsyncLocalStorage read through `globalThis.__svcStoreTag`),
// so the store-command capture (test/store-commands/capture.mjs) tags it: the bench lays the
// claim, slot, request and job writes beside the spans (bench/data-scale.ts --post-trace).
// Session 22: also the garbage collections of this process that overlapped the POST (their count,
// summed and longest pause, from perf_hooks' `gc` entries) and its heap in use when it answered:
// is a long-lived API's slower POST its collector? (docs/performance.md "Session 22: the POST at the limit").
import { AsyncLocalStorage } from 'node:async_hooks';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { logger } from '../core/logger.js';

const log = logger('batch');

/** The event-loop sampler's period and how many samples it keeps (~40 s at 5 ms). */
const LAG_PERIOD_MS = 5;
const LAG_SAMPLES = 8192;

/** Epoch milliseconds with sub-millisecond precision (one clock with the bench's Date.now()). */
const epochMs = () => performance.timeOrigin + performance.now();

/** Lateness of a periodic timer: [epoch ms when it fired, ms late], a ring of the last LAG_SAMPLES. */
class LagSampler {
  private readonly at = new Float64Array(LAG_SAMPLES);
  private readonly late = new Float32Array(LAG_SAMPLES);
  private n = 0;

  constructor() {
    let expected = epochMs() + LAG_PERIOD_MS;
    setInterval(() => {
      const now = epochMs();
      const i = this.n++ % LAG_SAMPLES;
      this.at[i] = now;
      this.late[i] = Math.max(0, now - expected);
      expected = now + LAG_PERIOD_MS;
    }, LAG_PERIOD_MS).unref();
  }

  /** The longest lateness of a tick that fired in [from, to + one period] (a stall inside the window shows on the tick after it). */
  maxBetween(from: number, to: number): number {
    let max = 0;
    const count = Math.min(this.n, LAG_SAMPLES);
    for (let k = 0; k < count; k++) {
      const i = (this.n - 1 - k) % LAG_SAMPLES;
      const t = this.at[i] as number;
      if (t < from) break;
      if (t <= to + LAG_PERIOD_MS) max = Math.max(max, this.late[i] as number);
    }
    return Math.round(max * 10) / 10;
  }
}

/** The last GC_SAMPLES collections of this process: [start, end] in epoch ms (perf_hooks `gc` entries). */
const GC_SAMPLES = 4096;

class GcSampler {
  private readonly from = new Float64Array(GC_SAMPLES);
  private readonly to = new Float64Array(GC_SAMPLES);
  private n = 0;

  constructor() {
    const obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const i = this.n++ % GC_SAMPLES;
        this.from[i] = performance.timeOrigin + e.startTime;
        this.to[i] = performance.timeOrigin + e.startTime + e.duration;
      }
    });
    obs.observe({ entryTypes: ['gc'] });
  }

  /** Collections that overlapped [from, to]: how many, their pauses summed and the longest (ms, the part inside the window). */
  between(from: number, to: number): { gc_n: number; gc_ms: number; gc_max_ms: number } {
    let n = 0;
    let sum = 0;
    let max = 0;
    const count = Math.min(this.n, GC_SAMPLES);
    for (let k = 0; k < count; k++) {
      const i = (this.n - 1 - k) % GC_SAMPLES;
      const a = this.from[i] as number;
      const b = this.to[i] as number;
      if (b < from) break;
      if (a > to) continue;
      const ms = Math.min(b, to) - Math.max(a, from);
      n++;
      sum += ms;
      max = Math.max(max, ms);
    }
    const r = (x: number) => Math.round(x * 10) / 10;
    return { gc_n: n, gc_ms: r(sum), gc_max_ms: r(max) };
  }
}

export interface PostSpans {
  /** Marks: ms after the submission entered the handler. */
  mark(name: string): void;
  /** Runs `fn` with this POST's tag on every store command it issues (capture). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Writes the trace line (once). */
  done(fields: Record<string, unknown>): void;
}

const NONE: PostSpans = { mark: () => undefined, run: (fn) => fn(), done: () => undefined };

/** Per-process tracer: a no-op unless switched on. */
export class BatchPostTrace {
  private readonly tags = new AsyncLocalStorage<string>();
  private readonly lag: LagSampler | null;
  private readonly gc: GcSampler | null;

  constructor(readonly enabled: boolean) {
    this.lag = enabled ? new LagSampler() : null;
    this.gc = enabled ? new GcSampler() : null;
    if (enabled) {
      // Read by the capture preload, when present (never by the service itself).
      (globalThis as { __svcStoreTag?: () => string | undefined }).__svcStoreTag = () => this.tags.getStore();
    }
  }

  begin(jobId: string): PostSpans {
    if (!this.enabled) return NONE;
    const t0 = epochMs();
    const marks: Record<string, number> = {};
    let ended = false;
    return {
      mark: (name) => {
        marks[name] = Math.round((epochMs() - t0) * 10) / 10;
      },
      run: (fn) => this.tags.run(jobId, fn),
      done: (fields) => {
        if (ended) return;
        ended = true;
        const t1 = epochMs();
        log.debug('batch post trace', {
          job_id: jobId,
          at: Math.round(t0 * 10) / 10,
          total_ms: Math.round((t1 - t0) * 10) / 10,
          ...marks,
          lag_max_ms: this.lag?.maxBetween(t0, t1) ?? 0,
          ...(this.gc?.between(t0, t1) ?? {}),
          heap_mb: Math.round(process.memoryUsage().heapUsed / 1048576),
          ...fields,
        });
      },
    };
  }
}
