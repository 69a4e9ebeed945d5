// Worker-thread entry (piscina): the guards are CPU-bound on caller input, so they never run
// on the Temporal worker's event loop.
import { runGuardTask, type GuardTask } from './index.js';

export default function guardWorker(task: GuardTask) {
  return runGuardTask(task);
}
