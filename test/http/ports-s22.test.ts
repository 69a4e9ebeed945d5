// Session 22 (issue 22, set-up hygiene): what the running test stack's processes really listen on.
// Every port below Linux's ephemeral range is exactly the one infra/ports.ts gives the process,
// and every one of those is below the range (FerretDB's was 37017 + offset, inside it). Temporal's
// own extra listeners (its HTTP API, /metrics, history, matching and worker services) are the
// kernel's free picks, inside the range by design. Read from /proc (the process's socket inodes
// against the kernel's table of listening TCP sockets), not from the stack's own configuration.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { type StackPorts } from '../../infra/ports.js';

/** Listening TCP sockets (IPv4 and IPv6): inode → port. */
function listeningSockets(): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(f)) continue;
    for (const line of readFileSync(f, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A: LISTEN
      out.set(cols[9]!, parseInt(cols[1]!.split(':').at(-1)!, 16));
    }
  }
  return out;
}

/** The ports one process listens on (its own socket descriptors). */
function portsOf(pid: number, listening: Map<string, number>): number[] {
  const ports = new Set<number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link = '';
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    const port = inode ? listening.get(inode) : undefined;
    if (port !== undefined) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

describe("the test stack's listeners (session 22)", () => {
  it('below the ephemeral range: exactly the layout ports, per process; the layout ports all below it', () => {
    const ports = inject('ports') as StackPorts;
    const [ephemeralStart] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    const fixedBelow = Math.min(ephemeralStart!, 32768);
    const expected: Record<string, number[]> = {
      temporal: [ports.temporal, ports.temporalUiUpstream].sort((a, b) => a - b),
      'temporal-ui-gate': [ports.temporalUi],
      ferretdb: [ports.ferret],
      'smtp-sink': [ports.smtp],
      api: [ports.api],
      // No SVC_WORKER_METRICS in the test stack: the worker listens on nothing.
      worker: [],
      'codec-server': [ports.codec],
    };
    const pidDir = path.join(inject('dataDir'), 'pids');
    const listening = listeningSockets();
    const seen: Record<string, number[]> = {};
    const picked: Record<string, number[]> = {};
    for (const name of Object.keys(expected)) {
      const pid = Number(readFileSync(path.join(pidDir, `${name}.pid`), 'utf8'));
      const all = portsOf(pid, listening);
      seen[name] = all.filter((p) => p < fixedBelow);
      picked[name] = all.filter((p) => p >= fixedBelow);
    }
    expect(seen).toEqual(expected);
    expect(
      Object.values(expected)
        .flat()
        .filter((p) => p >= 32768),
    ).toEqual([]);
    // Temporal's own listeners beyond the two fixed ones are the kernel's picks (its HTTP API and /metrics at least).
    expect(picked.temporal!.length).toBeGreaterThanOrEqual(2);
  });
});
