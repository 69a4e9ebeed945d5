// Black-box rows of issue 27 point 1: every surface that shows a verdict of admission-bearing
// content (code, SQL, agent and gateway decisions) tells the admission, signed beside the
// status; proven-unsafe content is never shown as admissible (docs/attestations.md).
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicKey } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import { db, get, newTenant, post, stackEnv, type Member } from './helpers.js';
import { svc } from './cli-run.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';

const UNSAFE_PY = 'import os\nos.system("rm -rf " + input())\n';
const SAFE_PY = 'def add(a, b):\n    return a + b\n';
const DDL = 'CREATE TABLE t (id INT);';

let t: Member;
const key = () => ({ 'x-api-key': t.key });
const issuer = () => stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local';
const signer = async () =>
  new AttestationSigner(await loadSigningKey(stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string), issuer());

/** The fill of the message half of a flat badge, and its visible texts. */
const messageColor = (svg: string) => /<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]+)"\/>/.exec(svg)?.[1];
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);

/** Every surface of one attestation: the token's claims, GET /attestation/{id}, /attestation/verify and the badge. */
async function surfaces(att: { id: string; token: string }) {
  const claims = decodeJwt(att.token) as any;
  const stored = await get(`/attestation/${att.id}`, key());
  const verified = await post('/attestation/verify', { token: att.token }, key());
  const badge = await get(`/badge/attestation/${att.id}`);
  expect(stored.status).toBe(200);
  expect(verified.status).toBe(200);
  expect(badge.status).toBe(200);
  return {
    claims,
    stored: stored.body,
    verified: verified.body,
    badge: { texts: texts(badge.text), color: messageColor(badge.text) },
  };
}

beforeAll(async () => {
  t = await newTenant('enterprise');
});

describe('code: proven unsafe is BLOCKED on every surface', () => {
  it('the token signs admission BLOCKED beside status VERIFIED; look-up, verify and badge say blocked (red)', async () => {
    const r = await post('/verify/code', { code: UNSAFE_PY, language: 'python' }, key());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'VERIFIED', admission: 'BLOCKED', developer_fields: { is_valid: false } });
    const s = await surfaces(r.body.attestation);
    expect(s.claims.svc.result).toEqual({
      status: 'VERIFIED',
      verified: true,
      engine: 'code',
      confidence: 1,
      admission: 'BLOCKED',
    });
    expect(s.stored).toMatchObject({
      id: r.body.attestation.id,
      admission: 'BLOCKED',
      engine: 'code',
      verification: { valid: true },
    });
    expect(s.verified).toMatchObject({
      valid: true,
      admission: 'BLOCKED',
      claims: { svc: { result: { admission: 'BLOCKED' } } },
    });
    expect(s.badge.texts).toEqual(expect.arrayContaining(['attestation', 'blocked']));
    expect(s.badge.texts).not.toContain('verified');
    expect(s.badge.color).toBe('#dd4343'); // red
  });

  it('safe code: admission ADMIT on every surface, an "admitted" green badge', async () => {
    const r = await post('/verify/code', { code: SAFE_PY, language: 'python' }, key());
    expect(r.body).toMatchObject({ status: 'VERIFIED', admission: 'ADMIT' });
    const s = await surfaces(r.body.attestation);
    expect(s.claims.svc.result).toMatchObject({ status: 'VERIFIED', admission: 'ADMIT' });
    expect(s.stored.admission).toBe('ADMIT');
    expect(s.verified).toMatchObject({ valid: true, admission: 'ADMIT' });
    expect(s.badge.texts).toContain('admitted');
    expect(s.badge.color).toBe('#4b0'); // brightgreen
  });
});

describe('SQL', () => {
  it('a proven schema violation signs BLOCKED; a resolved query signs ADMIT', async () => {
    const bad = await post('/verify/sql', { query: 'SELECT nope FROM t', schema_ddl: DDL, dialect: 'sqlite' }, key());
    expect(bad.body).toMatchObject({ status: 'VERIFIED', admission: 'BLOCKED' });
    const b = await surfaces(bad.body.attestation);
    expect(b.claims.svc.result).toMatchObject({ engine: 'sql', status: 'VERIFIED', admission: 'BLOCKED' });
    expect([b.stored.admission, b.verified.admission]).toEqual(['BLOCKED', 'BLOCKED']);
    expect(b.badge.texts).toContain('blocked');
    const good = await post('/verify/sql', { query: 'SELECT id FROM t', schema_ddl: DDL, dialect: 'sqlite' }, key());
    expect(good.body).toMatchObject({ status: 'VERIFIED', admission: 'ADMIT' });
    const g = await surfaces(good.body.attestation);
    expect([g.claims.svc.result.admission, g.stored.admission, g.verified.admission]).toEqual([
      'ADMIT',
      'ADMIT',
      'ADMIT',
    ]);
  });
});

describe('results without admission, and older tokens', () => {
  it('math signs no admission: admission null, a "verified" badge', async () => {
    const r = await post('/verify/math', { expression: '(q+1)^2 = q^2 + 2*q + 1' }, key());
    const s = await surfaces(r.body.attestation);
    expect('admission' in s.claims.svc.result).toBe(false);
    expect(s.stored.admission).toBeNull();
    expect(s.verified).toMatchObject({ valid: true, admission: null });
    expect(s.badge.texts).toContain('verified');
  });

  it('a code token issued before admissions were signed still verifies (admission null) and its badge is never green', async () => {
    const real = await post('/verify/code', { code: SAFE_PY, language: 'python' }, key());
    const old = await (
      await signer()
    ).sign({
      evaluatedExpression: SAFE_PY,
      status: 'VERIFIED',
      verified: true,
      engine: 'code',
      confidence: 1,
      proofRef: real.body.proof_ref,
    });
    const v = await post('/attestation/verify', { token: old.token }, key());
    expect(v.body).toMatchObject({ valid: true, admission: null, claims: { jti: old.jti } });
    const col = (await db()).collection('attestations');
    const rec = await col.findOne({ _id: real.body.attestation.id });
    await col.insertOne({ ...rec, _id: old.jti as any, token: old.token, claims: old.claims });
    const badge = await get(`/badge/attestation/${old.jti}`);
    expect(texts(badge.text)).toContain('admission unknown');
    expect(messageColor(badge.text)).toBe('#9a6700');
  });

  it('a token signing an admission other than ADMIT/BLOCKED is not valid (claims missing)', async () => {
    const s = await signer();
    const odd = await s.sign({
      evaluatedExpression: 'x',
      status: 'VERIFIED',
      verified: true,
      engine: 'code',
      confidence: 1,
      proofRef: null,
      admission: 'MAYBE' as never,
    });
    const v = await post('/attestation/verify', { token: odd.token }, key());
    expect(v.body).toEqual({ valid: false, reason: 'claims missing' });
  });
});

describe('agent decisions', () => {
  let agent: { id: number; agent_token: string };
  const ctx = (step: number) => ({ conversation_id: 'conv-admission', step_number: step });
  beforeAll(async () => {
    const res = await post('/agents/register', { name: 'admission-surfaces' }, key());
    expect(res.status).toBe(200);
    agent = res.body;
  });

  it("a decision blocked by one part is attested by that part's BLOCKED attestation, never by a verified math part's", async () => {
    const query = '```math\n1+1=2\n```\n```python\nimport os\nos.system("rm -rf /")\n```';
    const r = await post(
      `/agents/${agent.id}/verify`,
      { query, context: ctx(1) },
      { 'x-agent-token': agent.agent_token },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'VERIFIED', verification: { admission: 'BLOCKED' } });
    expect(r.body.verification.parts.map((p: any) => [p.engine, p.admission])).toEqual([
      ['math', 'ADMIT'],
      ['code', 'BLOCKED'],
    ]);
    const entry = await (await db()).collection('audit_logs').findOne({ _id: r.body.audit_log_id });
    const attId = entry!.result.attestation_id as string;
    expect(attId).toMatch(/^att_[0-9a-f]{32}$/);
    const stored = await get(`/attestation/${attId}`, key());
    expect(stored.body).toMatchObject({ engine: 'code', admission: 'BLOCKED' });
    expect(texts((await get(`/badge/attestation/${attId}`)).text)).toContain('blocked');
  });
});

describe('gateway verdicts', () => {
  it('the signed verdict names its admission: ADMIT for verified, BLOCKED for unsafe code', async () => {
    const [gwKey] = Object.keys(JSON.parse(stackEnv().SVC_A2A_API_KEYS as string)) as [string];
    const pub = createPublicKey((stackEnv().SVC_A2A_SIGNING_KEY_PEM as string).replace(/\\n/g, '\n'));
    const send = (code: string) =>
      post(
        '/a2a/intercept',
        {
          sender_agent_id: 'a',
          receiver_agent_id: 'b',
          payload_type: 'code_execution',
          payload: { code, language: 'python' },
          engine_timeout_seconds: 30,
        },
        { 'x-api-key': gwKey },
      );
    const safe = await send(SAFE_PY);
    expect(safe.body).toMatchObject({ status: 'verified', admissible: true });
    expect(((await jwtVerify(safe.body.attestation_jwt, pub)).payload as any).svc_a2a).toMatchObject({
      status: 'verified',
      admissible: true,
      admission: 'ADMIT',
    });
    const unsafe = await send(UNSAFE_PY);
    expect(unsafe.body).toMatchObject({ status: 'blocked', admissible: false });
    expect(((await jwtVerify(unsafe.body.attestation_jwt, pub)).payload as any).svc_a2a).toMatchObject({
      status: 'blocked',
      admissible: false,
      admission: 'BLOCKED',
    });
  });
});

describe('Verification Context trust gate', () => {
  it('a diagnostic of blocked code that drops its admission cannot keep the attestation', async () => {
    const r = await post('/verify/code', { code: UNSAFE_PY, language: 'python' }, key());
    const { attestation, ...diagnostic } = r.body;
    const honest = await post(
      '/verification-context/from-diagnostic',
      { query: UNSAFE_PY, verifier: 'code', diagnostic, attestation_token: attestation.token },
      key(),
    );
    expect(honest.status).toBe(200);
    expect(honest.body.context.decision).toEqual({ admission: 'DENY' });
    const { admission: _dropped, ...stripped } = diagnostic;
    const forged = { ...stripped, developer_fields: { ...diagnostic.developer_fields, is_valid: true } };
    const res = await post(
      '/verification-context/from-diagnostic',
      { query: UNSAFE_PY, verifier: 'code', diagnostic: forged, attestation_token: attestation.token },
      key(),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trust-gate')).toBe('trust_gate.claims_status_mismatch');
    expect(res.body.verdict).toBe('BLOCKED');
    expect(res.body.context.decision).toEqual({ admission: 'DENY' });
  });
});

describe('CLI', () => {
  it('svc verify code bad.py leads with the admission: "code: BLOCKED (proof: unsafe)", exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-adm-'));
    writeFileSync(path.join(dir, 'bad.py'), UNSAFE_PY);
    writeFileSync(path.join(dir, 'good.py'), SAFE_PY);
    const bad = await svc(['verify', 'code', path.join(dir, 'bad.py')], { env: { SVC_API_KEY: t.key } });
    expect(bad.code).toBe(2);
    expect(bad.stdout.split('\n')[0]).toBe('code: BLOCKED (proof: unsafe)');
    expect(bad.stdout).toContain('  status: VERIFIED, admission: BLOCKED');
    expect(bad.stdout).not.toMatch(/^code: VERIFIED/m);
    const good = await svc(['verify', 'code', path.join(dir, 'good.py')], { env: { SVC_API_KEY: t.key } });
    expect(good.code).toBe(0);
    expect(good.stdout.split('\n')[0]).toBe('code: ADMIT (proof: safe)');
  });
});
