// Issue 28 item 1, black box: workflows cannot be started past the API. An anonymous Temporal
// client (what anyone who reaches the frontend has) starts verifyWorkflow for organization B
// naming A's user and an invented key id: with a plaintext input, with an input the payload codec
// encrypted but the API did not sign, and with a signed but unencrypted input. Each workflow fails
// at once and nothing is written (no audit entry for B, through the API and the store). A batch
// whose workflow is terminated reads `failed`, and the stack's Temporal UI refuses write actions.
// core/workflow-input-auth.ts, docs/payload-encryption.md, docs/deployment.md.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { temporalDataConverter } from '../../core/payload-codec.js';
import { INPUT_AUTH_HEADER, signWorkflowInput, WORKFLOW_INPUT_REFUSED } from '../../core/workflow-input-auth.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { db, get, newTenant, post, stackEnv, type Member } from './helpers.js';
import { HARD_LOGIC, sleep } from './batch-fixtures.js';

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
let A: Member;
let B: Member;
let conn: Connection;
const queue = () => (stackEnv().SVC_TASK_QUEUE as string | undefined) ?? 'svc-verification';
const uiUrl = () => `http://127.0.0.1:${inject('ports').temporalUi}`;

beforeAll(async () => {
  [A, B] = await Promise.all([newTenant(), newTenant()]);
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
});
afterAll(async () => {
  await conn?.close();
});

/** The attack's input: B's genesis audit entry, naming A's user and an invented key id. */
const forgedInput = () => ({
  engine: 'math',
  input: { expression: '1 + 1 = 2' },
  org_id: B.orgId,
  timeout_ms: 5000,
  activity_mode: 'local',
  audit: { user_id: A.userId, key_id: 'key_invented_by_attacker', request_digest: `sha256:${'0'.repeat(64)}` },
});

/** Starts verifyWorkflow through `client` and returns the failure's cause (the workflow must fail). */
async function startFails(
  client: Client,
  tag: string,
): Promise<{ type?: string; message: string; nonRetryable?: boolean }> {
  const workflowId = `verify-math-${B.orgId}-injected-${tag}-${Date.now()}`;
  await client.workflow.start('verifyWorkflow', {
    taskQueue: queue(),
    workflowId,
    args: [forgedInput()],
    workflowExecutionTimeout: 60_000,
  });
  // Read back by an operator's client (the worker's failure is encrypted like every payload).
  const handle = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) }).workflow.getHandle(
    workflowId,
  );
  const t0 = Date.now();
  const err = await handle.result().then(
    () => null,
    (e: unknown) => e,
  );
  // At once: the first workflow task fails it (not a time-out, not a retried task).
  expect(Date.now() - t0).toBeLessThan(20_000);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((await handle.describe()).status.name).toBe('FAILED');
  const cause = (err as WorkflowFailedError).cause as { type?: string; message: string; nonRetryable?: boolean };
  expect(cause.type).toBe(WORKFLOW_INPUT_REFUSED);
  expect(cause.nonRetryable).toBe(true);
  return cause;
}

async function expectNothingWrittenForB() {
  // The store: no audit entry, no proof, no attestation of B.
  const store = await db();
  expect(await store.collection('audit_logs').countDocuments({ organization_id: B.orgId })).toBe(0);
  expect(await store.collection('proofs').countDocuments({ org_id: B.orgId })).toBe(0);
  // The API: B's owner sees no entry, and A's user id appears nowhere in B's log.
  const logs = await get('/audit/logs', bearer(B.token));
  expect(logs.status).toBe(200);
  expect(logs.body.logs).toEqual([]);
}

describe('workflows started past the API fail at once and write nothing', () => {
  it('anonymous client, plaintext input for another organization: refused unread', async () => {
    const anonymous = new Client({ connection: conn });
    const cause = await startFails(anonymous, 'plain');
    expect(cause.message).toMatch(
      /^Workflow input refused: an input payload was not encrypted by the payload codec\.$/,
    );
    await expectNothingWrittenForB();
  });

  it('input the payload codec encrypted (an operator can have the codec server do that) but the API did not sign: refused', async () => {
    const encrypting = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
    const cause = await startFails(encrypting, 'encrypted');
    expect(cause.message).toBe(
      'Workflow input refused: the input carries no svc-input-auth header (not started by the API).',
    );
    await expectNothingWrittenForB();
  });

  it('a header signed under another key, or a signed input sent unencrypted: refused the same way', async () => {
    const header = (key: string) =>
      new Client({
        connection: conn,
        dataConverter: temporalDataConverter(stackEnv()),
        interceptors: {
          workflow: [
            {
              async startWithDetails(input, next) {
                const h = signWorkflowInput(key, input.workflowType, input.options.workflowId, input.options.args);
                return next({
                  ...input,
                  headers: { ...input.headers, [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(h) },
                });
              },
            },
          ],
        },
      });
    expect((await startFails(header('f'.repeat(64)), 'wrongkey')).message).toMatch(/does not authenticate/);
    // The real key (the test holds the stack's environment), but the input in plaintext: the worker does not read it.
    const realKey = stackEnv().SVC_WORKFLOW_INPUT_KEY as string;
    const plainSigned = new Client({
      connection: conn,
      interceptors: {
        workflow: [
          {
            async startWithDetails(input, next) {
              const h = signWorkflowInput(realKey, input.workflowType, input.options.workflowId, input.options.args);
              return next({
                ...input,
                headers: { ...input.headers, [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(h) },
              });
            },
          },
        ],
      },
    });
    expect((await startFails(plainSigned, 'plainsigned')).message).toMatch(/not encrypted by the payload codec/);
    await expectNothingWrittenForB();
  });

  it('the API still starts the same verification for its own caller (control row)', async () => {
    const res = await post('/verify/math', { expression: '1 + 1 = 2' }, { 'x-api-key': A.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    const logs = await get('/audit/logs?limit=1', bearer(A.token));
    expect(logs.body.logs[0]).toMatchObject({
      organization_id: A.orgId,
      workflow_id: res.headers.get('x-workflow-id'),
    });
  });
});

describe('a batch whose workflow is terminated reads failed, not running forever', () => {
  it('terminate through Temporal (as the UI did), then GET: failed, every item failed, nothing released', async () => {
    const sub = await post(
      '/verify/batch',
      {
        items: [
          { query: HARD_LOGIC, type: 'logic' },
          { query: '2 + 2 = 4', type: 'math' },
        ],
      },
      { 'x-api-key': A.key },
    );
    expect(sub.status).toBe(202);
    const jobId = sub.body.job_id as string;
    const client = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
    await client.workflow.getHandle(sub.body.workflow_id).terminate('issue 28 reproduction');
    const res = await get(`/verify/batch/${jobId}`, { 'x-api-key': A.key });
    expect(res.status).toBe(200);
    const detail = 'Job failed: its workflow was terminated before the job completed; no result was released.';
    expect(res.body).toMatchObject({
      job_id: jobId,
      status: 'failed',
      total_items: 2,
      completed_items: 0,
      failed_items: 2,
      progress_percent: 100,
    });
    expect(res.body.completed_at).toEqual(expect.any(String));
    expect(res.body.items).toEqual([
      { id: `${jobId}-0`, query: HARD_LOGIC, type: 'logic', status: 'failed', error: detail, latency_ms: 0 },
      { id: `${jobId}-1`, query: '2 + 2 = 4', type: 'math', status: 'failed', error: detail, latency_ms: 0 },
    ]);
    // Stored as failed (the next read needs no Temporal), and it stays failed.
    const doc = await (await db()).collection('batch_jobs').findOne({ _id: jobId as any });
    expect(doc?.status).toBe('failed');
    await sleep(500);
    expect((await get(`/verify/batch/${jobId}`, { 'x-api-key': A.key })).body.status).toBe('failed');
  });
});

describe("the stack's Temporal UI has write actions off", () => {
  it('settings say every write action is off; reads pass', async () => {
    const s = await fetch(`${uiUrl()}/api/v1/settings`);
    expect(s.status).toBe(200);
    expect(await s.json()).toMatchObject({
      DisableWriteActions: true,
      WorkflowTerminateDisabled: true,
      WorkflowCancelDisabled: true,
      WorkflowSignalDisabled: true,
      WorkflowResetDisabled: true,
      StartWorkflowDisabled: true,
      BatchActionsDisabled: true,
    });
    const list = await fetch(
      `${uiUrl()}/api/v1/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowId="none-${Date.now()}"`)}`,
    );
    expect(list.status).toBe(200);
  });

  it("terminating a tenant's batch through the UI's API is refused (403) and the job goes on", async () => {
    const sub = await post('/verify/batch', { items: [{ query: HARD_LOGIC, type: 'logic' }] }, { 'x-api-key': A.key });
    expect(sub.status).toBe(202);
    const wf = encodeURIComponent(sub.body.workflow_id);
    for (const [method, path] of [
      ['POST', `/api/v1/namespaces/default/workflows/${wf}/terminate`],
      ['POST', `/api/v1/namespaces/default/workflows/${wf}/cancel`],
      ['POST', `/api/v1/namespaces/default/workflows/${wf}/signal/x`],
      ['POST', `/api/v1/namespaces/default/workflows/${wf}/reset`],
      ['POST', `/api/v1/namespaces/default/workflows/new-${Date.now()}`],
      ['DELETE', `/api/v1/namespaces/default/workflows/${wf}`],
    ] as const) {
      const r = await fetch(`${uiUrl()}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'DELETE' ? undefined : '{"reason":"x"}',
      });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(await r.json()).toMatchObject({
        message: 'Write actions are off in this Temporal UI (read-only; docs/deployment.md).',
      });
    }
    // A method-override header does not turn a read into a write.
    const over = await fetch(`${uiUrl()}/api/v1/namespaces/default/workflows/${wf}`, {
      headers: { 'x-http-method-override': 'DELETE' },
    });
    expect(over.status).toBe(403);
    const job = await get(`/verify/batch/${sub.body.job_id}`, { 'x-api-key': A.key });
    expect(job.body.status).toBe('running');
    // Clean up: the job would otherwise run its hard item to the Z3 time-out; the GET then
    // stores it as failed and frees its slot (other files count slots).
    await new Client({ connection: conn }).workflow.getHandle(sub.body.workflow_id).terminate('test clean-up');
    expect((await get(`/verify/batch/${sub.body.job_id}`, { 'x-api-key': A.key })).body.status).toBe('failed');
  });
});
