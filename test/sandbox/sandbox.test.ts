// Escape and behaviour tests of the Docker sandbox. They need a Docker daemon and the sandbox
// image: beforeAll runs infra/sandbox/setup.sh (installs/starts Docker, builds the image when
// the recipe changed; a no-op otherwise), so these tests run everywhere setup.sh can, never skip.

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  SANDBOX_CAPACITY_MESSAGE,
  SANDBOX_LABEL,
  SandboxCapacityError,
  SandboxUnavailableError,
  listSandboxContainers,
  reapSandboxContainers,
  recipeHash,
  runInSandbox,
  runPython,
  sandboxAvailable,
  sandboxImage,
} from '../../activities/sandbox/runner.js';
import { SlotPool, slotConfigFromEnv } from '../../activities/sandbox/slots.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SETUP = join(REPO, 'infra/sandbox/setup.sh');

let setupTag = '';

beforeAll(async () => {
  delete process.env.SVC_SANDBOX_IMAGE;
  delete process.env.DOCKER_HOST;
  const { stdout } = await promisify(execFile)('bash', [SETUP], { timeout: 30 * 60_000, maxBuffer: 1 << 20 });
  setupTag = stdout.trim();
}, 31 * 60_000);

afterEach(async () => {
  // Every run removes its container before it settles: nothing labelled may remain.
  expect(await listSandboxContainers()).toEqual([]);
});

/** Host pids whose cgroup path names the container (docker puts each container in its own). */
function processesInCgroupOf(containerId: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cgroup`, 'utf8').includes(containerId)) pids.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return pids;
}

/** Runs Python that prints one JSON document, and parses it. */
async function probe(code: string, extra: Partial<Parameters<typeof runInSandbox>[0]> = {}) {
  const result = await runInSandbox({ code, timeoutMs: 20_000, ...extra });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('image', () => {
  it('setup.sh prints the tag that runner.ts computes from the recipe, and records it', () => {
    expect(setupTag).toBe(`svc-sandbox:${recipeHash()}`);
    expect(sandboxImage()).toBe(setupTag);
    expect(readFileSync(join(REPO, '.data/sandbox-image'), 'utf8')).toBe(`${setupTag}\n`);
    expect(recipeHash()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the image carries its recipe hash and the sandbox is available', async () => {
    const info = await new Docker({ socketPath: '/var/run/docker.sock' }).getImage(setupTag).inspect();
    expect(info.Config.Labels?.['svc.sandbox.recipe']).toBe(recipeHash());
    expect(info.Config.User).toBe('10001:10001');
    expect(await sandboxAvailable()).toBe(true);
  });

  it('setup.sh is idempotent: a second run keeps the same tag', async () => {
    const { stdout } = await promisify(execFile)('bash', [SETUP], { timeout: 120_000 });
    expect(stdout).toBe(`${setupTag}\n`);
  }, 130_000);

  it('SVC_SANDBOX_IMAGE overrides the computed tag', () => {
    process.env.SVC_SANDBOX_IMAGE = 'svc-sandbox:override';
    try {
      expect(sandboxImage()).toBe('svc-sandbox:override');
    } finally {
      delete process.env.SVC_SANDBOX_IMAGE;
    }
    expect(sandboxImage()).toBe(setupTag);
  });
});

describe('running code', () => {
  it('returns exit code, stdout and stderr, and feeds stdin', async () => {
    const r = await runPython(
      'import sys\ndata = sys.stdin.read()\nprint("out:" + data.upper())\nprint("err", file=sys.stderr)\nsys.exit(3)',
      { stdin: 'héllo' },
    );
    expect(r).toMatchObject({
      exitCode: 3,
      stdout: 'out:HÉLLO\n',
      stderr: 'err\n',
      timedOut: false,
      oomKilled: false,
      outputTruncated: false,
    });
    expect(r.durationMs).toBeGreaterThan(0);
  });

  it('reports a Python exception as exit code 1 with the traceback of the user code', async () => {
    const r = await runPython('x = 1\nraise ValueError("bad value")');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Traceback (most recent call last):\n  File "main.py", line 2, in <module>\n    raise ValueError("bad value")\nValueError: bad value\n',
    );
  });

  it('pandas, numpy and scipy compute the mean of a CSV passed in', async () => {
    const csv = Buffer.from('city,temp\nOslo,3.5\nRome,18.25\nCairo,25.0\nLima,19.25\n');
    const r = await runPython(
      [
        'import json, numpy as np, pandas as pd, scipy.stats as st',
        'df = pd.read_csv("data.csv")',
        'print(json.dumps({"columns": list(df.columns), "pandas": float(df["temp"].mean()),',
        '  "numpy": float(np.mean(df["temp"].to_numpy())), "scipy": float(st.describe(df["temp"]).mean),',
        '  "rows": int(len(df))}))',
      ].join('\n'),
      { files: [{ name: 'data.csv', content: csv }], timeoutMs: 30_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      columns: ['city', 'temp'],
      pandas: 16.5,
      numpy: 16.5,
      scipy: 16.5,
      rows: 4,
    });
  });

  it('runs as the unprivileged user with no capabilities, no-new-privileges, seccomp and the limits', async () => {
    const got = await probe(
      [
        'import json, os',
        'status = dict(l.split(":\\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\\t" in l)',
        'def first(*paths):',
        '    for p in paths:',
        '        if os.path.exists(p): return open(p).read().strip()',
        'print(json.dumps({',
        '  "uid": os.getuid(), "gid": os.getgid(), "euid": os.geteuid(),',
        '  "capeff": status["CapEff"].strip(), "capbnd": status["CapBnd"].strip(),',
        '  "nnp": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),',
        '  "mem": first("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max"),',
        '  "pids": first("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids.max"),',
        '  "shm": os.path.exists("/dev/shm"), "hostname": os.uname().nodename,',
        '  "ifaces": sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]),',
        '  "cwd": os.getcwd(),',
        '}))',
      ].join('\n'),
    );
    expect(got).toEqual({
      uid: 10001,
      gid: 10001,
      euid: 10001,
      capeff: '0000000000000000',
      capbnd: '0000000000000000',
      nnp: '1',
      seccomp: '2',
      mem: String(256 * 1024 * 1024),
      pids: '64',
      shm: false,
      hostname: 'sandbox',
      ifaces: ['lo'],
      cwd: '/tmp/work',
    });
  });

  it('a 10 MB CSV (the /verify/stats upload limit) fits through stdin, the tmpfs and the memory limit', async () => {
    const lines = ['id,value'];
    let bytes = 9;
    let n = 0;
    while (bytes < 10_000_000 - 32) {
      const line = `${n},${n % 1000}`;
      lines.push(line);
      bytes += line.length + 1;
      n++;
    }
    const csv = Buffer.from(lines.join('\n') + '\n');
    expect(csv.length).toBeLessThanOrEqual(10_000_000);
    const r = await runPython('import pandas as pd\ndf = pd.read_csv("data.csv")\nprint(len(df), df["id"].sum())', {
      files: [{ name: 'data.csv', content: csv }],
      timeoutMs: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${n} ${(n * (n - 1)) / 2}\n`);
    expect(r.oomKilled).toBe(false);
  }, 40_000);

  it('a data file cannot shadow an installed module', async () => {
    const r = await runPython('import numpy\nprint(numpy.__file__)', {
      files: [{ name: 'numpy.py', content: Buffer.from('raise SystemExit(99)\n') }],
    });
    expect(r.stdout).toBe('/usr/lib/python3/dist-packages/numpy/__init__.py\n');
    expect(r.exitCode).toBe(0);
  });

  it('refuses invalid file names and options before starting anything', async () => {
    await expect(runPython('pass', { files: [{ name: '../x', content: Buffer.from('') }] })).rejects.toThrow(
      'invalid sandbox file name: "../x"',
    );
    await expect(runInSandbox({ code: 'pass', timeoutMs: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('escape attempts', () => {
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('has no network: internet, the host loopback, host addresses and DNS all fail', async () => {
    const hostAddresses = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);
    const targets = [
      ['1.1.1.1', 53],
      ['127.0.0.1', port],
      ['172.17.0.1', port],
      ...hostAddresses.map((a) => [a, port]),
    ];
    const got = await probe(
      [
        'import json, socket, sys',
        'targets = json.loads(sys.stdin.read())',
        'out = {}',
        'for host, port in targets:',
        '    s = socket.socket(); s.settimeout(3)',
        '    try:',
        '        s.connect((host, port)); out[host] = "connected"',
        '    except OSError as e:',
        '        out[host] = e.errno',
        '    finally:',
        '        s.close()',
        'try:',
        '    socket.getaddrinfo("example.org", 80); out["dns"] = "resolved"',
        'except socket.gaierror:',
        '    out["dns"] = "failed"',
        'print(json.dumps(out))',
      ].join('\n'),
      { stdin: JSON.stringify(targets) },
    );
    const ENETUNREACH = 101;
    const ECONNREFUSED = 111;
    const expected: Record<string, unknown> = {
      '1.1.1.1': ENETUNREACH,
      '127.0.0.1': ECONNREFUSED,
      '172.17.0.1': ENETUNREACH,
      dns: 'failed',
    };
    for (const a of hostAddresses) expected[a] = ENETUNREACH;
    expect(got).toEqual(expected);
    expect(hostAddresses.length).toBeGreaterThan(0);
    expect(connections).toBe(0);
  });

  it('cannot write outside the tmpfs, cannot execute from it, and the tmpfs is bounded', async () => {
    const got = await probe(
      [
        'import json, os, shutil, subprocess',
        'def attempt(path):',
        '    try:',
        '        with open(path, "w") as f: f.write("x")',
        '        return "written"',
        '    except OSError as e:',
        '        return e.errno',
        'out = {"home": attempt("/home/sandbox/x"), "etc": attempt("/etc/passwd"), "root": attempt("/x"),',
        '       "tmp": attempt("/tmp/ok")}',
        'shutil.copy("/bin/true", "/tmp/true"); os.chmod("/tmp/true", 0o755)',
        'try:',
        '    subprocess.run(["/tmp/true"]); out["exec"] = "ran"',
        'except OSError as e:',
        '    out["exec"] = e.errno',
        'try:',
        '    with open("/tmp/big", "wb") as f: f.write(b"x" * (40 * 1024 * 1024))',
        '    out["fill"] = "written"',
        'except OSError as e:',
        '    out["fill"] = e.errno',
        'print(json.dumps(out))',
      ].join('\n'),
    );
    const EROFS = 30;
    const EACCES = 13;
    const ENOSPC = 28;
    expect(got).toEqual({ home: EROFS, etc: EROFS, root: EROFS, tmp: 'written', exec: EACCES, fill: ENOSPC });
  });

  it('sees none of the host: no repo, no host files, its own PID 1 and environment', async () => {
    const marker = join(tmpdir(), `svc-sandbox-marker-${randomBytes(6).toString('hex')}`);
    writeFileSync(marker, 'host secret');
    const envMarker = `SVC_SANDBOX_HOST_MARKER_${randomBytes(6).toString('hex')}`;
    process.env[envMarker] = '1';
    try {
      const got = await probe(
        [
          'import json, os, sys',
          'args = json.loads(sys.stdin.read())',
          'def readable(p):',
          '    try:',
          '        open(p, "rb").read(); return True',
          '    except OSError as e:',
          '        return e.errno',
          'environ = open("/proc/1/environ", "rb").read().decode()',
          'print(json.dumps({',
          '  "repo": os.path.exists(args["repo"]), "marker": os.path.exists(args["marker"]),',
          '  "shadow": readable("/etc/shadow"), "pid1": open("/proc/1/cmdline").read().split("\\0")[0],',
          '  "envMarker": args["env"] in environ or args["env"] in os.environ,',
          '  "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())[:1],',
          '  "mountsWithRepo": [l for l in open("/proc/self/mounts") if args["repo"].rstrip("/") in l],',
          '}))',
        ].join('\n'),
        { stdin: JSON.stringify({ repo: REPO, marker, env: envMarker }) },
      );
      expect(got).toEqual({
        repo: false,
        marker: false,
        shadow: 13, // the image's own shadow file, root-only; the host's is not there at all
        pid1: '/usr/bin/timeout',
        envMarker: false,
        pids: [1],
        mountsWithRepo: [],
      });
    } finally {
      rmSync(marker);
      delete process.env[envMarker];
    }
  });

  it('contains a fork bomb with the pids limit; the run ends and the host is unaffected', async () => {
    const started = Date.now();
    const run = runInSandbox({
      // Every process forks forever and shrugs off EAGAIN: only the deadline ends it.
      code: ['import os', 'while True:', '    try:', '        os.fork()', '    except OSError:', '        pass'].join(
        '\n',
      ),
      timeoutMs: 4000,
    });
    // Sampled once the bomb is at work: polled, not after a fixed sleep (a container start under load takes seconds).
    let id = '';
    let during: number[] = [];
    await expect
      .poll(
        async () => {
          id = (await listSandboxContainers())[0] ?? '';
          during = id ? processesInCgroupOf(id) : [];
          return during.length;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBeGreaterThan(32);
    // The bomb is at the cap: at most 64 tasks, and the host still starts processes meanwhile.
    expect(during.length).toBeLessThanOrEqual(64);
    expect(execFileSync('echo', ['host alive'], { encoding: 'utf8' })).toBe('host alive\n');
    const r = await run;
    expect(r.containerId).toBe(id);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(137);
    expect(r.oomKilled).toBe(false);
    expect(Date.now() - started).toBeLessThan(20_000); // the 4 s deadline ended the bomb (else: the test's 30 s time-out)
    // No process of the bomb survives on the host.
    expect(processesInCgroupOf(id)).toEqual([]);
  }, 30_000);

  it('a bomb that stops at the limit reports EAGAIN: at most 64 tasks ever existed', async () => {
    const r = await runPython(
      [
        'import os, sys, time',
        'children = 0',
        'while True:',
        '    try:',
        '        pid = os.fork()',
        '    except OSError as e:',
        '        print(children, e.errno); sys.stdout.flush(); os._exit(0)',
        '    if pid == 0:',
        '        time.sleep(30); os._exit(0)',
        '    children += 1',
      ].join('\n'),
      { timeoutMs: 10_000 },
    );
    // 64 tasks: timeout (PID 1) + this python + 62 children; EAGAIN is errno 11.
    expect(r.stdout).toBe('62 11\n');
    expect(r.exitCode).toBe(0);
    expect(r.timedOut).toBe(false);
  }, 30_000);

  it('allocating without bound is OOM-killed and reported', async () => {
    const r = await runPython('blocks = []\nwhile True:\n    blocks.append(b"x" * (16 * 1024 * 1024))', {
      timeoutMs: 20_000,
    });
    expect(r).toMatchObject({ exitCode: 137, oomKilled: true, timedOut: false, outputTruncated: false });
  }, 30_000);

  it('running past the deadline is killed, flagged and removed', async () => {
    const r = await runPython('import time\nprint("started", flush=True)\ntime.sleep(60)', { timeoutMs: 1500 });
    expect(r).toMatchObject({ exitCode: 137, timedOut: true, oomKilled: false, stdout: 'started\n' });
    expect(r.durationMs).toBeGreaterThanOrEqual(1500);
    expect(r.durationMs).toBeLessThan(15_000); // killed at the 1.5 s deadline, not after the 60 s sleep
  }, 30_000);

  it('caps each output stream at 1 MiB, flags it and stops the flood', async () => {
    const r = await runPython(
      'import sys\nsys.stderr.write("e" * 10)\nsys.stderr.flush()\nwhile True:\n    sys.stdout.write("x" * 65536)',
      {
        timeoutMs: 20_000,
      },
    );
    expect(r.outputTruncated).toBe(true);
    expect(r.stdout).toBe('x'.repeat(1024 * 1024));
    expect(r.stderr).toBe('e'.repeat(10));
    expect(r.timedOut).toBe(false);
    expect(r.durationMs).toBeLessThan(10_000); // stopped at the cap, not at the 20 s deadline (half of it)
  }, 30_000);
});

describe('slots and availability', () => {
  it('a second concurrent run beyond one slot gets SandboxCapacityError with the exact message', async () => {
    process.env.SVC_SANDBOX_MAX_CONCURRENT = '1';
    process.env.SVC_SANDBOX_ACQUIRE_TIMEOUT = '0.5';
    vi.resetModules();
    try {
      // A fresh module instance builds its process-wide pool from the environment above.
      const fresh = await import('../../activities/sandbox/runner.js');
      const first = fresh.runPython('import time\ntime.sleep(6)\nprint("first done")', { timeoutMs: 20_000 });
      let firstDone = false;
      void first.then(
        () => (firstDone = true),
        () => undefined, // observed only: awaited (and its failure reported) below
      );
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const second = fresh.runPython('print("second")');
      await expect(second).rejects.toBeInstanceOf(fresh.SandboxCapacityError);
      await expect(second).rejects.toThrow(/^Sandbox capacity reached — retry shortly\.$/);
      const waited = Date.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(450);
      // It gave up at its own 0.5 s acquire time-out, not when the slot came free (the first run takes 6 s).
      expect(firstDone).toBe(false);
      expect(waited).toBeLessThan(5_000);
      expect((await first).stdout).toBe('first done\n');
      // The slot is free again.
      expect((await fresh.runPython('print("third")')).stdout).toBe('third\n');
      expect(await fresh.listSandboxContainers()).toEqual([]);
    } finally {
      delete process.env.SVC_SANDBOX_MAX_CONCURRENT;
      delete process.env.SVC_SANDBOX_ACQUIRE_TIMEOUT;
    }
  }, 30_000);

  it('the slot pool hands slots over in FIFO order and releases idempotently', async () => {
    const pool = new SlotPool({ maxConcurrent: 2, acquireTimeoutMs: 1000 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    const order: string[] = [];
    const c = pool.acquire().then((r) => (order.push('c'), r));
    const d = pool.acquire().then((r) => (order.push('d'), r));
    expect([pool.inUse, pool.waiting]).toEqual([2, 2]);
    a();
    a();
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect([pool.inUse, pool.waiting]).toEqual([2, 1]);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    expect([pool.inUse, pool.waiting]).toEqual([0, 0]);
    const zero = new SlotPool({ maxConcurrent: 1, acquireTimeoutMs: 0 });
    const held = await zero.acquire();
    const refused = await zero.acquire().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxCapacityError);
    expect((refused as Error).message).toBe(SANDBOX_CAPACITY_MESSAGE);
    expect(zero.waiting).toBe(0);
    held();
  });

  it('reads the slot settings from the environment and rejects malformed ones', () => {
    expect(slotConfigFromEnv({})).toEqual({ maxConcurrent: 4, acquireTimeoutMs: 10_000 });
    expect(slotConfigFromEnv({ SVC_SANDBOX_MAX_CONCURRENT: '7', SVC_SANDBOX_ACQUIRE_TIMEOUT: '2.5' })).toEqual({
      maxConcurrent: 7,
      acquireTimeoutMs: 2500,
    });
    expect(() => slotConfigFromEnv({ SVC_SANDBOX_MAX_CONCURRENT: '0' })).toThrow(
      'SVC_SANDBOX_MAX_CONCURRENT must be a positive integer, got "0"',
    );
    expect(() => slotConfigFromEnv({ SVC_SANDBOX_ACQUIRE_TIMEOUT: '-1' })).toThrow(
      'SVC_SANDBOX_ACQUIRE_TIMEOUT must be a number of seconds >= 0, got "-1"',
    );
  });

  it('a dead DOCKER_HOST gives SandboxUnavailableError and frees the slot', async () => {
    process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock';
    const pool = new SlotPool({ maxConcurrent: 1, acquireTimeoutMs: 0 });
    try {
      const err = await runPython('print(1)', { slots: pool }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxUnavailableError);
      expect((err as Error).message).toBe('sandbox unavailable');
      expect((err as SandboxUnavailableError).reason).toContain('ENOENT');
      expect(pool.inUse).toBe(0);
      expect(await sandboxAvailable()).toBe(false);
    } finally {
      delete process.env.DOCKER_HOST;
    }
    expect(await sandboxAvailable()).toBe(true);
  });

  it('a missing image gives SandboxUnavailableError', async () => {
    process.env.SVC_SANDBOX_IMAGE = 'svc-sandbox:does-not-exist';
    try {
      const err = await runPython('print(1)').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxUnavailableError);
      expect((err as Error).message).toBe('sandbox unavailable');
      expect((err as SandboxUnavailableError).reason).toBe(
        'docker create failed: image svc-sandbox:does-not-exist not found',
      );
      expect(await sandboxAvailable()).toBe(false);
    } finally {
      delete process.env.SVC_SANDBOX_IMAGE;
    }
  });

  it('reapSandboxContainers removes leftovers past their deadline and keeps live ones', async () => {
    const docker = new Docker({ socketPath: '/var/run/docker.sock' });
    const make = (deadline: number) =>
      docker.createContainer({
        Image: setupTag,
        Cmd: ['true'],
        Labels: { [SANDBOX_LABEL]: '1', 'svc.sandbox.deadline': String(deadline) },
        HostConfig: { NetworkMode: 'none' },
      });
    const stale = await make(Date.now() - 1000);
    const live = await make(Date.now() + 60_000);
    try {
      expect(await reapSandboxContainers()).toBe(1);
      const remaining = await listSandboxContainers('all');
      expect(remaining).toContain(live.id);
      expect(remaining).not.toContain(stale.id);
    } finally {
      await live.remove({ force: true });
      await stale.remove({ force: true }).catch(() => undefined);
    }
  });
});
