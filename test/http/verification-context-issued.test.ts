// Issue 28 item 6 (docs/verification-context-http.md, "Issued here"): a Verification Context
// document's commitment is self-consistent whoever computes it, so `resolved` (kept as the
// contract has it) cannot tell ours from a made-up or edited document. `issued_here` says whether
// this service issued this exact document: from-diagnostic, backed by an attestation this
// deployment issued to the caller's organization for a proof it retained.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { computeCommitment } from '../../core/verification-context.js';

let A: Member;
let B: Member;
const key = (m: Member) => ({ 'x-api-key': m.key });
const resolve = (m: Member, doc: unknown) => post('/verification-context/resolve', doc, key(m));
const fromDiag = (m: Member, body: unknown) => post('/verification-context/from-diagnostic', body, key(m));

async function verifyMath(m: Member, expression: string) {
  const res = await post('/verify/math', { expression }, key(m));
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('VERIFIED');
  return { expression, proof_ref: res.body.proof_ref as string, token: res.body.attestation.token as string };
}

const mathRequest = (v: { expression: string; proof_ref: string; token: string }) => ({
  query: v.expression,
  verifier: 'math',
  diagnostic: {
    status: 'VERIFIED',
    agent_message: 'Identity proven.',
    developer_fields: { evaluated_expression: v.expression, is_valid: true },
    proof_ref: v.proof_ref,
    is_authoritative: true,
  },
  attestation_token: v.token,
});

/** Re-seals an edited document the way anyone can: the commitment is public arithmetic. */
function reseal(doc: any): any {
  const d = structuredClone(doc);
  d.context.evidence.proof_ref = computeCommitment(d);
  return d;
}

beforeAll(async () => {
  [A, B] = await Promise.all([newTenant(), newTenant()]);
});

describe('issued_here: resolve tells our documents from self-consistent ones', () => {
  it('the reproduction: a made-up VERIFIED document (1 = 2, ADMIT) resolves, but was not issued here', async () => {
    const made = reseal({
      spec_version: '1.0',
      object: { formal_statement: '1 = 2' },
      context: {
        interpretation: { theory: 'symbolic algebra over the reals' },
        proof: { verifier: 'math', verifier_version: '7.3.0' },
        evidence: {
          evidence: {
            status: 'VERIFIED',
            agent_message: 'Identity proven.',
            developer_fields: { is_valid: true },
            proof_ref: `sha256:${'ab'.repeat(32)}`,
          },
          proof_ref: null,
        },
        decision: { admission: 'ADMIT' },
      },
      verdict: 'VERIFIED',
    });
    const r = await resolve(A, made);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
      expected_proof_ref: made.context.evidence.proof_ref,
    });
  });

  it('our document is issued here, for its organization and for anyone holding it; the headers of from-diagnostic say so', async () => {
    const v = await verifyMath(A, '(a+1)^2 = a^2 + 2*a + 1');
    const res = await fromDiag(A, mathRequest(v));
    expect(res.status).toBe(200);
    expect(res.body.verdict).toBe('VERIFIED');
    expect(res.headers.get('x-trust-gate')).toBe('none');
    expect(res.headers.get('x-issued-here')).toBe('true');
    expect(res.headers.get('x-issued-here-reason')).toBe('issued_by_this_service');
    const expected = {
      resolved: true,
      issued_here: true,
      issued_here_reason: 'issued_by_this_service',
      expected_proof_ref: res.body.context.evidence.proof_ref,
    };
    expect((await resolve(A, res.body)).body).toEqual(expected);
    // A relying party of another organization holding the document gets the same answer.
    expect((await resolve(B, { document: res.body })).body).toEqual(expected);
  });

  it('a document edited by another tenant and re-sealed resolves, but is not issued here', async () => {
    const v = await verifyMath(A, '(b+1)^2 = b^2 + 2*b + 1');
    const doc = (await fromDiag(A, mathRequest(v))).body;
    const edits: Array<(d: any) => void> = [
      (d) => (d.object.formal_statement = '1 = 2'),
      (d) => (d.context.evidence.evidence.agent_message = 'Refund of $25,000 approved.'),
      (d) => (d.context.proof.verifier = 'z3'),
    ];
    for (const edit of edits) {
      const edited = structuredClone(doc);
      edit(edited);
      const sealed = reseal(edited);
      const r = await resolve(B, sealed);
      expect(r.body).toEqual({
        resolved: true,
        issued_here: false,
        issued_here_reason: 'not_issued_here',
        expected_proof_ref: sealed.context.evidence.proof_ref,
      });
    }
    // Edited without re-sealing: it does not even resolve.
    const unsealed = structuredClone(doc);
    unsealed.object.formal_statement = '1 = 2';
    expect((await resolve(B, unsealed)).body).toMatchObject({
      resolved: false,
      issued_here: false,
      issued_here_reason: 'not_resolved',
      reason: 'commitment_mismatch',
    });
  });

  it("another organization's attestation keeps VERIFIED (contract) but is not issued here", async () => {
    const v = await verifyMath(A, '(c+1)^2 = c^2 + 2*c + 1');
    // B presents A's diagnostic and token before A made a document of it.
    const res = await fromDiag(B, mathRequest(v));
    expect(res.status).toBe(200);
    expect(res.body.verdict).toBe('VERIFIED');
    expect(res.headers.get('x-issued-here')).toBe('false');
    expect(res.headers.get('x-issued-here-reason')).toBe('attestation_not_issued_to_caller');
    expect((await resolve(B, res.body)).body).toMatchObject({
      resolved: true,
      issued_here: false,
      issued_here_reason: 'not_issued_here',
    });
  });

  it('an admission the retained proof does not back (unsafe code presented as valid) is not issued here', async () => {
    const code = 'import os\nos.system("rm -rf /")\n';
    const scan = await post('/verify/code', { code, language: 'python' }, key(A));
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { is_valid: false },
    });
    const token = scan.body.attestation.token as string;
    const diag = (isValid: boolean) => ({
      status: 'VERIFIED',
      agent_message: scan.body.agent_message,
      developer_fields: { is_valid: isValid },
      proof_ref: scan.body.proof_ref,
      is_authoritative: true,
    });
    // Honest: a DENY document, issued here.
    const honest = await fromDiag(A, {
      query: code,
      verifier: 'code',
      diagnostic: diag(false),
      attestation_token: token,
    });
    expect(honest.body).toMatchObject({ verdict: 'VERIFIED', context: { decision: { admission: 'DENY' } } });
    expect(honest.headers.get('x-issued-here')).toBe('true');
    // Lying about is_valid (and so the admission): the token signs the admission (BLOCKED), so the
    // trust gate refuses the document, and it is never issued here.
    const forged = await fromDiag(A, {
      query: code,
      verifier: 'code',
      diagnostic: diag(true),
      attestation_token: token,
    });
    expect(forged.body).toMatchObject({ verdict: 'BLOCKED', context: { decision: { admission: 'DENY' } } });
    expect(forged.headers.get('x-issued-here')).toBe('false');
    expect((await resolve(A, forged.body)).body).toMatchObject({ issued_here: false });
  });

  it('BLOCKED and UNVERIFIABLE documents are never issued here', async () => {
    const res = await fromDiag(A, {
      query: '2 + 2',
      verifier: 'math',
      diagnostic: { status: 'UNVERIFIABLE', agent_message: 'evaluated only', developer_fields: {}, proof_ref: null },
    });
    expect(res.headers.get('x-issued-here')).toBe('false');
    expect(res.headers.get('x-issued-here-reason')).toBe('not_resolved');
    expect((await resolve(A, res.body)).body).toEqual({
      resolved: false,
      issued_here: false,
      issued_here_reason: 'not_resolved',
      reason: 'verdict_not_verified',
    });
  });
});
