// The service's processes (API, workers, codec server, SMTP sink) run compiled JavaScript, not
// TypeScript through tsx. tsx resolves and transforms every module on a loader thread of its own
// in each process and in each engine thread, which doubled the CPU of every start (a worker:
// 30 s of CPU through tsx, 16 s compiled; bench/startup.ts). esbuild compiles the sources file by file (the same
// transform tsx applies, so the same semantics) into dist/service/<hash>/, a twin of the source
// tree with the non-TypeScript files (worker scripts, Python programs, the sandbox recipe)
// copied beside them. The hash covers every source file, the tsconfig and esbuild's version, so
// a changed source is never run stale; the build takes about a second and is reused until then.
// SVC_RUN_FROM_SOURCE=1 runs the sources through tsx instead (debugging).
import { buildSync, version as esbuildVersion } from 'esbuild';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT as ROOT, projectFiles } from '../core/project-paths.js';

/** Every folder a service process loads code or files from. */
const SOURCE_DIRS = [
  'api',
  'core',
  'contract',
  'persistence',
  'engines',
  'activities',
  'workers',
  'workflows',
  'infra',
];
const OUT_ROOT = path.join(ROOT, 'dist', 'service');
/**
 * Older trees are removed only when neither among the newest KEEP nor used within KEEP_MS: a
 * stack that is still running starts engine threads and restarts processes from its own tree.
 */
const KEEP = 3;
const KEEP_MS = 2 * 24 * 3600 * 1000;

function hashOf(files: string[]): string {
  const h = createHash('sha256')
    .update(`esbuild ${esbuildVersion}\0`)
    .update(readFileSync(path.join(ROOT, 'tsconfig.json')));
  for (const f of files) h.update(`${f}\0`).update(readFileSync(path.join(ROOT, f)));
  return h.digest('hex').slice(0, 16);
}

const isTs = (f: string) => f.endsWith('.ts') && !f.endsWith('.d.ts');

function build(files: string[], out: string): void {
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  buildSync({
    entryPoints: files.filter(isTs).map((f) => path.join(ROOT, f)),
    outdir: tmp,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked', // used with NODE_OPTIONS=--enable-source-maps; free otherwise
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  for (const f of files) if (!isTs(f) && !f.endsWith('.d.ts')) cpSync(path.join(ROOT, f), path.join(tmp, f));
  writeFileSync(path.join(tmp, '.complete'), new Date().toISOString());
  try {
    renameSync(tmp, out);
  } catch (err) {
    // Another process built the same sources first: theirs is identical.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(path.join(out, '.complete'))) throw err;
  }
}

/** When a tree was last handed to a process (its `.complete` marker is touched each time). */
const lastUsed = (dir: string) => statSync(path.join(dir, '.complete')).mtimeMs;

function prune(current: string): void {
  const now = Date.now();
  const dirs = readdirSync(OUT_ROOT).map((name) => path.join(OUT_ROOT, name));
  // A build that died before its rename leaves a .tmp folder.
  for (const dir of dirs)
    if (dir.endsWith('.tmp') && now - statSync(dir).mtimeMs > 3600_000) rmSync(dir, { recursive: true, force: true });
  const trees = dirs
    .filter((dir) => dir !== current && existsSync(path.join(dir, '.complete')))
    .sort((a, b) => lastUsed(b) - lastUsed(a));
  for (const dir of trees.slice(KEEP)) if (now - lastUsed(dir) > KEEP_MS) rmSync(dir, { recursive: true, force: true });
}

let built: string | null = null;

/** The compiled tree of the current sources, built now if missing (then reused by this process). */
export function compiledServiceDir(): string {
  if (built) return built;
  const files = projectFiles(SOURCE_DIRS);
  const out = path.join(OUT_ROOT, hashOf(files));
  if (!existsSync(path.join(out, '.complete'))) {
    mkdirSync(OUT_ROOT, { recursive: true });
    build(files, out);
  }
  const nowDate = new Date();
  utimesSync(path.join(out, '.complete'), nowDate, nowDate);
  try {
    prune(out);
  } catch {
    // Best effort: another process may be pruning or building beside this one.
  }
  built = out;
  return out;
}

/**
 * Node's arguments to run one of the service's entry points, named by its source path from the
 * project root ('api/server.ts'): the compiled twin, or the source through tsx when
 * SVC_RUN_FROM_SOURCE=1.
 */
export function serviceArgs(entry: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.SVC_RUN_FROM_SOURCE === '1') return ['--import', 'tsx', path.join(ROOT, entry)];
  return [path.join(compiledServiceDir(), entry.replace(/\.ts$/, '.js'))];
}

// `npm run build` (with the workflow bundle): prints where the compiled tree is.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  console.log(`service: ${path.relative(ROOT, compiledServiceDir())} (${Date.now() - t0} ms)`);
}
