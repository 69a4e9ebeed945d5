// The consensus steps that need the math engine (mathjs), run in the calling thread: the engine
// threads run them as tasks (activities/isolation/engine-tasks.ts, consensus_*), and unit tests
// call them directly. The worker's main thread never imports this module (pooled-math.ts).
import { combine } from './agreement.js';
import { translateArithmetic } from './arith-translate.js';
import { runMathEngine } from './math-engine.js';
import type { ConsensusMath } from './types.js';

export { combine, runMathEngine, translateArithmetic };

/** The steps in this thread: no deadline of their own (the caller's thread bounds them). */
export const inProcessConsensusMath: ConsensusMath = {
  translate: async (expression) => translateArithmetic(expression),
  math: async (expression) => runMathEngine(expression),
  agree: async (entries) => combine(entries),
};
