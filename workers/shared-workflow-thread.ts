// One workflow thread for the standalone worker's two SDK `Worker`s (session 19, issue 22's memory
// at the mixed peak; docs/performance.md "Session 19: memory at the mixed peak").
//
// The worker process serves two task queues (its own and the eager-start queue, workers/
// verification-worker.ts), and the SDK gives every `Worker` its own workflow thread: a Node
// isolate that evaluates the whole bundle, plus, in the main isolate, the bundle's text, its parsed
// source map and the SDK's preload of the bundle in a `vm` context (kept alive by node). The
// `Worker`s of one `WorkerSharingWorkflowThread()` class parse the bundle once and run their
// workflows in one thread: the SDK's own extension points (`getOrCreateBundle` and
// `createWorkflowCreator`, protected static for subclasses), nothing patched. A workflow run is
// keyed by its run id in the thread, so two queues' runs do not meet. The thread stops when the
// last `Worker` using it shuts down. On 2 cores one workflow thread is what the SDK itself runs per
// `Worker` (`workflowThreadPoolSize` 1 with `reuseV8Context`); a workflow activation takes a few ms.
import { Worker } from '@temporalio/worker';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface.js';

type GetOrCreateBundle = (typeof Worker)['getOrCreateBundle'];
type CreateWorkflowCreator = (typeof Worker)['createWorkflowCreator'];

/** A `Worker` class whose instances share one parse of the bundle and one workflow thread. */
export function WorkerSharingWorkflowThread(): typeof Worker {
  let bundle: ReturnType<GetOrCreateBundle> | undefined;
  let shared: Promise<WorkflowCreator> | undefined;
  let users = 0;
  return class SharedWorkflowThreadWorker extends Worker {
    protected static override getOrCreateBundle(...args: Parameters<GetOrCreateBundle>): ReturnType<GetOrCreateBundle> {
      if (!bundle) {
        const parsing = super.getOrCreateBundle(...args);
        bundle = parsing;
        // A failed parse is not kept: the next Worker tries again instead of getting its error.
        parsing.catch(() => {
          if (bundle === parsing) bundle = undefined;
        });
      }
      return bundle;
    }

    protected static override async createWorkflowCreator(
      ...args: Parameters<CreateWorkflowCreator>
    ): Promise<WorkflowCreator> {
      const mine = (shared ??= super.createWorkflowCreator(...args));
      let creator: WorkflowCreator;
      try {
        creator = await mine;
      } catch (err) {
        // A thread that failed to start is not kept: the next Worker starts one again.
        if (shared === mine) shared = undefined;
        throw err;
      }
      users++;
      let destroyed = false;
      return {
        createWorkflow: (options) => creator.createWorkflow(options),
        // Each Worker destroys its creator at shutdown: the thread goes with the last one.
        destroy: async () => {
          if (destroyed) return;
          destroyed = true;
          if (--users > 0) return;
          if (shared === mine) shared = undefined;
          await creator.destroy();
        },
      };
    }
  };
}
