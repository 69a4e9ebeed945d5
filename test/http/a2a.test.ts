// Black-box tests of the agent-to-agent gateway, POST /a2a/intercept (docs/a2a-gateway.md).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { connect } from 'node:net';
import { createPublicKey } from 'node:crypto';
import { jwtVerify, decodeProtectedHeader } from 'jose';
import { apiUrl, db, get, post, stackEnv } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { noSigningKeyApi } from './shared-apis.js';
import type { ManagedProcess } from '../../infra/stack.js';

let KEY: string;
let AGENT: string;
const key = (k = KEY) => ({ 'x-api-key': k });
const intercept = (body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  post('/a2a/intercept', body, headers);
const msg = (payload_type: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  sender_agent_id: 'agent-sender',
  receiver_agent_id: 'agent-receiver',
  payload_type,
  payload,
  ...extra,
});
const FIN = { amount: '10.50', currency: 'USD', balance_before: '100.00', balance_after: '89.25', fee: '0.25' };

async function verifyJwt(token: string) {
  const pem = stackEnv().SVC_A2A_SIGNING_KEY_PEM as string;
  return jwtVerify(token, createPublicKey(pem.replace(/\\n/g, '\n')), { algorithms: ['ES256'] });
}

beforeAll(() => {
  const keys = JSON.parse(stackEnv().SVC_A2A_API_KEYS as string) as Record<string, string>;
  [KEY, AGENT] = Object.entries(keys)[0] as [string, string];
});

describe('authentication', () => {
  it('401 for a missing or unknown key', async () => {
    const r1 = await intercept(msg('general', {}), {});
    expect(r1.status).toBe(401);
    expect(r1.body).toEqual({
      detail: 'Missing gateway key: send it in the X-API-Key header.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    const r2 = await intercept(msg('general', {}), key('svc_test_not_a_configured_gateway_key'));
    expect(r2.status).toBe(401);
    expect(r2.body).toEqual({
      detail: 'Invalid gateway key.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('the key selects the sender, whatever sender_agent_id says', async () => {
    const r = await intercept(msg('financial_transaction', FIN, { sender_agent_id: 'mallory' }));
    expect(r.status).toBe(200);
    expect(r.body.sender_agent_id).toBe(AGENT);
    const { payload } = await verifyJwt(r.body.attestation_jwt);
    expect((payload as any).svc_a2a).toMatchObject({ sender_agent_id: AGENT, claimed_sender_agent_id: 'mallory' });
  });
});

describe('payload routing', () => {
  it('financial_transaction: exact decimal checks give a signed, admissible verified verdict', async () => {
    const r = await intercept(msg('financial_transaction', FIN));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'verified',
      engine_used: 'decimal',
      admissible: true,
      receiver_agent_id: 'agent-receiver',
      payload_type: 'financial_transaction',
    });
    expect(r.body.audit_trace_id).toMatch(/^a2a_[0-9a-f]{32}$/);
    expect(r.body.reason).toMatch(/balance_after = balance_before - amount - fee/);
    const header = decodeProtectedHeader(r.body.attestation_jwt);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'svc-a2a-verdict+jwt' });
    const { payload } = await verifyJwt(r.body.attestation_jwt);
    expect(payload.iss).toBe(stackEnv().SVC_A2A_DEPLOYMENT_ID ?? 'svc-local');
    expect(payload.sub).toBe(r.body.audit_trace_id);
    expect((payload as any).svc_a2a).toMatchObject({
      status: 'verified',
      admissible: true,
      engine_used: 'decimal',
      deployment_id: payload.iss,
    });
    expect((payload as any).svc_a2a.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('financial_transaction: numbers are exact decimals (0.3 - 0.1 - 0.2 = 0)', async () => {
    const r = await intercept(
      msg('financial_transaction', {
        amount: 0.1,
        fee: 0.2,
        currency: 'EUR',
        balance_before: 0.3,
        balance_after: 0,
        memo: 'extra fields are accepted',
      }),
    );
    expect(r.body.status).toBe('verified');
  });

  const blocked: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a balance that does not add up', { ...FIN, balance_after: '89.26' }, /^balance_mismatch/],
    ['a negative amount', { ...FIN, amount: '-10.50', balance_after: '110.75' }, /^negative_amount/],
    ['an unknown currency', { ...FIN, currency: 'XYZ' }, /^invalid_currency/],
    ['a lower-case currency', { ...FIN, currency: 'usd' }, /^invalid_currency/],
    [
      'more decimals than the currency has',
      { amount: '10.5', currency: 'JPY', balance_before: '100', balance_after: '89.5' },
      /^precision_exceeds_minor_unit/,
    ],
    ['an amount that is not a decimal', { ...FIN, amount: '1e3' }, /^invalid_amount/],
  ];
  for (const [name, payload, reason] of blocked) {
    it(`financial_transaction blocked: ${name}`, async () => {
      const r = await intercept(msg('financial_transaction', payload));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'blocked', admissible: false, engine_used: 'decimal' });
      expect(r.body.reason).toMatch(reason);
      const { payload: claims } = await verifyJwt(r.body.attestation_jwt);
      expect((claims as any).svc_a2a).toMatchObject({ status: 'blocked', admissible: false });
    });
  }

  it('code_execution: the code engine verifies safe code and blocks unsafe code', async () => {
    const safe = await intercept(
      msg(
        'code_execution',
        { code: 'def add(a, b):\n    return a + b\n', language: 'python' },
        { engine_timeout_seconds: 30 },
      ),
    );
    expect(safe.body, JSON.stringify(safe.body)).toMatchObject({
      status: 'verified',
      engine_used: 'code',
      admissible: true,
    });
    const unsafe = await intercept(
      msg(
        'code_execution',
        { code: 'import os\nos.system("rm -rf /")\n', language: 'python' },
        { engine_timeout_seconds: 30 },
      ),
    );
    expect(unsafe.body).toMatchObject({ status: 'blocked', engine_used: 'code', admissible: false });
    expect(unsafe.body.reason).toMatch(/^code_unsafe/);
  });

  it('code_execution over 256 KiB is blocked before any engine runs', async () => {
    const code = `x = 1\n${'# padding line\n'.repeat(Math.ceil((256 * 1024) / 15) + 10)}`;
    const r = await intercept(msg('code_execution', { code, language: 'python' }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'blocked', engine_used: 'code' });
    expect(r.body.reason).toMatch(/^code_size_limit/);
  });

  // Issue 28 item 10: this row used to expect a satisfiable assertion to be `verified`
  // (Z3 chose x = 6); satisfiable is not true, so it is now unverifiable without facts.
  it('logic_assertion: verified only when the facts entail it; satisfiable alone is unverifiable; unsatisfiable is blocked', async () => {
    const sat = await intercept(
      msg('logic_assertion', { query: '(AND (GT x 5) (LT x 7))' }, { engine_timeout_seconds: 20 }),
    );
    expect(sat.body, JSON.stringify(sat.body)).toMatchObject({
      status: 'unverifiable',
      engine_used: 'z3',
      admissible: false,
    });
    const entailed = await intercept(
      msg('logic_assertion', { query: '(AND (GT x 5) (LT x 7))', facts: { x: 6 } }, { engine_timeout_seconds: 20 }),
    );
    expect(entailed.body, JSON.stringify(entailed.body)).toMatchObject({
      status: 'verified',
      engine_used: 'z3',
      admissible: true,
    });
    const unsat = await intercept(
      msg('logic_assertion', { query: '(AND (GT x 5) (LT x 3))' }, { engine_timeout_seconds: 20 }),
    );
    expect(unsat.body).toMatchObject({ status: 'blocked', engine_used: 'z3', admissible: false });
  });

  it('serves /v1/a2a/intercept too', async () => {
    const r = await post('/v1/a2a/intercept', msg('financial_transaction', FIN), key());
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('verified');
  });

  it('general and data_query pass through as unverifiable, without attestation', async () => {
    for (const t of ['general', 'data_query']) {
      const r = await intercept(msg(t, { text: 'hello', query: 'SELECT 1' }));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'unverifiable',
        engine_used: 'passthrough',
        attestation_jwt: null,
        admissible: false,
      });
    }
  });

  it('engine_timeout_seconds bounds the engine: error / engine_timeout', async () => {
    // The gateway solves facts ∧ ¬assertion, so the hard instance is the negation of this assertion.
    const hard =
      '(VAR x Int) (VAR y Int) (VAR z Int) (NOT (AND (EQ (PLUS (MULT x x x) (MULT y y y) (MULT z z z)) 33) (GT x 1000)))';
    const r = await intercept(msg('logic_assertion', { query: hard }, { engine_timeout_seconds: 0.5 }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'error', reason: 'engine_timeout', admissible: false });
  });
});

describe('limits and bad input', () => {
  it('an oversized payload is blocked / size_limit; a body over the limit is 413', async () => {
    const max = Number(stackEnv().SVC_A2A_MAX_PAYLOAD_BYTES ?? 524288);
    const big = await intercept(msg('general', { text: 'x'.repeat(max + 100) }));
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ status: 'blocked', engine_used: 'none' });
    expect(big.body.reason).toMatch(/^size_limit/);
    const huge = await intercept(msg('general', { text: 'x'.repeat(max + 70 * 1024) }));
    expect(huge.status).toBe(413);
    expect(huge.body.detail).toBe(`Request body exceeds the ${max + 65536} byte limit for this endpoint.`);
  });

  it('an invalid Content-Length is 400', async () => {
    const url = new URL(apiUrl());
    const status = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(url.port), url.hostname, () => {
        s.write(
          `POST /a2a/intercept HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 12abc\r\n\r\n{}`,
        );
      });
      let data = '';
      s.on('data', (d) => {
        data += d.toString();
        if (data.includes('\r\n')) {
          resolve(data.split('\r\n')[0] as string);
          s.destroy();
        }
      });
      s.on('error', reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 400/);
  });

  it('validates the request: payload_type, payload, receiver, engine_timeout_seconds', async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [msg('telepathy', {}), /payload_type/],
      [{ ...msg('general', {}), payload: 'x' }, /payload/],
      [{ payload_type: 'general', payload: {} }, /receiver_agent_id/],
      [msg('general', {}, { engine_timeout_seconds: 0 }), /engine_timeout_seconds/],
      [msg('general', {}, { engine_timeout_seconds: 60.5 }), /engine_timeout_seconds/],
      [msg('general', {}, { engine_timeout_seconds: -1 }), /engine_timeout_seconds/],
      [msg('general', {}, { engine_timeout_seconds: '5' }), /engine_timeout_seconds/],
    ];
    for (const [body, detail] of bad) {
      const r = await intercept(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.detail).toMatch(detail);
    }
    expect((await intercept(msg('general', {}, { engine_timeout_seconds: 60 }))).status).toBe(200);
    const malformed = await fetch(`${apiUrl()}/a2a/intercept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key() },
      body: '{"a":',
    });
    expect(malformed.status).toBe(400);
  });
});

describe('audit trace', () => {
  it('audit_trace_id finds the message, its workflow and its audit entry', async () => {
    const r = await intercept(msg('financial_transaction', FIN));
    const hex = r.body.audit_trace_id.slice(4);
    expect(r.headers.get('x-workflow-id')).toBe(`a2a-intercept-${hex}`);
    const t = await get(`/a2a/trace/${r.body.audit_trace_id}`, key());
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({
      audit_trace_id: r.body.audit_trace_id,
      workflow_id: `a2a-intercept-${hex}`,
      audit_log_id: r.body.audit_log_id,
      status: 'verified',
      sender_agent_id: AGENT,
    });
    const entry = await (await db()).collection('audit_logs').findOne({ _id: r.body.audit_log_id });
    expect(entry).toMatchObject({ organization_id: 'a2a_gateway', domain: 'a2a', verified: true });
    expect(entry!.result).toMatchObject({ status: 'VERIFIED', workflow_id: `a2a-intercept-${hex}`, key_id: AGENT });
    expect((await get(`/a2a/trace/a2a_${'0'.repeat(32)}`, key())).status).toBe(404);
    expect(
      (await get(`/a2a/trace/${r.body.audit_trace_id}`, key('svc_test_not_a_configured_gateway_key'))).status,
    ).toBe(401);
  });
});

describe('fail closed', () => {
  const procs: ManagedProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('with no keys configured every request is 401', async () => {
    const { proc, url } = await startExtraApi('api-a2a-nokeys', { SVC_A2A_API_KEYS: undefined });
    procs.push(proc);
    const res = await fetch(`${url}/a2a/intercept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key() },
      body: JSON.stringify(msg('general', {})),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      detail: 'The A2A gateway has no keys configured (SVC_A2A_API_KEYS): every request is denied.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  }, 180_000);

  it('without the signing key no verdict is verified', async () => {
    // A worker without SVC_A2A_SIGNING_KEY_PEM (shared with the other no-signing-key rows).
    const { url, release } = await noSigningKeyApi();
    onTestFinished(release);
    const res = await fetch(`${url}/a2a/intercept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key() },
      body: JSON.stringify(msg('financial_transaction', FIN)),
    });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: 'error', admissible: false, attestation_jwt: null });
    expect(body.reason).toMatch(/^attestation_unavailable/);
    const blockedRes = await fetch(`${url}/a2a/intercept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...key() },
      body: JSON.stringify(msg('financial_transaction', { ...FIN, balance_after: '1' })),
    });
    expect(await blockedRes.json()).toMatchObject({ status: 'blocked', attestation_jwt: null });
  }, 300_000);
});
