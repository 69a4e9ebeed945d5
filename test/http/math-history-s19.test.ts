// Black box (session 19, issue 22: CPU per /verify/math): a verification is still a workflow with
// its history, now of six events: no `svc-input-auth` patch marker and no TemporalChangeVersion
// search-attribute upsert (workflows/input-auth.ts, `input_auth_no_patch_marker` set by the API),
// which cost Temporal two history events and a visibility update per verification. The input
// check is still done (the math activity's interceptor: math-input-auth-in-activity.test.ts), the
// verdict still comes with its audit entry, and a refused request starts no workflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { get, newTenant, post, stackEnv, type Member } from './helpers.js';

const EventType = temporal.api.enums.v1.EventType;
let t: Member;
let conn: Connection;

beforeAll(async () => {
  t = await newTenant();
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
});
afterAll(async () => {
  await conn?.close();
});

describe('/verify/math: the run records no patch marker (session 19)', () => {
  it('VERIFIED and audited; its history is the six events of one eager task and one local activity', async () => {
    const res = await post('/verify/math', { expression: '(z+3)^2 = z^2 + 6*z + 9' }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    expect(res.body.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    const workflowId = res.headers.get('x-workflow-id')!;
    expect(workflowId).toMatch(new RegExp(`^verify-math-${t.orgId}-`));
    const logs = await get('/audit/logs?limit=1', { authorization: `Bearer ${t.token}` });
    expect(logs.status).toBe(200);
    expect(logs.body.logs[0]).toMatchObject({ organization_id: t.orgId, workflow_id: workflowId });

    const handle = new Client({ connection: conn }).workflow.getHandle(workflowId);
    const history = await handle.fetchHistory();
    const shape = (history.events ?? []).map((e) => {
      const type = EventType[e.eventType as number] as string;
      return e.markerRecordedEventAttributes ? `${type}:${e.markerRecordedEventAttributes.markerName}` : type;
    });
    expect(shape).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
      'EVENT_TYPE_WORKFLOW_TASK_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
      'EVENT_TYPE_MARKER_RECORDED:core_local_activity',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    const described = await handle.describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.raw.workflowExecutionInfo?.searchAttributes?.indexedFields?.TemporalChangeVersion).toBeUndefined();
  });

  it('a request the contract refuses: 400 with detail, no workflow started', async () => {
    const res = await post('/verify/math', { expression: 42 }, { 'x-api-key': t.key });
    expect(res.status).toBe(400);
    expect(typeof res.body.detail).toBe('string');
    expect(res.headers.get('x-workflow-id')).toBeNull();
  });
});
