// POST /verify/consensus against the test stack (the worker runs the sandboxed Python and
// statistics engines in Docker: infra/test.sh builds the image first).
import { beforeAll, describe, expect, it } from 'vitest';
import { db, newTenant, post, type Member } from './helpers.js';

const CHAIN_KEYS = ['advisory', 'confidence', 'engine', 'latency_ms', 'method', 'result', 'status', 'success'];

describe('POST /verify/consensus', () => {
  let t: Member;
  const consensus = (body: unknown) => post('/verify/consensus', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('single mode: an identity proven by the math engine is VERIFIED, with a retained consensus proof and an attestation', async () => {
    const res = await consensus({ query: '(x + 1)^2 = x^2 + 2*x + 1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-workflow-id')).toMatch(/^verify-consensus-/);
    const b = res.body;
    expect(b).toMatchObject({
      status: 'VERIFIED',
      final_answer: 'true',
      confidence: 100,
      engines_used: 1,
      agreement_status: 'UNANIMOUS',
      meets_requirement: true,
      verification_mode: 'single',
      min_confidence: 0.95,
      query_kind: 'arithmetic',
    });
    expect(b.verification_chain).toHaveLength(1);
    const [math] = b.verification_chain;
    expect(math).toMatchObject({
      engine: 'math',
      method: 'canonical_form',
      result: 'true',
      confidence: 100,
      success: true,
      status: 'VERIFIED',
      advisory: false,
    });
    for (const k of CHAIN_KEYS) expect(math).toHaveProperty(k);
    expect(math.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.proof_ref).not.toBe(math.proof_ref);
    expect(typeof b.total_latency_ms).toBe('number');
    const proofs = (await db()).collection('proofs');
    const consensusProof = await proofs.findOne({ _id: b.proof_ref });
    expect(consensusProof?.engine).toBe('consensus');
    expect(consensusProof?.artifact).toMatchObject({
      method: 'unanimous_verified_consensus',
      final_answer: 'true',
      verification_mode: 'single',
      engines: [{ engine: 'math', status: 'VERIFIED', proof_ref: math.proof_ref }],
    });
    expect((await proofs.findOne({ _id: math.proof_ref }))?.engine).toBe('math');
    const v = await post('/attestation/verify', { token: b.attestation.token }, { 'x-api-key': t.key });
    expect(v.body.valid).toBe(true);
    expect(v.body.claims.svc.result).toMatchObject({ status: 'VERIFIED', verified: true, engine: 'consensus' });
    expect(v.body.claims.svc.proof_hash).toBe(b.proof_ref);
  });

  it('single mode: a bare expression is evaluated exactly but is not VERIFIED (no proof_ref)', async () => {
    const res = await consensus({ query: '1/3 + 1/6' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      final_answer: '0.5',
      confidence: 100,
      agreement_status: 'UNANIMOUS',
      meets_requirement: false,
    });
    expect(res.body.proof_ref).toBeUndefined();
    expect(res.body.attestation).toBeUndefined();
    expect(res.body.verification_chain[0]).toMatchObject({
      engine: 'math',
      method: 'exact_evaluation',
      status: 'UNVERIFIABLE',
      success: true,
    });
  });

  it('single mode: a false equation answers "false", UNVERIFIABLE', async () => {
    const res = await consensus({ query: '2 + 2 = 5' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      final_answer: 'false',
      meets_requirement: false,
      agreement_status: 'UNANIMOUS',
    });
  });

  it('high mode: the Python engine agrees but is advisory, so the consensus is not VERIFIED', async () => {
    const res = await consensus({ query: '2^10 = 1024', verification_mode: 'high' });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      status: 'UNVERIFIABLE',
      final_answer: 'true',
      confidence: 100,
      engines_used: 2,
      agreement_status: 'UNANIMOUS',
      meets_requirement: false,
    });
    expect(b.proof_ref).toBeUndefined();
    expect(b.verification_chain.map((e: any) => [e.engine, e.status, e.result, e.success, e.advisory])).toEqual([
      ['math', 'VERIFIED', 'true', true, false],
      ['python', 'UNVERIFIABLE', 'true', true, true],
    ]);
    expect(b.verification_chain[1].method).toBe('fractions');
  });

  it('high mode: exact decimal arithmetic (0.1 + 0.2 is exactly 0.3 in both engines)', async () => {
    const res = await consensus({ query: '0.1 + 0.2', verification_mode: 'high' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      final_answer: '0.3',
      agreement_status: 'UNANIMOUS',
      confidence: 100,
      status: 'UNVERIFIABLE',
    });
  });

  it('maximum mode: Z3 proves the negation of the identity UNSAT (VERIFIED entry with its proof), consensus still not VERIFIED', async () => {
    const res = await consensus({ query: '(x + 1)^2 = x^2 + 2*x + 1', verification_mode: 'maximum' });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      status: 'UNVERIFIABLE',
      final_answer: 'true',
      engines_used: 3,
      agreement_status: 'UNANIMOUS',
      meets_requirement: false,
    });
    // math 100 + python (agrees at rational sample points) 95 + z3 100, over 3 engines.
    expect(b.confidence).toBe(98.33);
    const z3 = b.verification_chain.find((e: any) => e.engine === 'z3');
    expect(z3).toMatchObject({
      method: 'smt_negated_claim',
      status: 'VERIFIED',
      result: 'true',
      success: true,
      confidence: 100,
    });
    const proof = await (await db()).collection('proofs').findOne({ _id: z3.proof_ref });
    expect(proof?.engine).toBe('logic');
    expect(proof?.artifact.result).toBe('unsat');
    expect(proof?.artifact.smtlib2).toContain('(declare-const v_x Real)');
    expect(b.verification_chain.find((e: any) => e.engine === 'python')).toMatchObject({
      method: 'fractions_sampling',
      status: 'UNVERIFIABLE',
      result: 'true',
    });
  });

  it('maximum mode on a statistic of a literal list adds the statistics engine (advisory)', async () => {
    const res = await consensus({ query: 'mean(1, 2, 3, 4) = 2.5', verification_mode: 'maximum' });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      status: 'UNVERIFIABLE',
      final_answer: 'true',
      engines_used: 4,
      agreement_status: 'UNANIMOUS',
      query_kind: 'statistical',
      meets_requirement: false,
    });
    expect(b.evaluated_expression).toBe('(1 + 2 + 3 + 4) / 4 = 2.5');
    expect(b.verification_chain.map((e: any) => [e.engine, e.status])).toEqual([
      ['math', 'VERIFIED'],
      ['python', 'UNVERIFIABLE'],
      ['z3', 'VERIFIED'],
      ['stats', 'UNVERIFIABLE'],
    ]);
    expect(b.confidence).toBe(98.75);
  });

  it('maximum mode: a median is computed by every engine and compared in decimal arithmetic', async () => {
    const res = await consensus({ query: 'median(3, 1, 2, 10)', verification_mode: 'maximum' });
    expect(res.status).toBe(200);
    expect(res.body.final_answer).toBe('2.5');
    expect(res.body.verification_chain.map((e: any) => e.result)).toEqual(['2.5', '2.5', '2.5', '2.5']);
  });

  it('answers 422 with the consensus when the confidence is below min_confidence', async () => {
    // sqrt(2): two engines agree in 64/50-digit decimals (99 each); Z3 cannot express sqrt.
    const res = await consensus({ query: 'sqrt(2)', verification_mode: 'maximum' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe('Consensus confidence 66 is below min_confidence (95).');
    expect(res.body).toMatchObject({
      confidence: 66,
      agreement_status: 'MAJORITY',
      status: 'UNVERIFIABLE',
      meets_requirement: false,
      engines_used: 3,
    });
    expect(res.body.final_answer).toMatch(/^1\.41421356237309504880168872420969807856967187537694/);
    expect(res.body.verification_chain[2]).toMatchObject({
      engine: 'z3',
      success: false,
      status: 'UNVERIFIABLE',
      confidence: 0,
    });
  });

  it('the same query passes with a lower min_confidence, and 422s when a single engine is below a strict one', async () => {
    const ok = await consensus({ query: 'sqrt(2)', verification_mode: 'maximum', min_confidence: 0.5 });
    expect(ok.status).toBe(200);
    expect(ok.body.confidence).toBe(66);
    const strict = await consensus({ query: 'sqrt(2)', min_confidence: 1 });
    expect(strict.status).toBe(422);
    expect(strict.body).toMatchObject({
      confidence: 99,
      detail: 'Consensus confidence 99 is below min_confidence (100).',
    });
  });

  it('every engine refusing (division by zero) is BLOCKED with confidence 0, hence 422', async () => {
    const res = await consensus({ query: '1/0', verification_mode: 'high' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'BLOCKED', agreement_status: 'NONE', confidence: 0, final_answer: '' });
    expect(res.body.verification_chain.every((e: any) => e.status === 'BLOCKED' && e.success === false)).toBe(true);
  });

  it('natural language the translator cannot read fails closed: UNVERIFIABLE, agreement NONE, no engine run, 200', async () => {
    const res = await consensus({ query: 'Is the sky blue today?', verification_mode: 'maximum' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      agreement_status: 'NONE',
      meets_requirement: false,
      engines_used: 0,
      confidence: 0,
      query_kind: 'natural_language',
    });
    expect(res.body.verification_chain).toHaveLength(1);
    expect(res.body.verification_chain[0]).toMatchObject({
      engine: 'natural_language',
      method: 'translation_failed',
      success: false,
      status: 'UNVERIFIABLE',
    });
    expect(res.body.verification_chain[0].result).toMatch(/local translator could not translate/);
  });

  it('natural-language arithmetic is translated first: the translation is a chain entry, never VERIFIED, and caps the consensus', async () => {
    const res = await consensus({
      query: 'Is two plus two equal to 4?',
      verification_mode: 'single',
      min_confidence: 0.5,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'UNVERIFIABLE',
      query_kind: 'natural_language',
      evaluated_expression: '2 + 2 = 4',
      engines_used: 1,
      meets_requirement: false,
    });
    expect(res.body.verification_chain).toHaveLength(2);
    expect(res.body.verification_chain[0]).toMatchObject({
      engine: 'natural_language',
      method: 'local_translation',
      result: '2 + 2 = 4',
      success: true,
      status: 'UNVERIFIABLE',
      confidence: 0,
    });
    // The engine itself proved the translated equation.
    expect(res.body.verification_chain[1]).toMatchObject({ engine: 'math', status: 'VERIFIED' });
    expect(res.body.verification_chain[1].proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res.body.proof_ref).toBeUndefined();
    expect(res.body.attestation).toBeUndefined();
  });

  it.each([
    [{ query: '1 + 1', verification_mode: 'extreme' }, /verification_mode/],
    [{ query: '1 + 1', verification_mode: 3 }, /verification_mode/],
    [{ query: '1 + 1', min_confidence: 1.5 }, /min_confidence/],
    [{ query: '1 + 1', min_confidence: -0.1 }, /min_confidence/],
    [{ query: '1 + 1', min_confidence: '0.9' }, /min_confidence/],
    [{ verification_mode: 'single' }, /query/],
    [{ query: '   ' }, /query/],
  ])('rejects %j with 400', async (body, detail) => {
    const res = await consensus(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });

  it('needs an API key', async () => {
    const res = await post('/verify/consensus', { query: '1 + 1' });
    expect(res.status).toBe(401);
  });

  it('audits the consensus like every verification', async () => {
    const res = await consensus({ query: '3 * 7 = 21' });
    expect(res.status).toBe(200);
    const wf = res.headers.get('x-workflow-id');
    const entries = await (await db()).collection('audit_logs').find({ organization_id: t.orgId }).toArray();
    const entry = entries.find((e: any) => e.result?.workflow_id === wf);
    expect(entry).toBeDefined();
    expect(entry?.domain).toBe('consensus');
    expect(entry?.verified).toBe(true);
    expect(entry?.result.proof_ref).toBe(res.body.proof_ref);
  });
});
