// Preloaded by bench/cpu-split-math.ts --gc (NODE_OPTIONS=--require): counts this process's main
// thread garbage collections by kind (perf_hooks 'gc' entries: their count and pause time) and,
// at each SIGWINCH, writes the running totals and heap size to `<SVC_GC_STATS_DIR>/<pid>.json`.
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { writeFileSync } = require('node:fs');
const v8 = require('node:v8');
const path = require('node:path');
const dir = process.env.SVC_GC_STATS_DIR;
if (dir) {
  // SVC_GC_TRACE=1: V8's own line per collection, with its reason, on stdout (the process's log).
  if (process.env.SVC_GC_TRACE === '1') v8.setFlagsFromString('--trace-gc');
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const totals = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const k = KINDS[e.detail?.kind] ?? 'other';
      const t = (totals[k] ??= { n: 0, ms: 0 });
      t.n++;
      t.ms += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGWINCH', () => {
    const h = v8.getHeapStatistics();
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({ totals, usedHeapMb: h.used_heap_size / 2 ** 20, totalHeapMb: h.total_heap_size / 2 ** 20 }),
    );
  });
}
