// Validation and error mapping of every JSON verification route, in process (test/inproc/harness.ts):
// many bad bodies per route, each a 4xx with a `detail` and no workflow started; unknown keys
// ignored; every way the workflow engine can fail mapped to the contract's 503 detail; each
// route's result mapping (403, 422, 503) from scripted engine results; and the start itself
// (workflow type, task queue, execution time-out) taken from the engine registry.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { ENGINES } from '../../core/engines.js';
import { ENGINE_TIMEOUT_FAILURE } from '../../core/engine-failures.js';
import { NO_PROVIDER_STEP_FAILURE } from '../../core/failure-types.js';
import { MISSING_KEY, INVALID_KEY } from '../../api/middleware/auth.js';
import { BACKEND_UNAVAILABLE, VERIFICATION_INCOMPLETE } from '../../api/temporal.js';
import { verificationWorkflows } from '../../api/workflows.js';
import { startInProcessApp, send, type InProcessApp } from './harness.js';

let app: InProcessApp;
beforeAll(async () => {
  app = await startInProcessApp();
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  app.starts.length = 0;
  app.script({ result: {} });
});

/** A valid body per JSON verification route, and its engine. */
const ROUTES = [
  { path: '/verify/math', engine: 'math', body: { expression: '(x+1)^2 = x^2 + 2*x + 1' }, required: ['expression'] },
  { path: '/verify/logic', engine: 'logic', body: { query: '(AND (GT x 1) (LT x 3))' }, required: ['query'] },
  { path: '/verify/code', engine: 'code', body: { code: 'print(1)', language: 'python' }, required: ['code'] },
  {
    path: '/verify/sql',
    engine: 'sql',
    body: { query: 'SELECT a FROM t', schema_ddl: 'CREATE TABLE t (a INTEGER)', dialect: 'sqlite' },
    required: ['query'],
  },
  {
    path: '/verify/process',
    engine: 'process',
    body: { trace: 'Issue: x. Rule: y. Application: z. Conclusion: w.' },
    required: ['trace'],
  },
  {
    path: '/verify/rag',
    engine: 'rag',
    body: { target_document_id: 'd', chunks: [{ id: 'c0', metadata: { document_id: 'd' } }] },
    required: ['target_document_id', 'chunks'],
  },
  {
    path: '/verify/fact',
    engine: 'fact',
    body: { claim: 'Paris is in France.', context: 'Paris is the capital of France.' },
    required: ['claim', 'context'],
  },
  {
    path: '/verify/consensus',
    engine: 'consensus',
    body: { query: '2 + 2 = 4', verification_mode: 'single', min_confidence: 0.5 },
    required: ['query'],
  },
  {
    path: '/verify/natural_language',
    engine: 'natural_language',
    body: { query: 'What is 2 plus 2?' },
    required: ['query'],
  },
] as const;

describe.each(ROUTES)('$path: bad input is a 4xx with detail, and starts nothing', ({ path, body, required }) => {
  const bad: Array<[string, { raw?: string; body?: unknown; contentType?: string; key?: string | null }, number]> = [
    ['malformed JSON', { raw: '{"a": ' }, 400],
    ['a JSON array', { body: [body] }, 400],
    ['a JSON string', { body: 'x' }, 400],
    ['JSON null', { raw: 'null' }, 400],
    ['an empty object', { body: {} }, 400],
    ['nesting deeper than 64 levels', { raw: `${'['.repeat(70)}${']'.repeat(70)}` }, 400],
    ['a text/plain body', { raw: JSON.stringify(body), contentType: 'text/plain' }, 415],
    ...required.map((f): [string, { body: unknown }, number] => [
      `"${f}" missing`,
      { body: Object.fromEntries(Object.entries(body).filter(([k]) => k !== f)) },
      400,
    ]),
    ...required.map((f): [string, { body: unknown }, number] => [
      `"${f}" of the wrong type`,
      { body: { ...body, [f]: 12345 } },
      400,
    ]),
    ...required.map((f): [string, { body: unknown }, number] => [`"${f}" null`, { body: { ...body, [f]: null } }, 400]),
  ];
  it.each(bad)('%s', async (_label, req, status) => {
    const res = await send(app, path, req.body, { raw: req.raw, contentType: req.contentType });
    expect(res.status).toBe(status);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.detail.length).toBeGreaterThan(0);
    expect(app.starts).toHaveLength(0);
  });

  it('needs a valid API key before anything else', async () => {
    expect((await send(app, path, body, { key: null })).body).toEqual({
      detail: MISSING_KEY,
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const wrong = await send(app, path, body, { key: 'svc_live_not-a-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: INVALID_KEY, code: expect.any(String), request_id: expect.any(String) });
    expect(app.starts).toHaveLength(0);
  });
});

describe.each(ROUTES)('$path: one workflow per request, as the registry says', ({ path, engine, body }) => {
  it('ignores unknown keys and starts the registry workflow under the deadline plus grace', async () => {
    app.script({
      result: {
        status: 'SAT',
        provider_used: null,
        verdict: 'SUPPORTED',
        confidence: 100,
        engines_used: 1,
        query_kind: 'math',
      },
    });
    const res = await send(app, path, { ...body, some_client_field: { nested: true } });
    expect(res.status).not.toBe(500);
    expect(app.starts).toHaveLength(1);
    const [start] = app.starts;
    expect(start?.type).toBe(verificationWorkflows[engine].name);
    const args = start?.options.args[0];
    expect(args.engine).toBe(engine);
    expect(JSON.stringify(args.input)).not.toContain('some_client_field');
    expect(args.org_id).toBe('org-inproc');
    expect(args.audit).toMatchObject({ user_id: 'user-inproc', key_id: 'key-inproc' });
    expect(args.audit.request_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(start?.options.workflowExecutionTimeout).toBe(args.timeout_ms + app.cfg.SVC_WORKFLOW_GRACE * 1000);
    expect(start?.options.taskQueue).toBe(app.cfg.SVC_TASK_QUEUE);
    expect(res.headers.get('x-workflow-id')).toBe(start?.options.workflowId);
    expect(start?.options.workflowId).toMatch(new RegExp(`^verify-${engine}-org-inproc-[0-9a-f-]{36}$`));
  });

  it('maps every failure of the workflow engine to a 503 with the contract detail, never a verdict', async () => {
    const spec = ENGINES[engine];
    const failures: Array<[unknown, 'start' | 'result', string]> = [
      [new Error('14 UNAVAILABLE: connect ECONNREFUSED'), 'start', BACKEND_UNAVAILABLE],
      [
        new WorkflowFailedError(
          'Workflow execution timed out',
          new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE'),
          'TIMEOUT',
        ),
        'result',
        spec.timeoutDetail,
      ],
      [
        new WorkflowFailedError(
          'failed',
          ApplicationFailure.create({ type: ENGINE_TIMEOUT_FAILURE, message: 'engine stopped at its deadline' }),
          'NON_RETRYABLE_FAILURE',
        ),
        'result',
        spec.timeoutDetail,
      ],
      [
        new WorkflowFailedError(
          'failed',
          ApplicationFailure.create({ type: 'StoreUnavailable', message: 'x' }),
          'RETRY_POLICY_NOT_SET',
        ),
        'result',
        VERIFICATION_INCOMPLETE,
      ],
      [
        // A workflow's own typed failure (e.g. providerVerifyWorkflow for an engine without a provider step).
        new WorkflowFailedError(
          'failed',
          ApplicationFailure.create({ type: NO_PROVIDER_STEP_FAILURE, message: 'engine math has no provider step' }),
          'NON_RETRYABLE_FAILURE',
        ),
        'result',
        VERIFICATION_INCOMPLETE,
      ],
      [Object.assign(new Error('deadline'), { code: 14 }), 'result', BACKEND_UNAVAILABLE],
    ];
    for (const [err, where, detail] of failures) {
      app.starts.length = 0;
      app.script(where === 'start' ? { startError: err } : { resultError: err });
      const res = await send(app, path, body);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
      expect(res.headers.get('x-workflow-id')).toBe(app.starts[0]?.options.workflowId);
    }
  });
});

describe('route result mapping from engine results', () => {
  it('logic: BLOCKED is 403 without the internal input_refused; an input problem found by the solver is 400', async () => {
    app.script({ result: { status: 'BLOCKED', reason: 'policy', provider_used: null, input_refused: 'policy' } });
    const blocked = await send(app, '/verify/logic', { query: '(AND (GT x 1))' });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ status: 'BLOCKED', reason: 'policy', provider_used: null });
    app.script({
      result: { status: 'ERROR', message: 'Unknown variable y', provider_used: null, input_refused: 'invalid' },
    });
    const bad = await send(app, '/verify/logic', { query: '(AND (GT x 1))' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      detail: 'Unknown variable y',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('logic: a DSL syntax error is 400 with its position, before any workflow', async () => {
    const res = await send(app, '/verify/logic', { query: '(AND (GT x 1)' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/position \d+/);
    expect(app.starts).toHaveLength(0);
  });

  it('code: an engine time-out diagnostic is 503 with the code detail', async () => {
    app.script({ result: { status: 'BLOCKED', developer_fields: { constraint_id: 'code_verifier.timeout' } } });
    const res = await send(app, '/verify/code', { code: 'x = 1', language: 'python' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      detail: ENGINES.code.timeoutDetail,
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('consensus: below min_confidence is 422 with the consensus in the body; a missing sandbox is 503', async () => {
    const consensus = { status: 'VERIFIED', confidence: 40, engines_used: 2, query_kind: 'math', agreement: 'partial' };
    app.script({ result: consensus });
    const low = await send(app, '/verify/consensus', { query: '2 + 2 = 4', min_confidence: 0.5 });
    expect(low.status).toBe(422);
    expect(low.body).toEqual({
      detail: 'Consensus confidence 40 is below min_confidence (50).',
      ...consensus,
      code: expect.any(String),
      request_id: expect.any(String),
    });
    app.script({ result: { ...consensus, confidence: 100, sandbox_failure: 'capacity' } });
    const full = await send(app, '/verify/consensus', { query: '2 + 2 = 4' });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    app.script({ result: { ...consensus, confidence: 100 } });
    const ok = await send(app, '/verify/consensus', { query: '2 + 2 = 4', min_confidence: 0.5 });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ...consensus, confidence: 100 });
  });

  it('fact: a provider time-out reported by the activity is 503 with the fact detail', async () => {
    app.script({ result: { timed_out: true, detail: ENGINES.fact.timeoutDetail, provider_used: 'local' } });
    const res = await send(app, '/verify/fact', { claim: 'a', context: 'b' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      detail: ENGINES.fact.timeoutDetail,
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('an unexpected error in a route is a 500 with a generic detail and no stack', async () => {
    app.script({ result: null });
    const res = await send(app, '/verify/fact', { claim: 'a', context: 'b' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      detail: 'Internal server error',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});
