// /verification-context/* over HTTP: the round trip from a real /verify/math result, every
// trust-gate row (with tokens issued by the running service where one exists), the
// interoperability vector, strict body parsing and the per-key limit.
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { db, http, newTenant, post, stackEnv, type Member } from './helpers.js';
import { windowStart } from './windows.js';
import { AttestationSigner, loadSigningKey, ATTESTATION_TYP, queryHash } from '../../core/attestation.js';
import { SERVICE_VERSION } from '../../core/version.js';

const VECTOR_REF = 'sha256:deef928135998be76833bd347b39618b5fa5e5a9c6d0358ca3ed36acc28c0272';
const IDENTITY = '(m+1)^2 = m^2 + 2*m + 1';
const OTHER_IDENTITY = '(p-q)^2 = p^2 - 2*p*q + q^2';

function vector(): any {
  return {
    spec_version: '1.0',
    object: {
      formal_statement: 'x**2 - 4 = 0',
      formalization: {
        source_query: 'Is x squared minus four zero?',
        translator: 'example-translator',
        translation_confidence: 0.9,
        verified: false,
      },
    },
    context: {
      interpretation: { theory: 'real-closed fields', logic: 'first-order' },
      proof: {
        verifier: 'SymPy',
        verifier_version: '1.14.0',
        configuration: { timeout_ms: 5000 },
        theory_scope: 'real-closed fields',
        trusted_dependencies: ['sympy'],
        outcome_treatment: 'unknown/timeout/error resolve to UNVERIFIABLE or BLOCKED',
      },
      evidence: { evidence: { roots: [-2, 2] }, proof_ref: VECTOR_REF },
      decision: { admission: 'ADMIT' },
    },
    verdict: 'VERIFIED',
  };
}

let t: Member;
const key = () => ({ 'x-api-key': t.key });
const raw = (path: string, text: string) =>
  http('POST', path, { rawBody: text, headers: { 'content-type': 'application/json', ...key() } });

interface Verified {
  expression: string;
  proof_ref: string;
  token: string;
  id: string;
}
let A: Verified;
let B: Verified;

async function verifyIdentity(expression: string): Promise<Verified> {
  const res = await post('/verify/math', { expression }, key());
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('VERIFIED');
  expect(res.body.attestation.status).toBe('ISSUED');
  return { expression, proof_ref: res.body.proof_ref, token: res.body.attestation.token, id: res.body.attestation.id };
}

/** The DiagnosticResult a client builds from a VERIFIED /verify/math response. */
const diagnosticOf = (v: { expression: string; proof_ref: string }, status = 'VERIFIED') => ({
  status,
  agent_message: 'Identity proven.',
  developer_fields: { evaluated_expression: v.expression, is_valid: true },
  proof_ref: v.proof_ref,
  is_authoritative: true,
});

const fromDiag = (body: unknown) => post('/verification-context/from-diagnostic', body, key());

beforeAll(async () => {
  t = await newTenant();
  A = await verifyIdentity(IDENTITY);
  B = await verifyIdentity(OTHER_IDENTITY);
});

describe('round trip: /verify/math → from-diagnostic → validate → resolve', () => {
  it('keeps VERIFIED with the service-issued attestation, and the document validates and resolves', async () => {
    const res = await fromDiag({
      query: A.expression,
      verifier: 'math',
      diagnostic: diagnosticOf(A),
      attestation_token: A.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trust-gate')).toBe('none');
    const doc = res.body;
    expect(Object.keys(doc).sort()).toEqual(['context', 'object', 'spec_version', 'verdict']);
    expect(doc.verdict).toBe('VERIFIED');
    expect(doc.spec_version).toBe('1.0');
    expect(doc.object).toEqual({
      formal_statement: IDENTITY,
      formalization: { source_query: IDENTITY, verified: false },
    });
    expect(doc.context.interpretation).toEqual({ theory: 'symbolic algebra over the reals' });
    expect(doc.context.proof.verifier).toBe('math');
    expect(doc.context.proof.verifier_version).toBe(SERVICE_VERSION);
    expect(doc.context.decision).toEqual({ admission: 'ADMIT' });
    expect(doc.context.evidence.evidence.proof_ref).toBe(A.proof_ref);
    expect(doc.context.evidence.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);

    const valid = await post('/verification-context/validate', doc, key());
    expect(valid.status).toBe(200);
    expect(valid.body).toEqual({ valid: true });
    const resolved = await post('/verification-context/resolve', doc, key());
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual({
      resolved: true,
      issued_here: true,
      issued_here_reason: 'issued_by_this_service',
      expected_proof_ref: doc.context.evidence.proof_ref,
    });

    // Any change inside the commitment breaks resolution (and names the expected value).
    const tampered = structuredClone(doc);
    tampered.context.evidence.evidence.agent_message = 'edited';
    const r2 = await post('/verification-context/resolve', tampered, key());
    expect(r2.body.resolved).toBe(false);
    expect(r2.body.reason).toBe('commitment_mismatch');
    expect(r2.body.expected_proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r2.body.expected_proof_ref).not.toBe(doc.context.evidence.proof_ref);
  });

  it('accepts the wrapper form {document} on validate and resolve', async () => {
    expect((await post('/verification-context/validate', { document: vector() }, key())).body).toEqual({ valid: true });
    expect((await post('/verification-context/resolve', { document: vector() }, key())).body).toEqual({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
      expected_proof_ref: VECTOR_REF,
    });
  });

  it('maps an UNVERIFIABLE diagnostic without a token to an UNVERIFIABLE document (no gate)', async () => {
    const res = await fromDiag({
      query: '2 + 2',
      verifier: 'math',
      diagnostic: {
        status: 'UNVERIFIABLE',
        agent_message: 'evaluated only',
        developer_fields: { is_valid: true },
        proof_ref: null,
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trust-gate')).toBe('none');
    expect(res.body.verdict).toBe('UNVERIFIABLE');
    expect(res.body.context.evidence.proof_ref).toBeNull();
    expect(res.body.context.decision).toEqual({ admission: 'DENY' });
    expect((await post('/verification-context/validate', res.body, key())).body).toEqual({ valid: true });
    expect((await post('/verification-context/resolve', res.body, key())).body).toEqual({
      resolved: false,
      issued_here: false,
      issued_here_reason: 'not_resolved',
      reason: 'verdict_not_verified',
    });
  });
});

describe('trust gate (fail closed): every row gives a BLOCKED document', () => {
  let pem: string;
  beforeAll(() => {
    pem = stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string;
  });

  async function expectBlocked(body: Record<string, unknown>, code: string) {
    const res = await fromDiag(body);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trust-gate')).toBe(code);
    expect(res.body.verdict).toBe('BLOCKED');
    expect(res.body.context.evidence.proof_ref).toBeNull();
    expect(res.body.context.decision).toEqual({ admission: 'DENY' });
    expect(res.body.context.evidence.evidence.trust_gate).toBe(code);
    expect(typeof res.body.context.evidence.evidence.trust_gate_reason).toBe('string');
    // The BLOCKED document is itself schema-valid but never resolves.
    expect((await post('/verification-context/validate', res.body, key())).body).toEqual({ valid: true });
    expect((await post('/verification-context/resolve', res.body, key())).body.resolved).toBe(false);
    return res.body;
  }

  it('trust_gate.mandatory_attestation_missing: VERIFIED without a token (absent, null, empty)', async () => {
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A) },
      'trust_gate.mandatory_attestation_missing',
    );
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A), attestation_token: null },
      'trust_gate.mandatory_attestation_missing',
    );
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A), attestation_token: '' },
      'trust_gate.mandatory_attestation_missing',
    );
  });

  it('trust_gate.invalid_attestation_token: garbage, a tampered service token, a foreign key, a foreign issuer', async () => {
    const base = { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A) };
    const doc = await expectBlocked(
      { ...base, attestation_token: 'not-a-jwt' },
      'trust_gate.invalid_attestation_token',
    );
    expect(doc.context.evidence.evidence.trust_gate_reason).toBe('attestation rejected: malformed token');
    // Same claims, one signature byte changed.
    const [h, p, s] = A.token.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    await expectBlocked({ ...base, attestation_token: flipped }, 'trust_gate.invalid_attestation_token');
    // Signed by a key the deployment does not trust (same claims shape and kid-less derivation).
    const foreignPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const foreign = await new AttestationSigner(
      await loadSigningKey(foreignPem),
      stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local',
    ).sign({
      evaluatedExpression: A.expression,
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: A.proof_ref,
    });
    const d2 = await expectBlocked(
      { ...base, attestation_token: foreign.token },
      'trust_gate.invalid_attestation_token',
    );
    expect(d2.context.evidence.evidence.trust_gate_reason).toBe('attestation rejected: unknown signing key');
    // The deployment's own key, but another issuer.
    const otherIssuer = await new AttestationSigner(await loadSigningKey(pem), 'another-deployment').sign({
      evaluatedExpression: A.expression,
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: A.proof_ref,
    });
    const d3 = await expectBlocked(
      { ...base, attestation_token: otherIssuer.token },
      'trust_gate.invalid_attestation_token',
    );
    expect(d3.context.evidence.evidence.trust_gate_reason).toBe('attestation rejected: issuer or claim mismatch');
  });

  it('trust_gate.claims_missing: a correctly signed token without proof_hash', async () => {
    const signing = await loadSigningKey(pem);
    const key = await importPKCS8(pem, 'ES256');
    const qh = queryHash(A.expression);
    const token = await new SignJWT({
      svc: {
        version: SERVICE_VERSION,
        result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 },
        query_hash: qh,
      },
    })
      .setProtectedHeader({ alg: 'ES256', typ: ATTESTATION_TYP, kid: signing.kid })
      .setIssuer(stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local')
      .setSubject(qh)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('att_claims_missing')
      .sign(key);
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A), attestation_token: token },
      'trust_gate.claims_missing',
    );
  });

  it('trust_gate.claims_status_mismatch: the deployment key attesting a non-VERIFIED result', async () => {
    // The service only signs VERIFIED results, so this token is minted with the deployment's key directly.
    const token = (
      await new AttestationSigner(await loadSigningKey(pem), stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local').sign({
        evaluatedExpression: A.expression,
        status: 'UNVERIFIABLE',
        verified: false,
        engine: 'math',
        confidence: 1,
        proofRef: A.proof_ref,
      })
    ).token;
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A), attestation_token: token },
      'trust_gate.claims_status_mismatch',
    );
  });

  it("trust_gate.claims_query_mismatch: another verification's real token", async () => {
    // B's token binds B's expression; the diagnostic is A's.
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic: diagnosticOf(A), attestation_token: B.token },
      'trust_gate.claims_query_mismatch',
    );
  });

  it("trust_gate.claims_proof_mismatch: A's real token with B's proof_ref", async () => {
    const diagnostic = diagnosticOf({ expression: A.expression, proof_ref: B.proof_ref });
    await expectBlocked(
      { query: A.expression, verifier: 'math', diagnostic, attestation_token: A.token },
      'trust_gate.claims_proof_mismatch',
    );
  });

  it.each([
    ['a non-object diagnostic', 'VERIFIED'],
    ['an unknown key', { ...diagnosticOf({ expression: IDENTITY, proof_ref: VECTOR_REF }), extra: 1 }],
    ['VERIFIED without proof_ref', { status: 'VERIFIED', agent_message: 'x', developer_fields: {}, proof_ref: null }],
    [
      'proof_ref on UNVERIFIABLE',
      { status: 'UNVERIFIABLE', agent_message: 'x', developer_fields: {}, proof_ref: VECTOR_REF },
    ],
    ['a wrong status', { status: 'verified', agent_message: 'x', developer_fields: {}, proof_ref: VECTOR_REF }],
  ])('trust_gate.malformed_diagnostic: %s', async (_label, diagnostic) => {
    const doc = await expectBlocked(
      { query: IDENTITY, verifier: 'math', diagnostic, attestation_token: A.token },
      'trust_gate.malformed_diagnostic',
    );
    // Unvalidated diagnostic content never enters the document.
    expect(doc.context.evidence.evidence.diagnostic).toBeUndefined();
  });
});

describe('request envelope', () => {
  it.each([
    ['missing query', { verifier: 'math', diagnostic: {} }, '$.query'],
    ['empty verifier', { query: 'q', verifier: '', diagnostic: {} }, '$.verifier'],
    ['missing diagnostic', { query: 'q', verifier: 'math' }, '$.diagnostic'],
    ['non-string token', { query: 'q', verifier: 'math', diagnostic: {}, attestation_token: 5 }, '$.attestation_token'],
  ])('answers 400 naming the field: %s', async (_label, body, path) => {
    const res = await fromDiag(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(`'${path}'`);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.errors.some((e: { path: string }) => e.path === path)).toBe(true);
  });

  it('answers 400 for a non-object body and 401 without a key', async () => {
    const arr = await raw('/verification-context/from-diagnostic', '[1,2]');
    expect(arr.status).toBe(400);
    expect(arr.body.detail).toBe("Invalid field '$': request must be an object");
    const anon = await post('/verification-context/validate', vector());
    expect(anon.status).toBe(401);
  });
});

describe('interoperability vector', () => {
  it('validates and resolves to the published proof_ref', async () => {
    expect((await post('/verification-context/validate', vector(), key())).body).toEqual({ valid: true });
    expect((await post('/verification-context/resolve', vector(), key())).body).toEqual({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
      expected_proof_ref: VECTOR_REF,
    });
  });

  it('still resolves with roots written as [-2.0, 2.0] (sent as raw text)', async () => {
    const text = JSON.stringify(vector()).replace('"roots":[-2,2]', '"roots":[-2.0, 2.0]');
    expect(text).toContain('[-2.0, 2.0]');
    const res = await raw('/verification-context/resolve', text);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
      expected_proof_ref: VECTOR_REF,
    });
  });

  it('still resolves with a changed formalization (outside the commitment)', async () => {
    const d = vector();
    d.object.formalization = { verified: false, translator: 'another-translator', translation_confidence: null };
    expect((await post('/verification-context/resolve', d, key())).body).toEqual({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
      expected_proof_ref: VECTOR_REF,
    });
  });

  it('does not validate with admission ADMIT on a non-VERIFIED verdict', async () => {
    const d = vector();
    d.verdict = 'UNVERIFIABLE';
    d.context.evidence.proof_ref = null;
    const res = await post('/verification-context/validate', d, key());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [
        { path: '$.context.decision.admission', message: 'verdict UNVERIFIABLE or BLOCKED requires admission DENY' },
      ],
    });
    const r = await post('/verification-context/resolve', d, key());
    expect(r.body.resolved).toBe(false);
    expect(r.body.reason).toBe('validation_failed');
  });

  it('reports an unknown key and a bad proof_ref as validation errors with paths', async () => {
    const d = vector();
    d.context.extra = true;
    d.context.evidence.proof_ref = 'sha256:XYZ';
    const res = await post('/verification-context/validate', d, key());
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: '$.context.extra', message: 'unknown key is not allowed' },
        expect.objectContaining({ path: '$.context.evidence.proof_ref' }),
      ]),
    );
  });
});

describe('strict JSON bodies', () => {
  it('rejects an integer beyond 2^53 instead of rounding it (400, code and path)', async () => {
    const text = JSON.stringify(vector()).replace('"timeout_ms":5000', '"timeout_ms":9007199254740993');
    const res = await raw('/verification-context/resolve', text);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unsafe_integer');
    expect(res.body.path).toBe('$.context.proof.configuration.timeout_ms');
    expect(res.body.position).toBe(text.indexOf('9007199254740993'));
    expect(res.body.detail).toBe(
      'Invalid JSON body (unsafe_integer) at $.context.proof.configuration.timeout_ms: integer magnitude exceeds 2^53 (not exactly representable)',
    );
  });

  it('rejects a lone surrogate, escaped or in a key (400)', async () => {
    const text = JSON.stringify(vector()).replace(
      '"translator":"example-translator"',
      '"translator":"bad \\ud800 text"',
    );
    const res = await raw('/verification-context/validate', text);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('lone_surrogate');
    expect(res.body.path).toBe('$.object.formalization.translator');
    const inKey = await raw(
      '/verification-context/from-diagnostic',
      '{"query":"q","verifier":"math","diagnostic":{},"\\udc00":1}',
    );
    expect(inKey.status).toBe(400);
    expect(inKey.body.code).toBe('lone_surrogate');
  });

  it('rejects duplicate keys, which JSON.parse would silently resolve', async () => {
    const res = await raw('/verification-context/validate', '{"verdict":"VERIFIED","verdict":"BLOCKED"}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('duplicate_key');
    expect(res.body.path).toBe('$.verdict');
  });

  it('rejects an empty body', async () => {
    const res = await raw('/verification-context/validate', '');
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Request body is required (a JSON object).');
  });
});

describe('per-key limit', () => {
  it('answers 429 with the SVC-005 body once 600 requests per minute are used', async () => {
    const u = await newTenant();
    const start = await windowStart(60);
    // Pre-fill this minute's counter in the shared store (the limiter's own document).
    await (
      await db()
    )
      .collection('rate_counters')
      .updateOne(
        { _id: `verification-context:${u.keyId}:60:${start}` as any },
        { $set: { count: 600, expires_at: new Date((start + 120) * 1000) } },
        { upsert: true },
      );
    const res = await post('/verification-context/validate', vector(), { 'x-api-key': u.key });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('SVC-005');
    expect(res.body.error.details.limit).toBe(600);
    // Another key of another organization is not affected.
    expect((await post('/verification-context/validate', vector(), key())).status).toBe(200);
  });
});
