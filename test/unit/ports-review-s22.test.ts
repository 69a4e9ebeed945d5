// Session 22 review of the port layout (infra/ports.ts, docs/testing.md "Ports"): what the layout's
// own rows (ports-s22.test.ts) did not read. A bench's documented `--port` default is the port it
// really uses, and below Linux's ephemeral range; a bench that shifts a port of its own by
// SVC_BENCH_PORT_OFFSET refuses an offset outside 0..999 as the stacks do; and no HTTP test starts
// a process on a fixed port inside the test layout's bands (payload-codec's extra API and codec
// servers sat at 18176-18179 + offset: the API of the stack at offset + 176..179).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { benchPortOffset, EPHEMERAL_PORTS_START, PORT_OFFSETS, TEST_PORTS } from '../../infra/ports.js';
import { ROOT } from '../../infra/stack.js';

const run = promisify(execFile);

const sources = (dir: string) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [path.join(dir, f), readFileSync(path.join(ROOT, dir, f), 'utf8')] as const);

describe("the benches' own ports", () => {
  it("every `--port N` a bench documents (header or --help) is its code's default and below 32768", () => {
    const wrong: string[] = [];
    let documented = 0;
    for (const [f, text] of sources('bench')) {
      const def = /arg\('port', (?:'(\d+)'|String\((\d+) \+)/.exec(text);
      const base = def ? Number(def[1] ?? def[2]) : null;
      for (const m of text.matchAll(/\[--port (\d+)/g)) {
        documented++;
        const port = Number(m[1]);
        if (port !== base || port >= EPHEMERAL_PORTS_START) wrong.push(`${f}: documents --port ${port}, uses ${base}`);
      }
    }
    expect(documented).toBeGreaterThanOrEqual(8);
    expect(wrong).toEqual([]);
  });

  it('SVC_BENCH_PORT_OFFSET read for a port of its own is refused outside 0..999', async () => {
    expect(benchPortOffset('930')).toBe(930);
    expect(benchPortOffset(undefined, 5)).toBe(5);
    for (const bad of ['1000', '23000', '-1', 'x'])
      expect(() => benchPortOffset(bad), bad).toThrow(/SVC_BENCH_PORT_OFFSET must be an integer from 0 to 999/);
    // bench/result-doc-cost.ts put its FerretDB at 30770 + the offset, unchecked (23000: port 53770).
    const err = (await run(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'result-doc-cost.ts'), '--from', '/nonexistent/svc.sqlite'],
      { cwd: ROOT, env: { ...process.env, SVC_BENCH_PORT_OFFSET: '23000' }, timeout: 120_000 },
    ).then(
      () => null,
      (e: { code?: number; stderr?: string }) => e,
    )) as { code?: number; stderr?: string } | null;
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(/SVC_BENCH_PORT_OFFSET must be an integer from 0 to 999 \(got 23000\)/);
  }, 150_000);
});

describe("the suite's offsets", () => {
  it("CONTRIBUTING's largest SVC_TEST_PORT_OFFSET plus the suite's largest sub-offset is a valid offset", () => {
    const top = Number(/n from 0 to (\d+)/.exec(readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8'))?.[1]);
    const subs = sources(path.join('test', 'unit')).flatMap(([, text]) =>
      [
        ...text.matchAll(/SVC_TEST_PORT_OFFSET \?\? 0\) \+ (\d+)/g),
        // child-env-s22: `stackUnder(env, sub)` builds its stacks at the offset + sub.
        ...text.matchAll(/stackUnder\([^\n]*, (\d+)\);/g),
      ].map((m) => Number(m[1])),
    );
    expect(subs.length).toBeGreaterThanOrEqual(5);
    expect(top + Math.max(...subs)).toBeLessThan(PORT_OFFSETS);
  });
});

describe("the HTTP tests' extra processes", () => {
  it('no HTTP test starts a process on a fixed port inside the test layout bands or the ephemeral range', () => {
    const low = Math.min(...Object.values(TEST_PORTS).filter((p) => p > 10_000));
    const high = TEST_PORTS.workerMetrics + 4 * PORT_OFFSETS;
    const fixed: string[] = [];
    for (const [f, text] of sources(path.join('test', 'http')))
      for (const m of text.matchAll(/\bstart\w*\([^\n]*?[\s(,](\d{4,5}),/g)) {
        const port = Number(m[1]);
        if ((port >= low && port < high) || port >= EPHEMERAL_PORTS_START) fixed.push(`${f}: ${m[0]}`);
      }
    expect(fixed).toEqual([]);
  });
});
