// Session 22 (issue 22, set-up hygiene): every fixed port of a stack, of the test harness and of
// the benches is below Linux's ephemeral range (32768-60999), and no two services of any two
// stacks share one, for every offset the suite and the benches use (infra/ports.ts).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BENCH_STANDALONE_PORTS,
  DEV_PORT_OFFSETS,
  devPorts,
  EPHEMERAL_PORTS_START,
  PORT_OFFSETS,
  stackPortList,
  TEST_METRICS_WORKERS,
  testHarnessPorts,
  testPorts,
} from '../../infra/ports.js';
import { ROOT, Stack } from '../../infra/stack.js';

/** Dev offsets in use: npm run dev (0), bench/cpu-ab-math.ts's B (+50), docs/openapi.md's second stack (500) and its B. */
const DEV_OFFSETS_IN_USE = [0, 50, 500, 550];

/** Every (owner, port) of the test and bench layout, for every offset. */
function testLayout(): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let o = 0; o < PORT_OFFSETS; o++) {
    for (const [name, port] of stackPortList(testPorts(o), TEST_METRICS_WORKERS)) out.push([`${name}@${o}`, port]);
    for (const [name, port] of Object.entries(testHarnessPorts(o))) out.push([`harness-${name}@${o}`, port]);
  }
  return out;
}

/** The first owner of each port that more than one owner has. */
function collisions(owners: Array<[string, number]>): string[] {
  const seen = new Map<number, string>();
  const out: string[] = [];
  for (const [name, port] of owners) {
    const first = seen.get(port);
    if (first) out.push(`${port}: ${first} and ${name}`);
    else seen.set(port, name);
  }
  return out;
}

const outOfRange = (owners: Array<[string, number]>) =>
  owners.filter(([, p]) => p < 1024 || p >= EPHEMERAL_PORTS_START).map(([n, p]) => `${n}=${p}`);

describe('the port layout (infra/ports.ts)', () => {
  it('test and bench stacks at every offset 0..999, with the harness and 4 workers metrics: below 32768, no port shared', () => {
    const layout = testLayout();
    expect(layout.length).toBe(PORT_OFFSETS * (7 + TEST_METRICS_WORKERS + 3));
    expect(outOfRange(layout)).toEqual([]);
    expect(collisions(layout).slice(0, 5)).toEqual([]);
  });

  it('dev stacks: below 32768 at every dev offset, no port shared at the dev offsets in use, none inside a test band', () => {
    const dev = (o: number) => stackPortList(devPorts(o), 2).map(([n, p]): [string, number] => [`dev-${n}@${o}`, p]);
    const all = Array.from({ length: DEV_PORT_OFFSETS }, (_, o) => dev(o)).flat();
    expect(outOfRange(all)).toEqual([]);
    expect(collisions(DEV_OFFSETS_IN_USE.flatMap(dev))).toEqual([]);
    expect(collisions([...DEV_OFFSETS_IN_USE.flatMap(dev), ...testLayout()]).slice(0, 5)).toEqual([]);
    // The documented dev ports are kept.
    expect(devPorts(0)).toMatchObject({
      temporal: 7233,
      temporalUi: 8233,
      codec: 8234,
      ferret: 27017,
      api: 8000,
      smtp: 8957,
    });
  });

  it('the standalone benches default to ports below 32768, outside every stack band', () => {
    const standalone = Object.entries(BENCH_STANDALONE_PORTS);
    expect(outOfRange(standalone)).toEqual([]);
    const dev = DEV_OFFSETS_IN_USE.flatMap((o) => stackPortList(devPorts(o), 2));
    expect(collisions([...standalone, ...testLayout(), ...dev]).slice(0, 5)).toEqual([]);
  });

  it('refuses an offset outside 0..999 (a bench default of 23000 put whole stacks at 34000-60000) with a clear message', () => {
    for (const bad of [23_000, 1000, -1, 1.5, Number.NaN])
      expect(() => testPorts(bad), String(bad)).toThrow(/must be an integer from 0 to 999/);
    expect(() => devPorts(5000)).toThrow(/SVC_DEV_PORT_OFFSET must be an integer from 0 to 999/);
    expect(() => testHarnessPorts(1000)).toThrow(/SVC_TEST_PORT_OFFSET must be an integer from 0 to 999/);
    expect(testPorts(999).ferret).toBeLessThan(EPHEMERAL_PORTS_START);
  });
});

/** Offsets and ports written into the benches and tests (defaults and steps), read from their sources. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

describe('the offsets and ports the suite and the benches use', () => {
  const benches = sourceFiles('bench').map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')] as const);
  const tests = sourceFiles('test').map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')] as const);
  const num = (s: string) => Number(s.replace(/_/g, ''));

  it('every bench default offset, with its A/B steps, is a valid offset of the layout', () => {
    const found: string[] = [];
    for (const [f, text] of benches) {
      const defaults = [
        ...text.matchAll(/SVC_BENCH_PORT_OFFSET \?\? ([\d_]+)/g),
        ...text.matchAll(/startBenchStack\(\s*[^,]+,\s*([\d_]+)/g),
        ...text.matchAll(/arg\('offset', '(\d+)'\)/g),
      ].map((m) => num(m[1]!));
      // Steps: `OFFSET + 20 * i` (a stack per configuration, up to 4), `+ 25`-style shifts.
      const steps = [...text.matchAll(/OFFSET \+ (\d+) \* i/g)].map((m) => num(m[1]!) * 3);
      const shifts = [...text.matchAll(/(?:OFFSET \+ |PORT_SHIFT = )(\d+)\b(?! \*)/g)].map((m) => num(m[1]!));
      const reach = Math.max(0, ...steps, ...shifts);
      for (const d of defaults) {
        found.push(`${f}:${d}`);
        expect(() => testPorts(d + reach), `${f}: default offset ${d} + ${reach}`).not.toThrow();
      }
    }
    expect(found.length).toBeGreaterThan(15);
  });

  it('the suite leaves room for its own sub-offsets (+25, +26, +30 on SVC_TEST_PORT_OFFSET)', () => {
    const subs = tests.flatMap(([, text]) =>
      [...text.matchAll(/SVC_TEST_PORT_OFFSET \?\? 0\) \+ (\d+)/g)].map((m) => num(m[1]!)),
    );
    expect(subs.length).toBeGreaterThan(0);
    expect(Math.max(...subs)).toBeLessThan(PORT_OFFSETS - 900);
  });

  it('no bench or test writes a port of 32768 or more (a literal port default or a base plus an offset)', () => {
    const high: string[] = [];
    for (const [f, text] of [...benches, ...tests]) {
      for (const m of text.matchAll(
        /arg\('port', '(\d+)'\)|String\((\d{4,5}) \+|\b(\d{4,5}) \+ (?:OFFSET|Number\(process\.env)/g,
      )) {
        const port = num(m[1] ?? m[2] ?? m[3]!);
        if (port >= EPHEMERAL_PORTS_START) high.push(`${f}: ${m[0]}`);
      }
    }
    expect(high).toEqual([]);
  });
});

describe("the stack's processes get the layout's ports (a stack built, not started)", () => {
  const dataDirs: string[] = [];
  afterAll(() => {
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  it('Temporal, its UI gate, the codec server, FerretDB, the API, the SMTP sink and two workers metrics', () => {
    const ports = testPorts(Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + 31);
    const stack = new Stack({
      profile: `test-ports-s22-${ports.api}`,
      ports,
      env: { SVC_RUN_FROM_SOURCE: '1', SVC_WORKER_METRICS: '1' },
      workerProcesses: 2,
    });
    dataDirs.push(stack.dataDir);
    const arg = (flag: string) => stack.temporal.spec.args[stack.temporal.spec.args.indexOf(flag) + 1];
    const used: Array<[string, number]> = [
      ['temporal', Number(arg('--port'))],
      ['temporal-ui', Number(stack.uiGate.spec.env?.SVC_TEMPORAL_UI_GATE_PORT)],
      ['temporal-ui-upstream', Number(arg('--ui-port'))],
      ['codec-server', Number(stack.env.SVC_CODEC_SERVER_PORT)],
      ['ferretdb', Number(/--listen-addr=127\.0\.0\.1:(\d+)/.exec(stack.ferret!.spec.args.join(' '))?.[1])],
      ['api', Number(stack.env.PORT)],
      ['smtp-sink', Number(new URL(stack.env.SVC_SMTP_URL!).port)],
      ...stack.workers.map((w, i): [string, number] => [
        `worker-${i + 1}-metrics`,
        Number(w.spec.env?.SVC_WORKER_METRICS_ADDRESS?.split(':')[1]),
      ]),
    ];
    expect(used).toEqual(stackPortList(ports, 2));
    expect(outOfRange(used)).toEqual([]);
    expect(stack.smtp!.spec.args).toContain(String(ports.smtp));
  });
});
