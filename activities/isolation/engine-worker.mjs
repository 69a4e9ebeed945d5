// Entry point of an engine worker thread (plain ESM JavaScript so it loads unchanged under
// node, tsx and vitest). In the compiled tree (dist/service, infra/service-build.ts) the task
// module sits beside it as JavaScript; beside the sources it is TypeScript, loaded through
// tsx's scoped loader. The engines the pool names (workerData.preload; all when absent) are
// loaded here, before the thread takes its first task (a replacement thread too).
import { existsSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const compiled = new URL('./engine-tasks.js', import.meta.url);
const mod = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./engine-tasks.ts', import.meta.url);

await mod.preloadEngines(workerData?.preload ?? undefined);

export default mod.runEngineTask;
