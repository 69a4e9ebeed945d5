// Runs the `svc` CLI as its own process (bin/svc.mjs, as `npx svc` runs it) against the test
// stack, with only the environment it is given (no inherited SVC_* from the test runner).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { apiUrl } from './helpers.js';

export const SVC_BIN = fileURLToPath(new URL('../../bin/svc.mjs', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function svc(
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_BASE_URL: apiUrl(),
      ...opts.env,
    };
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}
