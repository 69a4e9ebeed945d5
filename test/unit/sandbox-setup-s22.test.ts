// Session 22 (issue 22, set-up hygiene): infra/sandbox/setup.sh waits on a dockerd that is
// already running; when that dockerd exits before it answers (clean clone 66), the setup starts
// its own instead of failing, and fails only when its own exits. Run on a copy of the script in a
// temporary repository, with stub `docker` and `dockerd` first on PATH: the real Docker is never
// touched (helpers cannot reach it, and a test must not start or stop a daemon).
import { spawn, spawnSync } from 'node:child_process';
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
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `docker`: `info` answers once the stub dockerd of this setup has written `answers`; the image is present and runs. */
const DOCKER_STUB = `#!/bin/bash
case "$1" in
  info) [ -e "$STUB_DIR/answers" ] ;;
  *) exit 0 ;;
esac
`;

/**
 * `dockerd` (its process name is dockerd, as the setup's pid check wants): STUB_DOCKERD=serve
 * answers after a moment and stays up; =exit exits at once; =vanish (someone else's daemon) exits
 * after a second without ever answering.
 */
const DOCKERD_STUB = `#!/bin/bash
echo $$ >> "$STUB_DIR/dockerd-pids"
case "\${STUB_DOCKERD:-serve}" in
  serve) sleep 0.3; touch "$STUB_DIR/answers"; exec sleep 60 ;;
  exit) echo "stub dockerd: failed to start" >&2; exit 1 ;;
  vanish) sleep 1; exit 0 ;;
esac
`;

/** A temporary repository holding a copy of the sandbox scripts, and a stub directory. */
function sandboxCopy(): { repo: string; stubs: string; setup: string } {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'svc-setup-s22-'));
  dirs.push(repo);
  const sandbox = path.join(repo, 'infra', 'sandbox');
  mkdirSync(sandbox, { recursive: true });
  for (const f of ['setup.sh', 'recipe.sh', 'packages.txt'])
    copyFileSync(path.join(ROOT, 'infra', 'sandbox', f), path.join(sandbox, f));
  const stubs = path.join(repo, 'stubs');
  mkdirSync(stubs);
  writeFileSync(path.join(stubs, 'docker'), DOCKER_STUB);
  writeFileSync(path.join(stubs, 'dockerd'), DOCKERD_STUB);
  // The setup starts a dockerd only as root: the stub `id` says root, whoever runs the suite.
  writeFileSync(path.join(stubs, 'id'), '#!/bin/bash\necho 0\n');
  for (const f of ['docker', 'dockerd', 'id']) chmodSync(path.join(stubs, f), 0o755);
  return { repo, stubs, setup: path.join(sandbox, 'setup.sh') };
}

/**
 * Runs the copied setup with the stubs first on PATH (the real docker and dockerd live in
 * /usr/local/bin and /usr/sbin: left out). Asynchronously: this process must reap the foreign stub
 * when it exits (a zombie still has a pid and a name), as init would reap a real daemon.
 */
async function runSetup(c: { stubs: string; setup: string }, env: Record<string, string>) {
  const child = spawn('bash', [c.setup], {
    env: {
      PATH: `${c.stubs}:/usr/bin:/bin`,
      HOME: os.tmpdir(),
      STUB_DIR: c.stubs,
      SVC_DOCKERD_PIDFILE: path.join(c.stubs, 'docker.pid'),
      SVC_DOCKERD_WAIT: '20',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const started = existsSync(path.join(c.stubs, 'dockerd-pids'))
    ? readFileSync(path.join(c.stubs, 'dockerd-pids'), 'utf8').split('\n').filter(Boolean).map(Number)
    : [];
  pids.push(...started);
  return { status, stdout, stderr, started };
}

/** Someone else's dockerd, already running when the setup starts: its pid in the pid file. */
function foreignDockerd(c: { stubs: string }, mode: string): number {
  const child = spawn(path.join(c.stubs, 'dockerd'), [], {
    env: { PATH: '/usr/bin:/bin', STUB_DIR: c.stubs, STUB_DOCKERD: mode },
    stdio: 'ignore',
  });
  pids.push(child.pid!);
  writeFileSync(path.join(c.stubs, 'docker.pid'), String(child.pid));
  return child.pid!;
}

const hash = (c: { repo: string }) =>
  spawnSync('bash', ['-c', 'cd infra/sandbox && sha256sum packages.txt recipe.sh | sha256sum | cut -c1-16'], {
    cwd: c.repo,
    encoding: 'utf8',
  }).stdout.trim();

describe('infra/sandbox/setup.sh and the dockerd it waits on', () => {
  it('starts its own dockerd when the running one it waited on exits before answering', async () => {
    const c = sandboxCopy();
    const foreign = foreignDockerd(c, 'vanish');
    // The process name the setup checks is the stub's own: dockerd.
    await expect.poll(() => readFileSync(`/proc/${foreign}/comm`, 'utf8').trim()).toBe('dockerd');
    const r = await runSetup(c, { STUB_DOCKERD: 'serve' });
    expect(r.stderr).toContain(`dockerd (pid ${foreign}) is running; waiting for it to answer`);
    expect(r.stderr).toContain(`the dockerd it waited on (pid ${foreign}) exited before answering; starting its own`);
    expect(r.stderr).toContain('dockerd answers');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`svc-sandbox:${hash(c)}\n`);
    // The foreign one, then exactly one of its own.
    expect(r.started.filter((p) => p !== foreign)).toHaveLength(1);
  });

  it('fails closed, with the log, when its own dockerd exits (no second start)', async () => {
    const c = sandboxCopy();
    foreignDockerd(c, 'vanish');
    const r = await runSetup(c, { STUB_DOCKERD: 'exit' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('starting its own');
    expect(r.stderr).toContain('stub dockerd: failed to start');
    expect(r.stderr).toMatch(/ERROR: dockerd exited during start-up/);
    expect(r.started).toHaveLength(2);
  });

  it('with no dockerd running, starts one and waits for it (as before)', async () => {
    const c = sandboxCopy();
    const r = await runSetup(c, { STUB_DOCKERD: 'serve' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('waited on');
    expect(r.started).toHaveLength(1);
    expect(readFileSync(path.join(c.repo, '.data', 'sandbox-image'), 'utf8')).toBe(`svc-sandbox:${hash(c)}\n`);
  });
});
