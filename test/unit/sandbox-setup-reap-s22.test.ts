// Session 22 review of infra/sandbox/setup.sh: the dockerd the setup starts stays the setup's own
// child, so that when it exits during start-up the setup's shell reaps it and sees it gone at once
// ("dockerd exited during start-up", with the log's tail). Started from a `$(...)` subshell (as
// the session's first version did), it was an orphan: under an init that does not reap (a
// container's PID 1 that is a plain program), its zombie kept a pid and the name dockerd, and the
// setup waited out SVC_DOCKERD_WAIT, then reported "did not answer". Here a non-reaping
// subreaper (python's prctl(PR_SET_CHILD_SUBREAPER)) stands in for that init. Stub `docker`,
// `dockerd` and `id` on PATH, a copy of the scripts in a temporary repository: the real Docker is
// never touched.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/stack.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A subreaper that waits for its own child only: an orphan handed to it stays a zombie until it exits. */
const NON_REAPING_INIT = `
import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
pid = os.spawnvp(os.P_NOWAIT, 'bash', ['bash', sys.argv[1]])
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

function sandboxCopy(): { repo: string; stubs: string; setup: string } {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'svc-setup-reap-s22-'));
  dirs.push(repo);
  const sandbox = path.join(repo, 'infra', 'sandbox');
  mkdirSync(sandbox, { recursive: true });
  for (const f of ['setup.sh', 'recipe.sh', 'packages.txt'])
    copyFileSync(path.join(ROOT, 'infra', 'sandbox', f), path.join(sandbox, f));
  const stubs = path.join(repo, 'stubs');
  mkdirSync(stubs);
  // `docker info` never answers; the stub dockerd fails at once; `id` says root.
  writeFileSync(path.join(stubs, 'docker'), '#!/bin/bash\n[ "$1" != info ]\n');
  writeFileSync(
    path.join(stubs, 'dockerd'),
    '#!/bin/bash\necho $$ >> "$STUB_DIR/dockerd-pids"\necho "stub dockerd: failed to start" >&2\nexit 1\n',
  );
  writeFileSync(path.join(stubs, 'id'), '#!/bin/bash\necho 0\n');
  writeFileSync(path.join(stubs, 'init.py'), NON_REAPING_INIT);
  for (const f of ['docker', 'dockerd', 'id']) chmodSync(path.join(stubs, f), 0o755);
  return { repo, stubs, setup: path.join(sandbox, 'setup.sh') };
}

describe('infra/sandbox/setup.sh: its own dockerd exiting', () => {
  it('is seen at once under an init that does not reap orphans (not after SVC_DOCKERD_WAIT)', async () => {
    const c = sandboxCopy();
    const child = spawn('python3', [path.join(c.stubs, 'init.py'), c.setup], {
      env: {
        PATH: `${c.stubs}:/usr/bin:/bin`,
        HOME: os.tmpdir(),
        STUB_DIR: c.stubs,
        SVC_DOCKERD_PIDFILE: path.join(c.stubs, 'docker.pid'),
        SVC_DOCKERD_WAIT: '8',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const started = existsSync(path.join(c.stubs, 'dockerd-pids'))
      ? readFileSync(path.join(c.stubs, 'dockerd-pids'), 'utf8').split('\n').filter(Boolean)
      : [];
    expect(started).toHaveLength(1);
    expect(status).toBe(1);
    expect(stderr).toContain('stub dockerd: failed to start');
    expect(stderr).toMatch(/ERROR: dockerd exited during start-up/);
    expect(stderr).not.toContain('did not answer');
  }, 60_000);
});
