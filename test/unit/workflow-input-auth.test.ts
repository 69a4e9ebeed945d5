// Issue 28 item 1, unit rows: the workflow input MAC and its grant (core/workflow-input-auth.ts),
// the worker codec's refusal of unencrypted payloads (core/payload-codec.ts), and the read-only
// Temporal UI gate's request rule (infra/temporal-ui-gate.ts). The black-box rows are in
// test/http/workflow-injection.test.ts, the workflow-tier rows in test/workflow/batch-workflow.test.ts.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  INPUT_MAX_AGE_MS,
  REFUSED_PAYLOAD_MARKER,
  auditOrgsOf,
  authenticateInput,
  grantMac,
  signWorkflowInput,
  workflowInputKey,
} from '../../core/workflow-input-auth.js';
import { payloadCodecFor, REFUSED_PAYLOAD } from '../../core/payload-codec.js';
import { ConfigError } from '../../core/config.js';
import { A2A_AUDIT_ORG } from '../../core/a2a-workflow.js';
import { generateSecrets, SECRET_KEYS } from '../../infra/secrets.js';
import { uiRequestAllowed } from '../../infra/temporal-ui-gate.js';

const KEY = randomBytes(32).toString('hex');
const RUN = { workflowId: 'verify-math-org_b-1', runId: 'run-1' };
const INPUT = {
  engine: 'math',
  input: { expression: '1 + 1 = 2', note: undefined },
  org_id: 'org_b',
  timeout_ms: 5000,
  audit: null,
};
const NOW = 1_800_000_000_000;

function check(
  args: unknown[],
  auth: unknown,
  overrides: Partial<{ type: string; started: number; run: typeof RUN }> = {},
) {
  return authenticateInput(
    KEY,
    {
      workflow_type: overrides.type ?? 'verifyWorkflow',
      args: JSON.parse(JSON.stringify(args)) as unknown[],
      auth: auth as never,
      run_started_at: overrides.started ?? NOW + 50,
    },
    overrides.run ?? RUN,
  );
}

describe('workflow input MAC', () => {
  it('accepts the input the API signed (as the worker decodes it: JSON, undefined keys dropped) and grants its organization', () => {
    const auth = signWorkflowInput(KEY, 'verifyWorkflow', RUN.workflowId, [INPUT], NOW);
    const r = check([INPUT], auth);
    expect(r).toEqual({
      ok: true,
      grant: { orgs: ['org_b'], mac: grantMac(KEY, RUN.workflowId, RUN.runId, ['org_b']) },
    });
  });

  it('refuses a missing, malformed, wrong-key, altered, re-typed, re-targeted or stale header', () => {
    const auth = signWorkflowInput(KEY, 'verifyWorkflow', RUN.workflowId, [INPUT], NOW);
    const reason = (r: ReturnType<typeof check>) => (r.ok ? 'accepted' : r.reason);
    expect(reason(check([INPUT], null))).toMatch(/no svc-input-auth header/);
    expect(reason(check([INPUT], { v: 2, issued_at: NOW, mac: auth.mac }))).toMatch(/malformed/);
    expect(reason(check([INPUT], { ...auth, issued_at: 'now' }))).toMatch(/malformed/);
    expect(
      reason(
        check(
          [INPUT],
          signWorkflowInput(randomBytes(32).toString('hex'), 'verifyWorkflow', RUN.workflowId, [INPUT], NOW),
        ),
      ),
    ).toMatch(/does not authenticate/);
    expect(reason(check([{ ...INPUT, org_id: 'org_a' }], auth))).toMatch(/does not authenticate/);
    expect(reason(check([INPUT, 'extra'], auth))).toMatch(/does not authenticate/);
    expect(reason(check([INPUT], auth, { type: 'batchWorkflow' }))).toMatch(/does not authenticate/);
    expect(reason(check([INPUT], auth, { run: { workflowId: 'verify-math-org_b-2', runId: 'run-1' } }))).toMatch(
      /does not authenticate/,
    );
    expect(reason(check([INPUT], { ...auth, mac: auth.mac.toUpperCase() }))).toMatch(/does not authenticate/);
    expect(reason(check([INPUT], { ...auth, mac: auth.mac.slice(0, 10) }))).toMatch(/does not authenticate/);
    expect(reason(check([INPUT], auth, { started: NOW + INPUT_MAX_AGE_MS + 1 }))).toMatch(/stale/);
    expect(reason(check([INPUT], auth, { started: NOW - 3 * 60_000 }))).toMatch(/stale/);
  });

  it('refuses an input holding a payload the worker codec refused, whatever the header', () => {
    const auth = signWorkflowInput(KEY, 'verifyWorkflow', RUN.workflowId, [INPUT], NOW);
    const r = check([{ [REFUSED_PAYLOAD_MARKER]: 'x' }], auth);
    expect(r).toEqual({ ok: false, reason: 'an input payload was not encrypted by the payload codec' });
  });

  it('names the organizations each workflow type may audit, from its input only', () => {
    expect(auditOrgsOf('verifyWorkflow', [{ org_id: 'org_b' }])).toEqual(['org_b']);
    expect(auditOrgsOf('providerVerifyWorkflow', [{ org_id: null }])).toEqual([]);
    expect(auditOrgsOf('batchWorkflow', [{ org_id: 'org_c' }])).toEqual(['org_c']);
    expect(auditOrgsOf('agentWorkflow', [{ agent: { org_id: 'org_d' } }])).toEqual(['org_d']);
    expect(auditOrgsOf('a2aWorkflow', [{ org_id: 'org_x' }])).toEqual([A2A_AUDIT_ORG]);
    expect(auditOrgsOf('leakRevocationWorkflow', [{ org_id: 'org_x' }])).toEqual([]);
    expect(auditOrgsOf('noopWorkflow', [])).toEqual([]);
  });

  it('the key is required, long enough, generated with the local secrets', () => {
    expect(() => workflowInputKey({})).toThrow(ConfigError);
    expect(() => workflowInputKey({})).toThrow(/SVC_WORKFLOW_INPUT_KEY is not set/);
    expect(() => workflowInputKey({ SVC_WORKFLOW_INPUT_KEY: 'short' })).toThrow(/too short/);
    const secrets = generateSecrets();
    expect(SECRET_KEYS).toContain('SVC_WORKFLOW_INPUT_KEY');
    expect(secrets.SVC_WORKFLOW_INPUT_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(workflowInputKey(secrets)).toBe(secrets.SVC_WORKFLOW_INPUT_KEY);
  });
});

describe('worker codec: unencrypted payloads refused, never read', () => {
  const env = {
    SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify({ a: randomBytes(32).toString('base64') }),
    SVC_TEMPORAL_PAYLOAD_KEY_ID: 'a',
  };
  const plain = defaultPayloadConverter.toPayload({ org_id: 'org_b', secret: 'svc_live_x' }) as Payload;

  it('a refusing codec decodes plaintext to the refusal marker; encrypted payloads decode as before', async () => {
    const worker = payloadCodecFor(env, { refuseUnencrypted: true });
    const [refused] = await worker.decode([plain]);
    expect(refused).toBe(REFUSED_PAYLOAD);
    expect(defaultPayloadConverter.fromPayload(refused as Payload)).toEqual({
      [REFUSED_PAYLOAD_MARKER]: 'payload not encrypted by the payload codec: not read',
    });
    const [roundTrip] = await worker.decode(await worker.encode([plain]));
    expect(defaultPayloadConverter.fromPayload(roundTrip as Payload)).toEqual({
      org_id: 'org_b',
      secret: 'svc_live_x',
    });
  });

  it('clients (the API, the codec server) and encryption off keep passing plaintext through', async () => {
    expect((await payloadCodecFor(env).decode([plain]))[0]).toBe(plain);
    expect(
      (
        await payloadCodecFor({ SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'off' }, { refuseUnencrypted: true }).decode([plain])
      )[0],
    ).toBe(plain);
  });
});

describe('read-only Temporal UI gate', () => {
  it('lets reads and workflow queries through, refuses every write and any method override', () => {
    expect(uiRequestAllowed('GET', '/api/v1/namespaces/default/workflows', {})).toBe(true);
    expect(uiRequestAllowed('HEAD', '/', {})).toBe(true);
    expect(uiRequestAllowed('POST', '/api/v1/namespaces/default/workflows/wf-1/query/__stack_trace', {})).toBe(true);
    for (const [m, p] of [
      ['POST', '/api/v1/namespaces/default/workflows/wf-1/terminate'],
      ['POST', '/api/v1/namespaces/default/workflows/wf-1/cancel'],
      ['POST', '/api/v1/namespaces/default/workflows/wf-1/signal/s'],
      ['POST', '/api/v1/namespaces/default/workflows/wf-1/reset'],
      ['POST', '/api/v1/namespaces/default/workflows/wf-1'],
      ['POST', '/api/v1/namespaces/default/batch-operations/b1'],
      ['PUT', '/api/v1/namespaces/default/workflows/wf-1'],
      ['DELETE', '/api/v1/namespaces/default/workflows/wf-1'],
      ['PATCH', '/api/v1/namespaces/default'],
    ]) {
      expect(uiRequestAllowed(m as string, p as string, {}), `${m} ${p}`).toBe(false);
    }
    expect(
      uiRequestAllowed('GET', '/api/v1/namespaces/default/workflows/wf-1', { 'x-http-method-override': 'DELETE' }),
    ).toBe(false);
    expect(uiRequestAllowed('GET', '/api/v1/namespaces/default/workflows/wf-1', { 'x-method-override': 'POST' })).toBe(
      false,
    );
  });
});

describe('batch job whose workflow closed without completing', () => {
  it('each closing status has its words; every one says no result was released', async () => {
    const { unfinishedDetail } = await import('../../api/batch-jobs.js');
    expect(unfinishedDetail('TERMINATED')).toBe(
      'Job failed: its workflow was terminated before the job completed; no result was released.',
    );
    expect(unfinishedDetail('TIMED_OUT')).toBe(
      'Job failed: its workflow timed out before the job completed; no result was released.',
    );
    expect(unfinishedDetail('CANCELLED')).toMatch(/was cancelled before/);
    expect(unfinishedDetail('FAILED')).toMatch(/its workflow failed before/);
    expect(unfinishedDetail('NOT_FOUND')).toMatch(/no longer exists before/);
    expect(unfinishedDetail('PAUSED')).toMatch(/closed \(paused\) before/);
  });
});
