// Black box: /verify/math runs (verifyWorkflow, local activities) have their input checked by
// the engine activity itself, not by a separate local activity first (workflows/input-auth.ts,
// activities/input-auth.ts, `input_auth_in_engine_activity`). A run started past the API with
// that flag set, encrypted by the payload codec, and a missing, forged, stale header or args
// altered after signing fails at once with the same non-retryable WorkflowInputRefused failure,
// and writes nothing: no proof, no attestation, no audit entry. The control row shows the API's
// own runs take this path (one local activity in the history), so the rows above test it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection, WorkflowFailedError, type WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporalDataConverter } from '../../core/payload-codec.js';
import {
  INPUT_AUTH_HEADER,
  INPUT_MAX_AGE_MS,
  signWorkflowInput,
  WORKFLOW_INPUT_REFUSED,
} from '../../core/workflow-input-auth.js';
import { db, get, newTenant, post, stackEnv, type Member } from './helpers.js';

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
let A: Member;
let B: Member;
let conn: Connection;
const queue = () => (stackEnv().SVC_TASK_QUEUE as string | undefined) ?? 'svc-verification';
const realKey = () => stackEnv().SVC_WORKFLOW_INPUT_KEY as string;

beforeAll(async () => {
  [A, B] = await Promise.all([newTenant(), newTenant()]);
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
});
afterAll(async () => {
  await conn?.close();
});

/** What the API sends for a math verification, here for `org`, with the check asked of the engine activity. */
const mathInput = (org: string, user: string) => ({
  engine: 'math',
  input: { expression: '1 + 1 = 2' },
  org_id: org,
  timeout_ms: 5000,
  provider_timeout_ms: 30_000,
  activity_mode: 'local',
  audit: { user_id: user, key_id: 'key_invented_by_attacker', request_digest: `sha256:${'0'.repeat(64)}` },
  audit_in_engine_activity: true,
  input_auth_in_engine_activity: true,
});

/** An encrypting client whose starts carry what `sign` makes (null: no header), with args `alter` gives after signing. */
function attacker(
  sign: ((type: string, id: string, args: unknown[]) => unknown) | null,
  alter: (args: unknown[]) => unknown[] = (a) => a,
): Client {
  const interceptor: WorkflowClientInterceptor = {
    async startWithDetails(i, next) {
      const args = [...(i.options.args ?? [])];
      const headers = sign
        ? {
            ...i.headers,
            [INPUT_AUTH_HEADER]: defaultPayloadConverter.toPayload(sign(i.workflowType, i.options.workflowId, args)),
          }
        : i.headers;
      return next({ ...i, headers, options: { ...i.options, args: alter(args) } });
    },
  };
  return new Client({
    connection: conn,
    dataConverter: temporalDataConverter(stackEnv()),
    interceptors: { workflow: [interceptor] },
  });
}

/** Starts verifyWorkflow for B through `client`; the run fails at once with the input check's failure. */
async function refused(client: Client, tag: string, args: unknown[], message: string): Promise<string> {
  const workflowId = `verify-math-${B.orgId}-iaa-${tag}-${Date.now()}`;
  await client.workflow.start('verifyWorkflow', {
    taskQueue: queue(),
    workflowId,
    args,
    workflowExecutionTimeout: 60_000,
  });
  const handle = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) }).workflow.getHandle(
    workflowId,
  );
  const t0 = Date.now();
  const err = await handle.result().then(
    () => null,
    (e: unknown) => e,
  );
  expect(Date.now() - t0).toBeLessThan(20_000);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((await handle.describe()).status.name).toBe('FAILED');
  // The run's own failure, as the separate check gave it (not an activity failure around it).
  const cause = (err as WorkflowFailedError).cause as { type?: string; message: string; nonRetryable?: boolean };
  expect(cause.constructor.name).toBe('ApplicationFailure');
  expect(cause.type).toBe(WORKFLOW_INPUT_REFUSED);
  expect(cause.nonRetryable).toBe(true);
  expect(cause.message).toBe(message);
  return workflowId;
}

async function expectNothingWrittenForB(workflowIds: string[]) {
  const store = await db();
  expect(await store.collection('audit_logs').countDocuments({ organization_id: B.orgId })).toBe(0);
  expect(await store.collection('proofs').countDocuments({ org_id: B.orgId })).toBe(0);
  expect(await store.collection('attestations').countDocuments({ org_id: B.orgId })).toBe(0);
  for (const id of workflowIds) {
    expect(await store.collection('audit_logs').countDocuments({ workflow_id: id })).toBe(0);
  }
  const logs = await get('/audit/logs', bearer(B.token));
  expect(logs.status).toBe(200);
  expect(logs.body.logs).toEqual([]);
}

const NOT_AUTHENTIC =
  'Workflow input refused: the input does not authenticate (wrong or altered input, type, workflow id or key).';

describe('math runs: the input check done by the engine activity refuses as the separate one did', () => {
  const ids: string[] = [];

  it('no svc-input-auth header, the flag set: refused, nothing written', async () => {
    ids.push(
      await refused(
        attacker(null),
        'nohdr',
        [mathInput(B.orgId, A.userId)],
        'Workflow input refused: the input carries no svc-input-auth header (not started by the API).',
      ),
    );
    await expectNothingWrittenForB(ids);
  });

  it('a header forged under another key: refused, no proof, no attestation, no audit entry', async () => {
    ids.push(
      await refused(
        attacker((t, id, a) => signWorkflowInput('f'.repeat(64), t, id, a)),
        'forged',
        [mathInput(B.orgId, A.userId)],
        NOT_AUTHENTIC,
      ),
    );
    await expectNothingWrittenForB(ids);
  });

  it("a genuine signature over A's input, the organization then changed to B: refused", async () => {
    ids.push(
      await refused(
        attacker(
          (t, id, a) => signWorkflowInput(realKey(), t, id, a),
          (a) => [{ ...(a[0] as object), org_id: B.orgId }],
        ),
        'altered',
        [mathInput(A.orgId, A.userId)],
        NOT_AUTHENTIC,
      ),
    );
    await expectNothingWrittenForB(ids);
  });

  it('a genuine signature over an input without the flag, the flag added after: refused', async () => {
    const { input_auth_in_engine_activity: _flag, ...unflagged } = mathInput(B.orgId, A.userId);
    ids.push(
      await refused(
        attacker(
          (t, id, a) => signWorkflowInput(realKey(), t, id, a),
          (a) => [{ ...(a[0] as object), input_auth_in_engine_activity: true }],
        ),
        'flagadded',
        [unflagged],
        NOT_AUTHENTIC,
      ),
    );
    await expectNothingWrittenForB(ids);
  });

  it('a genuine header issued too long before the run: refused as stale', async () => {
    ids.push(
      await refused(
        attacker((t, id, a) => signWorkflowInput(realKey(), t, id, a, Date.now() - INPUT_MAX_AGE_MS - 60_000)),
        'stale',
        [mathInput(B.orgId, A.userId)],
        'Workflow input refused: the input authentication is stale (issued too long before this run started).',
      ),
    );
    await expectNothingWrittenForB(ids);
  });

  it("control: the API's own /verify/math is verified and audited, its input checked by the engine activity (one local activity)", async () => {
    const res = await post('/verify/math', { expression: '1 + 1 = 2' }, { 'x-api-key': A.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    const workflowId = res.headers.get('x-workflow-id')!;
    const logs = await get('/audit/logs?limit=1', bearer(A.token));
    expect(logs.body.logs[0]).toMatchObject({ organization_id: A.orgId, workflow_id: workflowId });
    const history = await new Client({ connection: conn }).workflow.getHandle(workflowId).fetchHistory();
    const markers = (history.events ?? []).filter(
      (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    expect(markers.length).toBe(1);
  });
});
