// The extra processes that several files share (session 19; test/http/extra-process.ts): one
// start for the files that use it at the same time (or within SHARED_LINGER_MS of each other)
// instead of one per file. Each names what makes it differ from the stack; a file calls the
// `release` it got in its afterAll.
import { sharedExtraApi } from './extra-api.js';
import { sharedExtraWorker } from './extra-worker.js';

/** A plain API process beside the stack's, configured as it is (a second process sharing the store). */
export const secondApi = () => sharedExtraApi('api-second', {});

/** An API whose POST /verify/batch answers 202 at once and whose batch items time out after 3 s. */
export const noWaitBatchApi = () =>
  sharedExtraApi('api-batch-nowait', { SVC_BATCH_WAIT_SECONDS: '0', SVC_BATCH_ITEM_TIMEOUT: '3' });

/** A plain API (no in-process worker) on a task queue no worker polls: every workflow waits for a worker. */
export const noWorkerApi = () =>
  sharedExtraApi('api-no-worker', { SVC_API_WORKER: 'off', SVC_TASK_QUEUE: 'svc-shared-no-worker' });

/**
 * A deployment without signing keys (its worker has neither the attestation key nor the A2A
 * verdict key) and without anthropic (its API), on a task queue of its own: the API's URL, once
 * both run. Each file's rows need one of the three missing; none of them uses the others (checked
 * by giving the worker back each key in turn: the rows of that key fail, the others pass).
 */
export async function noSigningKeyApi(): Promise<{ url: string; release: () => Promise<void> }> {
  const queue = 'svc-shared-nosign';
  const [worker, api] = await Promise.all([
    sharedExtraWorker('worker-nosign', {
      SVC_TASK_QUEUE: queue,
      SVC_ATTESTATION_SIGNING_KEY_PEM: undefined,
      SVC_A2A_SIGNING_KEY_PEM: undefined,
    }),
    sharedExtraApi('api-nosign', {
      SVC_TASK_QUEUE: queue,
      SVC_ANTHROPIC_BASE_URL: undefined,
      SVC_ANTHROPIC_API_KEY: undefined,
    }),
  ]);
  return { url: api.url, release: async () => void (await Promise.all([api.release(), worker.release()])) };
}
