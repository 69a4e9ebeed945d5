// The API process runs with its V8 flags (session 17, issue 22's memory): its old generation grows
// by 20 % of the live heap between full collections (infra/stack.ts API_V8_FLAGS), and so does
// every API process of a cluster (SVC_API_PROCESSES > 1: infra/api-cluster.ts forks them with the
// primary's flags; until session 17 the flags stopped at the primary).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { API_V8_FLAGS, ManagedProcess } from '../../infra/stack.js';
import { serviceArgs } from '../../infra/service-build.js';

const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const FLAGS = API_V8_FLAGS.split(/\s+/).filter(Boolean);
/** What the cluster row starts its primary with (fixed, so the row does not depend on the default above). */
const CLUSTER_FLAGS = ['--heap-growing-percent=20', '--max-semi-space-size=16'];

/** Pids of a process's direct node children (the cluster's API processes). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([, comm]) => comm === 'node')
      .map(([p]) => Number(p))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

describe("the API process's V8 flags (session 17)", () => {
  const procs: ManagedProcess[] = [];
  afterAll(async () => {
    for (const p of procs.reverse()) await p.stop();
  });

  // Session 20: and its main thread's semi-spaces capped at 8 MB (V8's default 16; 4 MB in the first cut).
  it("the stack's API process runs with --heap-growing-percent=20 --max-semi-space-size=8", () => {
    expect(FLAGS).toEqual(['--heap-growing-percent=20', '--max-semi-space-size=8']);
    const pid = Number(readFileSync(path.join(inject('dataDir'), 'pids', 'api.pid'), 'utf8'));
    const argv = argvOf(pid);
    // node <V8 flags> <entry>: the flags before the entry script (SVC_API_V8_FLAGS, when the run sets it, replaces them).
    const expected = (process.env.SVC_API_V8_FLAGS ?? API_V8_FLAGS).split(/\s+/).filter(Boolean);
    expect(argv.slice(1, 1 + expected.length)).toEqual(expected);
  });

  it("every API process of a cluster carries the primary's V8 flags", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const api = new ManagedProcess(
      {
        name: 'api-v8-flags-cluster',
        command: process.execPath,
        args: [...CLUSTER_FLAGS, ...serviceArgs('infra/api-cluster.ts')],
        env: { ...process.env, ...inject('stackEnv'), HOST: '127.0.0.1', PORT: String(port), SVC_API_PROCESSES: '2' },
        ready: async (p) =>
          p.logContains('SVC_API_CLUSTER_READY') && (await fetch(`${base}/health`).catch(() => null))?.status === 200,
        readyTimeoutMs: 150_000,
      },
      inject('dataDir'),
    );
    procs.push(api);
    await api.start();
    const children = childPids(api.pid as number);
    expect(children).toHaveLength(2);
    for (const pid of children) {
      const argv = argvOf(pid);
      expect(argv.slice(1, 1 + CLUSTER_FLAGS.length)).toEqual(CLUSTER_FLAGS);
      expect(argv.at(-1)).toMatch(/workers\/api-process\.(js|ts)$/);
    }
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }, 200_000);
});
