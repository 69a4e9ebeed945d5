// Session 22 review (infra/ports.ts gave Temporal's internal UI port and the workers' metrics ports
// bands of their own): the stack checks every fixed port a process listens on before it starts
// anything, so a port already taken stops `up()` with the port and the process named, as the
// front-end, FerretDB, API, codec and SMTP ports did. Each row also holds the API's port, so that
// the check stops before any process starts, with or without the fix (nothing is ever started here).
import net from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, Stack, type StackPorts } from '../../infra/stack.js';

const held: net.Server[] = [];
const dataDirs: string[] = [];

afterAll(async () => {
  for (const s of held) await new Promise((r) => s.close(r));
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A port on 127.0.0.1 this process listens on (taken, as another stack's would be). */
async function hold(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  held.push(srv);
  return (srv.address() as net.AddressInfo).port;
}

/** Ports the kernel just gave out and took back (free), with `taken` on top. */
async function portsWith(taken: Partial<StackPorts>): Promise<StackPorts> {
  const free = async () => freePort();
  return {
    temporal: await free(),
    temporalUi: await free(),
    temporalUiUpstream: await free(),
    codec: await free(),
    ferret: await free(),
    api: await free(),
    smtp: await free(),
    workerMetrics: await free(),
    workerMetricsStride: 1,
    ...taken,
  };
}

function stack(name: string, ports: StackPorts, env: Record<string, string> = {}): Stack {
  const s = new Stack({
    profile: `test-port-check-s22-${name}-${process.pid}`,
    ports,
    env: { SVC_RUN_FROM_SOURCE: '1', ...env },
  });
  dataDirs.push(s.dataDir);
  return s;
}

describe("the stack's start refuses a taken port, every fixed port of every process", () => {
  it("Temporal's internal UI port (--ui-port)", async () => {
    const ports = await portsWith({ temporalUiUpstream: await hold(), api: await hold() });
    await expect(stack('ui', ports).up()).rejects.toThrow(
      new RegExp(`^port ${ports.temporalUiUpstream} needed by temporal is already in use`),
    );
  });

  it("a worker's metrics port (SVC_WORKER_METRICS=1)", async () => {
    const ports = await portsWith({ workerMetrics: await hold(), api: await hold() });
    await expect(stack('metrics', ports, { SVC_WORKER_METRICS: '1' }).up()).rejects.toThrow(
      new RegExp(`^port ${ports.workerMetrics} needed by worker is already in use`),
    );
  });
});
