// The rows that need the stack's standalone worker down, sharing one stop (session 18). Each of
// them stopped or killed the worker and started it again on its own before (batch.serial,
// secret-scanning.serial's second row, guarantees-s17.serial (b)); a worker's start (bundle,
// engine threads, Z3, PGlite) is the costliest wait of the serial group. The stop is a SIGTERM,
// on which the worker must exit by itself (no SIGKILL after the grace).
//   - the bounded job store: admits exactly as many concurrent jobs as there are slots while no
//     job can finish, 503 for the rest; evicts finished jobs, oldest first, once it is back;
//   - a leaked-key delivery while no worker runs waits in Temporal (a redelivery joins it), and
//     the key is revoked once the worker is back (the delivery arrives after the worker went
//     down, as when it is killed between the 200 and the revocation);
//   - issue 22's guarantee (b): /verify/logic answers its 503 within 10 s (the run terminated as
//     unclaimed), while math is still VERIFIED by the API's own worker.
// Durability through a worker crash runs in batch-durability.test.ts (a worker of its own), the
// other batch, webhook and logic rows in their parallel files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, db, newTenant, post, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { IDENTITY, call, waitCompleted, type Res } from './batch-fixtures.js';
import {
  closeTemporal,
  deliver,
  keyDoc,
  keyServer,
  mailsFor,
  match,
  newSigningKey,
  openTemporal,
  revokedAt,
  sha256,
  signed,
  startFixture,
  stopFixture,
  temporal,
  waitFor,
  type Delivery,
} from './secret-scanning-fixture.js';

/** The guarantee's bound (issue 22: no worker alive for an engine fails closed within 10 s). */
const FAIL_CLOSED_MS = 10_000;
/** Finishes closer than this may append their releases in either order (the eviction row). */
const RELEASE_RACE_MS = 1_000;
const key = (k: string) => ({ 'x-api-key': k });
const LOGIC = { query: '(AND (GT x 1) (LT x 3))' };

describe('the stack worker stopped: every row that needs it down, during one stop', () => {
  const signing = newSigningKey();
  /** The bounded job store: an extra API with two job slots, answering at once. */
  let capped: ExtraApi;
  let batchTenant: Member;
  let leakTenant: Member;
  let logicTenant: Member;
  /** What was seen while the worker was down (recorded by the first row, asserted by the rows after it). */
  let stopped: 'exited' | 'killed' | undefined;
  let down: {
    batch: { raced: Res[]; after: Res };
    leak: { body: string; first: Delivery; again: Delivery; activeAtEnd: boolean | undefined };
    logic: { status: number; body: any; ms: number; workflowId: string };
    math: { status: number; verdict: string };
  } | null = null;

  beforeAll(async () => {
    keyServer.published.push(signing);
    [capped, batchTenant, leakTenant, logicTenant] = await Promise.all([
      startExtraApi('api-batch-cap', { SVC_BATCH_MAX_JOBS: '2', SVC_BATCH_WAIT_SECONDS: '0' }),
      newTenant('enterprise'),
      newTenant(),
      newTenant('enterprise'),
      startFixture(),
      openTemporal(),
    ]);
    // Logic answers while the worker runs (its engine is in the standalone worker).
    expect((await post('/verify/logic', LOGIC, key(logicTenant.key))).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await control('start', 'worker');
    await capped?.proc.stop();
    await stopFixture();
    await closeTemporal();
  }, 600_000);

  const submit = () =>
    call(capped.url, 'POST', '/verify/batch', batchTenant.key, { items: [{ query: IDENTITY, type: 'math' }] });

  async function batchWhileDown() {
    // Five submissions race for two slots while no worker runs (every admitted job stays active).
    const raced = await Promise.all(Array.from({ length: 5 }, () => submit()));
    return { raced, after: await submit() };
  }

  async function leakWhileDown() {
    const body = JSON.stringify([match(leakTenant.key)]);
    const first = await deliver(body, signed(body, signing));
    // A redelivery while that run is still open joins it (same delivery, no second run).
    const again = await deliver(body, signed(body, signing));
    return { body, first, again };
  }

  async function logicWhileDown() {
    const started = Date.now();
    const res = await post('/verify/logic', LOGIC, key(logicTenant.key));
    const logic = { status: res.status, body: res.body, ms: Date.now() - started, workflowId: '' };
    logic.workflowId = res.headers.get('x-workflow-id') as string;
    // Only the engine without a worker fails: math runs in the API's own worker.
    const m = await post('/verify/math', { expression: '(n+3)^2 = n^2 + 6*n + 9' }, key(logicTenant.key));
    return { logic, math: { status: m.status, verdict: m.body?.status } };
  }

  it('the worker exits on SIGTERM; batch admissions, a leaked-key delivery and logic run while it is down; it starts again', async () => {
    ({ ended: stopped } = await control('stop', 'worker'));
    try {
      const [batch, leak, logic] = await Promise.all([batchWhileDown(), leakWhileDown(), logicWhileDown()]);
      // Nothing ran for the delivery while the worker was down: it waits in Temporal.
      const activeAtEnd = (await keyDoc(leakTenant.keyId))?.active as boolean | undefined;
      down = { batch, leak: { ...leak, activeAtEnd }, ...logic };
    } finally {
      await control('start', 'worker');
    }
    // The stack's worker (default pools, PGlite included) exits on SIGTERM: no SIGKILL needed.
    expect(stopped).toBe('exited');
  }, 360_000);

  it('batch: admits exactly as many concurrent jobs as there are slots, 503 for the rest; then evicts finished jobs, oldest first', async () => {
    const { raced, after } = down!.batch;
    const admitted = raced.filter((r) => r.status === 202);
    const refused = raced.filter((r) => r.status === 503);
    expect(admitted).toHaveLength(2);
    expect(refused).toHaveLength(3);
    for (const r of refused)
      expect(r.body).toEqual({
        detail: 'Batch capacity reached — retry shortly.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    const [a, b] = admitted as [Res, Res];
    expect(a.body.job_id).not.toBe(b.body.job_id);
    expect(after.status).toBe(503);

    // The worker is back: both jobs finish, and the next admissions evict them, oldest first.
    const [doneA, doneB] = await Promise.all([
      waitCompleted(capped.url, batchTenant.key, a.body.job_id),
      waitCompleted(capped.url, batchTenant.key, b.body.job_id),
    ]);
    const older = Date.parse(doneA.completed_at) <= Date.parse(doneB.completed_at) ? doneA : doneB;
    const newer = older === doneA ? doneB : doneA;

    const c = await submit();
    expect([200, 202]).toContain(c.status);
    const gone = await call(capped.url, 'GET', `/verify/batch/${older.job_id}`, batchTenant.key);
    const kept = await call(capped.url, 'GET', `/verify/batch/${newer.job_id}`, batchTenant.key);
    // Eviction is oldest first by the release queue's order (docs/batch.md): two jobs that finish
    // within moments of each other can append their releases in the other order, and an admission
    // proposing from a window read between the two appends takes the one it saw (clean clone 75:
    // the newer evicted). Then exactly one of the two is gone, either one.
    if (Math.abs(Date.parse(doneA.completed_at) - Date.parse(doneB.completed_at)) > RELEASE_RACE_MS) {
      expect(gone.status).toBe(404);
      expect(kept.status).toBe(200);
    } else {
      expect([gone.status, kept.status].sort()).toEqual([200, 404]);
    }
    const d = await submit();
    expect([200, 202]).toContain(d.status);
    expect((await call(capped.url, 'GET', `/verify/batch/${a.body.job_id}`, batchTenant.key)).status).toBe(404);
    expect((await call(capped.url, 'GET', `/verify/batch/${b.body.job_id}`, batchTenant.key)).status).toBe(404);
    expect((await waitCompleted(capped.url, batchTenant.key, c.body.job_id)).status).toBe('completed');
    expect((await waitCompleted(capped.url, batchTenant.key, d.body.job_id)).status).toBe('completed');
    // The two slots of this pool hold exactly the two newest jobs, once the evicted jobs' documents
    // are deleted: after the POSTs answered, when the API's admissions are quiet (session 14,
    // docs/batch.md "Session 14, admission"; they answer 404 from the slot write on, above).
    const newest = [c.body.job_id, d.body.job_id].sort();
    const inPool = async () =>
      (
        await (
          await db()
        )
          .collection('batch_jobs')
          .find({ slot: { $lt: 2 } })
          .project({ _id: 1 })
          .toArray()
      )
        .map((x) => x._id as string)
        .sort();
    let held = await inPool();
    for (let i = 0; i < 75 && held.length > 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      held = await inPool();
    }
    expect(held).toEqual(newest);
  }, 150_000);

  it('leaked key: a delivery while no worker runs waits in Temporal (a redelivery joins it), and is revoked once the worker is back', async () => {
    const { body, first, again, activeAtEnd } = down!.leak;
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(activeAtEnd).toBe(true); // nothing ran while the worker was down
    // A restarted worker bundles its workflows again first: on a loaded machine this takes a while.
    await revokedAt(leakTenant.keyId, 240_000);
    const denied = await post('/verify/math', { expression: '1 + 1' }, key(leakTenant.key));
    expect(denied.status).toBe(401);
    await waitFor('e-mail', async () => mailsFor(leakTenant.keyId).length === 1, 30_000, 250);
    const runs = [];
    for await (const w of temporal().workflow.list({ query: `WorkflowId = "leak-revocation-${sha256(body)}"` }))
      runs.push(w);
    expect(runs).toHaveLength(1);
  }, 300_000);

  it('guarantee (b): logic 503 "Logic verification timed out." within 10 s (the run terminated as unclaimed); math still VERIFIED by the API\'s own worker', async () => {
    const { logic, math } = down!;
    console.log(`worker-stopped: logic ${logic.ms} ms`);
    expect(logic.status).toBe(503);
    expect(logic.body).toEqual({
      detail: 'Logic verification timed out.',
      code: 'service_unavailable',
      request_id: expect.any(String),
    });
    expect(logic.ms).toBeLessThan(FAIL_CLOSED_MS);
    const handle = temporal().workflow.getHandle(logic.workflowId);
    await expect
      .poll(async () => (await handle.describe()).status.name, { timeout: 30_000, interval: 200 })
      .toBe('TERMINATED');
    expect(math).toEqual({ status: 200, verdict: 'VERIFIED' });
  }, 120_000);
});
