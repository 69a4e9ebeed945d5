// Entry point of an agent-guard worker thread (piscina), in plain ESM JavaScript so it loads
// unchanged under node, tsx and vitest (like activities/isolation/engine-worker.mjs): in the
// compiled tree the guards sit beside it as JavaScript; beside the sources they are TypeScript,
// loaded through tsx's scoped loader. The guards are CPU-bound on caller input, so they never
// run on the Temporal worker's event loop.
import { existsSync } from 'node:fs';

const compiled = new URL('./index.js', import.meta.url);
const mod = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./index.ts', import.meta.url);

export default mod.runGuardTask;
