import { describe, it, expect, beforeAll } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';
import { parseStrictJson, StrictJsonError } from '../../core/strict-json.js';
import {
  computeCommitment,
  fromDiagnostic,
  resolveDocument,
  validateDocument,
  theoryForVerifier,
  OUTCOME_TREATMENT,
  type FromDiagnosticResult,
  type VerificationContextDocument,
} from '../../core/verification-context.js';
import {
  AttestationSigner,
  loadSigningKey,
  queryHash,
  ATTESTATION_TYP,
  type SigningKey,
} from '../../core/attestation.js';
import { SERVICE_VERSION } from '../../core/version.js';

const VECTOR_REF = 'sha256:deef928135998be76833bd347b39618b5fa5e5a9c6d0358ca3ed36acc28c0272';

function vector(): VerificationContextDocument {
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

function mutate(fn: (d: any) => void): any {
  const d = structuredClone(vector()) as any;
  fn(d);
  return d;
}

function strictErr(text: string): StrictJsonError {
  try {
    parseStrictJson(text);
  } catch (err) {
    expect(err).toBeInstanceOf(StrictJsonError);
    return err as StrictJsonError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseStrictJson', () => {
  it('returns exactly what JSON.parse returns for ordinary JSON', () => {
    const texts = [
      '{"a":[1,-2.5,1e3,0.1,-0,true,false,null,"x\\n\\u00e9\\ud83d\\ude00"],"b":{}}',
      ' [ ] ',
      '"\\/\\b\\f\\r\\t\\"\\\\"',
      '9007199254740992',
      '-9007199254740992',
      '{"__proto__":{"polluted":true}}',
      '[2.0, -2.0, 100e-2, 4.9e-324]',
      '"😀 raw pair"',
    ];
    for (const t of texts) {
      const strict = parseStrictJson(t);
      expect(strict).toEqual(JSON.parse(t));
    }
    const proto = parseStrictJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(proto, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.is(parseStrictJson('-0'), -0)).toBe(true);
  });

  it('rejects integers beyond 2^53 with position and path', () => {
    const e = strictErr('{"a":[1, 9007199254740993]}');
    expect(e.code).toBe('unsafe_integer');
    expect(e.position).toBe(9);
    expect(e.path).toBe('$.a[1]');
    expect(strictErr('-9007199254740993').code).toBe('unsafe_integer');
    expect(strictErr('9007199254740993.0').code).toBe('unsafe_integer');
    expect(strictErr('1e16').code).toBe('unsafe_integer');
    // Every double beyond 2^53 is an integer, so large magnitudes are outside the domain too.
    expect(strictErr('1.5e300').code).toBe('unsafe_integer');
    expect(strictErr('123456789012345678901234567890').code).toBe('unsafe_integer');
    // Same magnitude but not an integer: fine (ordinary binary rounding of a decimal).
    expect(parseStrictJson('9007199254740993.5e-1')).toBe(900719925474099.4);
  });

  it('rejects overflow to Infinity and underflow of non-zero numbers', () => {
    expect(strictErr('[1e400]').code).toBe('number_out_of_range');
    expect(strictErr('{"x":-1e400}').path).toBe('$.x');
    expect(strictErr('1e-400').code).toBe('number_out_of_range');
    expect(parseStrictJson('0e-400')).toBe(0);
  });

  it('rejects lone surrogates, escaped or raw, in values and keys', () => {
    const e = strictErr('{"k":"ab\\ud800"}');
    expect(e.code).toBe('lone_surrogate');
    expect(e.position).toBe(5);
    expect(e.path).toBe('$.k');
    expect(strictErr('"\\udc00\\ud800"').code).toBe('lone_surrogate');
    expect(strictErr('{"\\ud800":1}').code).toBe('lone_surrogate');
    expect(strictErr('"\ud800"').code).toBe('lone_surrogate');
    // An escaped high half followed by an escaped low half is a valid pair.
    expect(parseStrictJson('"\\ud83d\\ude00"')).toBe('😀');
  });

  it('rejects duplicate keys, compared after unescaping', () => {
    const e = strictErr('{"a":1,"b":{"c":1,"\\u0063":2}}');
    expect(e.code).toBe('duplicate_key');
    expect(e.path).toBe('$.b.c');
    expect(e.position).toBe(18);
    expect(strictErr('{"a":1,"a":1}').code).toBe('duplicate_key');
    expect(parseStrictJson('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('rejects what JSON.parse rejects, as syntax errors', () => {
    for (const t of [
      '',
      '{',
      '[1,]',
      '{"a":1,}',
      '01',
      '1.',
      '.5',
      '+1',
      '-',
      'NaN',
      'Infinity',
      "'a'",
      '"a\tb"',
      '"\\x"',
      '"\\u12"',
      '[1] 2',
      'tru',
      '\ufeff1',
    ]) {
      expect(() => JSON.parse(t)).toThrow();
      expect(strictErr(t).code).toBe('syntax');
    }
  });

  it('bounds nesting depth', () => {
    expect(strictErr('['.repeat(600) + ']'.repeat(600)).code).toBe('max_depth');
    expect(parseStrictJson('['.repeat(20) + ']'.repeat(20), { maxDepth: 20 })).toEqual(
      JSON.parse('['.repeat(20) + ']'.repeat(20)),
    );
    expect(() => parseStrictJson('['.repeat(21) + ']'.repeat(21), { maxDepth: 20 })).toThrow(StrictJsonError);
  });
});

describe('validateDocument', () => {
  it('accepts the interoperability vector', () => {
    expect(validateDocument(vector())).toEqual({ valid: true });
  });

  it('requires exactly the four top-level keys and forbids unknown nested keys', () => {
    expect(validateDocument(mutate((d) => (d.extra = 1)))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.extra', message: 'unknown key is not allowed' }],
    });
    expect(validateDocument(mutate((d) => delete d.verdict))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.verdict', message: 'is required' }],
    });
    const nested: Array<[(d: any) => void, string]> = [
      [(d) => (d.object.extra = 1), '$.object.extra'],
      [(d) => (d.object.formalization.extra = 1), '$.object.formalization.extra'],
      [(d) => (d.context.extra = 1), '$.context.extra'],
      [(d) => (d.context.interpretation.extra = 'x'), '$.context.interpretation.extra'],
      [(d) => (d.context.proof.extra = 'x'), '$.context.proof.extra'],
      [(d) => (d.context.evidence.extra = 'x'), '$.context.evidence.extra'],
      [(d) => (d.context.decision.extra = 'x'), '$.context.decision.extra'],
    ];
    for (const [fn, path] of nested) {
      expect(validateDocument(mutate(fn))).toEqual({
        valid: false,
        error: 'validation_failed',
        errors: [{ path, message: 'unknown key is not allowed' }],
      });
    }
  });

  it('checks each field', () => {
    const cases: Array<[(d: any) => void, string]> = [
      [(d) => (d.spec_version = '1.1'), '$.spec_version'],
      [(d) => (d.object.formal_statement = ''), '$.object.formal_statement'],
      [(d) => (d.object.formalization.verified = true), '$.object.formalization.verified'],
      [(d) => (d.object.formalization.translation_confidence = 1.5), '$.object.formalization.translation_confidence'],
      [(d) => (d.context.interpretation = {}), '$.context.interpretation'],
      [(d) => (d.context.interpretation = { theory: '' }), '$.context.interpretation.theory'],
      [(d) => (d.context.proof.verifier_version = ''), '$.context.proof.verifier_version'],
      [(d) => (d.context.proof.trusted_dependencies = ['sympy', 3]), '$.context.proof.trusted_dependencies[1]'],
      [(d) => (d.context.evidence.evidence = [1]), '$.context.evidence.evidence'],
      [(d) => (d.context.decision.admission = 'BLOCKED'), '$.context.decision.admission'],
      [(d) => (d.verdict = 'INCONCLUSIVE'), '$.verdict'],
    ];
    for (const [fn, path] of cases) {
      const r = validateDocument(mutate(fn));
      expect(r.valid).toBe(false);
      if (!r.valid) expect(r.errors.map((e) => e.path)).toContain(path);
    }
    expect(validateDocument(mutate((d) => (d.object.formalization.translation_confidence = null)))).toEqual({
      valid: true,
    });
    expect(validateDocument(mutate((d) => delete d.object.formalization))).toEqual({ valid: true });
    expect(validateDocument(mutate((d) => (d.context.interpretation = { algebra_domain: 'Q' })))).toEqual({
      valid: true,
    });
    expect(validateDocument(null)).toMatchObject({ valid: false, error: 'validation_failed' });
    expect(validateDocument('x')).toMatchObject({ valid: false, error: 'validation_failed' });
  });

  it('names each problem with the message of the v1.0 schema (contract zod schema)', () => {
    const errs = (fn: (d: any) => void) => {
      const r = validateDocument(mutate(fn));
      return r.valid ? [] : r.errors;
    };
    expect(errs((d) => (d.context.proof.trusted_dependencies = ['sympy', 3]))).toEqual([
      { path: '$.context.proof.trusted_dependencies[1]', message: 'must be string' },
    ]);
    expect(errs((d) => (d.spec_version = '1.1'))).toEqual([{ path: '$.spec_version', message: 'must be "1.0"' }]);
    expect(errs((d) => (d.context.decision.admission = 'BLOCKED'))).toEqual([
      { path: '$.context.decision.admission', message: 'must be one of "ADMIT", "DENY"' },
    ]);
    expect(errs((d) => (d.context.interpretation = {}))).toEqual([
      {
        path: '$.context.interpretation',
        message:
          'must contain at least one of theory, logic, dialect, parser_version, language, policy_version, algebra_domain',
      },
    ]);
    for (const bad of [1.5, -0.1, 'high']) {
      expect(errs((d) => (d.object.formalization.translation_confidence = bad))).toEqual([
        { path: '$.object.formalization.translation_confidence', message: 'must be a number in [0, 1] or null' },
      ]);
    }
    expect(errs((d) => (d.context.evidence.proof_ref = 7))).toEqual([
      {
        path: '$.context.evidence.proof_ref',
        message: 'verdict VERIFIED requires a non-null proof_ref sha256:<64 lowercase hex>',
      },
      { path: '$.context.evidence.proof_ref', message: 'must be sha256:<64 lowercase hex> or null' },
    ]);
    // The invariants are checked even when other fields are wrong, and a missing admission names admission.
    expect(
      errs((d) => {
        d.verdict = 'BLOCKED';
        d.context.evidence.proof_ref = null;
        d.context.decision = {};
        d.object = 'x';
      }),
    ).toEqual([
      { path: '$.context.decision', message: 'verdict UNVERIFIABLE or BLOCKED requires admission DENY' },
      { path: '$.object', message: 'must be object' },
      { path: '$.context.decision.admission', message: 'is required' },
    ]);
    expect(errs((d) => (d['odd key'] = 1))).toEqual([{ path: '$["odd key"]', message: 'unknown key is not allowed' }]);
    expect(validateDocument(null)).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$', message: 'must be object' }],
    });
    expect(validateDocument([])).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$', message: 'must be object' }],
    });
  });

  it('enforces the verdict / proof_ref / admission invariants', () => {
    expect(validateDocument(mutate((d) => (d.context.evidence.proof_ref = null)))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [
        {
          path: '$.context.evidence.proof_ref',
          message: 'verdict VERIFIED requires a non-null proof_ref sha256:<64 lowercase hex>',
        },
      ],
    });
    expect(
      validateDocument(
        mutate((d) => (d.context.evidence.proof_ref = VECTOR_REF.toUpperCase().replace('SHA256', 'sha256'))),
      ),
    ).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [
        {
          path: '$.context.evidence.proof_ref',
          message: 'verdict VERIFIED requires a non-null proof_ref sha256:<64 lowercase hex>',
        },
        { path: '$.context.evidence.proof_ref', message: 'must be sha256:<64 lowercase hex> or null' },
      ],
    });
    for (const verdict of ['UNVERIFIABLE', 'BLOCKED']) {
      // proof_ref null and DENY: valid.
      expect(
        validateDocument(
          mutate((d) => {
            d.verdict = verdict;
            d.context.evidence.proof_ref = null;
            d.context.decision.admission = 'DENY';
          }),
        ),
      ).toEqual({ valid: true });
      // Flipping admission to ADMIT on a non-VERIFIED verdict must not validate.
      expect(
        validateDocument(
          mutate((d) => {
            d.verdict = verdict;
            d.context.evidence.proof_ref = null;
          }),
        ),
      ).toEqual({
        valid: false,
        error: 'validation_failed',
        errors: [
          { path: '$.context.decision.admission', message: 'verdict UNVERIFIABLE or BLOCKED requires admission DENY' },
        ],
      });
      // A proof_ref on a non-VERIFIED verdict must not validate.
      expect(
        validateDocument(
          mutate((d) => {
            d.verdict = verdict;
            d.context.decision.admission = 'DENY';
          }),
        ),
      ).toEqual({
        valid: false,
        error: 'validation_failed',
        errors: [
          { path: '$.context.evidence.proof_ref', message: 'verdict UNVERIFIABLE or BLOCKED requires proof_ref null' },
        ],
      });
    }
  });

  it('applies the canonical-domain checks to values JSON text cannot carry', () => {
    expect(validateDocument(mutate((d) => (d.context.evidence.evidence.x = Number.NaN)))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.context.evidence.evidence.x', message: 'non-finite number' }],
    });
    expect(validateDocument(mutate((d) => (d.context.proof.configuration.n = 2 ** 53 + 2)))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.context.proof.configuration.n', message: 'integer not exactly representable (|n| > 2^53)' }],
    });
    expect(validateDocument(mutate((d) => (d.object.formal_statement = 'x\ud800')))).toEqual({
      valid: false,
      error: 'validation_failed',
      errors: [{ path: '$.object.formal_statement', message: 'lone surrogate in string' }],
    });
  });
});

describe('computeCommitment / resolveDocument', () => {
  it('reproduces the interoperability vector', () => {
    expect(computeCommitment(vector())).toBe(VECTOR_REF);
    expect(resolveDocument(vector())).toEqual({
      resolved: true,
      expected_proof_ref: VECTOR_REF,
      stored_proof_ref: VECTOR_REF,
    });
  });

  it('does not mutate its input', () => {
    const d = vector();
    const before = JSON.stringify(d);
    computeCommitment(d);
    resolveDocument(d);
    expect(JSON.stringify(d)).toBe(before);
  });

  it('still resolves with roots written as [-2.0, 2.0] (parsed JSON text) or a changed formalization', () => {
    const text = JSON.stringify(vector()).replace('"roots":[-2,2]', '"roots":[-2.0, 2.0]');
    expect(text).toContain('[-2.0, 2.0]');
    expect(resolveDocument(parseStrictJson(text)).resolved).toBe(true);
    expect(
      resolveDocument(mutate((d) => (d.object.formalization = { verified: false, source_query: 'other wording' })))
        .resolved,
    ).toBe(true);
    expect(resolveDocument(mutate((d) => delete d.object.formalization)).resolved).toBe(true);
    expect(resolveDocument(mutate((d) => (d.context.evidence.evidence.roots = [-2, -0.0 + 2]))).resolved).toBe(true);
  });

  it('does not resolve when any committed field is tampered with', () => {
    const tampers: Array<(d: any) => void> = [
      (d) => (d.object.formal_statement = 'x**2 - 9 = 0'),
      (d) => (d.context.interpretation.logic = 'higher-order'),
      (d) => (d.context.interpretation.dialect = 'x'),
      (d) => (d.context.proof.verifier = 'Z3'),
      (d) => (d.context.proof.verifier_version = '1.14.1'),
      (d) => (d.context.proof.configuration.timeout_ms = 5001),
      (d) => (d.context.proof.theory_scope = 'integers'),
      (d) => d.context.proof.trusted_dependencies.push('numpy'),
      (d) => (d.context.proof.outcome_treatment = 'x'),
      (d) => (d.context.evidence.evidence.roots = [2, -2]),
      (d) => (d.context.evidence.evidence.extra = null),
    ];
    for (const t of tampers) {
      const r = resolveDocument(mutate(t));
      expect(r.resolved).toBe(false);
      expect(r.reason).toBe('commitment_mismatch');
      expect(r.stored_proof_ref).toBe(VECTOR_REF);
      expect(r.expected_proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(r.expected_proof_ref).not.toBe(VECTOR_REF);
    }
    // Admission is committed too; DENY with VERIFIED is schema-valid but no longer matches.
    expect(resolveDocument(mutate((d) => (d.context.decision.admission = 'DENY')))).toMatchObject({
      resolved: false,
      reason: 'commitment_mismatch',
    });
  });

  it('does not resolve invalid or non-VERIFIED documents', () => {
    expect(resolveDocument(mutate((d) => (d.extra = 1)))).toMatchObject({
      resolved: false,
      reason: 'validation_failed',
    });
    expect(resolveDocument({})).toMatchObject({ resolved: false, reason: 'validation_failed' });
    const unverifiable = mutate((d) => {
      d.verdict = 'UNVERIFIABLE';
      d.context.evidence.proof_ref = null;
      d.context.decision.admission = 'DENY';
    });
    expect(resolveDocument(unverifiable)).toEqual({
      resolved: false,
      reason: 'verdict_not_verified',
      stored_proof_ref: null,
    });
  });
});

// ------------------------------------------------------------------------------------
// from-diagnostic and the trust gate, with real ES256 tokens
// ------------------------------------------------------------------------------------

const ISSUER = 'svc-test-deployment';
let key: SigningKey;
let signer: AttestationSigner;
let otherSigner: AttestationSigner;
let jwks: JWK[];

function newPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

beforeAll(async () => {
  key = await loadSigningKey(newPem());
  signer = new AttestationSigner(key, ISSUER);
  // Same kid as the configured key, different private key: signature must fail.
  const other = await loadSigningKey(newPem(), key.kid);
  otherSigner = new AttestationSigner(other, ISSUER);
  jwks = [key.publicJwk];
});

const PROOF = `sha256:${'ab'.repeat(32)}`;
const QUERY = 'Is 2 + 2 equal to 4?';
const EXPR = '2 + 2 = 4';

function verifiedDiagnostic(extra: Record<string, unknown> = {}) {
  return {
    status: 'VERIFIED',
    agent_message: 'The identity holds.',
    developer_fields: { evaluated_expression: EXPR, is_valid: true, ...extra },
    proof_ref: PROOF,
    is_authoritative: true,
  };
}

async function token(
  overrides: Partial<{ expr: string; status: string; verified: boolean; proofRef: string | null }> = {},
) {
  const issued = await signer.sign({
    evaluatedExpression: overrides.expr ?? EXPR,
    status: overrides.status ?? 'VERIFIED',
    verified: overrides.verified ?? true,
    engine: 'math',
    confidence: 1,
    proofRef: overrides.proofRef === undefined ? PROOF : overrides.proofRef,
  });
  return issued.token;
}

const opts = () => ({ publicJwks: jwks, issuer: ISSUER, serviceVersion: SERVICE_VERSION });

function expectBlocked(r: FromDiagnosticResult, code: string) {
  expect(r.ok).toBe(true);
  if (!r.ok) return;
  expect(r.trust_gate).toBe(code);
  expect(typeof r.trust_gate_reason).toBe('string');
  expect(r.document.verdict).toBe('BLOCKED');
  expect(r.document.context.evidence.proof_ref).toBeNull();
  expect(r.document.context.decision.admission).toBe('DENY');
  expect(r.document.context.evidence.evidence.trust_gate).toBe(code);
  expect(r.document.context.evidence.evidence.trust_gate_reason).toBe(r.trust_gate_reason);
  expect(validateDocument(r.document)).toEqual({ valid: true });
  expect(resolveDocument(r.document).resolved).toBe(false);
}

describe('fromDiagnostic', () => {
  it('keeps an attested VERIFIED diagnostic, with a resolvable commitment', async () => {
    const r = await fromDiagnostic(
      { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: await token() },
      opts(),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trust_gate).toBeNull();
    expect(r.trust_gate_reason).toBeNull();
    // The accepted attestation's jti, for the issuance record (core/verification-context-issuance.ts).
    expect(r.attestation_id).toMatch(/^att_[0-9a-f]{32}$/);
    const doc = r.document;
    const { proof_ref, ...rest } = doc.context.evidence;
    expect(rest).toEqual({ evidence: verifiedDiagnostic() });
    expect(doc).toEqual({
      spec_version: '1.0',
      object: { formal_statement: EXPR, formalization: { source_query: QUERY, verified: false } },
      context: {
        interpretation: { theory: 'symbolic algebra over the reals' },
        proof: { verifier: 'math', verifier_version: SERVICE_VERSION, outcome_treatment: OUTCOME_TREATMENT },
        evidence: { evidence: verifiedDiagnostic(), proof_ref },
        decision: { admission: 'ADMIT' },
      },
      verdict: 'VERIFIED',
    });
    expect(proof_ref).toBe(computeCommitment(doc));
    expect(validateDocument(doc)).toEqual({ valid: true });
    expect(resolveDocument(doc)).toEqual({
      resolved: true,
      expected_proof_ref: proof_ref,
      stored_proof_ref: proof_ref,
    });
    // Round trip through JSON text still resolves; a tampered copy does not.
    expect(resolveDocument(parseStrictJson(JSON.stringify(doc))).resolved).toBe(true);
    const tampered = structuredClone(doc);
    (tampered.context.evidence.evidence.developer_fields as Record<string, unknown>).is_valid = false;
    expect(resolveDocument(tampered).resolved).toBe(false);
  });

  it('uses the query as formal_statement when developer_fields has no evaluated_expression, and honours verifier_version', async () => {
    const diag = { status: 'VERIFIED', agent_message: 'ok', developer_fields: {}, proof_ref: PROOF };
    const r = await fromDiagnostic(
      { query: EXPR, verifier: 'z3', verifier_version: '4.13.0', diagnostic: diag, attestation_token: await token() },
      opts(),
    );
    expect(r.ok && r.trust_gate).toBeNull();
    if (!r.ok) return;
    expect(r.document.object.formal_statement).toBe(EXPR);
    expect(r.document.context.proof.verifier_version).toBe('4.13.0');
    expect(r.document.context.interpretation).toEqual({ theory: 'satisfiability modulo theories' });
    expect(r.document.context.decision.admission).toBe('ADMIT');
    expect(r.document.context.evidence.evidence).toEqual(diag);
    expect(resolveDocument(r.document).resolved).toBe(true);
  });

  it('denies admission of a VERIFIED diagnostic whose admission or is_valid says so', async () => {
    const code = {
      status: 'VERIFIED',
      agent_message: 'Unsafe code proven.',
      developer_fields: { evaluated_expression: EXPR, is_valid: false },
      proof_ref: PROOF,
      is_authoritative: true,
      admission: 'BLOCKED',
    };
    const r = await fromDiagnostic(
      { query: QUERY, verifier: 'code', diagnostic: code, attestation_token: await token() },
      opts(),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.verdict).toBe('VERIFIED');
    expect(r.document.context.decision.admission).toBe('DENY');
    expect(r.document.context.interpretation.theory).toBe('static program analysis');
    expect(validateDocument(r.document)).toEqual({ valid: true });
    expect(resolveDocument(r.document).resolved).toBe(true);

    const r2 = await fromDiagnostic(
      {
        query: QUERY,
        verifier: 'math',
        diagnostic: verifiedDiagnostic({ is_valid: false }),
        attestation_token: await token(),
      },
      opts(),
    );
    expect(r2.ok && r2.document.context.decision.admission).toBe('DENY');
  });

  it('maps UNVERIFIABLE and BLOCKED diagnostics to DENY documents without consulting attestation', async () => {
    for (const status of ['UNVERIFIABLE', 'BLOCKED'] as const) {
      const diag = {
        status,
        agent_message: 'no proof',
        developer_fields: { constraint_id: 'x.y', is_valid: false },
        proof_ref: null,
        is_authoritative: false,
      };
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'sql', diagnostic: diag, attestation_token: 'garbage' },
        opts(),
      );
      expect(r).toEqual({
        ok: true,
        trust_gate: null,
        trust_gate_reason: null,
        attestation_id: null,
        document: {
          spec_version: '1.0',
          object: { formal_statement: QUERY, formalization: { source_query: QUERY, verified: false } },
          context: {
            interpretation: { theory: 'relational algebra (SQL)' },
            proof: { verifier: 'sql', verifier_version: SERVICE_VERSION, outcome_treatment: OUTCOME_TREATMENT },
            evidence: { evidence: diag, proof_ref: null },
            decision: { admission: 'DENY' },
          },
          verdict: status,
        },
      });
      if (r.ok) expect(validateDocument(r.document)).toEqual({ valid: true });
    }
  });

  it('blocks malformed diagnostics', async () => {
    const malformed: unknown[] = [
      null,
      'VERIFIED',
      [],
      {},
      { ...verifiedDiagnostic(), status: 'INCONCLUSIVE' },
      { ...verifiedDiagnostic(), agent_message: 3 },
      { ...verifiedDiagnostic(), developer_fields: [] },
      { status: 'VERIFIED', agent_message: '', developer_fields: {} },
      { ...verifiedDiagnostic(), proof_ref: null },
      { ...verifiedDiagnostic(), proof_ref: 'sha256:abc' },
      { status: 'BLOCKED', agent_message: '', developer_fields: {}, proof_ref: PROOF },
      { ...verifiedDiagnostic(), is_authoritative: false },
      { ...verifiedDiagnostic(), admission: 'MAYBE' },
      { status: 'UNVERIFIABLE', agent_message: '', developer_fields: {}, proof_ref: null, admission: 'ADMIT' },
      { ...verifiedDiagnostic(), developer_fields: { is_valid: 'yes' } },
      { ...verifiedDiagnostic(), developer_fields: { evaluated_expression: '' } },
      { ...verifiedDiagnostic(), unexpected: 1 },
      { ...verifiedDiagnostic(), developer_fields: { x: Number.POSITIVE_INFINITY } },
      { ...verifiedDiagnostic(), agent_message: 'bad \udc00' },
    ];
    for (const diagnostic of malformed) {
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic, attestation_token: await token() },
        opts(),
      );
      expectBlocked(r, 'trust_gate.malformed_diagnostic');
      if (!r.ok) continue;
      // The malformed content is not copied into the document; the query is the statement.
      expect(Object.keys(r.document.context.evidence.evidence).sort()).toEqual(['trust_gate', 'trust_gate_reason']);
      expect(r.document.object.formal_statement).toBe(QUERY);
    }
  });

  it('blocks a VERIFIED diagnostic without attestation_token', async () => {
    for (const attestation_token of [undefined, null, '']) {
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token },
        opts(),
      );
      expectBlocked(r, 'trust_gate.mandatory_attestation_missing');
      if (r.ok) expect(r.document.context.evidence.evidence.diagnostic).toEqual(verifiedDiagnostic());
    }
  });

  it('blocks invalid tokens', async () => {
    const good = await token();
    const [h, p, s] = good.split('.');
    const flipped = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`;
    const expired = await new AttestationSigner(key, ISSUER, -60).sign({
      evaluatedExpression: EXPR,
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: PROOF,
    });
    const wrongIssuer = await new AttestationSigner(key, 'someone-else').sign({
      evaluatedExpression: EXPR,
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: PROOF,
    });
    const foreign = await otherSigner.sign({
      evaluatedExpression: EXPR,
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: PROOF,
    });
    const hs256 = await new SignJWT({ svc: {} })
      .setProtectedHeader({ alg: 'HS256', typ: ATTESTATION_TYP, kid: key.kid })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    const tamperedPayload = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), iss: 'x' })).toString('base64url')}.${s}`;
    for (const t of ['not-a-jwt', flipped, expired.token, wrongIssuer.token, foreign.token, hs256, tamperedPayload]) {
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: t },
        opts(),
      );
      expectBlocked(r, 'trust_gate.invalid_attestation_token');
    }
    // No configured keys: nothing can verify.
    const r = await fromDiagnostic(
      { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: good },
      { ...opts(), publicJwks: [] },
    );
    expectBlocked(r, 'trust_gate.invalid_attestation_token');
  });

  it('blocks valid tokens whose claims do not match the diagnostic', async () => {
    const cases: Array<[Promise<string>, string]> = [
      [token({ status: 'UNVERIFIABLE' }), 'trust_gate.claims_status_mismatch'],
      [token({ verified: false }), 'trust_gate.claims_status_mismatch'],
      [token({ expr: QUERY }), 'trust_gate.claims_query_mismatch'],
      [token({ expr: '2 + 2 = 5' }), 'trust_gate.claims_query_mismatch'],
      [token({ proofRef: `sha256:${'cd'.repeat(32)}` }), 'trust_gate.claims_proof_mismatch'],
      [token({ proofRef: null }), 'trust_gate.claims_proof_mismatch'],
    ];
    for (const [t, code] of cases) {
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: await t },
        opts(),
      );
      expectBlocked(r, code);
      if (r.ok) expect(r.document.context.evidence.evidence.diagnostic).toEqual(verifiedDiagnostic());
    }
  });

  it('blocks valid tokens with missing claims', async () => {
    const now = Math.floor(Date.now() / 1000);
    const sign = (svc: unknown, sub = queryHash(EXPR)) =>
      new SignJWT(svc === undefined ? {} : { svc })
        .setProtectedHeader({ alg: 'ES256', typ: ATTESTATION_TYP, kid: key.kid })
        .setIssuer(ISSUER)
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .setJti('att_test')
        .sign(key.privateKey);
    const result = { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 };
    const missing = [
      await sign(undefined),
      await sign({ version: '7.3.0', result, proof_hash: PROOF }), // no query_hash
      await sign({ version: '7.3.0', query_hash: queryHash(EXPR), proof_hash: PROOF }), // no result
      await sign({ version: '7.3.0', result, query_hash: queryHash(EXPR) }), // no proof_hash
      await sign({ version: '7.3.0', result: { status: 'VERIFIED' }, query_hash: queryHash(EXPR), proof_hash: PROOF }), // no verified
    ];
    for (const t of missing) {
      const r = await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: t },
        opts(),
      );
      expectBlocked(r, 'trust_gate.claims_missing');
    }
    // Hand-built but complete claims pass, which shows the cases above fail only for what is missing.
    const complete = await sign({ version: '7.3.0', result, query_hash: queryHash(EXPR), proof_hash: PROOF });
    const ok = await fromDiagnostic(
      { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: complete },
      opts(),
    );
    expect(ok.ok && ok.document.verdict).toBe('VERIFIED');
    // sub must bind the same statement.
    const badSub = await sign(
      { version: '7.3.0', result, query_hash: queryHash(EXPR), proof_hash: PROOF },
      queryHash('other'),
    );
    expectBlocked(
      await fromDiagnostic(
        { query: QUERY, verifier: 'math', diagnostic: verifiedDiagnostic(), attestation_token: badSub },
        opts(),
      ),
      'trust_gate.claims_query_mismatch',
    );
  });

  it('rejects malformed request envelopes without building a document', async () => {
    const diag = verifiedDiagnostic();
    expect(await fromDiagnostic(null, opts())).toEqual({
      ok: false,
      error: 'invalid_request',
      errors: [{ path: '$', message: 'request must be an object' }],
    });
    expect(await fromDiagnostic({ verifier: 'math', diagnostic: diag }, opts())).toEqual({
      ok: false,
      error: 'invalid_request',
      errors: [{ path: '$.query', message: 'is required (non-empty string)' }],
    });
    expect(
      await fromDiagnostic({ query: '', verifier: '', verifier_version: 3, attestation_token: 5 }, opts()),
    ).toEqual({
      ok: false,
      error: 'invalid_request',
      errors: [
        { path: '$.query', message: 'is required (non-empty string)' },
        { path: '$.verifier', message: 'is required (non-empty string)' },
        { path: '$.verifier_version', message: 'must be a non-empty string when present' },
        { path: '$.attestation_token', message: 'must be a string when present' },
        { path: '$.diagnostic', message: 'is required' },
      ],
    });
    expect(await fromDiagnostic({ query: 'a\ud800', verifier: 'math', diagnostic: diag }, opts())).toEqual({
      ok: false,
      error: 'invalid_request',
      errors: [{ path: '$.query', message: 'must not contain lone surrogates' }],
    });
  });

  it('names theories for known verifiers and defaults to the verifier name', () => {
    expect(theoryForVerifier('SymPy')).toBe('symbolic algebra over the reals');
    expect(theoryForVerifier('Z3')).toBe('satisfiability modulo theories');
    expect(theoryForVerifier('custom-engine')).toBe('custom-engine');
    expect(theoryForVerifier('constructor')).toBe('constructor');
  });
});
