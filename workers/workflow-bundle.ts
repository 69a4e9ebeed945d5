// The workflow bundle every worker of this project loads: built once into the git-ignored
// dist/ (by `npm run build`, which `npm run dev` and the stack's start run first, or by the first
// process that needs it), keyed by a hash of every source it can contain, and reused by every
// later start of a worker. Bundling costs 5–50 s of CPU on the 2-core machine; without this each
// worker process (the stack's, and every extra worker a test starts) bundled on its own start.
import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAILURE_CONVERTER_PATH } from '../core/payload-codec.js';
import { PROJECT_ROOT, projectFiles } from '../core/project-paths.js';

const ROOT = PROJECT_ROOT;
const DIST = path.join(ROOT, 'dist');
const WORKFLOWS = path.join(ROOT, 'workflows', 'index.ts');
/** Bundled with every workflow: the input check before anything runs (core/workflow-input-auth.ts). */
export const WORKFLOW_INTERCEPTORS = [path.join(ROOT, 'workflows', 'input-auth.ts')];
/** Every folder a workflow module imports from (types included; over-inclusive only costs a rebuild). */
const SOURCE_DIRS = ['workflows', 'core', 'contract', 'persistence', 'engines', 'activities'];

/** Hash of the sources the bundle is built from and of the SDK version that builds it. */
export function workflowSourceHash(): string {
  const h = createHash('sha256');
  for (const f of projectFiles(SOURCE_DIRS))
    if (/\.(ts|js|mjs|cjs|json)$/.test(f)) h.update(`${f}\0`).update(readFileSync(path.join(ROOT, f)));
  h.update(readFileSync(path.join(ROOT, 'node_modules', '@temporalio', 'workflow', 'package.json')));
  return h.digest('hex').slice(0, 16);
}

/** The bundle's path in dist/, built now if missing or stale (written atomically: concurrent builders do not clash). */
export async function workflowBundlePath(): Promise<string> {
  const file = path.join(DIST, `workflow-bundle-${workflowSourceHash()}.js`);
  if (existsSync(file)) return file;
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    workflowInterceptorModules: WORKFLOW_INTERCEPTORS,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: quietLogger,
  });
  mkdirSync(DIST, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bundle.code);
  renameSync(tmp, file);
  return file;
}

/** Worker.create's `workflowBundle` option. */
export async function workflowBundle(): Promise<{ codePath: string }> {
  return { codePath: await workflowBundlePath() };
}

// webpack's progress lines are noise in the stack's logs; warnings and errors still show.
const quietLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  log: () => undefined,
  warn: (msg: string, meta?: unknown) => console.warn(msg, meta ?? ''),
  error: (msg: string, meta?: unknown) => console.error(msg, meta ?? ''),
};

// `npm run build`: idempotent (nothing to do when the bundle of the current sources exists).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  workflowBundlePath().then(
    (file) => console.log(`workflow bundle: ${path.relative(ROOT, file)} (${Date.now() - t0} ms)`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
