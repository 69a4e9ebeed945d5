// The stack's supervisor (infra/stack.ts ManagedProcess): a crashed process comes back after a
// doubling backoff, a restarted process is ready only once it writes a new ready marker (the
// log file is appended, so the previous run's marker is still in it), and stop() ends supervision.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagedProcess } from '../../infra/stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Prints its ready marker after READY_DELAY_MS, then idles.
const SCRIPT =
  "setTimeout(() => console.log('PROC_READY ' + process.pid), Number(process.env.READY_DELAY_MS)); setInterval(() => {}, 1000);";

describe('ManagedProcess supervision', () => {
  let dir: string;
  let proc: ManagedProcess | null = null;
  afterEach(async () => {
    await proc?.stop('SIGKILL', 2000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('restarts a killed process with backoff and waits for the new ready marker', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-supervisor-'));
    const events: Array<{ at: number; msg: string }> = [];
    proc = new ManagedProcess(
      {
        name: 'sleeper',
        command: process.execPath,
        args: ['-e', SCRIPT],
        env: { ...process.env, READY_DELAY_MS: '800' },
        ready: async (p) => p.logContains('PROC_READY'),
        readyTimeoutMs: 20_000,
      },
      dir,
    );
    await proc.start();
    proc.supervise((msg) => events.push({ at: Date.now(), msg }));
    const first = proc.pid as number;

    const killedAt = Date.now();
    process.kill(-first, 'SIGKILL');
    const deadline = Date.now() + 15_000;
    while (proc.restarts < 1 && Date.now() < deadline) await sleep(50);
    expect(proc.restarts).toBe(1);
    expect(proc.pid).not.toBe(first);
    expect(proc.running).toBe(true);
    expect(events[0]?.msg).toBe('sleeper exited unexpectedly; restarting in 500 ms');
    const restarted = events.find((e) => e.msg.startsWith('sleeper restarted'));
    // Backoff (500 ms) plus the new process's own 800 ms before its marker: the old marker in the log did not count.
    expect((restarted?.at ?? 0) - killedAt).toBeGreaterThanOrEqual(1300);
    expect(proc.logContains(`PROC_READY ${proc.pid}`)).toBe(true);
    expect(proc.logContains(`PROC_READY ${first}`)).toBe(false); // only the current run's output counts

    // A second crash soon after: the delay doubles.
    process.kill(-(proc.pid as number), 'SIGKILL');
    while (proc.restarts < 2 && Date.now() < deadline + 15_000) await sleep(50);
    expect(proc.restarts).toBe(2);
    expect(events.filter((e) => e.msg.includes('restarting in')).map((e) => e.msg)).toEqual([
      'sleeper exited unexpectedly; restarting in 500 ms',
      'sleeper exited unexpectedly; restarting in 1000 ms',
    ]);

    // stop() is an exit that was asked for: no restart.
    await proc.stop();
    await sleep(1500);
    expect(proc.running).toBe(false);
    expect(proc.restarts).toBe(2);
  }, 60_000);
});
