// Every fixed port a stack, the test harness and the benches listen on (session 22, issue 22:
// set-up hygiene; docs/testing.md "Ports", docs/configuration.md).
//
// Why: Linux gives outgoing connections and listen(0) a port from its ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default). A fixed port inside it can be
// held by any outgoing connection of the machine at the moment a stack starts (session 21 lost a
// data-scale run to one holding 40258; FerretDB's test port was 37017 + offset). So every fixed
// port here is below 32768, and the ports the Temporal dev server picks for itself (its HTTP API,
// its /metrics, its history, matching and worker services) are the kernel's free ports, inside
// the range by design, where they can never take one of ours.
//
// The test and bench layout is a band of PORT_OFFSETS ports per service: service s of the stack
// at offset o listens on base(s) + o, with o in 0..PORT_OFFSETS-1, and no two bands overlap. Two
// stacks at different offsets therefore never share a port, whatever the offsets, and the
// harness's own listeners (test/http/global-setup.ts) have bands of their own. The dev stack keeps
// its documented ports (7233, 8233, 8234, 27017, 8000, 8957), which are below the range and below
// every test band; a dev offset shifts them as before.

/** Offsets of the test and bench layout: 0 to PORT_OFFSETS - 1 (SVC_TEST_PORT_OFFSET, SVC_BENCH_PORT_OFFSET and the sub-offsets on top). */
export const PORT_OFFSETS = 1000;
/** Dev offsets (SVC_DEV_PORT_OFFSET): 0 to DEV_PORT_OFFSETS - 1 keeps FerretDB's 27017 + offset (up to 28016) above the test bands (11000-24999) and below the range. Dev stacks whose offsets differ by 1, 2, 233-235, 504, 505, 722-724, 767 or 957 share a port (with two workers; the UI's neighbours, the API + 233, the SMTP sink, the workers' metrics): test/unit/ports-s22.test.ts checks the dev offsets in use. */
export const DEV_PORT_OFFSETS = 1000;
/** The first port of Linux's default ephemeral range: every fixed port stays below it. */
export const EPHEMERAL_PORTS_START = 32768;
/** Worker processes whose SDK metrics port (SVC_WORKER_METRICS=1) the test layout has bands for. */
export const TEST_METRICS_WORKERS = 4;

export interface StackPorts {
  /** Temporal's front-end gRPC (--port). */
  temporal: number;
  /** The Temporal UI's public port: the read-only gate (infra/temporal-ui-gate.ts). */
  temporalUi: number;
  /** The embedded Temporal UI's own port (loopback, internal; --ui-port): the gate serves in front of it. */
  temporalUiUpstream: number;
  /** The codec server (api/codec-server.ts) the UI decodes payloads through. */
  codec: number;
  /** The embedded FerretDB. */
  ferret: number;
  /** The API. */
  api: number;
  /** The local SMTP sink (infra/smtp-sink.ts), unless SVC_SMTP_URL names a real server. */
  smtp: number;
  /** Worker 1's SDK metrics (SVC_WORKER_METRICS=1); worker i: + (i - 1) * workerMetricsStride. */
  workerMetrics: number;
  workerMetricsStride: number;
}

/** The dev stack (npm run dev) at offset 0: its documented ports. */
export const DEV_PORTS: StackPorts = {
  temporal: 7233,
  temporalUi: 8233,
  temporalUiUpstream: 8235,
  codec: 8234,
  ferret: 27017,
  api: 8000,
  smtp: 8957,
  workerMetrics: 9461,
  workerMetricsStride: 1,
};

/** The test and bench layout at offset 0: a band of PORT_OFFSETS ports per service. */
export const TEST_PORTS: StackPorts = {
  temporal: 11000,
  temporalUi: 12000,
  temporalUiUpstream: 13000,
  codec: 14000,
  ferret: 15000,
  smtp: 16000,
  api: 18000,
  workerMetrics: 21000,
  workerMetricsStride: PORT_OFFSETS,
};

/** The test harness's own listeners (test/http/global-setup.ts, test/http/scale-out.test.ts) at offset 0, a band each. */
export const TEST_HARNESS_PORTS = {
  /** The scale-out row's second API process. */
  scaleOutApi: 17000,
  /** The global setup's control endpoint (stop, start, kill a component). */
  control: 19000,
  /** The leaked-key row's key server and feedback sink. */
  leakFixture: 20000,
} as const;

/** Defaults of the benches that start a bare FerretDB or Temporal of their own (bench/store-*.ts, ...): below the range, above the bands. */
export const BENCH_STANDALONE_PORTS = {
  storePragmas: 30181,
  storePerCommand: 30300,
  storeDocShape: 30399,
  storeGrowth: 30660,
  storeWal: 30760,
  evictCost: 30761,
  resultDocCost: 30770,
  emptyWorkflowFloor: 26233,
} as const;

function checkedOffset(offset: number, limit: number, name: string): number {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= limit)
    throw new Error(
      `${name} must be an integer from 0 to ${limit - 1} (got ${offset}): larger offsets reach other services' ports or Linux's ephemeral range (docs/testing.md "Ports")`,
    );
  return offset;
}

function shifted(base: StackPorts, offset: number): StackPorts {
  return {
    temporal: base.temporal + offset,
    temporalUi: base.temporalUi + offset,
    temporalUiUpstream: base.temporalUiUpstream + offset,
    codec: base.codec + offset,
    ferret: base.ferret + offset,
    api: base.api + offset,
    smtp: base.smtp + offset,
    workerMetrics: base.workerMetrics + offset,
    workerMetricsStride: base.workerMetricsStride,
  };
}

/** SVC_BENCH_PORT_OFFSET for a bench that shifts a port of its own by it (not a stack): refused outside 0..999 like a stack's offset. */
export function benchPortOffset(raw = process.env.SVC_BENCH_PORT_OFFSET, fallback = 0): number {
  return checkedOffset(raw === undefined ? fallback : Number(raw), PORT_OFFSETS, 'SVC_BENCH_PORT_OFFSET');
}

/** Dev ports shifted by SVC_DEV_PORT_OFFSET, so a benchmark can run a second dev stack beside the first. */
export function devPorts(offset = Number(process.env.SVC_DEV_PORT_OFFSET ?? 0)): StackPorts {
  return shifted(DEV_PORTS, checkedOffset(offset, DEV_PORT_OFFSETS, 'SVC_DEV_PORT_OFFSET'));
}

/** Test ports shifted by an offset (SVC_TEST_PORT_OFFSET, SVC_BENCH_PORT_OFFSET), so stacks run side by side. */
export function testPorts(offset = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0)): StackPorts {
  return shifted(TEST_PORTS, checkedOffset(offset, PORT_OFFSETS, 'the test or bench port offset'));
}

/** The test harness's listeners for a suite at `offset` (SVC_TEST_PORT_OFFSET). */
export function testHarnessPorts(offset = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0)): {
  scaleOutApi: number;
  control: number;
  leakFixture: number;
} {
  const o = checkedOffset(offset, PORT_OFFSETS, 'SVC_TEST_PORT_OFFSET');
  return {
    scaleOutApi: TEST_HARNESS_PORTS.scaleOutApi + o,
    control: TEST_HARNESS_PORTS.control + o,
    leakFixture: TEST_HARNESS_PORTS.leakFixture + o,
  };
}

/** Worker i's (1-based) SDK metrics port (SVC_WORKER_METRICS=1); the test layout has bands for TEST_METRICS_WORKERS workers. */
export function workerMetricsPort(ports: StackPorts, i: number): number {
  if (ports.workerMetricsStride > 1 && i > TEST_METRICS_WORKERS)
    throw new Error(
      `SVC_WORKER_METRICS=1 on test or bench ports serves at most ${TEST_METRICS_WORKERS} workers' metrics (asked for worker ${i})`,
    );
  return ports.workerMetrics + (i - 1) * ports.workerMetricsStride;
}

/** Every fixed port of one stack, by service (worker metrics for `workers` workers). */
export function stackPortList(ports: StackPorts, workers = 1): Array<[string, number]> {
  return [
    ['temporal', ports.temporal],
    ['temporal-ui', ports.temporalUi],
    ['temporal-ui-upstream', ports.temporalUiUpstream],
    ['codec-server', ports.codec],
    ['ferretdb', ports.ferret],
    ['api', ports.api],
    ['smtp-sink', ports.smtp],
    ...Array.from({ length: workers }, (_, k): [string, number] => [
      `worker-${k + 1}-metrics`,
      workerMetricsPort(ports, k + 1),
    ]),
  ];
}
