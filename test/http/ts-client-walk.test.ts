// Issue 23, item 3 for our own clients: every public method of the typed client (client/,
// SvcClient), listed by introspection so that a new method without a row fails here, is called
// against the test stack with only its required arguments (the client's defaults for the rest)
// and its outcome asserted; the CLI's every command and verify kind likewise (test at the end).
// The same walk of the reference's Python client: test/http/reference-client.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient, SvcApiError } from '../../client/index.js';
import { VERIFY_KINDS } from '../../client/cli/main.js';
import { apiUrl, newTenant, randomIp, stackEnv, PASSWORD, uniqueEmail, type Member } from './helpers.js';
import { svc as runSvc } from './cli-run.js';

const SHA = /^sha256:[0-9a-f]{64}$/;
const CSV = 'name,price\napple,10\npear,15\nplum,12.5\n';
let t: Member;
let c: SvcClient;
let png: Buffer;
/** Values one call leaves for a later one (ids, tokens, documents). */
const s: Record<string, any> = {};

/** The error a call threw, as status and detail (a verdict is never thrown). */
async function refusal(p: Promise<unknown>): Promise<{ status: number; detail: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SvcApiError) return { status: err.status, detail: err.detail };
    throw err;
  }
  throw new Error('expected the call to be refused');
}

beforeAll(async () => {
  t = await newTenant('enterprise');
  c = new SvcClient({ baseUrl: apiUrl(), apiKey: t.key, accessToken: t.token });
  png = await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 200, g: 0, b: 0 } } })
    .png()
    .toBuffer();
});

/** A client without credentials, from an address of its own (the anonymous /auth/* limit is per address; the stack trusts the loopback proxy). */
const anonymous = () => {
  const ip = randomIp();
  return new SvcClient({
    baseUrl: apiUrl(),
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-forwarded-for': ip },
      }),
  });
};

/** One row per public method, in call order; each calls with required arguments only and asserts. */
const CALLS: Array<[string, () => Promise<void>]> = [
  ['health', async () => expect(await c.health()).toMatchObject({ status: 'healthy', version: '7.3.0' })],
  [
    'healthIdentity',
    async () => expect((await c.healthIdentity('walk-nonce')).identity.jwt_hmac).toMatch(/^[0-9a-f]{64}$/),
  ],
  [
    'verifyMath',
    async () => {
      const r: any = await c.verifyMath('2 + 2 = 4');
      expect(r).toMatchObject({ status: 'VERIFIED', is_valid: true });
      expect(r.proof_ref).toMatch(SHA);
      s.attestationId = r.attestation.id;
      s.attestationToken = r.attestation.token;
    },
  ],
  [
    'verifyLogic',
    async () =>
      expect(await c.verifyLogic('(AND (GT x 5) (LT x 10))')).toMatchObject({ status: 'SAT', model: { x: '6' } }),
  ],
  [
    'verifyCode',
    async () =>
      expect(await c.verifyCode('print(sum([1, 2, 3]))')).toMatchObject({
        admission: 'ADMIT',
        developer_fields: { language: 'python', is_safe: true },
      }),
  ],
  [
    'verifySql',
    async () =>
      expect(await c.verifySql('SELECT a FROM t', 'CREATE TABLE t (a INTEGER)')).toMatchObject({
        admission: 'ADMIT',
        developer_fields: { constraint_id: 'sql_verifier.sql_valid', is_valid: true },
      }),
  ],
  [
    'verifyFact',
    async () =>
      expect(await c.verifyFact('Paris is the capital of France.', 'Paris is the capital of France.')).toMatchObject({
        verdict: 'SUPPORTED',
      }),
  ],
  [
    'verifyConsensus',
    async () =>
      expect(await c.verifyConsensus('2 + 2 = 4')).toMatchObject({
        status: 'VERIFIED',
        meets_requirement: true,
        verification_mode: 'single',
        min_confidence: 0.95,
      }),
  ],
  [
    'verifyNaturalLanguage',
    async () =>
      expect(await c.verifyNaturalLanguage('What is 15% of 240?')).toMatchObject({
        status: 'INCONCLUSIVE',
        final_answer: 36,
      }),
  ],
  [
    'verifyImage',
    async () =>
      expect(await c.verifyImage({ data: png, filename: 'red.png' }, 'The image is 4x3 pixels')).toMatchObject({
        verdict: 'SUPPORTED',
        measurements: { width: 4, height: 3 },
      }),
  ],
  [
    'verifyStats',
    async () =>
      expect(await c.verifyStats({ data: Buffer.from(CSV), filename: 'prices.csv' }, 'mean(price)')).toMatchObject({
        status: 'UNVERIFIABLE',
        developer_fields: { observed_result: 12.5 },
      }),
  ],
  [
    'verifyProcess',
    async () =>
      expect(
        await c.verifyProcess({
          trace:
            'Issue: is the contract valid? Rule: offer and acceptance. Application: both were given. Conclusion: it is valid.',
        }),
      ).toMatchObject({ verified: true }),
  ],
  [
    'verifyRag',
    async () =>
      expect(
        await c.verifyRag({ target_document_id: 'd1', chunks: [{ id: 'c1', metadata: { document_id: 'd1' } }] }),
      ).toMatchObject({ verified: true }),
  ],
  [
    'submitBatch',
    async () => {
      s.job = await c.submitBatch([{ query: '2 + 2 = 4', type: 'math' }]);
      expect(s.job.job_id).toMatch(/^bj_/);
    },
  ],
  [
    'waitForBatch',
    async () => {
      s.job = await c.waitForBatch(s.job);
      expect(s.job).toMatchObject({ status: 'completed', total_items: 1, completed_items: 1 });
    },
  ],
  [
    'getBatch',
    async () => expect(await c.getBatch(s.job.job_id)).toMatchObject({ job_id: s.job.job_id, status: 'completed' }),
  ],
  [
    'signup',
    async () => {
      s.email = uniqueEmail('walk');
      const r = await anonymous().signup({ email: s.email, password: PASSWORD, organization_name: 'Walk Ltd' });
      expect(r).toMatchObject({ token_type: 'bearer', user: { email: s.email, role: 'owner' } });
    },
  ],
  [
    'signin',
    async () =>
      expect(await anonymous().signin({ email: s.email, password: PASSWORD })).toMatchObject({
        token_type: 'bearer',
        user: { email: s.email },
      }),
  ],
  [
    'me',
    async () =>
      expect(await c.me()).toMatchObject({
        id: t.userId,
        org_id: t.orgId,
        organization: { id: t.orgId, plan: 'enterprise' },
      }),
  ],
  [
    'createKey',
    async () => {
      s.key = await c.createKey({ name: 'walk' });
      expect(s.key).toMatchObject({ name: 'walk' });
      expect(s.key.key).toMatch(/^svc_live_/);
    },
  ],
  ['listKeys', async () => expect(JSON.stringify(await c.listKeys())).toContain(s.key.id)],
  [
    'rotateKey',
    async () => {
      s.rotated = await c.rotateKey(s.key.id);
      expect(s.rotated).toMatchObject({ old_key_id: s.key.id, name: 'walk' });
      expect(s.rotated.new_key_secret).toMatch(/^svc_live_/);
    },
  ],
  [
    'revokeKey',
    async () => {
      expect(await c.revokeKey(s.rotated.key_id)).toBeTypeOf('object');
      expect(JSON.stringify(await c.listKeys())).not.toContain(s.rotated.key_id);
    },
  ],
  [
    'auditLogs',
    async () => {
      const r: any = await c.auditLogs();
      expect(r.logs.length).toBeGreaterThan(0);
      s.logId = r.logs[0].id;
    },
  ],
  ['auditLog', async () => expect(await c.auditLog(s.logId)).toMatchObject({ id: s.logId, organization_id: t.orgId })],
  ['auditExport', async () => expect(await c.auditExport()).toMatch(/^id,seq,timestamp,organization_id,[a-z_,]+\r\n/)],
  [
    'complianceCsv',
    async () => expect(await c.complianceCsv()).toMatch(/^id,seq,timestamp,organization_id,[a-z_,]+\r\n/),
  ],
  ['complianceVerify', async () => expect(await c.complianceVerify(s.logId)).toMatchObject({ valid: true })],
  ['soc2Report', async () => expect(await c.soc2Report(t.orgId)).toBeTypeOf('object')],
  ['threatSummary', async () => expect(await c.threatSummary(t.orgId)).toBeTypeOf('object')],
  [
    'registerAgent',
    async () => {
      s.agent = await c.registerAgent({ name: 'walker' });
      expect(s.agent).toMatchObject({
        name: 'walker',
        agent_type: 'assistant',
        status: 'active',
        max_requests_per_hour: 100,
      });
    },
  ],
  [
    'agentVerify',
    async () =>
      expect(
        await c.agentVerify(s.agent.id, s.agent.agent_token, {
          query: '2 + 2 = 4',
          context: { conversation_id: 'walk', step_number: 1 },
        }),
      ).toMatchObject({ verification: { engine: 'math' } }),
  ],
  [
    'agentTool',
    async () =>
      expect(
        await c.agentTool(s.agent.id, 'read_file', s.agent.agent_token, { arguments: { path: 'README.md' } }),
      ).toBeTypeOf('object'),
  ],
  [
    'agentActivity',
    async () => expect((await c.agentActivity(s.agent.id, s.agent.agent_token)).items.length).toBeGreaterThan(0),
  ],
  [
    'agentBudget',
    async () =>
      expect(await c.agentBudget(s.agent.id, s.agent.agent_token)).toMatchObject({ requests: { max_per_hour: 100 } }),
  ],
  // No tool definition was ever pinned for this agent: the 404 that names it.
  [
    'approveToolDefinition',
    async () =>
      expect(
        await refusal(
          c.approveToolDefinition(s.agent.id, 'read_file', { definition_hash: 'sha256:' + '0'.repeat(64) }),
        ),
      ).toEqual({ status: 404, detail: "No pinned definition for tool 'read_file'." }),
  ],
  ['deleteAgent', async () => expect(await c.deleteAgent(s.agent.id)).toMatchObject({ status: 'revoked' })],
  [
    'getAttestation',
    async () => expect(await c.getAttestation(s.attestationId)).toMatchObject({ id: s.attestationId }),
  ],
  [
    'verifyAttestation',
    async () => expect(await c.verifyAttestation({ token: s.attestationToken })).toMatchObject({ valid: true }),
  ],
  ['jwks', async () => expect((await c.jwks()).keys.length).toBeGreaterThan(0)],
  [
    'contextFromDiagnostic',
    async () => {
      s.doc = await c.contextFromDiagnostic({
        query: 'SELECT 1',
        verifier: 'sql',
        diagnostic: { status: 'UNVERIFIABLE', agent_message: 'not proven', developer_fields: {}, proof_ref: null },
      });
      expect(s.doc).toMatchObject({ verdict: 'UNVERIFIABLE', context: { decision: { admission: 'DENY' } } });
    },
  ],
  ['validateContext', async () => expect(await c.validateContext(s.doc)).toEqual({ valid: true })],
  [
    'resolveContext',
    async () =>
      expect(await c.resolveContext(s.doc)).toEqual({
        resolved: false,
        reason: 'verdict_not_verified',
        issued_here: false,
        issued_here_reason: 'not_resolved',
      }),
  ],
  // Gates on resolved && issued_here: an UNVERIFIABLE document is never trusted.
  ['trustContext', async () => expect(await c.trustContext(s.doc)).toBe(false)],
  // Platform operators only: a tenant's key is refused.
  ['metrics', async () => expect(await refusal(c.metrics())).toMatchObject({ status: 403 })],
  ['prometheusMetrics', async () => expect(await refusal(c.prometheusMetrics())).toMatchObject({ status: 403 })],
  ['orgMetrics', async () => expect(await c.orgMetrics(t.orgId)).toBeTypeOf('object')],
  ['logs', async () => expect((await c.logs()) as any).toHaveProperty('logs')],
  ['badge', async () => expect(await c.badge('engine', 'math')).toMatch(/^<svg/)],
  [
    'a2aIntercept',
    async () => {
      const [a2aKey] = Object.keys(JSON.parse(stackEnv().SVC_A2A_API_KEYS as string));
      const gw = new SvcClient({ baseUrl: apiUrl(), apiKey: a2aKey });
      s.a2a = await gw.a2aIntercept({
        receiver_agent_id: 'walk-b',
        payload_type: 'logic_assertion',
        payload: { query: '(AND (GT x 5) (LT x 10))' },
      });
      expect(s.a2a.audit_trace_id).toMatch(/^a2a_[0-9a-f]{32}$/);
      s.gw = gw;
    },
  ],
  [
    'a2aTrace',
    async () =>
      expect(await s.gw.a2aTrace(s.a2a.audit_trace_id)).toMatchObject({ audit_trace_id: s.a2a.audit_trace_id }),
  ],
  // Without the scanner partner's signing key the contract's answer is the 401.
  [
    'secretScanningReport',
    async () =>
      expect(await refusal(c.secretScanningReport('[]', {}))).toEqual({
        status: 401,
        detail: 'invalid webhook signature',
      }),
  ],
  ['request', async () => expect(await c.request('GET', '/health')).toMatchObject({ status: 'healthy' })],
];

describe('typed client (SvcClient): every public method, defaults only', () => {
  it('every public method has a row (listed by introspection)', () => {
    const methods = Object.getOwnPropertyNames(SvcClient.prototype).filter(
      (m) => m !== 'constructor' && typeof (SvcClient.prototype as any)[m] === 'function',
    );
    expect(methods.filter((m) => !CALLS.some(([n]) => n === m))).toEqual([]);
    expect(CALLS.map(([n]) => n).filter((n) => !methods.includes(n))).toEqual([]);
    console.info(`typed client walk: ${methods.length} methods`);
  });
  it.each(CALLS)('%s', async (_name, call) => call(), 60_000);
});

// ---- the CLI ----
/** The CLI as its own process (test/http/cli-run.ts), with only the environment given. */
const svc = (args: string[], env: Record<string, string> = {}) => runSvc(args, { env });

describe('CLI: every command and verify kind, defaults only', () => {
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-walk-'));
    writeFileSync(join(dir, 'code.py'), 'print(sum([1, 2, 3]))\n');
    writeFileSync(join(dir, 'query.sql'), 'SELECT a FROM t');
    writeFileSync(join(dir, 'prices.csv'), CSV);
    writeFileSync(
      join(dir, 'red.png'),
      await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 200, g: 0, b: 0 } } })
        .png()
        .toBuffer(),
    );
    writeFileSync(
      join(dir, 'trace.txt'),
      'Issue: is the contract valid? Rule: offer and acceptance. Application: both were given. Conclusion: it is valid.',
    );
    writeFileSync(
      join(dir, 'rag.json'),
      JSON.stringify({ target_document_id: 'd1', chunks: [{ id: 'c1', metadata: { document_id: 'd1' } }] }),
    );
    writeFileSync(join(dir, 'items.jsonl'), '{"query": "2 + 2 = 4", "type": "math"}\n');
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Each verify kind with only its required input; the exit code is the outcome (docs/cli.md). */
  const KINDS: Record<string, [args: () => string[], exit: number, json: Record<string, unknown>]> = {
    math: [() => ['2 + 2 = 4'], 0, { status: 'VERIFIED' }],
    logic: [() => ['(AND (GT x 5) (LT x 10))'], 0, { status: 'SAT' }],
    code: [() => [join(dir, 'code.py')], 0, { admission: 'ADMIT' }],
    sql: [() => [join(dir, 'query.sql'), '--schema-ddl', 'CREATE TABLE t (a INTEGER)'], 0, { admission: 'ADMIT' }],
    fact: [
      () => ['Paris is the capital of France.', '--context', 'Paris is the capital of France.'],
      0,
      { verdict: 'SUPPORTED' },
    ],
    stats: [() => [join(dir, 'prices.csv'), 'mean(price)'], 1, { status: 'UNVERIFIABLE' }],
    consensus: [() => ['2 + 2 = 4'], 0, { meets_requirement: true }],
    natural_language: [() => ['What is 15% of 240?'], 1, { status: 'INCONCLUSIVE' }],
    image: [() => [join(dir, 'red.png'), 'The image is 4x3 pixels'], 0, { verdict: 'SUPPORTED' }],
    process: [() => [join(dir, 'trace.txt')], 0, { verified: true }],
    rag: [() => [join(dir, 'rag.json')], 0, { verified: true }],
  };
  it('every verify kind has a row', () => {
    expect([...VERIFY_KINDS].sort()).toEqual(Object.keys(KINDS).sort());
  });
  it.each(Object.keys(KINDS))(
    'svc verify %s',
    async (kind) => {
      const [args, exit, json] = KINDS[kind];
      const r = await svc(['verify', kind, ...args(), '--json'], { SVC_API_KEY: t.key });
      expect(r.code, r.stderr).toBe(exit);
      expect(JSON.parse(r.stdout)).toMatchObject(json);
    },
    60_000,
  );
  it('svc batch, svc keys create/list/revoke, svc health', async () => {
    const b = await svc(['batch', join(dir, 'items.jsonl')], { SVC_API_KEY: t.key });
    expect(b.code, b.stderr).toBe(0);
    const created = await svc(['keys', 'create', 'cli-walk', '--json'], { SVC_ACCESS_TOKEN: t.token });
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const listed = await svc(['keys', 'list', '--json'], { SVC_ACCESS_TOKEN: t.token });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect((await svc(['keys', 'revoke', id], { SVC_ACCESS_TOKEN: t.token })).code).toBe(0);
    const h = await svc(['health', '--json']);
    expect(h.code).toBe(0);
    expect(JSON.parse(h.stdout)).toMatchObject({ status: 'healthy' });
  }, 120_000);
});
