// POST /verify/batch and GET /verify/batch/{job_id}, black box: sizes and plan limits, every
// item type, the batch math rows, item time-outs, 202-then-poll, tenant isolation, signing
// failures and searchable workflow metadata. The bounded job store and durability through a
// worker crash and an API restart are in batch.serial.test.ts (they stop stack components).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOfDoc, type StoredResultDoc } from '../../persistence/batch.js';
import { Client, Connection } from '@temporalio/client';
import { db, get, newTenant, post, stackEnv, retainedProof, type Member } from './helpers.js';
import { noSigningKeyApi, noWaitBatchApi } from './shared-apis.js';
import { sha256Ref } from '../../core/canonical-json.js';
import { mathBatchOutcome } from '../../engines/math.js';
import { temporalDataConverter } from '../../core/payload-codec.js';
import {
  AMBIGUOUS,
  BARE,
  CODE,
  DDL,
  DIFFER,
  HARD_LOGIC,
  IDENTITY,
  call,
  sleep,
  waitCompleted,
} from './batch-fixtures.js';

const withoutAttestation = (r: any) => {
  const { attestation: _a, ...rest } = r;
  return rest;
};

describe('POST /verify/batch: request validation and plan sizes', () => {
  let ent: Member;
  let free: Member;
  let pro: Member;
  beforeAll(async () => {
    [ent, free, pro] = await Promise.all([newTenant('enterprise'), newTenant('free'), newTenant('pro')]);
  });

  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ query: `${i} + 1`, type: 'math' }));

  it('rejects an empty batch, a batch over 100 items and a missing items field with 400', async () => {
    const empty = await post('/verify/batch', { items: [] }, { 'x-api-key': ent.key });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      detail: "Invalid field 'items': must contain at least 1 item",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const over = await post('/verify/batch', { items: items(101) }, { 'x-api-key': ent.key });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      detail: "Invalid field 'items': must contain at most 100 items",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const missing = await post('/verify/batch', { jobs: [] }, { 'x-api-key': ent.key });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/^Invalid field 'items'/);
  });

  it('rejects an unknown item type, a non-string query and non-object params with 400 naming the field', async () => {
    const unknown = await post(
      '/verify/batch',
      {
        items: [
          { query: '1+1', type: 'math' },
          { query: 'x', type: 'poetry' },
        ],
      },
      { 'x-api-key': ent.key },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      detail:
        "Invalid field 'items.1.type': unknown item type; expected one of natural_language, logic, math, code, fact, sql",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const nonString = await post('/verify/batch', { items: [{ query: 42, type: 'math' }] }, { 'x-api-key': ent.key });
    expect(nonString.status).toBe(400);
    expect(nonString.body.detail).toMatch(/^Invalid field 'items\.0\.query'/);
    const badParams = await post(
      '/verify/batch',
      { items: [{ query: 'SELECT 1', type: 'sql', params: 'sqlite' }] },
      { 'x-api-key': ent.key },
    );
    expect(badParams.status).toBe(400);
    expect(badParams.body.detail).toMatch(/^Invalid field 'items\.0\.params'/);
  });

  it('enforces the plan batch size: free 10, pro 50, enterprise 100', async () => {
    const freeOver = await post('/verify/batch', { items: items(11) }, { 'x-api-key': free.key });
    expect(freeOver.status).toBe(400);
    expect(freeOver.body).toEqual({
      detail: "Batch of 11 items exceeds the free plan's batch size of 10 items.",
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const proOver = await post('/verify/batch', { items: items(51) }, { 'x-api-key': pro.key });
    expect(proOver.status).toBe(400);
    expect(proOver.body).toEqual({
      detail: "Batch of 51 items exceeds the pro plan's batch size of 50 items.",
      code: expect.any(String),
      request_id: expect.any(String),
    });

    const freeMax = await post('/verify/batch', { items: items(10) }, { 'x-api-key': free.key });
    expect(freeMax.status).toBe(200);
    expect(freeMax.body).toMatchObject({
      status: 'completed',
      total_items: 10,
      completed_items: 10,
      failed_items: 0,
      progress_percent: 100,
    });
    const proMax = await post('/verify/batch', { items: items(50) }, { 'x-api-key': pro.key });
    expect(proMax.status).toBe(200);
    expect(proMax.body).toMatchObject({ status: 'completed', total_items: 50, completed_items: 50 });
    const entMax = await post('/verify/batch', { items: items(100) }, { 'x-api-key': ent.key });
    expect(entMax.status).toBe(200);
    expect(entMax.body).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
    expect(entMax.body.items.map((i: any) => i.id)).toEqual(
      Array.from({ length: 100 }, (_, i) => `${entMax.body.job_id}-${i}`),
    );
  });

  it('requires an API key with verify:read', async () => {
    const res = await post('/verify/batch', { items: items(1) });
    expect(res.status).toBe(401);
    const got = await get('/verify/batch/bj_000000000000000000000000');
    expect(got.status).toBe(401);
  });
});

describe('batch items of every type', () => {
  let t: Member;
  let job: any;
  let status: number;
  let headers: Headers;
  beforeAll(async () => {
    t = await newTenant('enterprise');
    const res = await post(
      '/verify/batch',
      {
        items: [
          { query: IDENTITY, type: 'math' },
          { query: DIFFER, type: 'math' },
          { query: BARE, type: 'math' },
          { query: AMBIGUOUS, type: 'math' },
          { query: '(AND (GT x 5) (LT x 7))', type: 'logic' },
          { query: '(AND (GT x 5) (LT x 3))', type: 'logic' },
          { query: CODE, type: 'code', params: { language: 'python' } },
          {
            query: 'SELECT u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name',
            type: 'sql',
            params: { schema_ddl: DDL, dialect: 'sqlite' },
          },
          { query: 'Is the sky blue?' },
          {
            query: 'Paris is the capital of France.',
            type: 'fact',
            params: { context: 'Paris is the capital of France.' },
          },
          { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE (' } },
        ],
      },
      { 'x-api-key': t.key },
    );
    status = res.status;
    job = res.body;
    headers = res.headers;
  });

  it('answers 200 with the finished job and its counters', () => {
    expect(status).toBe(200);
    expect(job).toMatchObject({
      job_id: expect.stringMatching(/^bj_[0-9a-f]{24}$/),
      status: 'completed',
      progress_percent: 100,
      total_items: 11,
      completed_items: 11,
      failed_items: 0,
      workflow_id: `batch-${t.orgId}-${job.job_id}`,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      completed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(headers.get('x-workflow-id')).toBe(job.workflow_id);
    expect(job.items).toHaveLength(11);
    job.items.forEach((item: any, i: number) => {
      expect(item.id).toBe(`${job.job_id}-${i}`);
      expect(['completed', 'failed']).toContain(item.status);
      expect(typeof item.latency_ms).toBe('number');
      expect(item.latency_ms).toBeGreaterThanOrEqual(0);
    });
    expect(job.items.map((i: any) => i.type)).toEqual([
      'math',
      'math',
      'math',
      'math',
      'logic',
      'logic',
      'code',
      'sql',
      'natural_language',
      'fact',
      'sql',
    ]);
    expect(job.items[0].query).toBe(IDENTITY);
  });

  it('math identity: VERIFIED with the retained proof, its proof_ref and a signed attestation', async () => {
    const proven = mathBatchOutcome(IDENTITY);
    if (proven.kind !== 'proven') throw new Error('fixture is not a proven identity');
    const item = job.items[0];
    expect(item.status).toBe('completed');
    expect(item.latency_ms).toBeGreaterThan(0);
    expect(item.result).toMatchObject({
      status: 'VERIFIED',
      agent_message: 'Identity proven: the difference of the two sides simplifies to 0.',
      developer_fields: {
        constraint_id: 'math_verifier.identity_proven',
        is_valid: true,
        simplified_difference: '0',
        left_side: 'x^2 + 2*x + 1',
        right_side: 'x^2 + 2*x + 1',
        method: 'canonical_form',
        is_equivalent: true,
        expression: IDENTITY,
      },
      proof_ref: sha256Ref(proven.proof),
      is_authoritative: true,
      attestation: { id: expect.any(String), token: expect.any(String), status: 'ISSUED' },
    });
    expect(Object.keys(item.result.developer_fields).length).toBe(8);
    expect(await retainedProof(item.result.proof_ref)).toMatchObject({ artifact: proven.proof });
  });

  it('math sides differ: UNVERIFIABLE with a non-zero developer_fields.diff', () => {
    expect(job.items[1].result).toEqual({
      status: 'UNVERIFIABLE',
      agent_message: 'The sides are not equal: the simplified difference is 2*x.',
      developer_fields: {
        constraint_id: 'math_verifier.sides_differ',
        is_valid: false,
        diff: '2*x',
        simplified_difference: '2*x',
        left_side: 'x^2 + 2*x + 1',
        right_side: 'x^2 + 1',
        method: 'canonical_form',
      },
      proof_ref: null,
      is_authoritative: false,
    });
  });

  it('math bare expression: UNVERIFIABLE with developer_fields.simplified', () => {
    expect(job.items[2].result).toEqual({
      status: 'UNVERIFIABLE',
      agent_message: 'Expression evaluated; a bare expression makes no claim to verify.',
      developer_fields: {
        constraint_id: 'math_verifier.expression_evaluated',
        is_valid: true,
        simplified: '14',
        value: 14,
        original: BARE,
      },
      proof_ref: null,
      is_authoritative: false,
    });
  });

  it('math ambiguous expression: BLOCKED with its constraint', () => {
    expect(job.items[3].status).toBe('completed');
    expect(job.items[3].result).toMatchObject({
      status: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: {
        constraint_id: 'math_verifier.ambiguous_expression',
        is_valid: false,
        error: 'ambiguous_expression',
        warning: 'ambiguous',
      },
    });
  });

  it('logic items: the /verify/logic result (SAT with its model, UNSAT)', async () => {
    expect(job.items[4]).toMatchObject({
      status: 'completed',
      result: { status: 'SAT', model: { x: '6' }, provider_used: null },
    });
    expect(job.items[5]).toMatchObject({ status: 'completed', result: { status: 'UNSAT', provider_used: null } });
    const single = await post('/verify/logic', { query: '(AND (GT x 5) (LT x 3))' }, { 'x-api-key': t.key });
    expect(job.items[5].result).toEqual(single.body);
  });

  it('code and sql items: the same DiagnosticResult as the single-item routes', async () => {
    const code = await post('/verify/code', { code: CODE, language: 'python' }, { 'x-api-key': t.key });
    expect(code.status).toBe(200);
    expect(withoutAttestation(job.items[6].result)).toEqual(withoutAttestation(code.body));
    expect(job.items[6].result).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { is_valid: false },
    });

    const sql = await post(
      '/verify/sql',
      { query: job.items[7].query, schema_ddl: DDL, dialect: 'sqlite' },
      { 'x-api-key': t.key },
    );
    expect(withoutAttestation(job.items[7].result)).toEqual(withoutAttestation(sql.body));
    expect(job.items[7].result).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
    });
    expect(job.items[10].result).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_parse_error' },
    });
  });

  it('natural_language items (the default type) run the natural-language engine', () => {
    // The local translator cannot translate it: NOT_MATH_QUERY, never a guess (test/http/natural-language.test.ts has the rest).
    expect(job.items[8]).toMatchObject({
      id: `${job.job_id}-8`,
      query: 'Is the sky blue?',
      type: 'natural_language',
      status: 'completed',
      result: {
        status: 'NOT_MATH_QUERY',
        provider_used: 'local',
        trust_boundary: { overall_status: 'NOT_MATH_QUERY', trust_enforced: 'NOT_MATH_QUERY' },
      },
    });
  });

  it('fact items run through the fact engine (params.context)', () => {
    expect(job.items[9]).toMatchObject({
      type: 'fact',
      status: 'completed',
      result: { verdict: 'SUPPORTED', provider_used: 'local' },
    });
  });

  it('GET returns the stored job, identical to the POST answer', async () => {
    const res = await get(`/verify/batch/${job.job_id}`, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(job);
    const stored = await (await db()).collection('batch_jobs').findOne({ _id: job.job_id as any });
    expect(stored).toMatchObject({ org_id: t.orgId, status: 'completed', total_items: 11 });
    // The job document stays small (issue 22): its items are in its result documents `<job>#<unit>`.
    expect(stored!.items).toBeUndefined();
    const results = await Promise.all(
      Array.from({ length: stored!.units }, (_, u) =>
        db().then((d) => d.collection<StoredResultDoc>('batch_results').findOne({ _id: `${job.job_id}#${u}` as any })),
      ),
    );
    expect(results.flatMap((r) => resultOfDoc(r!).items.map((s: any) => s.view))).toHaveLength(11);
  });

  it('GET: 403 for another organization, 404 for an unknown job', async () => {
    const other = await newTenant('free');
    const foreign = await get(`/verify/batch/${job.job_id}`, { 'x-api-key': other.key });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({
      detail: 'Batch job belongs to another organization',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const unknown = await get('/verify/batch/bj_000000000000000000000000', { 'x-api-key': t.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      detail: 'Batch job not found',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    // The /v1 prefix serves the same route.
    expect((await get(`/v1/verify/batch/${job.job_id}`, { 'x-api-key': t.key })).status).toBe(200);
  });

  it('the workflow is searchable by organization, item count and batch status', async () => {
    const conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
    try {
      const client = new Client({ connection: conn, dataConverter: temporalDataConverter(stackEnv()) });
      const query = `SvcOrgId="${t.orgId}" AND SvcBatchStatus="completed" AND SvcItemCount=11`;
      let ids: string[] = [];
      for (let i = 0; i < 40 && ids.length === 0; i++) {
        ids = [];
        for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
        if (ids.length === 0) await sleep(250);
      }
      expect(ids).toEqual([job.workflow_id]);
      const running: string[] = [];
      for await (const wf of client.workflow.list({ query: `SvcOrgId="${t.orgId}" AND SvcBatchStatus="running"` }))
        running.push(wf.workflowId);
      expect(running).toEqual([]);
    } finally {
      await conn.close();
    }
  });
});

describe('202 then poll, and item time-outs (shared extra API: SVC_BATCH_WAIT_SECONDS=0, SVC_BATCH_ITEM_TIMEOUT=3)', () => {
  let t: Member;
  let api: { url: string; release: () => Promise<void> };
  beforeAll(async () => {
    [t, api] = await Promise.all([newTenant('enterprise'), noWaitBatchApi()]);
  }, 180_000);
  afterAll(() => api?.release());

  it('answers 202 with the running snapshot and a Location to poll; GET then returns the completed job', async () => {
    // The slow logic item keeps the job running past the POST (math items alone can finish
    // before the API reads the job, and a finished job is rightly a 200).
    const res = await call(api.url, 'POST', '/verify/batch', t.key, {
      items: [
        { query: IDENTITY, type: 'math' },
        { query: BARE, type: 'math' },
        { query: HARD_LOGIC, type: 'logic' },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      job_id: expect.stringMatching(/^bj_/),
      status: 'running',
      total_items: 3,
      completed_at: null,
    });
    expect(res.headers.get('location')).toBe(`/verify/batch/${res.body.job_id}`);
    const done = await waitCompleted(api.url, t.key, res.body.job_id, 60_000);
    expect(done).toMatchObject({ status: 'completed', progress_percent: 100, completed_items: 2, failed_items: 1 });
    expect(done.items[0].result.status).toBe('VERIFIED');
  });

  it('an item over the item time-out is failed with its error while the other items complete', async () => {
    const res = await call(api.url, 'POST', '/verify/batch', t.key, {
      items: [
        { query: IDENTITY, type: 'math' },
        { query: HARD_LOGIC, type: 'logic' },
        { query: DIFFER, type: 'math' },
      ],
    });
    expect(res.status).toBe(202);
    const done = await waitCompleted(api.url, t.key, res.body.job_id, 60_000);
    expect(done).toMatchObject({
      status: 'completed',
      total_items: 3,
      completed_items: 2,
      failed_items: 1,
      progress_percent: 100,
    });
    expect(done.items[1]).toEqual({
      id: `${done.job_id}-1`,
      query: HARD_LOGIC,
      type: 'logic',
      status: 'failed',
      error: 'Item exceeded the batch item time-out (3000 ms).',
      latency_ms: expect.any(Number),
    });
    // The time-out counts from the item's start, and a late item is not retried.
    expect(done.items[1].latency_ms).toBeGreaterThanOrEqual(3000);
    expect(done.items[1].latency_ms).toBeLessThan(6000); // one 3 s time-out's worth (a loaded worker's timer fires late), not two
    expect(done.items[0].result.status).toBe('VERIFIED');
    expect(done.items[2].result.status).toBe('UNVERIFIABLE');
  }, 90_000);
});

describe('attestation signing failure (shared extra worker without a signing key)', () => {
  let t: Member;
  let api: { url: string; release: () => Promise<void> };
  beforeAll(async () => {
    [t, api] = await Promise.all([newTenant('enterprise'), noSigningKeyApi()]);
  }, 180_000);
  afterAll(() => api?.release());

  it('a proven math item is UNVERIFIABLE with constraint_id api.attestation.signing_error, never VERIFIED', async () => {
    const res = await call(api.url, 'POST', '/verify/batch', t.key, {
      items: [
        { query: IDENTITY, type: 'math' },
        { query: DIFFER, type: 'math' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0]).toMatchObject({ status: 'completed', type: 'math' });
    expect(res.body.items[0].result).toEqual({
      status: 'UNVERIFIABLE',
      agent_message: 'The claim was proven but its attestation could not be signed; the result is not authoritative.',
      developer_fields: {
        constraint_id: 'api.attestation.signing_error',
        attestation_error: 'KEY_MISSING',
        is_valid: true,
        simplified_difference: '0',
        left_side: 'x^2 + 2*x + 1',
        right_side: 'x^2 + 2*x + 1',
        method: 'canonical_form',
        is_equivalent: true,
        expression: IDENTITY,
      },
      proof_ref: null,
      is_authoritative: false,
    });
    expect(res.body.items[1].result).toMatchObject({ status: 'UNVERIFIABLE', developer_fields: { diff: '2*x' } });
  });
});
