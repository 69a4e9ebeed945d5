// Entry point of an engine worker thread (plain ESM JavaScript so it loads unchanged under
// node, tsx and vitest): loads the TypeScript task module through tsx's scoped loader and
// hands its runner to piscina. Importing the engines here warms them before the first task.
import { tsImport } from 'tsx/esm/api';

const mod = await tsImport('./engine-tasks.ts', import.meta.url);

export default mod.runEngineTask;
