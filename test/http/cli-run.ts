// Runs the `svc` CLI as its own process against the test stack, with only the environment it is
// given (no inherited SVC_* from the test runner).
//
// Each run is a fresh node process (argv, stdio, exit code and environment are the CLI's own),
// but not through bin/svc.mjs's tsx loader: that loader transforms every TypeScript module of the
// CLI again in each process (about 0.5 s of CPU, 2-3 s wall on a loaded machine, per run, and
// these files run the CLI ~60 times). Instead the CLI's TypeScript is transformed once per test
// file by esbuild (the transformer tsx itself uses) into one module beside the sources, with the
// npm packages left external so node loads them exactly as `npx svc` does. SVC_BIN (the real
// shim) is still run by the rows that spawn it directly (cli-ux's terminal row, mcp).
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { apiUrl } from './helpers.js';

export const SVC_BIN = fileURLToPath(new URL('../../bin/svc.mjs', import.meta.url));
const ENTRY = fileURLToPath(new URL('../../client/cli/svc.ts', import.meta.url));
// Under the checkout so that the external packages resolve from its node_modules; one file per
// test process and thread, so parallel files never overwrite each other's; removed at exit.
const BUILT_DIR = fileURLToPath(new URL('../../.data/test-cli/', import.meta.url));

let built: Promise<string> | undefined;
/** The CLI as one ES module, built on first use in this test process. */
function cliModule(): Promise<string> {
  built ??= (async () => {
    mkdirSync(BUILT_DIR, { recursive: true });
    const outfile = `${BUILT_DIR}svc-${process.pid}-${threadId}.mjs`;
    process.once('exit', () => rmSync(outfile, { force: true }));
    await build({
      entryPoints: [ENTRY],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node}`,
      outfile,
      logLevel: 'warning',
    });
    return outfile;
  })();
  return built;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function svc(
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<CliRun> {
  const cli = await cliModule();
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_BASE_URL: apiUrl(),
      ...opts.env,
    };
    const child = spawn(process.execPath, [cli, ...args], { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}
