// Session 22 (issue 22): the Temporal dev server's host-level mutable-state cache is bounded by the
// stack (infra/stack.ts TEMPORAL_HISTORY_CACHE_ENTRIES; the dev server's own 8096 entries held the
// last ~4,000 finished executions, ~110 MB of its live heap). The launch passes the bound, the knob
// SVC_TEMPORAL_HISTORY_CACHE_ENTRIES changes it, a bad value stops the stack at start, and the real
// binary, spawned from the stack's own spec, reports the bound as its cache's size on its metrics
// endpoint (a misspelt dynamic-config key is ignored by the dev server without a word: session 21's
// `history.cacheMaxSize` no longer exists in server 1.32).
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ManagedProcess,
  Stack,
  TEMPORAL_HISTORY_CACHE_ENTRIES,
  temporalHistoryCacheEntries,
  temporalServerArgs,
  testPorts,
} from '../../infra/stack.js';

// Ports of this file's own stack (only its Temporal is started): the suite's offset + 28.
const ports = testPorts(Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + 28);
const dataDirs: string[] = [];
afterAll(() => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** The value following each occurrence of `flag`. */
const values = (args: readonly string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
const cacheValues = (args: readonly string[]) =>
  values(args, '--dynamic-config-value').filter((v) => v?.startsWith('history.hostLevelCacheMaxSize='));

/** A stack built but not started (no process runs until up()); the service from source (no build). */
function stackWith(env: Record<string, string>): Stack {
  const stack = new Stack({
    profile: `test-temporal-history-cache-s22-${ports.api}`,
    ports,
    env: { SVC_RUN_FROM_SOURCE: '1', ...env },
  });
  dataDirs.push(stack.dataDir);
  return stack;
}

describe('the Temporal launch bounds the mutable-state cache', () => {
  it('passes the default bound, 2048 entries, on the dev server command line', () => {
    expect(TEMPORAL_HISTORY_CACHE_ENTRIES).toBe(2048);
    expect(cacheValues(temporalServerArgs(ports, '/d/t.sqlite'))).toEqual(['history.hostLevelCacheMaxSize=2048']);
    expect(cacheValues(temporalServerArgs(ports, '/d/t.sqlite', '', 512))).toEqual([
      'history.hostLevelCacheMaxSize=512',
    ]);
  });

  it("puts SVC_TEMPORAL_EXTRA_ARGS after it, so that a bench's own value wins (the dev server keeps the last)", () => {
    const args = temporalServerArgs(ports, '/d/t.sqlite', '--dynamic-config-value history.hostLevelCacheMaxSize=8096');
    expect(cacheValues(args)).toEqual(['history.hostLevelCacheMaxSize=2048', 'history.hostLevelCacheMaxSize=8096']);
    expect(args.slice(-2)).toEqual(['--dynamic-config-value', 'history.hostLevelCacheMaxSize=8096']);
  });

  it('reads SVC_TEMPORAL_HISTORY_CACHE_ENTRIES: unset or blank is the default, else an integer 256-1000000', () => {
    expect(temporalHistoryCacheEntries(undefined)).toBe(2048);
    expect(temporalHistoryCacheEntries('')).toBe(2048);
    expect(temporalHistoryCacheEntries('  ')).toBe(2048);
    expect(temporalHistoryCacheEntries(' 8096 ')).toBe(8096);
    expect(temporalHistoryCacheEntries('256')).toBe(256);
    expect(temporalHistoryCacheEntries('1000000')).toBe(1_000_000);
    for (const bad of ['255', '64', '0', '-1', '1000001', '4k', '4096MiB', '1e4', '2048.0', 'off', 'default'])
      expect(() => temporalHistoryCacheEntries(bad), bad).toThrow(
        /^SVC_TEMPORAL_HISTORY_CACHE_ENTRIES must be an integer 256-1000000, got /,
      );
  });

  it("the stack's Temporal spec gets the default, or the knob's value; a bad value stops the stack before anything starts", () => {
    expect(cacheValues(stackWith({}).temporal.spec.args)).toEqual(['history.hostLevelCacheMaxSize=2048']);
    expect(cacheValues(stackWith({ SVC_TEMPORAL_HISTORY_CACHE_ENTRIES: '8096' }).temporal.spec.args)).toEqual([
      'history.hostLevelCacheMaxSize=8096',
    ]);
    expect(() => stackWith({ SVC_TEMPORAL_HISTORY_CACHE_ENTRIES: '100' })).toThrow(
      /^SVC_TEMPORAL_HISTORY_CACHE_ENTRIES must be an integer 256-1000000, got "100"/,
    );
  });

  it('the real dev server, spawned from the stack spec, sizes its mutable-state cache by it (its /metrics)', async () => {
    const stack = stackWith({ SVC_TEMPORAL_HISTORY_CACHE_ENTRIES: '1536' });
    const spec = stack.temporal.spec;
    let cacheSize = NaN;
    // Ready once its metrics endpoint (a free port it prints to its log) reports the cache's size.
    const p = new ManagedProcess(
      {
        ...spec,
        name: 'temporal-history-cache',
        ready: async () => {
          const port = /Temporal Metrics:\s+http:\/\/[^:]+:(\d+)\/metrics/.exec(readFileSync(p.logFile, 'utf8'))?.[1];
          if (!port) return false;
          const text = await fetch(`http://127.0.0.1:${port}/metrics`)
            .then((r) => r.text())
            .catch(() => '');
          // The gauge can be scraped as 0 (or on more than one series) before the history service
          // has sized its cache (seen on a loaded machine): ready once a series reports a size.
          const sizes = text
            .split('\n')
            .filter((l) => l.startsWith('cache_size{cache_type="mutablestate"'))
            .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
          if (!sizes.some((v) => v > 0)) return false;
          cacheSize = Math.max(...sizes);
          return true;
        },
      },
      stack.dataDir,
    );
    try {
      await p.start();
    } finally {
      await p.stop('SIGKILL', 5000);
    }
    expect(cacheSize).toBe(1536);
  }, 180_000);
});
