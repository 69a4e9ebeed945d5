// What the Temporal dev server says about its own memory (issue 22, session 22): its Prometheus
// endpoint (`temporal server start-dev` always serves one, on a free port it prints to its log as
// "Temporal Metrics: http://localhost:<port>/metrics") and, with GODEBUG=gctrace=1 in its
// environment, the live heap after its last collection. Benches only: the stack does not read it.
import { readFileSync } from 'node:fs';

export interface TemporalMemory {
  /** Entries in the history service's host-level mutable-state cache (`cache_usage`, cache_type mutablestate). */
  cacheEntries: number;
  /** Its capacity in entries (`cache_size`): `history.hostLevelCacheMaxSize`, 8096 in the dev server. */
  cacheSize: number;
  /** Lookups that missed it so far (`cache_miss`, all operations and namespaces): each is a read of the execution from SQLite. */
  cacheMisses: number;
  /** Lookups so far (`cache_requests`, the same labels). */
  cacheRequests: number;
  /** Go heap in use (MB, `memory_heapinuse` of the history service: one process, so every service reads the same). */
  heapInUseMb: number;
  /** Live heap after the last collection (MB; the gctrace line's `->N MB`), or NaN without GODEBUG=gctrace=1. */
  liveHeapMb: number;
}

/** The metrics port the dev server printed to its log (the first start's), or undefined. */
export function temporalMetricsPort(logFile: string): number | undefined {
  try {
    const m = /Temporal Metrics:\s+http:\/\/[^:]+:(\d+)\/metrics/.exec(readFileSync(logFile, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Sum of one Prometheus metric's samples whose labels contain `labels` (exact text, e.g. `cache_type="mutablestate"`). */
export function metricSum(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return sum;
}

/** The last gctrace line's live heap (MB) in a log, or NaN. */
export function lastLiveHeapMb(logFile: string): number {
  try {
    const text = readFileSync(logFile, 'utf8');
    const all = [...text.matchAll(/^gc \d+ @.*?->(\d+) MB, \d+ MB goal/gm)];
    return all.length ? Number(all[all.length - 1]![1]) : NaN;
  } catch {
    return NaN;
  }
}

/** One scrape of a dev server's metrics (undefined when its endpoint does not answer). */
export async function temporalMemory(logFile: string): Promise<TemporalMemory | undefined> {
  const port = temporalMetricsPort(logFile);
  if (!port) return undefined;
  const text = await fetch(`http://127.0.0.1:${port}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  if (!text) return undefined;
  const ms = 'cache_type="mutablestate"';
  return {
    cacheEntries: metricSum(text, 'cache_usage', ms),
    cacheSize: metricSum(text, 'cache_size', ms),
    cacheMisses: metricSum(text, 'cache_miss', ms),
    cacheRequests: metricSum(text, 'cache_requests', ms),
    heapInUseMb: Math.round(metricSum(text, 'memory_heapinuse', 'service_name="history"') / 1048576),
    liveHeapMb: lastLiveHeapMb(logFile),
  };
}
