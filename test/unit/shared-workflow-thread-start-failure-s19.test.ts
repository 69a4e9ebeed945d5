// The standalone worker's Workers share one bundle parse and one workflow thread
// (workers/shared-workflow-thread.ts, session 19). A parse or a thread that failed to start is not
// kept: the next Worker of the class tries again instead of getting the first one's error for good
// (the workflow tier, test/workflow/shared-workflow-thread-s19.test.ts, runs the shared thread itself).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Worker } from '@temporalio/worker';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface.js';
import { WorkerSharingWorkflowThread } from '../../workers/shared-workflow-thread.js';

type Statics = {
  getOrCreateBundle: (...a: unknown[]) => Promise<unknown>;
  createWorkflowCreator: (...a: unknown[]) => Promise<WorkflowCreator>;
};
const sdk = Worker as unknown as Statics;

function fakeCreator(): WorkflowCreator & { destroyed: number } {
  const c = {
    destroyed: 0,
    createWorkflow: async () => {
      throw new Error('not used');
    },
    destroy: async () => {
      c.destroyed++;
    },
  };
  return c as unknown as WorkflowCreator & { destroyed: number };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('WorkerSharingWorkflowThread: a failed start is not kept (session 19)', () => {
  it('a workflow thread that failed to start: the next Worker starts one again, and shares it', async () => {
    const creator = fakeCreator();
    const create = vi
      .spyOn(sdk, 'createWorkflowCreator')
      .mockRejectedValueOnce(new Error('thread did not start'))
      .mockResolvedValue(creator);
    const Cls = WorkerSharingWorkflowThread() as unknown as Statics;
    await expect(Cls.createWorkflowCreator('bundle', {}, {})).rejects.toThrow('thread did not start');
    const a = await Cls.createWorkflowCreator('bundle', {}, {});
    const b = await Cls.createWorkflowCreator('bundle', {}, {});
    expect(create).toHaveBeenCalledTimes(2);
    await a.destroy();
    expect(creator.destroyed).toBe(0); // b still uses it
    await b.destroy();
    expect(creator.destroyed).toBe(1);
  });

  it('a bundle parse that failed: the next Worker parses again, and shares that parse', async () => {
    const parsed = { code: '', sourceMap: '' };
    const parse = vi
      .spyOn(sdk, 'getOrCreateBundle')
      .mockRejectedValueOnce(new Error('bundle unreadable'))
      .mockResolvedValue(parsed);
    const Cls = WorkerSharingWorkflowThread() as unknown as Statics;
    await expect(Cls.getOrCreateBundle({}, {})).rejects.toThrow('bundle unreadable');
    expect(await Cls.getOrCreateBundle({}, {})).toBe(parsed);
    expect(await Cls.getOrCreateBundle({}, {})).toBe(parsed);
    expect(parse).toHaveBeenCalledTimes(2);
  });
});
