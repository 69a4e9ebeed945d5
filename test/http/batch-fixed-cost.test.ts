// Session 13 (issue 22, a batch job's fixed cost): a job that is one local math unit runs as ONE
// local activity (mathBatchJobActivity, `one_step_job` in the workflow input): the input check is
// deferred into it (workflows/input-auth.ts), and it completes the job itself, so the workflow has
// no separate check, no finish step and no patch markers. The guarantees stay: every completed
// item has its audit entry and the job exactly one, VERIFIED items their proof, the job and its
// slot are final before the POST answers, a re-run after a crash (before the marker) writes
// nothing twice and keeps the first completion, and a forged input is refused before any write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection, WorkflowFailedError, type WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporalDataConverter } from '../../core/payload-codec.js';
import { INPUT_AUTH_HEADER, signWorkflowInput, WORKFLOW_INPUT_REFUSED } from '../../core/workflow-input-auth.js';
import { Store } from '../../core/store.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { BatchJobStore } from '../../persistence/batch.js';
import { batchActivitiesOn } from './batch-activities.js';
import { auditEntriesOf as entriesOf, hundredMathItems } from './batch-fixtures.js';
import { db, get, newTenant, post, stackEnv, proofPlaces, type Member } from './helpers.js';
import { workflowStartMs } from './workflow-start.js';

let A: Member;
let B: Member;
let conn: Connection;
let pool: EnginePool;
const stores: Store[] = [];

beforeAll(async () => {
  [A, B] = await Promise.all([newTenant(), newTenant()]);
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
  pool = new EnginePool({ size: 1, preload: ['math'] });
  await pool.warmUp();
});
afterAll(async () => {
  await pool?.shutdown();
  for (const s of stores) await s.close().catch(() => undefined);
  await conn?.close();
});

function store(): Store {
  const s = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(s);
  return s;
}

const HUNDRED = hundredMathItems('w');

describe('batch: a job that is one math unit runs as one local activity (session 13)', () => {
  let posted: { job_id: string; workflow_id: string; completed_at: string; items: unknown[] };

  it('POST of 100 math items: 200, one local activity in the history, the job and its slot final, 101 entries', async () => {
    const res = await post('/verify/batch', { items: HUNDRED }, { 'x-api-key': A.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
    posted = res.body;
    // The job completed by the unit, before the answer: the stored job as the POST answered it, its slot finished.
    const jobs = new BatchJobStore(store());
    const job = await jobs.find(posted.job_id);
    expect(job).toMatchObject({ status: 'completed', units: 1, completed_items: 100, failed_items: 0 });
    expect(job!.completed_at!.toISOString()).toBe(posted.completed_at);
    const slot = await (
      await db()
    )
      .collection<{ _id: string; job_id: string; state: string }>('batch_slots')
      .findOne({ _id: String(job!.slot) }); // stored under the number's string (persistence/number-keyed.ts)
    expect(slot).toMatchObject({ job_id: posted.job_id, state: 'finished' });
    // Session 14: the POST answers once the job is stored completed (above), maybe before its
    // workflow task is recorded: the history is read once the workflow has closed.
    const handle = new Client({
      connection: conn,
      dataConverter: temporalDataConverter(stackEnv()),
    }).workflow.getHandle(posted.workflow_id);
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    // One marker (the job's activity): no input-check marker, no finish step's, no patch markers.
    expect(events.filter((e) => e.markerRecordedEventAttributes).length).toBe(1);
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBe(1);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes).length).toBe(0);
    const again = await get(`/verify/batch/${posted.job_id}`, { 'x-api-key': A.key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    // Every item's entry, then the job's: one chain, in order; every VERIFIED item's proof retained.
    const entries = await entriesOf(posted.workflow_id);
    expect(entries.map((e) => e.domain)).toEqual([...HUNDRED.map(() => 'math'), 'batch']);
    const items = res.body.items as Array<{
      result: { status: string; proof_ref: string | null; attestation?: { id: string } };
    }>;
    const verified = items.filter((i) => i.result.status === 'VERIFIED');
    expect(verified).toHaveLength(25);
    // Exactly one copy each (review A3): in the item's own entry, none in `proofs` (a point read each).
    for (const it of verified)
      expect(await proofPlaces(it.result, A.orgId)).toEqual({ inEntry: true, inProofs: false });
  }, 180_000);

  it('a re-run of the job activity (a crash before its marker): same summaries, the first completion kept, no entry twice', async () => {
    const s = store();
    const acts = await batchActivitiesOn(s, pool);
    // A job of its own, small: a re-run in another process finds its entries one by one
    // (persistence/audit.ts), which for 101 entries outlasts the append deadline on a loaded machine.
    const small = HUNDRED.slice(0, 3);
    const res = await post('/verify/batch', { items: small }, { 'x-api-key': A.key });
    expect(res.status).toBe(200);
    const job = res.body as typeof posted;
    const rerun = await acts.mathBatchJobActivity({
      job_id: job.job_id,
      unit: 0,
      units: 1,
      items: small.map((it, index) => ({ index, query: it.query, params: {} })),
      org_id: A.orgId,
      workflow_id: job.workflow_id,
      timeout_ms: 60_000,
      audit: { user_id: A.userId, key_id: null, request_digest: `sha256:${'4'.repeat(64)}` },
      job_entry: { total_items: 3 },
      // As the workflow passes it for a job the API started (session 17: attestation records in the items' entries).
      attestation_in_entry: true,
      // Session 23: and the run's start time, which its time-ordered entry ids begin with.
      id_time_ms: await workflowStartMs(job.workflow_id),
    });
    expect(rerun.summaries).toEqual(small.map((_, index) => ({ index, status: 'completed' })));
    expect(rerun.finished).toEqual({
      stored: true,
      audited: true,
      completed_at: job.completed_at,
      completed_items: 3,
      failed_items: 0,
    });
    expect((await entriesOf(job.workflow_id)).map((e) => e.domain)).toEqual(['math', 'math', 'math', 'batch']);
    const again = await get(`/verify/batch/${job.job_id}`, { 'x-api-key': A.key });
    expect(again.body).toEqual(res.body);
  }, 120_000);

  it('a start past the API with the flag added after signing is refused by the activity: nothing written', async () => {
    const jobId = `bj_forged_${Date.now()}`;
    const workflowId = `batch-${B.orgId}-${jobId}`;
    const genuine = {
      job_id: jobId,
      org_id: B.orgId,
      created_at: new Date().toISOString(),
      items: [{ query: '(z+1)^2 = z^2 + 2*z + 1', type: 'math', params: {} }],
      item_timeout_ms: 60_000,
      provider_timeout_ms: 30_000,
      concurrency: 8,
      math_unit_max: 100,
      activity_mode: 'normal',
      unit_mode: 'local',
      audit: { user_id: B.userId, key_id: null, request_digest: `sha256:${'5'.repeat(64)}` },
    };
    const interceptor: WorkflowClientInterceptor = {
      async startWithDetails(i, next) {
        const header = signWorkflowInput(
          stackEnv().SVC_WORKFLOW_INPUT_KEY as string,
          i.workflowType,
          i.options.workflowId,
          [genuine],
        );
        return next({
          ...i,
          headers: { ...i.headers, [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(header) },
          options: { ...i.options, args: [{ ...genuine, one_step_job: true }] },
        });
      },
    };
    const client = new Client({
      connection: conn,
      dataConverter: temporalDataConverter(stackEnv()),
      interceptors: { workflow: [interceptor] },
    });
    const handle = await client.workflow.start('batchWorkflow', {
      taskQueue: (stackEnv().SVC_TASK_QUEUE as string | undefined) ?? 'svc-verification',
      workflowId,
      args: [genuine],
      workflowExecutionTimeout: 60_000,
    });
    const err = await handle.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string; nonRetryable?: boolean };
    expect(cause.type).toBe(WORKFLOW_INPUT_REFUSED);
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toMatch(/does not authenticate/);
    expect(await new BatchJobStore(store()).unitResult(jobId, 0)).toBeNull();
    expect(await entriesOf(workflowId)).toEqual([]);
  }, 120_000);
});
