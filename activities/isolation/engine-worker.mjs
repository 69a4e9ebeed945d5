// Entry point of an engine worker thread (plain ESM JavaScript so it loads unchanged under
// node, tsx and vitest). In the compiled tree (dist/service, infra/service-build.ts) the task
// module sits beside it as JavaScript; beside the sources it is TypeScript, loaded through
// tsx's scoped loader. The engines the pool names (workerData.preload; all when absent) are
// loaded here, before the thread takes its first task, by as many threads as the pool admits
// runs (workerData.loadAtStart: a counter shared by the pool and its threads, session 19). A
// thread that finds it at 0 (the worker's spare) starts without them: it loads them when the
// pool sends it the `load` task (a loaded thread was lost) or on its first task.
import { existsSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const compiled = new URL('./engine-tasks.js', import.meta.url);
const mod = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./engine-tasks.ts', import.meta.url);

/** Takes one of the counter's start-up loads (never below 0); true when there was one. */
function claimLoadAtStart(buffer) {
  if (!buffer) return true;
  const counter = new Int32Array(buffer);
  for (;;) {
    const left = Atomics.load(counter, 0);
    if (left <= 0) return false;
    if (Atomics.compareExchange(counter, 0, left, left - 1) === left) return true;
  }
}

if (claimLoadAtStart(workerData?.loadAtStart)) await mod.loadEngines();

// A thread that started without its engines loads them with its first task (every serving
// thread has them); the warm-up task only names the thread and loads nothing.
export default async function runTask(task) {
  if (task.engine !== 'warm') await mod.loadEngines();
  return mod.runEngineTask(task);
}
