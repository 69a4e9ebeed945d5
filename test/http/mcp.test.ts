// The MCP server (POST /mcp) driven by the SDK's own client over Streamable HTTP against the test
// stack, and `svc mcp` (stdio) spawned as a process (docs/mcp.md). Each tool's structuredContent
// is compared with the REST answer to the same input (the tool call is that REST call), besides
// its own exact fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import sharp from 'sharp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiUrl, get, mintKey, newTenant, post, type Member } from './helpers.js';
import { postStats } from './uploads.js';
import { noWaitBatchApi } from './shared-apis.js';
import { svc, SVC_BIN } from './cli-run.js';
import { BARE, HARD_LOGIC, IDENTITY } from './batch-fixtures.js';
import { NL_QUERIES } from './provider-server.js';
import { mathRequestSchema } from '../../contract/math.js';
import { RATE_LIMIT_MESSAGE } from '../../contract/common.js';
import { factRequestSchema, factResponseSchema } from '../../contract/fact.js';
import { MISSING_KEY, INVALID_KEY, lacksScope } from '../../api/middleware/auth.js';
import { MCP_BODY_REQUIRED_DETAIL } from '../../api/routes/mcp.js';

const TOOL_NAMES = [
  'attestation_verify',
  'batch_status',
  'batch_submit',
  'verify_code',
  'verify_consensus',
  'verify_fact',
  'verify_image',
  'verify_logic',
  'verify_math',
  'verify_natural_language',
  'verify_process',
  'verify_rag',
  'verify_sql',
  'verify_stats',
];
const SHA = /^sha256:[0-9a-f]{64}$/;
const STATS_CSV = 'name,price,qty\napple,10,3\npear,15,5\nplum,12.5,4\nfig,12.5,8\n';
const jsonSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'draft-7', unrepresentable: 'any', io }) as any;

async function connect(headers: Record<string, string>, base = apiUrl()) {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

/** Fields that differ between two runs of the same verification (times, attestation ids). */
const VOLATILE =
  /(^|_)(latency_ms|execution_time_ms|timestamp|created_at|issued_at|completed_at)$|^attestation$|^request_id$/;
function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !VOLATILE.test(k))
        .map(([k, x]) => [k, stable(x)]),
    );
  return v;
}

const text = (r: CallToolResult, i = 0) => (r.content[i] as { type: 'text'; text: string }).text;

describe('MCP over Streamable HTTP (POST /mcp)', () => {
  let t: Member;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let png: Buffer;
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  beforeAll(async () => {
    t = await newTenant();
    ({ client, transport } = await connect({ 'X-API-Key': t.key }));
    png = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 220, g: 20, b: 30 } } })
      .png()
      .toBuffer();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initialize: the current protocol revision, the server identity and the tools capability', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(client.getServerVersion()).toEqual({
      name: 'svc-verification',
      title: 'Verification service',
      version: '7.3.0',
    });
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    expect(client.getInstructions()).toMatch(/VERIFIED only with a proof_ref/);
  });

  it('lists one tool per verification kind, batch and attestation, with the contract schemas; no code-execution tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(30);
    }
    const by = Object.fromEntries(tools.map((x) => [x.name, x])) as Record<string, (typeof tools)[number]>;
    // The endpoint's own request and response schemas (contract/), not a copy.
    expect(by.verify_math!.inputSchema).toMatchObject({
      properties: jsonSchema(mathRequestSchema, 'input').properties,
      required: ['expression'],
    });
    expect(by.verify_fact!.inputSchema.properties).toEqual(jsonSchema(factRequestSchema, 'input').properties);
    expect(by.verify_fact!.outputSchema!.properties).toEqual(jsonSchema(factResponseSchema, 'output').properties);
    expect(by.verify_math!.outputSchema!.properties).toHaveProperty('proof_ref');
    expect(Object.keys(by.verify_image!.inputSchema.properties!).sort()).toEqual(['claim', 'image_base64', 'provider']);
    expect(by.verify_image!.inputSchema.required!.sort()).toEqual(['claim', 'image_base64']);
    expect(Object.keys(by.verify_stats!.inputSchema.properties!).sort()).toEqual(['csv', 'query']);
    expect(Object.keys(by.batch_submit!.inputSchema.properties!).sort()).toEqual(['items', 'wait_seconds']);
    expect(by.batch_status!.inputSchema).toMatchObject({
      properties: { job_id: { type: 'string' } },
      required: ['job_id'],
    });
    expect(by.batch_status!.outputSchema!.properties).toHaveProperty('progress_percent');
    expect(tools.filter((x) => /exec|run|sandbox|shell|python/i.test(x.name))).toEqual([]);
  });

  it('verify_math: the REST workflow with its proof, attestation and audit entry; summary names the proof', async () => {
    const r = await call('verify_math', { expression: IDENTITY });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as any;
    expect(s).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      result: true,
      simplified_difference: '0',
      is_authoritative: true,
      proof_ref: expect.stringMatching(SHA),
    });
    expect(s.attestation.token).toMatch(/^ey/);
    expect(text(r)).toBe(`math: VERIFIED (proof ${s.proof_ref}, attestation ${s.attestation.id})`);
    expect(JSON.parse(text(r, 1))).toEqual(s);
    const rest = await post('/verify/math', { expression: IDENTITY }, { 'x-api-key': t.key });
    expect(stable(s)).toEqual(stable(rest.body));
    expect(s.proof_ref).toBe(rest.body.proof_ref);
    // The audit entry of this very call: by this key, with its proof and attestation.
    const logs = await get('/audit/logs?limit=50', { authorization: `Bearer ${t.token}` });
    expect(logs.status).toBe(200);
    const entry = logs.body.logs.find((e: any) => e.attestation_id === s.attestation.id);
    expect(entry).toMatchObject({
      engine: 'math',
      key_id: t.keyId,
      proof_ref: s.proof_ref,
      verified: true,
      status: 'VERIFIED',
    });
    // attestation_verify on its token.
    const v = await call('attestation_verify', { token: s.attestation.token });
    expect(v.isError).toBeFalsy();
    expect(v.structuredContent).toMatchObject({
      valid: true,
      kid: expect.any(String),
      claims: { jti: s.attestation.id },
    });
    expect(text(v)).toBe(`attestation: VALID (kid ${(v.structuredContent as any).kid})`);
    const bad = await call('attestation_verify', { token: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' });
    expect(bad.isError).toBeFalsy();
    expect(bad.structuredContent).toMatchObject({ valid: false, reason: expect.any(String) });
  });

  const cases: Array<
    [tool: string, path: string, args: Record<string, unknown>, fields: Record<string, unknown>, summary: RegExp]
  > = [
    [
      'verify_logic',
      '/verify/logic',
      { query: '(AND (GT x 5) (LT x 7) (EQ y (PLUS x 1)))' },
      { status: 'SAT', model: { x: '6', y: '7' }, provider_used: null },
      /^logic: SAT$/,
    ],
    [
      'verify_code',
      '/verify/code',
      { code: 'from os import system as s\ns("rm -rf /")\n', language: 'python' },
      {
        status: 'VERIFIED',
        admission: 'BLOCKED',
        developer_fields: { constraint_id: 'code_verifier.code_unsafe', is_valid: false, critical_count: 1 },
      },
      /^code: VERIFIED \(admission BLOCKED, proof sha256:[0-9a-f]{64}/,
    ],
    [
      'verify_sql',
      '/verify/sql',
      {
        query: "SELECT name FROM users WHERE name = '' OR 1=1",
        schema_ddl: 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)',
      },
      { admission: 'BLOCKED' },
      /^sql: \w+ \(admission BLOCKED/,
    ],
    [
      'verify_fact',
      '/verify/fact',
      { claim: 'Paris is the capital of France.', context: 'France is in Europe. Paris is the capital of France.' },
      { verdict: 'SUPPORTED', provider_used: 'local', provider_error: null },
      /^fact: SUPPORTED$/,
    ],
    [
      'verify_natural_language',
      '/verify/natural_language',
      { query: NL_QUERIES.correct, provider: 'openai' },
      { provider_used: 'openai' },
      /^natural_language: \w+/,
    ],
    [
      'verify_consensus',
      '/verify/consensus',
      { query: '(x + 1)^2 = x^2 + 2*x + 1' },
      { status: 'VERIFIED', final_answer: 'true', meets_requirement: true, agreement_status: 'UNANIMOUS' },
      /^consensus: VERIFIED \(proof sha256:/,
    ],
    [
      'verify_process',
      '/verify/process',
      {
        trace:
          'The issue is whether the contract binds. The rule is Article 5. In this case the offer was accepted. Therefore it binds.',
      },
      { verified: true, score: 1, missing_steps: [] },
      /^process: VERIFIED$/,
    ],
    [
      'verify_rag',
      '/verify/rag',
      {
        target_document_id: 'doc-1',
        chunks: [
          { id: 'c0', metadata: { document_id: 'doc-1' } },
          { id: 'c1', metadata: { document_id: 'doc-1' } },
        ],
      },
      { verified: true, risk: null, drm_rate: 0, chunks_checked: 2, mismatched_count: 0 },
      /^rag: VERIFIED$/,
    ],
  ];
  it.each(cases)('%s: structuredContent is the REST answer (%s)', async (tool, path, args, fields, summary) => {
    const r = await call(tool, args);
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject(fields);
    expect(text(r)).toMatch(summary);
    const rest = await post(path, args, { 'x-api-key': t.key });
    expect(rest.status).toBe(200);
    expect(stable(r.structuredContent)).toEqual(stable(rest.body));
  });

  it('verify_image: the image as base64, measured like the upload', async () => {
    const r = await call('verify_image', { claim: 'The image is a PNG file', image_base64: png.toString('base64') });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      verdict: 'SUPPORTED',
      methods_used: ['format'],
      provider_used: 'local',
      measurements: { format: 'png', width: 800, height: 600 },
    });
    expect(text(r)).toBe('image: SUPPORTED');
    const fd = new FormData();
    fd.append('claim', 'The image is a PNG file');
    fd.append('image', new Blob([new Uint8Array(png)]), 'red.png');
    const rest = await fetch(`${apiUrl()}/verify/image`, { method: 'POST', body: fd, headers: { 'x-api-key': t.key } });
    expect(stable(r.structuredContent)).toEqual(stable(await rest.json()));
  });

  it('verify_stats: the CSV as text, read like the upload (an unknown column is BLOCKED before any sandbox run)', async () => {
    const r = await call('verify_stats', { csv: STATS_CSV, query: 'mean(weight)' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      status: 'BLOCKED',
      proof_ref: null,
      developer_fields: { constraint_id: 'stats_verifier.validation_error', error: 'unknown_column' },
    });
    expect(text(r)).toBe('stats: BLOCKED');
    const rest = await postStats(t.key, { file: STATS_CSV, query: 'mean(weight)' });
    expect(rest.status).toBe(200);
    expect(stable(r.structuredContent)).toEqual(stable(rest.body));
  });

  it('verify_stats: a statistic computed in the sandbox, exactly as the upload route answers', async () => {
    // The REST answer first: with the sandbox (Docker) 200 and the statistic; on a machine
    // without it both answer 503 "sandbox unavailable" (fail closed), and the tool says so.
    const rest = await postStats(t.key, { file: STATS_CSV, query: 'mean(price)' });
    const r = await call('verify_stats', { csv: STATS_CSV, query: 'mean(price)' });
    if (rest.status === 200) {
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({
        status: 'UNVERIFIABLE',
        proof_ref: null,
        developer_fields: { observed_result: 12.5, columns: ['name', 'price', 'qty'], rows: 4 },
      });
      expect(text(r)).toBe('stats: UNVERIFIABLE');
      expect(stable(r.structuredContent)).toEqual(stable(rest.body));
    } else {
      expect(rest.status).toBe(503);
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(`stats: HTTP 503: ${(rest.body as any).detail}`);
    }
  });

  it('a bad argument is a tool error whose text names the field (the REST 400 detail)', async () => {
    const rest = await post('/verify/math', {}, { 'x-api-key': t.key });
    expect(rest.status).toBe(400);
    const r = await call('verify_math', {});
    expect(r).toMatchObject({ isError: true });
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toBe(`math: HTTP 400: ${rest.body.detail}`);
    expect(text(r)).toMatch(/expression/);
    const sql = await call('verify_sql', { query: 'SELECT 1' });
    expect(sql.isError).toBe(true);
    expect(text(sql)).toMatch(/^sql: HTTP 400: .*schema_ddl/);
    const img = await call('verify_image', { claim: 'x', image_base64: 'not base64!' });
    expect(img.isError).toBe(true);
    expect(text(img)).toBe("image: Invalid field 'image_base64': must be standard base64");
    const claim = await call('verify_image', { claim: 5, image_base64: png.toString('base64') });
    expect(text(claim)).toBe("image: Invalid field 'claim': must be a string");
    const csv = await call('verify_stats', { query: 'mean(price)' });
    expect(text(csv)).toBe("stats: Invalid field 'csv': is required");
    const status = await call('batch_status', {});
    expect(status.isError).toBe(true);
    expect(text(status)).toMatch(/^batch_status: Invalid field 'job_id'/);
    const wait = await call('batch_submit', { items: [{ query: BARE, type: 'math' }], wait_seconds: 600 });
    expect(text(wait)).toMatch(/^batch_submit: Invalid field 'wait_seconds'/);
    const items = await call('batch_submit', { items: [] });
    expect(text(items)).toMatch(/^batch_submit: HTTP 400: .*items/);
    // An unknown tool is a protocol error, not a tool result.
    const unknown = await client.callTool({ name: 'run_python', arguments: {} }).catch((e) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
  });

  it('batch_status of a job of another organization: the REST 403', async () => {
    const other = await newTenant();
    const submitted = await post(
      '/verify/batch',
      { items: [{ query: BARE, type: 'math' }] },
      { 'x-api-key': other.key },
    );
    const r = await call('batch_status', { job_id: submitted.body.job_id });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^batch_status: HTTP 403: /);
    const missing = await call('batch_status', { job_id: 'bj_does_not_exist' });
    expect(text(missing)).toMatch(/^batch_status: HTTP 404: /);
  });
});

describe('POST /mcp authentication, scopes and plan limits', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('a wrong or missing key is 401 with the usual error body, before any MCP message is read', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const accept = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const wrong = await post('/mcp', init, { ...accept, 'x-api-key': 'svc_live_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ detail: INVALID_KEY, code: 'unauthenticated' });
    expect(wrong.headers.get('www-authenticate')).toBe('ApiKey');
    const missing = await post('/mcp', init, accept);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ detail: MISSING_KEY, code: 'unauthenticated' });
    const jwt = await post('/mcp', init, { ...accept, authorization: `Bearer ${t.token}` });
    expect(jwt.status).toBe(401);
    expect(jwt.body).toMatchObject({ detail: INVALID_KEY });
    const err = await connect({ 'X-API-Key': 'svc_live_wrong' }).catch((e) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(err.code).toBe(401);
  });

  it('Authorization: Bearer svc_live_… is the same key', async () => {
    const { client } = await connect({ Authorization: `Bearer ${t.key}` });
    const r = (await client.callTool({ name: 'verify_math', arguments: { expression: BARE } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ status: 'UNVERIFIABLE', value: 14 });
    expect(text(r)).toBe('math: UNVERIFIABLE');
    await client.close();
    // The hosted prefix: /v1/mcp is the same endpoint.
    const v1 = await connect({ 'X-API-Key': t.key }, `${apiUrl()}/v1`);
    expect((await v1.client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    await v1.client.close();
  });

  it('GET /mcp is 405 (no server stream); an empty POST is 400', async () => {
    const g = await get('/mcp', { 'x-api-key': t.key, accept: 'text/event-stream' });
    expect(g.status).toBe(405);
    expect(g.headers.get('allow')).toBe('POST');
    expect(g.body).toMatchObject({ detail: expect.any(String) });
    const empty = await fetch(`${apiUrl()}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ detail: MCP_BODY_REQUIRED_DETAIL, code: 'invalid_request' });
  });

  it("a key without the tool's scope: the tool is refused with the REST 403, the tools it may use work", async () => {
    const k = await mintKey(t.token, 'attestation only', { scopes: ['attestation:read'] });
    const { client } = await connect({ 'X-API-Key': k.key });
    const refused = (await client.callTool({
      name: 'verify_math',
      arguments: { expression: IDENTITY },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(`math: HTTP 403: ${lacksScope('verify:read')}`);
    const ok = (await client.callTool({
      name: 'attestation_verify',
      arguments: { token: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' },
    })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ valid: false });
    await client.close();
  });

  it("the plan's batch size: a free organization's batch of 11 is the REST 400", async () => {
    const free = await newTenant('free');
    const { client } = await connect({ 'X-API-Key': free.key });
    const items = Array.from({ length: 11 }, () => ({ query: BARE, type: 'math' }));
    const r = (await client.callTool({ name: 'batch_submit', arguments: { items } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toBe("batch_submit: HTTP 400: Batch of 11 items exceeds the free plan's batch size of 10 items.");
    await client.close();
  });

  it("the plan's rate limit: the free plan's 61st call in a minute is the REST 429 (SVC-005), shared with the REST routes", async () => {
    const free = await newTenant('free');
    const { client } = await connect({ 'X-API-Key': free.key });
    let refused: CallToolResult | undefined;
    let answered = 0;
    // Fixed one-minute windows: the 61st call of one window is refused; a window boundary during
    // the loop only delays the refusal, so at most 121 calls.
    for (let i = 0; i < 121 && !refused; i++) {
      const r = (await client.callTool({
        name: 'attestation_verify',
        arguments: { token: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' },
      })) as CallToolResult;
      if (r.isError) refused = r;
      else answered++;
    }
    expect(refused).toBeDefined();
    expect(answered).toBeGreaterThanOrEqual(60);
    expect(text(refused!)).toMatch(
      new RegExp(`^attestation_verify: HTTP 429: ${RATE_LIMIT_MESSAGE} \\(retry after \\d+ s\\)$`),
    );
    const body = JSON.parse(text(refused!, 1));
    expect(body).toMatchObject({ error: { code: 'SVC-005', message: RATE_LIMIT_MESSAGE, details: { limit: 60 } } });
    // The same counters as the REST routes: within the same window, REST is refused too.
    const resetAt = Date.parse(body.error.details.reset_at);
    expect(resetAt).toBeGreaterThan(Date.now() - 5_000);
    const before = Date.now();
    const rest = await post(
      '/attestation/verify',
      { token: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' },
      { 'x-api-key': free.key },
    );
    // Decided by the server's clock between `before` and `after`: refused while the window lasts,
    // answered in the next one, either if the reset fell during the call (not a 1 s guess either way).
    const after = Date.now();
    if (after < resetAt) expect(rest.status).toBe(429);
    else if (before >= resetAt) expect(rest.status).toBe(200);
    else expect([200, 429]).toContain(rest.status);
    await client.close();
  });
});

describe('batch over MCP (extra API: SVC_BATCH_WAIT_SECONDS=0, SVC_BATCH_ITEM_TIMEOUT=3)', () => {
  let t: Member;
  let api: { url: string; release: () => Promise<void> };
  const items = [
    { query: IDENTITY, type: 'math' },
    { query: BARE, type: 'math' },
    { query: HARD_LOGIC, type: 'logic' },
  ];
  beforeAll(async () => {
    t = await newTenant();
    api = await noWaitBatchApi();
  }, 180_000);
  afterAll(() => api?.release());

  it('without a progress token: the job handle at once; batch_status reads it to the end', async () => {
    const { client } = await connect({ 'X-API-Key': t.key }, api.url);
    const started = Date.now();
    const r = (await client.callTool({ name: 'batch_submit', arguments: { items } })) as CallToolResult;
    // The handle, not the job: its logic item alone takes the 3 s item time-out (`running` below says so by state).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.isError, text(r)).toBeFalsy();
    const job = r.structuredContent as any;
    expect(job).toMatchObject({
      job_id: expect.stringMatching(/^bj_/),
      status: 'running',
      total_items: 3,
      completed_at: null,
      workflow_id: expect.any(String),
    });
    expect(text(r)).toMatch(
      new RegExp(`^batch ${job.job_id}: running \\(\\d/3 items, \\d failed\\); read it later with batch_status$`),
    );
    let s: any;
    for (let i = 0; i < 240; i++) {
      const st = (await client.callTool({ name: 'batch_status', arguments: { job_id: job.job_id } })) as CallToolResult;
      s = st.structuredContent;
      if (s.status !== 'running') break;
      await new Promise((res) => setTimeout(res, 250)); // polls for up to 60 s
    }
    expect(s).toMatchObject({
      job_id: job.job_id,
      status: 'completed',
      progress_percent: 100,
      completed_items: 2,
      failed_items: 1,
    });
    const rest = await get(`/verify/batch/${job.job_id}`, { 'x-api-key': t.key });
    expect(stable(s)).toEqual(stable(rest.body));
    await client.close();
  });

  it('with a progress token: progress notifications while it waits, then the finished job', async () => {
    const { client } = await connect({ 'X-API-Key': t.key }, api.url);
    const notes: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = (await client.callTool({ name: 'batch_submit', arguments: { items, wait_seconds: 45 } }, undefined, {
      onprogress: (p) => notes.push(p),
      timeout: 90_000,
    })) as CallToolResult;
    expect(r.isError, text(r)).toBeFalsy();
    const job = r.structuredContent as any;
    expect(job).toMatchObject({ status: 'completed', total_items: 3, completed_items: 2, failed_items: 1 });
    expect(text(r)).toBe(`batch ${job.job_id}: completed (3/3 items, 1 failed)`);
    expect(notes.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < notes.length; i++) expect(notes[i]!.progress).toBeGreaterThan(notes[i - 1]!.progress);
    expect(notes[0]).toMatchObject({
      total: 3,
      message: expect.stringMatching(new RegExp(`^batch ${job.job_id}: running, \\d/3 items$`)),
    });
    expect(notes.at(-1)).toEqual({ progress: 3, total: 3, message: `batch ${job.job_id}: completed, 3/3 items` });
    await client.close();
  });

  it('the job survives the caller going away: abandoned after the first notification, it completes and batch_status reads it', async () => {
    const first = await connect({ 'X-API-Key': t.key }, api.url);
    const abort = new AbortController();
    let jobId: string | undefined;
    const pending = first.client
      .callTool({ name: 'batch_submit', arguments: { items, wait_seconds: 45 } }, undefined, {
        signal: abort.signal,
        onprogress: (p) => {
          jobId ??= /^batch (bj_\S+):/.exec(p.message ?? '')?.[1];
          abort.abort();
        },
      })
      .catch((e) => e);
    const gone = await pending;
    expect(gone).toBeInstanceOf(Error);
    await first.client.close();
    expect(jobId).toMatch(/^bj_/);
    const { client } = await connect({ 'X-API-Key': t.key }, api.url);
    let s: any;
    for (let i = 0; i < 240; i++) {
      s = ((await client.callTool({ name: 'batch_status', arguments: { job_id: jobId } })) as CallToolResult)
        .structuredContent;
      if (s.status !== 'running') break;
      await new Promise((res) => setTimeout(res, 250)); // polls for up to 60 s
    }
    expect(s).toMatchObject({ job_id: jobId, status: 'completed', completed_items: 2, failed_items: 1 });
    await client.close();
  });

  it('svc mcp relays the progress notifications of a batch to its stdio client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SVC_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_BASE_URL: api.url, SVC_API_KEY: t.key },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mcp-stdio-batch', version: '1.0.0' });
    await client.connect(transport);
    try {
      const notes: Array<{ progress: number; total?: number; message?: string }> = [];
      const r = (await client.callTool({ name: 'batch_submit', arguments: { items, wait_seconds: 45 } }, undefined, {
        onprogress: (p) => notes.push(p),
        timeout: 90_000,
      })) as CallToolResult;
      expect(r.isError, text(r)).toBeFalsy();
      const job = r.structuredContent as any;
      expect(job).toMatchObject({ status: 'completed', completed_items: 2, failed_items: 1 });
      expect(notes.length).toBeGreaterThanOrEqual(2);
      expect(notes.at(-1)).toEqual({ progress: 3, total: 3, message: `batch ${job.job_id}: completed, 3/3 items` });
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('svc mcp (stdio, forwarding to /mcp)', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('lists the remote tools and calls one over stdio', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SVC_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_BASE_URL: apiUrl(), SVC_API_KEY: t.key },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'svc-verification', version: '7.3.0' });
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
      const r = (await client.callTool({ name: 'verify_math', arguments: { expression: IDENTITY } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 'VERIFIED', proof_ref: expect.stringMatching(SHA) });
      expect(text(r)).toMatch(/^math: VERIFIED \(proof sha256:/);
      const bad = (await client.callTool({ name: 'verify_math', arguments: {} })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/^math: HTTP 400: .*expression/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a wrong key: exit 77 and the reason on stderr; no key: usage error 64', async () => {
    const wrong = await svc(['mcp'], { env: { SVC_API_KEY: 'svc_live_wrong' } });
    expect(wrong.code).toBe(77);
    expect(wrong.stderr).toContain('svc mcp: the service refused the API key (HTTP 401)');
    expect(wrong.stdout).toBe('');
    const none = await svc(['mcp'], { env: { SVC_CONFIG_DIR: '/nonexistent-svc-config' } });
    expect(none.code).toBe(64);
    expect(none.stderr).toContain('svc mcp needs an API key');
  }, 60_000);
});
