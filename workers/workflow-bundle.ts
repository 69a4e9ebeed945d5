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
import { processEnv } from '../core/config.js';
import { FAILURE_CONVERTER_PATH } from '../core/payload-codec.js';
import { PROJECT_ROOT, projectFiles } from '../core/project-paths.js';

const ROOT = PROJECT_ROOT;
const DIST = path.join(ROOT, 'dist');
const WORKFLOWS = path.join(ROOT, 'workflows', 'index.ts');
/** Bundled with every workflow: the input check before anything runs (core/workflow-input-auth.ts). */
export const WORKFLOW_INTERCEPTORS = [path.join(ROOT, 'workflows', 'input-auth.ts')];
/**
 * Evaluated once per workflow thread and shared by every run (the SDK's `preloadModules`, session
 * 19), not again for each run: with the reusable V8 context every module a run's `importWorkflows()`
 * reaches is evaluated afresh for that run, and the agent guards' text helpers (imported by the
 * agent workflow's tool policy) bring re2js (~0.7 MB of tables) and eight RE2 compilations with
 * them, into every verification's run (docs/performance.md, "CPU per /verify/math against the
 * eager floor: session 19"). Only pure modules with no per-run state belong here: the SDK freezes
 * their exports, and their module-level values are shared by every run of the thread.
 */
export const WORKFLOW_PRELOAD_MODULES = [
  'engines/agent-guards/text.ts',
  // The other pure helpers the workflows import (tables, no per-run state): ~20 % fewer collections again.
  'contract/tool-names.ts',
  'engines/agents/tool-policy.ts',
  'engines/agents/tool-judge.ts',
  'engines/agents/decide.ts',
  'core/engine-failures.ts',
  'core/batch.ts',
];
/** Every folder a workflow module imports from (types included; over-inclusive only costs a rebuild). */
const SOURCE_DIRS = ['workflows', 'core', 'contract', 'persistence', 'engines', 'activities'];

/** Hash of the sources the bundle is built from and of the SDK version that builds it. */
export function workflowSourceHash(): string {
  const h = createHash('sha256');
  for (const f of projectFiles(SOURCE_DIRS))
    if (/\.(ts|js|mjs|cjs|json)$/.test(f)) h.update(`${f}\0`).update(readFileSync(path.join(ROOT, f)));
  h.update(readFileSync(path.join(ROOT, 'node_modules', '@temporalio', 'workflow', 'package.json')));
  // The form the bundle is written in (session 17: ASCII only): a bundle written before is rebuilt.
  h.update(`\0${bundleForm()}`);
  // The preloaded modules (session 19): a bundle built without them is rebuilt.
  h.update(`\0preload:${WORKFLOW_PRELOAD_MODULES.join(',')}`);
  return h.digest('hex').slice(0, 16);
}

/** The bundle's path in dist/, built now if missing or stale (written atomically: concurrent builders do not clash). */
export async function workflowBundlePath(): Promise<string> {
  const file = path.join(DIST, `workflow-bundle-${workflowSourceHash()}.js`);
  if (existsSync(file)) return file;
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    workflowInterceptorModules: WORKFLOW_INTERCEPTORS,
    preloadModules: WORKFLOW_PRELOAD_MODULES.map((m) => path.join(ROOT, m)),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: quietLogger,
  });
  mkdirSync(DIST, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const ascii = asciiOnly(bundle.code);
  writeFileSync(tmp, keepSourcesContent() ? ascii : withoutSourcesContent(ascii));
  renameSync(tmp, file);
  return file;
}

const BUNDLE_FORM = 'ascii-escaped';

/**
 * SVC_WORKFLOW_BUNDLE_SOURCES=on keeps the original sources in the bundle's source map (as until
 * session 19; bench/pool-memory.ts `bundlesources`). The bundle's name changes with its form.
 */
function keepSourcesContent(): boolean {
  return /^(on|1|true)$/i.test(processEnv().SVC_WORKFLOW_BUNDLE_SOURCES ?? '');
}

function bundleForm(): string {
  return keepSourcesContent() ? BUNDLE_FORM : `${BUNDLE_FORM};no-sources-content`;
}

/**
 * The bundle with its inline source map's `sourcesContent` dropped (session 19, docs/performance.md
 * "Session 19: memory at the mixed peak"). The map embedded the text of all 111 bundled sources:
 * 1.0 M of the bundle's 2.8 M characters once base64-encoded with the rest of the map. The SDK
 * holds the bundle as a string in every isolate that loads it and the parsed map beside it (per
 * `Worker`: two in the worker, one in the API, and in each workflow thread); it reads
 * `sourcesContent` only for `showStackTraceSources`, which this project leaves off. The mappings,
 * source names and names stay, so workflow stack traces still name the TypeScript file and line.
 */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const b64 = at >= 0 ? code.indexOf('base64,', at) : -1;
  if (b64 < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(b64 + 'base64,'.length).trimEnd(), 'base64').toString('utf8')) as {
    sourcesContent?: unknown;
  };
  delete map.sourcesContent;
  return `${code.slice(0, b64 + 'base64,'.length)}${Buffer.from(JSON.stringify(map)).toString('base64')}`;
}

/**
 * The bundle with every non-ASCII character of its code written as a `\uXXXX` escape (session 17,
 * docs/performance.md "Session 17: the API process under load"). The SDK holds the bundle (code and
 * inline source map, 2.8 M characters) as one string in every isolate that loads it: the main
 * thread of each process with a worker (twice under load in the API) and each workflow thread.
 * V8 stores a string with a single character above U+00FF at two bytes per character, and 155 of
 * them (agent-guards' look-alike table, comments in the SDK's code) made every copy 5.6 MB instead
 * of 2.8. An escape means the same character in a string, template, regular expression or
 * identifier, and nothing in a comment; a character escaped by a backslash (`\–`, an identity escape)
 * loses that backslash first. The source map (base64, ASCII) is left as it is; columns on the few
 * lines with escapes shift, which only a stack trace's column on those lines would show.
 */
export function asciiOnly(code: string): string {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const body = at >= 0 ? code.slice(0, at) : code;
  const escaped = body.replace(/(\\*)([^\x00-\x7f])/g, (_m, slashes: string, c: string) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return at >= 0 ? escaped + code.slice(at) : escaped;
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
