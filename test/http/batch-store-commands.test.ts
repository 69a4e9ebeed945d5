// What the batch path asks the store (issue 22), black box: a worker and an API of its own, on a
// task queue of its own, record every store command they send (test/store-commands/capture.mjs,
// the driver's command monitoring); a batch is submitted, runs to completion and is read back
// (POST, GET of the finished job, GET while another runs). No command may read, update or
// delete batch_jobs, batch_results or batch_requests other than by `{_id}` (on FerretDB/SQLite
// anything else reads the whole collection: docs/store-access.md §1), and nothing scans the
// claims on a request (their sweep runs in the background). persistence/batch.ts declares the
// queries; test/unit/batch-persistence.test.ts checks the same contract in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { captureEnv } from '../store-commands/env.js';
import { classify, label, readCapture } from '../store-commands/classify.js';
import { HARD_LOGIC, IDENTITY, call, waitCompleted } from './batch-fixtures.js';

const BATCH_COLLECTIONS = ['batch_jobs', 'batch_results', 'batch_requests', 'batch_slot_claims'];

describe('batch store commands (a worker and an API of its own that record their store commands)', () => {
  let t: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  let waitApi: ExtraApi;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-batch-capture-'));
  beforeAll(async () => {
    const queue = `svc-batch-capture-${randomUUID()}`;
    const env = { SVC_TASK_QUEUE: queue, ...captureEnv(dir) };
    t = await newTenant('enterprise');
    [worker, api, waitApi] = await Promise.all([
      startExtraWorker('worker-batch-capture', env),
      startExtraApi('api-batch-capture', env),
      startExtraApi('api-batch-capture-nowait', { ...env, SVC_BATCH_WAIT_SECONDS: '0', SVC_BATCH_ITEM_TIMEOUT: '3' }),
    ]);
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop(), waitApi?.proc.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('submit, complete and read a batch: every batch_jobs / batch_results / batch_requests command is a point command by _id', async () => {
    // 40 math items (one math unit since session 12, that stores its own results) and a logic item (held by the workflow, stored by the finish step).
    const items = [
      ...Array.from({ length: 40 }, (_, i) => ({ query: i % 2 ? `${i} + 1` : IDENTITY, type: 'math' })),
      { query: '(AND (GT x 5) (LT x 7))', type: 'logic' },
    ];
    const res = await call(api.url, 'POST', '/verify/batch', t.key, { items });
    // 200, or 202 when the job outlasts the POST's 5 s wait (the new lean worker's Z3 starting on a
    // machine slower than ours): then polled. The commands below are the same either way.
    expect([200, 202]).toContain(res.status);
    const completed = res.status === 200 ? res.body : await waitCompleted(api.url, t.key, res.body.job_id, 60_000);
    expect(completed).toMatchObject({ status: 'completed', total_items: 41, completed_items: 41, failed_items: 0 });
    const got = await call(api.url, 'GET', `/verify/batch/${res.body.job_id}`, t.key);
    expect(got.body).toEqual(completed);
    // A running job read while it runs (the live snapshot merges the stored units by id).
    const slow = await call(waitApi.url, 'POST', '/verify/batch', t.key, {
      items: [
        { query: IDENTITY, type: 'math' },
        { query: HARD_LOGIC, type: 'logic' },
      ],
    });
    expect(slow.status).toBe(202);
    await call(waitApi.url, 'GET', `/verify/batch/${slow.body.job_id}`, t.key);
    const done = await waitCompleted(waitApi.url, t.key, slow.body.job_id, 60_000);
    expect(done).toMatchObject({ status: 'completed', completed_items: 1, failed_items: 1 });

    // The capture is flushed every 250 ms (test/store-commands/capture.mjs): wait until it holds both
    // jobs' completions (the updates counted below), at most 15 s.
    const jobUpdateCount = () =>
      readCapture(dir)
        .filter((c) => c.cmd === 'update' && c.coll === 'batch_jobs')
        .reduce((n, c) => n + (c.ops?.length ?? 1), 0);
    for (let i = 0; i < 150 && jobUpdateCount() < 2; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300)); // and one more flush: nothing else arrives after them
    const ops = readCapture(dir)
      .flatMap(classify)
      .filter((o) => BATCH_COLLECTIONS.includes(o.coll) && o.cls !== 'admin' && o.cls !== 'getMore');
    const scans = ops
      .filter((o) => o.scansOnSqlite)
      .map((o) => `${o.coll} ${o.cmd} ${label(o)} at ${o.site} (${o.role})`);
    expect(scans).toEqual([]);
    // Not vacuous: the capture saw the path (units inserted by the worker, read by id by the API).
    const count = (coll: string, pred: (o: (typeof ops)[number]) => boolean) =>
      ops.filter((o) => o.coll === coll && pred(o)).length;
    expect(count('batch_results', (o) => o.cls === 'insert')).toBeGreaterThanOrEqual(3);
    expect(count('batch_results', (o) => o.cmd === 'find' && o.cls === 'id_point')).toBeGreaterThanOrEqual(3);
    expect(count('batch_jobs', (o) => o.cmd === 'find' && o.cls === 'id_point')).toBeGreaterThanOrEqual(3);
    expect(count('batch_jobs', (o) => o.cmd === 'update' && o.cls === 'id_point')).toBeGreaterThanOrEqual(2);
    // One writer of a job document after its insert: its completion. FerretDB/SQLite runs an update
    // as read-modify-write, so a second update racing it (the former `markStarted`, sent after the
    // start) put `running` back over a completed one-step job for good (docs/store-access.md §1).
    // The capture keeps a filter's shape, not its values: two jobs, two updates of batch_jobs in all.
    expect(jobUpdateCount()).toBe(2);
  }, 180_000);
});
